// Two server builds side by side on one history store (bench/history.sh
// fills it): time_stats calls alternate between them, so both see the same
// machine load; prints p50/p90 per build and the ratio of the medians.
//
// Usage: node bench/history_ab.mjs BINARY_A BINARY_B DATA_DIR [N=60] [WARMUP=5]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [binA, binB, dir, nArg, warmArg] = process.argv.slice(2);
if (!binA || !binB || !dir) {
  console.error('usage: node bench/history_ab.mjs BINARY_A BINARY_B DATA_DIR [N] [WARMUP]');
  process.exit(2);
}
const N = Number(nArg ?? 60);
const WARMUP = Number(warmArg ?? 5);

function server(binary) {
  const child = spawn(binary, ['stdio', '--data-dir', dir, '--log-level', 'warning', '--toolsets', 'all'],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  let nextId = 1;
  const rpc = (method, params) => new Promise((resolve) => {
    waiting.push((line) => resolve(JSON.parse(line)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })}\n`);
  });
  return { child, rpc };
}

async function stats(s, args) {
  const t0 = process.hrtime.bigint();
  const res = await s.rpc('tools/call', { name: 'time_stats', arguments: args });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!res.result?.structuredContent || res.result.isError) throw new Error(`time_stats failed: ${JSON.stringify(res)}`);
  return ms;
}

const servers = [server(binA), server(binB)];
for (const s of servers) {
  await s.rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ab', version: '1' } });
  s.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
console.log(`time_stats, A = ${binA}, B = ${binB}: ${N} calls each, alternating, after ${WARMUP} (ms)`);
console.log('| scenario | A p50 | A p90 | B p50 | B p90 | B/A p50 |');
console.log('|---|---|---|---|---|---|');
for (const [name, args] of [
  ['30 days by day', { group_by: 'day', from: '30 days ago' }],
  ['30 days by task', { group_by: 'task', from: '30 days ago' }],
  ['30 days by week, one tag', { group_by: 'week', from: '30 days ago', tags: ['area:2'] }],
]) {
  for (let i = 0; i < WARMUP; i++) for (const s of servers) await stats(s, args);
  const times = [[], []];
  for (let i = 0; i < N; i++) {
    // Alternate which goes first, so neither always follows the other.
    const order = i % 2 ? [1, 0] : [0, 1];
    for (const k of order) times[k].push(await stats(servers[k], args));
  }
  const [a, b] = times.map((t) => t.sort((x, y) => x - y));
  console.log(`| ${name} | ${pct(a, 50).toFixed(1)} | ${pct(a, 90).toFixed(1)} | ${pct(b, 50).toFixed(1)} | ${pct(b, 90).toFixed(1)} | ${(pct(b, 50) / pct(a, 50)).toFixed(2)} |`);
}
for (const s of servers) s.child.stdin.end();
