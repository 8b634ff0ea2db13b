// The soak (issue 34 item 6): mixed load over HTTP on several server
// processes that share one data directory — tracking sessions, tasks, bulk
// edits, undos, summaries, reports and lists, and MCP initialize/DELETE
// churn — while RSS, descriptors and the journal's bytes (db + WAL + shm)
// are sampled every --sample seconds. Then the checks: every call answered
// (no error), each server's RSS flat within --rss-tolerance after the
// warm-up (--warmup, a fraction of the run, and the server's first purge
// that dropped sessions), descriptors flat, the database bounded by the
// retention (its size in the last quarter of the run at most
// --growth-tolerance times its size at the half: without a working purge
// it grows linearly) and the WAL under --wal-max-kb.
//
//   node tests/abuse/soak.mjs --binary build/time-tracker-mcp \
//     [--seconds 100] [--sample 5] [--servers 3] [--workers 6] [--rate 150] \
//     [--retention 20s] [--rss-tolerance 0.25] [--json out.json]
//
// scripts/soak.sh runs it for an hour (docs/reliability.md, "Soak").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { HttpServer, stopAllHttpServers } from '../integration/lib/http_server.mjs';
import { journalBytes, RawMcpClient, sampleProc } from './lib/proc.mjs';

function options(argv) {
  const o = {
    binary: process.env.TTM_BINARY, seconds: 100, sample: 5, servers: 3, workers: 6, rate: 150,
    retention: '20s', warmup: 0.3, rssTolerance: 0.25, fdSlack: 8, growthTolerance: 1.25, walMaxKb: 65536, json: '',
    check: true,
  };
  for (let i = 2; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (key === 'noCheck') { o.check = false; continue; }
    const v = argv[++i];
    o[key] = typeof o[key] === 'number' ? Number(v) : v;
  }
  if (!o.binary) throw new Error('--binary (or TTM_BINARY) names the server binary');
  return o;
}

const opt = options(process.argv);
// Interrupted: exit, so that the 'exit' hook of lib/http_server.mjs kills the servers.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
const dataDir = mkdtempSync(path.join(tmpdir(), 'ttm-soak-'));
const stats = { calls: 0, events: 0, errors: [], initializes: 0, deletes: 0 };
let running = true;

/** Counts a call; a mutating success adds its journal events. */
function record(name, res, events = 0) {
  stats.calls++;
  if (res.status !== 200 || res.result?.error === true || res.result?.error?.code !== undefined) {
    if (stats.errors.length < 20) {
      stats.errors.push(`${name}: HTTP ${res.status} ${JSON.stringify(res.result ?? '').slice(0, 300)}`);
    } else stats.errors.push('...');
    return false;
  }
  stats.events += events;
  return true;
}

/** Sleeps so that this worker's calls are `spacingMs` apart (the pacing of --rate). */
function pacer(spacingMs) {
  let next = Date.now();
  return async () => {
    next += spacingMs;
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -1000) next = Date.now(); // fell behind: do not burst to catch up
  };
}

