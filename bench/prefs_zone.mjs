// A call without its zone (issue 19): time_get_current with `{}` uses the
// caller's preferred zone, read from the journal (or the client's cache of
// it, prefs_cache_ttl), against the same call naming its zone, which reads
// nothing. One stdio server per binary on a fresh data directory, one
// client, calls one after another, the two kinds alternating; WARMUP calls,
// then N timed of each (request line written -> reply line read). Several
// binaries (e.g. before and after a change) run one after another in one
// run, so their figures come from the same machine state.
//
// Usage: node bench/prefs_zone.mjs BINARY [BINARY...] [--n N] [--warmup W]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  return v;
};
const N = opt('--n', 2000);
const WARMUP = opt('--warmup', 200);
if (argv.length === 0) {
  console.error('usage: node bench/prefs_zone.mjs BINARY [BINARY...] [--n N] [--warmup W]');
  process.exit(2);
}

async function measure(binary) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ttm-prefs-bench-'));
  const child = spawn(binary, ['stdio', '--data-dir', dir, '--log-level', 'warning'],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  let nextId = 1;
  const rpc = (method, params) => new Promise((resolve) => {
    waiting.push((line) => resolve(JSON.parse(line)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })}\n`);
  });
  await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'prefs-bench', version: '1' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const kinds = [['omitted (caller\'s zone)', {}], ['named ("UTC")', { timezone: 'UTC' }]];
  const times = kinds.map(() => []);
  for (let i = 0; i < WARMUP + N; i++) {
    for (const [k, [, args]] of kinds.entries()) {
      const t = process.hrtime.bigint();
      const res = await rpc('tools/call', { name: 'time_get_current', arguments: args });
      const us = Number(process.hrtime.bigint() - t) / 1e3;
      if (!res.result || res.result.isError) throw new Error(JSON.stringify(res));
      if (i >= WARMUP) times[k].push(us);
    }
  }
  child.stdin.end();
  await new Promise((resolve) => child.on('close', resolve));
  rmSync(dir, { recursive: true, force: true });
  return kinds.map(([name], k) => [name, times[k].sort((a, b) => a - b)]);
}

const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
console.log(`time_get_current, ${N} timed calls of each kind after ${WARMUP} (µs)`);
console.log('| binary | timezone | p50 | p90 | p99 |');
console.log('|---|---|---|---|---|');
for (const binary of argv) {
  for (const [name, s] of await measure(binary)) {
    console.log(`| ${binary} | ${name} | ${pct(s, 50).toFixed(0)} | ${pct(s, 90).toFixed(0)} | ${pct(s, 99).toFixed(0)} |`);
  }
}
