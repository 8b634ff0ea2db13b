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
//     [--scale ci|long] [--check] [--json out.json]
// --quiet S: the good client runs alone S seconds first (its latency
// without the abuser, the "alone before" column).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { HttpServer, stopAllHttpServers } from '../integration/lib/http_server.mjs';
import { procSampler, quantile } from './lib/proc.mjs';

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
  slowloris: { need: [], allow: ['closed', 'reset', 'partial'] },
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
    check: false, json: '', rssMb: 512,
  };
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (key === 'check') { o.check = true; continue; }
    const v = argv[++i];
    o[key] = typeof o[key] === 'number' ? Number(v) : v;
  }
  if (!o.binary) throw new Error('--binary (or TTM_BINARY) names the server binary');
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
      try { resolve(JSON.parse(last)); } catch { reject(new Error(`${cmd} ${args[0]} exited ${code}: ${out}`)); }
    });
  });
}

/** The good client's process: start() resolves once it is connected; stop() with its report. */
async function goodClient(url) {
  // --no-warnings: the SDK client adds an abort listener per request to a
  // long-lived signal (MaxListenersExceededWarning after 1,500 calls).
  const child = spawn(process.execPath, ['--no-warnings', path.join(HERE, 'good_client.mjs'), url, GOOD_TOKEN],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the good client exited (${code})`)));
  });
  const ready = await next();
  assert.equal(ready, 'ready');
  return {
    mark: () => child.stdin.write('mark\n'),
    async stop() {
      const report = next();
      child.stdin.write('stop\n');
      return JSON.parse(await report);
    },
  };
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
    const good = await goodClient(server.url);
    await new Promise((r) => setTimeout(r, 1000)); // warm-up: not counted
    const sampler = procSampler(server.child.pid, 100);
    good.mark();
    // The good client alone first (--quiet seconds): its latency without the
    // abuser, on the machine as loaded as it is now.
    await new Promise((r) => setTimeout(r, opt.quiet * 1000));
    const abuseStarted = Date.now();
    let abuse = { statuses: {}, requests: 0, notes: {} };
    if (name === 'baseline') {
      await new Promise((r) => setTimeout(r, opt.seconds * 1000));
    } else {
      abuse = await runJson('python3', [path.join(HERE, 'abusers.py'), name, '--port', String(server.port),
        '--seconds', String(opt.seconds), '--scale', opt.scale,
        ...(spec.token ? ['--token', ABUSER_TOKEN] : []), ...(ci.abuser ?? [])]);
    }
    const report = await good.stop();
    const proc = sampler.stop();
    const alive = server.exitInfo === null;
    const quiet = report.latencies.filter(([at]) => at < abuseStarted).map(([, ms]) => ms);
    const abused = report.latencies.filter(([at]) => at >= abuseStarted).map(([, ms]) => ms);
    return {
      abuser: name, statuses: abuse.statuses, requests: abuse.requests, notes: abuse.notes,
      good: {
        calls: abused.length, failures: report.failures, errors: report.errors,
        p50: quantile(abused, 0.5), p99: quantile(abused, 0.99), max: Math.max(...abused),
        quietCalls: quiet.length, quietP50: quantile(quiet, 0.5), quietP99: quantile(quiet, 0.99),
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
if (opt.json) writeFileSync(opt.json, JSON.stringify(rows.map(({ server, ...r }) => r), null, 1));
if (failed) throw failed;
