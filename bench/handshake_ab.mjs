// What keeping MCP sessions in the journal (issue 32) costs: two server
// builds side by side, each `http` on its own fresh --data-dir (SQLite,
// the default sync), benched in alternating rounds (A B, B A, ...) so both
// see the same machine load. Per round, on one keep-alive connection:
//   handshake: N x initialize -> reply (a new MCP session each);
//   call:      N x tools/call time_get_current on one MCP session.
// Reports per operation the median wall time (ms) and the server's CPU
// time (utime + stime from /proc/PID/stat, us), medians over the rounds.
//
// With HANDSHAKE_JOURNAL=pg: each build on its own database of one
// throw-away PostgreSQL (tests/scripts/pg_server.sh) instead, and also the
// statements each operation ran there (pg_stat_statements, as
// bench/scaleout.mjs: a statement is at most one round trip).
//
// Usage: node bench/handshake_ab.mjs BINARY_A BINARY_B [ROUNDS=6] [N=300]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Postgres } from '../tests/scaleout/lib/cluster.mjs';

const [binA, binB, roundsArg = '6', nArg = '300'] = process.argv.slice(2);
if (!binA || !binB) {
  console.error('usage: node bench/handshake_ab.mjs BINARY_A BINARY_B [ROUNDS] [N]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg);
const N = Number(nArg);
const TICK_US = 1e6 / 100; // USER_HZ

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const pg = process.env.HANDSHAKE_JOURNAL === 'pg' ? Postgres.start() : null;

/** SQL on the throw-away server (database `db`); the rows, tab-separated. */
function psql(sql, db) {
  const u = new URL(pg.url);
  const r = spawnSync(join(PG_BIN, 'psql'), ['-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username),
    '-d', db ?? u.pathname.slice(1), '-AtqF', '\t', '-c', sql], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr || r.error}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t'));
}

if (pg) {
  psql("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  pg.stop();
  pg.restartAfterStop();
  psql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  for (const db of ['bench_a', 'bench_b']) psql(`CREATE DATABASE ${db}`);
}

/** Statements run so far in `db` (pg_stat_statements; 0 on SQLite). */
function statementsIn(db) {
  if (!pg) return 0;
  return Number(psql('SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE dbid ='
    + ` (SELECT oid FROM pg_database WHERE datname = '${db}')`)[0][0]);
}

async function start(binary, db) {
  const dir = mkdtempSync(join(tmpdir(), 'ttm-handshake-'));
  let storage = ['--data-dir', dir];
  if (pg) {
    const u = new URL(pg.url);
    u.pathname = `/${db}`;
    storage = ['--journal', u.toString()];
  }
  const child = spawn(binary, ['http', '--listen', '127.0.0.1:0', ...storage],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      text += c;
      const m = /serving MCP over HTTP at (http:\/\/[^\s;]+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`${binary} exited: ${text}`)));
  });
  return { child, url, dir, db };
}

function cpuUs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST', agent,
      headers: {
        'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
        'Content-Length': Buffer.byteLength(body), ...headers,
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
});
const CALL = JSON.stringify({
  jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'time_get_current', arguments: { timezone: 'UTC' } },
});

async function round(server) {
  const pid = server.child.pid;
  let st0 = statementsIn(server.db);
  let cpu0 = cpuUs(pid);
  let t0 = process.hrtime.bigint();
  let session;
  for (let i = 0; i < N; i += 1) {
    const r = await post(server.url, INIT);
    if (r.status !== 200) throw new Error(`initialize: ${r.status} ${r.body}`);
    session = r.headers['mcp-session-id'];
    // Each session ends, so the directory's cap never fills.
    if (i < N - 1) {
      await new Promise((resolve, reject) => {
        const req = http.request(server.url, {
          method: 'DELETE', agent, headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' },
        }, (res) => { res.resume(); res.on('end', resolve); });
        req.on('error', reject);
        req.end();
      });
    }
  }
  const handshake = { ms: Number(process.hrtime.bigint() - t0) / 1e6 / N, cpu: (cpuUs(pid) - cpu0) / N };
  handshake.st = (statementsIn(server.db) - st0) / N; // with its DELETE
  const h = { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25' };
  st0 = statementsIn(server.db);
  cpu0 = cpuUs(pid);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i += 1) {
    const r = await post(server.url, CALL, h);
    if (r.status !== 200) throw new Error(`call: ${r.status} ${r.body}`);
  }
  const call = { ms: Number(process.hrtime.bigint() - t0) / 1e6 / N, cpu: (cpuUs(pid) - cpu0) / N };
  call.st = (statementsIn(server.db) - st0) / N;
  return { handshake, call };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const a = await start(binA, 'bench_a');
const b = await start(binB, 'bench_b');
const res = { A: [], B: [] };
try {
  await round(a); await round(b); // warm-up
  for (let r = 0; r < ROUNDS; r += 1) {
    const order = r % 2 === 0 ? [['A', a], ['B', b]] : [['B', b], ['A', a]];
    for (const [name, s] of order) res[name].push(await round(s));
  }
} finally {
  for (const s of [a, b]) { s.child.kill('SIGTERM'); }
  agent.destroy();
  if (pg) await new Promise((resolve) => { setTimeout(resolve, 500); });
  pg?.remove();
}
for (const op of ['handshake', 'call']) {
  const row = (name) => ({
    ms: median(res[name].map((x) => x[op].ms)), cpu: median(res[name].map((x) => x[op].cpu)),
    st: median(res[name].map((x) => x[op].st)),
  });
  const ra = row('A');
  const rb = row('B');
  const st = (r) => (pg ? ` ${r.st.toFixed(2)} statements` : '');
  console.log(`${op.padEnd(9)} A ${ra.ms.toFixed(3)} ms ${ra.cpu.toFixed(0)} us CPU${st(ra)} | B ${rb.ms.toFixed(3)} ms `
    + `${rb.cpu.toFixed(0)} us CPU${st(rb)} | B-A ${(rb.ms - ra.ms).toFixed(3)} ms ${(rb.cpu - ra.cpu).toFixed(0)} us CPU`);
}
for (const s of [a, b]) rmSync(s.dir, { recursive: true, force: true });
