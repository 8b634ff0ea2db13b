// Abuse while serving (issue 34 item 5): each abuser (tests/abuse/abusers.py)
// in turn against a fresh `time-tracker-mcp http` (with --auth-token-file)
// while the well-behaved client (good_client.mjs: the official SDK client
// running the spec's Pattern 1) runs from another address; measures the good
// client's latency per call, the server's RSS and descriptors
// (/proc/<pid>, every 100 ms), and the statuses the abuser got. Prints the
// abuse table (Markdown); --check asserts the documented statuses, that the
// good client got every call answered, and that RSS and descriptors stay
// bounded.
//
//   node tests/abuse/abuse.mjs --binary build/time-tracker-mcp \
//     [--only slowloris,token_guess] [--seconds 6] [--quiet 0] \
//     [--scale ci|long] [--pace 50] [--abuser-nice 10] [--good-nice 0]
//     [--abuser-sched normal|idle] [--abuser-cpus LIST --server-cpus LIST]
//     [--check] [--diag]
//     [--json out.json]
// --quiet S: the good client runs alone S seconds first (its latency
// without the abuser, the "alone before" column).
// --pace R: the good client's calls are due R a second, each one's latency
// counted from when it was due (good_client.mjs); 0: flat out, each call
// when the last is answered (the harness before 2026-11-28).
// --abuser-nice N: the abuser's process runs at nice N (0: as the server).
// --good-nice N: the good client's process runs at nice N (e.g. -10, as
// root: a core whenever it is runnable, as on a machine of its own, so its
// latency is the server's and the network's, not its own wait for a core).
// Both are `nice -n N`: relative to the harness's own niceness.
// --abuser-sched idle: the abuser's process under SCHED_IDLE (`chrt
// --idle 0`): it runs only on a core nothing else wants, and a waking
// thread of the server or the good client takes the core from it at once
// (at nice 10 it still runs out its time slice first: the scheduler's
// deadline order, not its share, decides that). `normal` (the default):
// nice only.
// --abuser-cpus LIST, --server-cpus LIST: CPU affinity (taskset's list,
// e.g. 1 and 0): the abuser's process on LIST, the server's threads and the
// good client's on theirs, so that the abuser's own CPU (its load generator
// would run on a machine of its own) takes nothing from the server, whose
// work for the abuser's requests still does. Empty: no pinning.
// --diag: also where the time went while the abuser ran (each process's
// CPU and run-queue wait, the server's threads, the server's own timing of
// the good client's calls): docs/reliability.md, "Where the good client
// waits".
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { HttpServer, stopAllHttpServers } from '../integration/lib/http_server.mjs';
import { procSampler, quantile, schedDelta, schedOf } from './lib/proc.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GOOD_TOKEN = 'good-client-token-0123456789abcdef';
const ABUSER_TOKEN = 'abuser-token-0123456789abcdef01234';
const MAX_CONNECTIONS = 512;

/**
 * Each abuser: extra server options, the statuses it must see (`need`), the
 * only ones it may see (`allow`; "closed", "reset": the server ended the
 * connection without a status line), and whether it sends the abuser's
 * token. The statuses are docs/http.md's.
 */
const ABUSERS = {
  baseline: { need: [], allow: [] },
  slowloris: { need: [], allow: ['closed', 'reset', 'partial', '503'] },
  header_flood: { need: ['431', '200'], allow: ['431', '200', 'reset', 'closed'] },
  chunked_endless: {
    need: ['413'], allow: ['413', 'reset', 'closed', 'slow:closed', 'slow:reset', 'slow:408', 'cut'],
    token: true,
  },
  pipelined_garbage: { need: ['200', '400'], allow: ['200', '400', '413', '415', 'closed', 'reset'] , token: true },
  big_body: {
    need: ['content-length:413', 'chunked:413'],
    allow: ['content-length:413', 'chunked:413', 'content-length:reset', 'chunked:reset', 'content-length:cut', 'chunked:cut'],
    token: true,
  },
  init_flood: {
    need: ['200'], allow: ['200', '503', '429'], token: true,
    ci: { args: ['--max-mcp-sessions', '2000'], abuser: ['--count', '5000'] },
  },
  summaries_500: { need: ['200'], allow: ['200', '429'], token: true },
  // A session's pauses count against its byte budget (4 MiB, 64 bytes
  // each): a long pause/resume loop ends in LIMIT_REACHED (a tool error).
  edits_100: { need: ['200'], allow: ['200', '429', '200:LIMIT_REACHED'], token: true },
  token_guess: { need: ['401', '429'], allow: ['401', '429', 'reset', 'closed'] },
};

