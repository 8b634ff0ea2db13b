// The history bench (issue 16): time_session_list, time_stats and
// time_session_report through the real server
// over 10,000 ended sessions x 50 tasks (bench/history.sh fills the data
// directory with build/history_fill). One stdio server, one client, calls
// one after another; each scenario: WARMUP calls, then N timed (from the
// request line written to its reply line read). Prints p50/p90/p99/max.
//
// Usage: node bench/history.mjs BINARY DATA_DIR [N=300] [WARMUP=30]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [binary, dir, nArg, warmArg] = process.argv.slice(2);
if (!binary || !dir) {
  console.error('usage: node bench/history.mjs BINARY DATA_DIR [N] [WARMUP]');
  process.exit(2);
}
const N = Number(nArg ?? 300);
const WARMUP = Number(warmArg ?? 30);

const child = spawn(binary, ['stdio', '--data-dir', dir, '--log-level', 'warning', '--toolsets', 'all'],
  { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout });
const waiting = [];
lines.on('line', (line) => waiting.shift()?.(line));
let nextId = 1;
function rpc(method, params) {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.push((line) => resolve(JSON.parse(line)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
}
async function list(args) {
  const res = await rpc('tools/call', { name: 'time_session_list', arguments: args });
  const sc = res.result?.structuredContent;
  if (!sc || res.result.isError) throw new Error(`time_session_list failed: ${JSON.stringify(res)}`);
  return sc;
}

await rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'history-bench', version: '1' } });
child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

// The cursor of a deep page: page through (100 rows a page) to row ~9,000.
let cursor;
let rows = 0;
while (rows < 9_000) {
  const sc = await list({ limit: 100, ...(cursor ? { cursor } : {}) });
  rows += sc.sessions.length;
  if (!sc.next_cursor) break;
  cursor = sc.next_cursor;
}

const scenarios = [
  ['first page (20 rows)', {}],
  ['filtered page (status, tag, text)', { status: 'ended', tags: ['team:1'], text: 'm-7' }],
  [`deep cursor page (after row ${rows})`, { cursor }],
  ['started in a 7-day window', { started_after: '10 days ago', started_before: '3 days ago' }],
];
// Focus sessions beside them (issue 19), where the server lists them.
const { tools } = (await rpc('tools/list', {})).result;
if (tools.find((t) => t.name === 'time_session_list')?.inputSchema.properties.kind) {
  scenarios.push(['first page, kind all (tracking + focus)', { kind: 'all' }]);
  scenarios.push(['first page, kind focus', { kind: 'focus' }]);
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
console.log(`time_session_list over ${dir}: ${N} timed calls per scenario after ${WARMUP} warm-up calls (ms)`);
console.log('| scenario | rows | p50 | p90 | p99 | max |');
console.log('|---|---|---|---|---|---|');
for (const [name, args] of scenarios) {
  let got = 0;
  for (let i = 0; i < WARMUP; i++) got = (await list(args)).sessions.length;
  const ms = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await list(args);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const f = (x) => x.toFixed(2);
  console.log(`| ${name} | ${got} | ${f(pct(ms, 50))} | ${f(pct(ms, 90))} | ${f(pct(ms, 99))} | ${f(ms[ms.length - 1])} |`);
}
async function stats(args) {
  const res = await rpc('tools/call', { name: 'time_stats', arguments: args });
  const sc = res.result?.structuredContent;
  if (!sc || res.result.isError) throw new Error(`time_stats failed: ${JSON.stringify(res)}`);
  return sc;
}
const NS = Math.max(10, Math.floor(N / 10));
const WS = Math.max(2, Math.floor(WARMUP / 10));
console.log(`\ntime_stats: ${NS} timed calls per scenario after ${WS} warm-up calls (ms)`);
console.log('| scenario | sessions | groups | p50 | p90 | p99 | max |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, args] of [
  ['30 days by day', { group_by: 'day', from: '30 days ago' }],
  ['30 days by milestone', { group_by: 'milestone', from: '30 days ago' }],
  ['30 days by task', { group_by: 'task', from: '30 days ago' }],
  ['30 days by week, one tag', { group_by: 'week', from: '30 days ago', tags: ['area:2'] }],
]) {
  let sc;
  for (let i = 0; i < WS; i++) sc = await stats(args);
  const ms = [];
  for (let i = 0; i < NS; i++) {
    const t = process.hrtime.bigint();
    await stats(args);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const f = (x) => x.toFixed(1);
  console.log(`| ${name} | ${sc.totals.sessions} | ${sc.groups.length} | ${f(pct(ms, 50))} | ${f(pct(ms, 90))} | ${f(pct(ms, 99))} | ${f(ms[ms.length - 1])} |`);
}
// time_session_report of historical sessions (50 tasks each), a different
// one per call (ids from the first list pages: the server holds none of
// them, so each call reads its events from the journal).
const reportIds = [];
cursor = undefined;
while (reportIds.length < 1_000) {
  const sc = await list({ limit: 100, ...(cursor ? { cursor } : {}) });
  reportIds.push(...sc.sessions.map((r) => r.session_id));
  if (!sc.next_cursor) break;
  cursor = sc.next_cursor;
}
async function report(args) {
  const res = await rpc('tools/call', { name: 'time_session_report', arguments: args });
  if (!res.result || res.result.isError) throw new Error(`time_session_report failed: ${JSON.stringify(res)}`);
  return res.result;
}
console.log(`\ntime_session_report: ${N} timed calls per format after ${WARMUP} warm-up calls, each of another of ${reportIds.length} sessions (ms)`);
console.log('| format | bytes | p50 | p90 | p99 | max |');
console.log('|---|---|---|---|---|---|');
let next = 0;
const pick = () => reportIds[next++ % reportIds.length];
for (const format of ['markdown', 'csv', 'json', 'html']) {
  let bytes = 0;
  for (let i = 0; i < WARMUP; i++) await report({ session_id: pick(), format });
  const ms = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    const r = await report({ session_id: pick(), format });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    bytes = r.content.reduce((n, c) => n + (c.text?.length ?? 0), 0);
  }
  ms.sort((a, b) => a - b);
  const f = (x) => x.toFixed(2);
  console.log(`| ${format} | ${bytes} | ${f(pct(ms, 50))} | ${f(pct(ms, 90))} | ${f(pct(ms, 99))} | ${f(ms[ms.length - 1])} |`);
}
child.stdin.end();
await new Promise((resolve) => child.once('exit', resolve));
