// Two server builds side by side on one history store (bench/history.sh
// fills it): each scenario's calls alternate between them, so both see the
// same machine load; prints per build p50/p99 and CPU per call, and the
// ratio of the medians. CPU per call is the server process's utime+stime
// (/proc/PID/stat) over the timed calls, plus, on PostgreSQL, that of the
// backends the server opened (children of the postmaster that appeared
// when it started, and those that exited during its calls, such as parallel
// workers: set PG_POSTMASTER_PID). The server's journal comes from
// the environment (TIME_TRACKER_MCP_JOURNAL), as with bench/history.sh.
//
// Usage: node bench/history_ab.mjs BINARY_A BINARY_B DATA_DIR [N=60] [WARMUP=5] [LIST_N=N*3]
import { readFileSync, readdirSync } from 'node:fs';

import { abServer } from './ab_server.mjs';

const [binA, binB, dir, nArg, warmArg, listArg] = process.argv.slice(2);
if (!binA || !binB || !dir) {
  console.error('usage: node bench/history_ab.mjs BINARY_A BINARY_B DATA_DIR [N] [WARMUP] [LIST_N]');
  process.exit(2);
}
const N = Number(nArg ?? 60);
const WARMUP = Number(warmArg ?? 5);
const LIST_N = Number(listArg ?? N * 3);
const postmaster = Number(process.env.PG_POSTMASTER_PID ?? 0);
const TICK_MS = 10; // USER_HZ 100 (getconf CLK_TCK)

function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return null; // gone
  }
}
/// The postmaster's children now (its backends among them).
function backends() {
  if (!postmaster) return new Set();
  const out = new Set();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (stat(name)?.ppid === postmaster) out.add(Number(name));
  }
  return out;
}

// B may run on a store of its own (bench/ab_server.mjs).
function server(binary, b = false) {
  const { child, rpc } = abServer(binary, dir, b);
  const s = { child, rpc, pids: [child.pid] };
  // Plus the CPU of the postmaster's children that exited (parallel
  // workers a statement started): calls alternate one at a time, so what
  // exits during a call is that call's.
  s.cpu = () => s.pids.reduce((n, pid) => n + (stat(pid)?.cpu ?? 0), 0)
    + (postmaster ? stat(postmaster)?.reaped ?? 0 : 0);
  return s;
}

async function call(s, name, args) {
  const t0 = process.hrtime.bigint();
  const res = await s.rpc('tools/call', { name, arguments: args });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!res.result?.structuredContent || res.result.isError) throw new Error(`${name} failed: ${JSON.stringify(res)}`);
  return { ms, sc: res.result.structuredContent };
}

const servers = [];
for (const [k, binary] of [binA, binB].entries()) {
  const before = backends();
  const s = server(binary, k === 1);
  await s.rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ab', version: '1' } });
  s.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await call(s, 'time_session_list', {}); // connects (PostgreSQL) before the backends are told apart
  for (const pid of backends()) if (!before.has(pid)) s.pids.push(pid);
  servers.push(s);
}
// The cursor of a deep page (row ~9,000), from build A (both read it alike).
let cursor;
for (let rows = 0; rows < 9_000;) {
  const { sc } = await call(servers[0], 'time_session_list', { limit: 100, ...(cursor ? { cursor } : {}) });
  rows += sc.sessions.length;
  if (!sc.next_cursor) break;
  cursor = sc.next_cursor;
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
console.log(`A = ${binA}, B = ${binB}, ${process.env.TIME_TRACKER_MCP_JOURNAL ?? 'sqlite'}: calls alternating`
  + ` (time_stats ${N}, lists ${LIST_N} each) after ${WARMUP}; ms; CPU = server`
  + `${postmaster ? ' + its PostgreSQL backends (' + servers.map((s) => s.pids.length - 1).join(', ') + ')' : ''}`);
console.log('| scenario | A p50 | A p99 | A CPU/call | B p50 | B p99 | B CPU/call | B/A p50 | B/A CPU |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [name, tool, args] of [
  ['stats: 30 days by day', 'time_stats', { group_by: 'day', from: '30 days ago' }],
  ['stats: 30 days by milestone', 'time_stats', { group_by: 'milestone', from: '30 days ago' }],
  ['stats: 30 days by task', 'time_stats', { group_by: 'task', from: '30 days ago' }],
  ['stats: 30 days by week, one tag', 'time_stats', { group_by: 'week', from: '30 days ago', tags: ['area:2'] }],
  ['list: first page', 'time_session_list', {}],
  ['list: filtered page', 'time_session_list', { status: 'ended', tags: ['team:1'], text: 'm-7' }],
  ['list: deep cursor page', 'time_session_list', { cursor }],
  ['list: 7-day window', 'time_session_list', { started_after: '10 days ago', started_before: '3 days ago' }],
  ['list: kind all', 'time_session_list', { kind: 'all' }],
]) {
  const n = tool === 'time_stats' ? N : LIST_N;
  for (let i = 0; i < WARMUP; i++) for (const s of servers) await call(s, tool, args);
  const times = [[], []];
  const cpu = [0, 0];
  for (let i = 0; i < n; i++) {
    // Alternate which goes first, so neither always follows the other.
    const order = i % 2 ? [1, 0] : [0, 1];
    for (const k of order) {
      const c0 = servers[k].cpu();
      times[k].push((await call(servers[k], tool, args)).ms);
      cpu[k] += servers[k].cpu() - c0;
    }
  }
  const [a, b] = times.map((t) => t.sort((x, y) => x - y));
  const [ca, cb] = cpu.map((c) => (c * TICK_MS) / n);
  const f = (x) => x.toFixed(1);
  console.log(`| ${name} | ${f(pct(a, 50))} | ${f(pct(a, 99))} | ${f(ca)} | ${f(pct(b, 50))} | ${f(pct(b, 99))} | ${f(cb)}`
    + ` | ${(pct(b, 50) / pct(a, 50)).toFixed(2)} | ${ca > 0 ? (cb / ca).toFixed(2) : '-'} |`);
}
for (const s of servers) s.child.stdin.end();