function options(argv) {
  const o = {
    binary: process.env.TTM_BINARY, only: Object.keys(ABUSERS).join(','), seconds: 6, quiet: 0, scale: 'ci',
    check: false, diag: false, json: '', rssMb: 512, pace: 50, abuserNice: 10, goodNice: 0,
    abuserCpus: '', serverCpus: '', abuserSched: 'normal',
  };
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '').replace(/-(\w)/g, (_, c) => c.toUpperCase());
    if (key === 'check' || key === 'diag') { o[key] = true; continue; }
    const v = argv[++i];
    o[key] = typeof o[key] === 'number' ? Number(v) : v;
  }
  if (!o.binary) throw new Error('--binary (or TTM_BINARY) names the server binary');
  if (!['normal', 'idle'].includes(o.abuserSched)) throw new Error(`--abuser-sched: normal or idle, not '${o.abuserSched}'`);
  return o;
}

/** Spawns `cmd args`; resolves with its stdout's last line parsed as JSON. */
function runJson(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => { out += c; });
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop();
      try { resolve(JSON.parse(last)); } catch { reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out}`)); }
    });
  });
}

/** The good client's process: start() resolves once it is connected; stop() with its report. */
async function goodClient(url, pace, niceness) {
  // --no-warnings: the SDK client adds an abort listener per request to a
  // long-lived signal (MaxListenersExceededWarning after 1,500 calls).
  // `nice` execs node: the pid is the client's.
  const child = spawn('nice', ['-n', String(niceness), process.execPath, '--no-warnings', path.join(HERE, 'good_client.mjs'),
    url, GOOD_TOKEN, String(pace)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the good client exited (${code})`)));
  });
  const ready = await next();
  assert.match(ready, /^ready \[/);
  return {
    pid: child.pid,
    tools: JSON.parse(ready.slice('ready '.length)),
    mark: () => child.stdin.write('mark\n'),
    async stop() {
      const report = next();
      child.stdin.write('stop\n');
      return JSON.parse(await report);
    },
  };
}

/**
 * The server's own timing of the good client's calls (only it calls
 * `tools`, the ones it named, while an abuser runs): from /metrics, the
 * operation histogram's counts for them, {count, le: {bound: n}}.
 */
async function serverOps(server, tools) {
  const text = await (await fetch(`${server.origin}/metrics`)).text();
  const out = { count: 0, le: {} };
  for (const line of text.split('\n')) {
    if (!line.startsWith('mcp_server_operation_duration_seconds_bucket{')) continue;
    if (!tools.some((t) => line.includes(`"${t}"`))) continue;
    const le = /le="([^"]+)"/.exec(line)[1];
    const n = Number(line.slice(line.lastIndexOf(' ') + 1));
    out.le[le] = (out.le[le] ?? 0) + n;
    if (le === '+Inf') out.count += n;
  }
  return out;
}

/** Where the time went while the abuser ran: each process's CPU and run-queue wait. */
function sched(pids) {
  return Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, schedOf(pid)]));
}