/** One worker: a loop of whole tracking sessions on its server, each in a fresh MCP session. */
async function worker(url, index) {
  const pace = pacer((1000 * opt.workers) / opt.rate);
  let round = 0;
  while (running) {
    const c = new RawMcpClient(url);
    try {
      await pace();
      if (await c.initialize() !== 200) { record('initialize', { status: 0 }); continue; }
      stats.initializes++;
      const tasks = ['T1', 'T2', 'T3', 'T4', 'T5'];
      const call = async (name, args, events = 1) => {
        await pace();
        const res = await c.call(name, args);
        record(name, res, events);
        return res.result ?? {};
      };
      const started = await call('time_session_start', {
        milestone_id: `soak-${index}-${round}`, milestone_name: 'Soak milestone', task_ids: tasks,
        timezone: 'UTC', tags: ['soak'], metadata: { worker: String(index) },
        idempotency_key: `soak-${process.pid}-${index}-${round}`,
      });
      const sid = started.session_id;
      if (!sid) continue;
      for (const t of tasks.slice(0, 3)) {
        await call('time_task_start', { session_id: sid, task_id: t, task_name: `task ${t}` });
        await call('time_task_end', { session_id: sid, task_id: t });
      }
      await call('time_tasks_edit', {
        session_id: sid,
        operations: [
          { op: 'start', task_id: 'T4' }, { op: 'note', task_id: 'T4', text: 'soak note' },
          { op: 'pause', task_id: 'T4' }, { op: 'resume', task_id: 'T4' },
        ],
      });
      await call('time_undo', { session_id: sid });
      await call('time_session_summary', { session_id: sid }, 0);
      if (round % 3 === 0) await call('time_session_report', { session_id: sid, format: 'markdown' }, 0);
      await call('time_session_end', { session_id: sid });
      if (round % 4 === 0) { // the undone end: the session reopens, then ends again
        await call('time_undo', { session_id: sid });
        await call('time_session_end', { session_id: sid });
      }
      if (round % 5 === 0) await call('time_session_list', { limit: 10 }, 0);
      // Churn: an extra MCP session that does nothing but exist and end.
      const churn = new RawMcpClient(url);
      if (await churn.initialize() === 200) {
        stats.initializes++;
        if (await churn.close() === 204) stats.deletes++;
      }
      churn.destroy();
      round++;
    } catch (err) {
      record('exchange', { status: 0, result: String(err.message) });
    } finally {
      if (c.session && await c.close().catch(() => 0) === 204) stats.deletes++;
      c.destroy();
    }
  }
}

const servers = [];
const rows = [];
const firstPurge = [];
try {
  for (let i = 0; i < opt.servers; i++) {
    servers.push(await HttpServer.start({
      binary: opt.binary,
      args: ['--data-dir', dataDir, '--history-retention', opt.retention,
        '--rate-limit', 'off', '--toolsets', 'all'],
    }));
  }
  const started = Date.now();
  // The first purge that dropped something, per server: it reads the pages
  // it deletes into SQLite's page cache (cache_size, 32 MiB at most), a step
  // of the purging server's RSS once; flatness counts from after it.
  servers.forEach((s, i) => {
    s.child.stderr.on('data', (chunk) => {
      if (firstPurge[i] === undefined && /purged \d+ sessions/.test(String(chunk))) {
        firstPurge[i] = Math.round((Date.now() - started) / 1000);
      }
    });
  });
  const workers = [];
  for (let w = 0; w < opt.workers; w++) workers.push(worker(servers[w % servers.length].url, w));

  const sample = () => {
    const t = Math.round((Date.now() - started) / 1000);
    const procs = servers.map((s) => sampleProc(s.child.pid) ?? { rssKb: 0, fds: 0 });
    const j = journalBytes(dataDir);
    const row = {
      t, calls: stats.calls, events: stats.events, errors: stats.errors.length,
      rssMb: procs.map((p) => +(p.rssKb / 1024).toFixed(1)), fds: procs.map((p) => p.fds),
      dbKb: Math.round(j.db / 1024), walKb: Math.round(j.wal / 1024), shmKb: Math.round(j.shm / 1024),
    };
    rows.push(row);
    console.log(`${String(t).padStart(5)} s  calls ${String(row.calls).padStart(8)}  events ${String(row.events).padStart(8)}`
      + `  rss MB ${row.rssMb.join('/')}  fds ${row.fds.join('/')}  db ${row.dbKb} KB  wal ${row.walKb} KB`
      + `  errors ${row.errors}`);
  };
  sample();
  while (Date.now() - started < opt.seconds * 1000) {
    await new Promise((r) => setTimeout(r, opt.sample * 1000));
    sample();
  }
  running = false;
  await Promise.all(workers);
} finally {
  running = false;
  await stopAllHttpServers();
}