async function runOne(name, opt) {
  const spec = ABUSERS[name];
  const ci = opt.scale === 'ci' ? spec.ci ?? {} : {};
  const server = await HttpServer.startWithTokens({
    binary: opt.binary,
    tokens: `good ${GOOD_TOKEN}\nabuser ${ABUSER_TOKEN}\n`,
    args: ['--toolsets', 'all', '--max-connections', String(MAX_CONNECTIONS), ...(ci.args ?? [])],
  });
  try {
    const good = await goodClient(server.url, opt.pace, opt.goodNice);
    if (opt.serverCpus)
      for (const pid of [server.child.pid, good.pid])
        execFileSync('taskset', ['-a', '-p', '-c', opt.serverCpus, String(pid)], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1000)); // warm-up: not counted
    const sampler = procSampler(server.child.pid, 100);
    good.mark();
    // The good client alone first (--quiet seconds): its latency without the
    // abuser, on the machine as loaded as it is now.
    await new Promise((r) => setTimeout(r, opt.quiet * 1000));
    const abuseStarted = Date.now();
    const pids = { server: server.child.pid, good: good.pid, harness: process.pid };
    const sched0 = sched(pids);
    const ops0 = await serverOps(server, good.tools);
    let abuse = { statuses: {}, requests: 0, notes: {} };
    if (name === 'baseline') {
      await new Promise((r) => setTimeout(r, opt.seconds * 1000));
    } else {
      // At a lower CPU priority (--abuser-nice): a real abuser's load
      // generator runs on its own machine, not on the server's cores.
      const cmd = [...(opt.abuserCpus ? ['taskset', '-c', opt.abuserCpus] : []),
        ...(opt.abuserSched === 'idle' ? ['chrt', '--idle', '0'] : []), 'nice', '-n', String(opt.abuserNice),
        'python3', path.join(HERE, 'abusers.py'), name, '--port', String(server.port),
        '--seconds', String(opt.seconds), '--scale', opt.scale,
        ...(spec.token ? ['--token', ABUSER_TOKEN] : []), ...(ci.abuser ?? [])];
      abuse = await runJson(cmd[0], cmd.slice(1));
    }
    const sched1 = sched(pids);
    const ops1 = await serverOps(server, good.tools);
    const abuseSeconds = (Date.now() - abuseStarted) / 1000;
    const report = await good.stop();
    const proc = sampler.stop();
    const alive = server.exitInfo === null;
    const quiet = report.latencies.filter(([at]) => at < abuseStarted).map(([, ms]) => ms);
    const during = report.latencies.filter(([at]) => at >= abuseStarted);
    const abused = during.map(([, ms]) => ms);
    return {
      abuser: name, statuses: abuse.statuses, requests: abuse.requests, notes: abuse.notes,
      good: {
        calls: abused.length, failures: report.failures, errors: report.errors,
        p50: quantile(abused, 0.5), p99: quantile(abused, 0.99), max: Math.max(...abused),
        quietCalls: quiet.length, quietP50: quantile(quiet, 0.5), quietP99: quantile(quiet, 0.99),
      },
      diag: {
        seconds: abuseSeconds,
        server: schedDelta(sched0.server, sched1.server),
        good: schedDelta(sched0.good, sched1.good),
        harness: schedDelta(sched0.harness, sched1.harness),
        abuser: abuse.sched ?? null,
        clientOver10: abused.filter((ms) => ms > 10).length,
        lagP99: quantile(during.map(([, , lag]) => lag), 0.99),
        serverOps: {
          count: ops1.count - ops0.count,
          over5: (ops1.count - (ops1.le['0.005'] ?? 0)) - (ops0.count - (ops0.le['0.005'] ?? 0)),
          over10: (ops1.count - (ops1.le['0.01'] ?? 0)) - (ops0.count - (ops0.le['0.01'] ?? 0)),
        },
      },
      rssMbStart: proc.firstRssKb / 1024, rssMbMax: proc.maxRssKb / 1024, fdsStart: proc.firstFds, fdsMax: proc.maxFds,
      alive, server,
    };
  } finally {
    await server.stop();
  }
}

function check(row, opt) {
  const spec = ABUSERS[row.abuser];
  const what = `${row.abuser}: ${JSON.stringify(row.statuses)} ${JSON.stringify(row.notes)}`;
  assert.ok(row.alive, `${row.abuser}: the server died${row.server.context()}`);
  assert.equal(row.notes.abuser_error, undefined, what);
  for (const s of spec.need) assert.ok(row.statuses[s] > 0, `${what}: no ${s}`);
  for (const s of Object.keys(row.statuses)) {
    assert.ok(spec.allow.includes(s), `${what}: ${s} is not a documented answer to ${row.abuser}`);
  }
  assert.ok(row.good.calls > 0, `${row.abuser}: the good client made no call`);
  assert.equal(row.good.failures, 0, `${row.abuser}: the good client's calls failed: ${row.good.errors.join('; ')}`);
  assert.ok(row.rssMbMax <= opt.rssMb, `${row.abuser}: RSS ${row.rssMbMax.toFixed(1)} MB (at most ${opt.rssMb})`);
  assert.ok(row.fdsMax <= MAX_CONNECTIONS + 64, `${row.abuser}: ${row.fdsMax} descriptors (at most ${MAX_CONNECTIONS + 64})`);
}