// -- the verdict --------------------------------------------------------------
const last = rows[rows.length - 1];
const settled = (i) => Math.max(opt.seconds * opt.warmup, (firstPurge[i] ?? -1) + opt.sample);
// The samples judged: the longer of the two windows after the warm-up
// without the first purge's step, after it or before it (a sample before
// its log line may hold part of it). A server whose first purge came in
// the run's last seconds (seen at a load of 28: 30, 30 and 90 s of 90) has
// none after it; an empty window would judge nothing (NaN).
const judged = (i) => {
  const afterPurge = rows.filter((r) => r.t >= settled(i));
  const beforePurge = firstPurge[i] === undefined ? []
    : rows.filter((r) => r.t >= opt.seconds * opt.warmup && r.t < firstPurge[i] - opt.sample);
  return afterPurge.length >= beforePurge.length ? afterPurge : beforePurge;
};
const perServer = (key) => servers.map((_, i) => judged(i).map((r) => r[key][i]));
const rssSpread = perServer('rssMb').map((v) => Math.max(...v) / Math.min(...v) - 1);
const fdSpread = perServer('fds').map((v) => Math.max(...v) - Math.min(...v));
// The database file: without a working purge it grows linearly (doubles
// from the half to the end); with one it levels off after 1.5 retentions.
// The WAL is a window of a few MB (checked apart: --wal-max-kb).
const half = (rows.find((x) => x.t >= opt.seconds * 0.5) ?? last).dbKb;
const lateMax = Math.max(...rows.filter((r) => r.t >= opt.seconds * 0.75).map((r) => r.dbKb));
const walMax = Math.max(...rows.map((r) => r.walKb));
// Bytes per event: the database's growth over the events of the first
// retention, before the purge frees pages for reuse (the WAL is a fixed
// window that checkpoints recycle, reported apart: walKb).
const seconds = (d) => {
  const m = /^(\d+)([smhd]?)$/.exec(d);
  return m ? Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]] : NaN;
};
const early = rows.filter((r) => r.events > 0 && r.t <= seconds(opt.retention));
const perEvent = early.length >= 2
  ? Math.round(((early.at(-1).dbKb - early[0].dbKb) * 1024) / (early.at(-1).events - early[0].events)) : NaN;
const summary = {
  seconds: opt.seconds, servers: opt.servers, workers: opt.workers, retention: opt.retention,
  calls: last.calls, events: last.events, initializes: stats.initializes, deletes: stats.deletes,
  callsPerSecond: Math.round(last.calls / last.t), errors: stats.errors,
  rssSpread: rssSpread.map((x) => +x.toFixed(3)), fdSpread, firstPurge,
  dbKbAtHalf: half, dbKbLateMax: lateMax, dbBytesPerEvent: perEvent, walKbMax: walMax,
  rows,
};
console.log(JSON.stringify({ ...summary, rows: undefined }, null, 1));
if (opt.json) writeFileSync(opt.json, JSON.stringify(summary, null, 1));
rmSync(dataDir, { recursive: true, force: true });

if (opt.check) {
  assert.deepEqual(stats.errors, [], 'every call of the soak is answered without an error');
  assert.ok(last.events > 0, 'the soak made changes');
  servers.forEach((_, i) => assert.ok(judged(i).length >= 2,
    `server ${i}: fewer than 2 samples after the warm-up without its first purge (at ${firstPurge[i]} s)`));
  rssSpread.forEach((s, i) => assert.ok(s <= opt.rssTolerance,
    `server ${i}: RSS after the warm-up varies ${(s * 100).toFixed(1)}% (at most ${opt.rssTolerance * 100}%)`));
  fdSpread.forEach((s, i) => assert.ok(s <= opt.fdSlack,
    `server ${i}: open descriptors after the warm-up vary by ${s} (at most ${opt.fdSlack})`));
  assert.ok(lateMax <= half * opt.growthTolerance,
    `the journal grows without bound: ${lateMax} KB in the last quarter, ${half} KB at the half`
    + ` (at most x${opt.growthTolerance}); retention ${opt.retention}`);
  assert.ok(walMax <= opt.walMaxKb, `the WAL reached ${walMax} KB (at most ${opt.walMaxKb})`);
  console.log('soak: ok');
}