const opt = options(process.argv);
// Interrupted: exit, so that the 'exit' hook of lib/http_server.mjs kills the servers.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const rows = [];
let failed = null;
try {
  for (const name of opt.only.split(',')) {
    if (!ABUSERS[name]) throw new Error(`unknown abuser ${name}: ${Object.keys(ABUSERS).join(', ')}`);
    const row = await runOne(name, opt);
    rows.push(row);
    const statuses = Object.entries(row.statuses).map(([k, v]) => `${k}×${v}`).join(' ');
    console.log(`${name}: good client ${row.good.calls} calls, p50 ${row.good.p50.toFixed(2)} ms,`
      + ` p99 ${row.good.p99.toFixed(2)} ms, failures ${row.good.failures}; RSS ${row.rssMbStart.toFixed(1)}`
      + `→${row.rssMbMax.toFixed(1)} MB, fds ${row.fdsStart}→${row.fdsMax}; abuser: ${statuses} ${JSON.stringify(row.notes)}`);
    if (opt.check) {
      try { check(row, opt); } catch (err) { failed ??= err; console.log(`FAIL ${err.message}`); }
    }
  }
} finally {
  await stopAllHttpServers();
}

console.log('\n| abuser | statuses seen (count) | good client calls | p50 ms | p99 ms | alone before: p50 / p99 ms | max RSS MB (start) | max fds (start) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const statuses = Object.entries(r.statuses).sort().map(([k, v]) => `${k} ×${v}`).join(', ') || '—';
  console.log(`| ${r.abuser} | ${statuses} | ${r.good.calls} | ${r.good.p50.toFixed(2)} | ${r.good.p99.toFixed(2)}`
    + ` | ${r.good.quietCalls ? `${r.good.quietP50.toFixed(2)} / ${r.good.quietP99.toFixed(2)}` : '—'}`
    + ` | ${r.rssMbMax.toFixed(1)} (${r.rssMbStart.toFixed(1)}) | ${r.fdsMax} (${r.fdsStart}) |`);
}
if (opt.diag) {
  // Where the good client's time went (docs/reliability.md, "Where the
  // good client waits"): CPU seconds each process had while the abuser ran
  // and seconds its threads were runnable but waited for a core; the
  // server's own timing of the good client's calls against the client's.
  const f = (d, k) => (d ? d[k].toFixed(2) : '—');
  console.log('\n| abuser | s | server CPU s / run-queue wait s | good client CPU / wait | abuser CPU / wait | harness CPU / wait | good calls > 10 ms: client / server-side (> 5 ms) | server threads: CPU / wait s |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const d = r.diag;
    const threads = Object.entries(d.server?.byName ?? {}).filter(([, t]) => t.cpuS + t.waitS > 0.05)
      .map(([n, t]) => `${n}×${t.threads} ${t.cpuS.toFixed(1)}/${t.waitS.toFixed(1)}`).join(', ');
    console.log(`| ${r.abuser} | ${d.seconds.toFixed(1)} | ${f(d.server, 'cpuS')} / ${f(d.server, 'waitS')}`
      + ` | ${f(d.good, 'cpuS')} / ${f(d.good, 'waitS')} | ${f(d.abuser, 'cpuS')} / ${f(d.abuser, 'waitS')}`
      + ` | ${f(d.harness, 'cpuS')} / ${f(d.harness, 'waitS')}`
      + ` | ${d.clientOver10} / ${d.serverOps.over10} (${d.serverOps.over5}) of ${r.good.calls} / ${d.serverOps.count} | ${threads} |`);
  }
}
if (opt.json) writeFileSync(opt.json, JSON.stringify(rows.map(({ server, ...r }) => r), null, 1));
if (failed) throw failed;
