// Crash points (issue 34 item 4): `kill -9` at N random points of a mixed
// workload over three server processes sharing one data directory (two
// stdio servers, one HTTP server with two clients), each point followed by
// a restart and the ack-log check (bench/tools/journal_check): every
// acknowledged change is in the journal exactly once, every refused change
// is absent.
//
//   node crash_points.mjs --binary SERVER --journal-check JOURNAL_CHECK
//                         [--points N] [--seed S] [--keep]
//
// The workload: each worker holds a few tracking sessions (3 tasks each) and,
// one call at a time, starts sessions, starts and ends their tasks, ends
// sessions, reads summaries, and makes changes the server must refuse
// (time_task_start of a task not in the session, time_task_end of a task
// never started, time_task_start on an ended session). Sessions live on
// across restarts: the restarted process (a new MCP session, principal
// `local`) carries on where the killed one stopped. A call in flight when
// its server dies has no known outcome: its session is dropped (neither
// acknowledged nor refused). Any other error on a change is logged as
// refused (checked absent) and the session dropped.
//
// A point: all three processes run the workload; after a random 20-500 ms
// one of them (every fourth point: all three) is SIGKILLed; the survivors'
// workers finish their current call and pause; the killed processes are
// started again on the directory; journal_check runs over the whole ack log
// so far. Exit 0 when every check passed; the figures on stdout.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { HttpServer } = await import(path.join(here, '../../tests/integration/lib/http_server.mjs'));

// -- options
const opts = { points: 25, seed: 1, keep: false };
for (let i = 2; i < process.argv.length; i += 1) {
  const a = process.argv[i];
  const next = () => process.argv[++i];
  if (a === '--binary') opts.binary = next();
  else if (a === '--journal-check') opts.check = next();
  else if (a === '--points') opts.points = Number(next());
  else if (a === '--seed') opts.seed = Number(next());
  else if (a === '--keep') opts.keep = true;
  else { console.error(`crash_points: unknown option ${a}`); process.exit(2); }
}
if (!opts.binary || !opts.check || !(opts.points > 0)) {
  console.error('usage: crash_points.mjs --binary SERVER --journal-check JOURNAL_CHECK [--points N] [--seed S] [--keep]');
  process.exit(2);
}

/** mulberry32: the points and the workload's choices repeat for a seed. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(opts.seed);
const pick = (arr) => arr[Math.floor(rand() * arr.length)];

const work = mkdtempSync(path.join(tmpdir(), 'ttm-crash-points-'));
const dataDir = path.join(work, 'data');
const ackPath = path.join(work, 'acks.tsv');
const ackLines = [];
const SERVER_ARGS = ['--data-dir', dataDir, '--max-tracking-sessions', '100000',
  '--max-tracking-sessions-per-principal', '100000',
  '--max-tracking-sessions-per-mcp-session', '100000'];
const PROTOCOL = '2025-11-25';
const INIT = { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'crash-points', version: '1' } };

class TransportError extends Error {}

// -- clients: call(name, args) resolves the tools/call result or throws
//    TransportError when the server is gone.

/** `time-tracker-mcp stdio` with a line client. */
class StdioProcess {
  async start() {
    this.child = spawn(opts.binary, ['stdio', ...SERVER_ARGS], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.pending = new Map();
    this.nextId = 1;
    this.stderr = '';
    this.dead = false;
    let buf = '';
    this.child.stdout.on('data', (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line);
        const p = this.pending.get(msg.id);
        if (p) { this.pending.delete(msg.id); p.resolve(msg); }
      }
    });
    this.child.stderr.on('data', (c) => { this.stderr = (this.stderr + c).slice(-8000); });
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.once('exit', () => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(new TransportError('server gone'));
      this.pending.clear();
      resolve();
    }));
    const init = await this.rpc('initialize', INIT);
    if (!init.result) throw new Error(`initialize: ${JSON.stringify(init)}`);
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return this;
  }

  rpc(method, params) {
    if (this.dead) return Promise.reject(new TransportError('server gone'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async client() { return this; }
  async call(name, args) { return (await this.rpc('tools/call', { name, arguments: args })).result; }
  kill() { this.child.kill('SIGKILL'); return this.exited; }
  async stop() { if (!this.dead) { this.child.stdin.end(); await this.exited; } }
  get pid() { return this.child.pid; }
}

/** `time-tracker-mcp http`; client() opens an MCP session on it. */
class HttpProcess {
  async start() {
    this.server = await HttpServer.start({ binary: opts.binary, args: SERVER_ARGS });
    this.stderr = '';
    return this;
  }

  async client() {
    const url = this.server.url;
    let session;
    let nextId = 1;
    const post = async (body) => {
      let res;
      let text;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json', accept: 'application/json, text/event-stream',
            'mcp-protocol-version': PROTOCOL, ...(session ? { 'mcp-session-id': session } : {}),
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        text = await res.text();
      } catch (err) {
        throw new TransportError(String(err));
      }
      if (res.status === 202) return null;
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
      const json = text.startsWith('{') ? text
        : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('');
      return { msg: JSON.parse(json), res };
    };
    const init = await post({ jsonrpc: '2.0', id: nextId++, method: 'initialize', params: INIT });
    session = init.res.headers.get('mcp-session-id');
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return {
      call: async (name, args) => (await post({
        jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args },
      })).msg.result,
    };
  }

  kill() { return this.server.kill(); }
  async stop() { await this.server.stop(); }
  get pid() { return this.server.child.pid; }
}

// -- the workload

const counts = { acknowledged: 0, refused: 0, unknown: 0, reads: 0, calls: 0 };
const errorCodes = {};
let sessionSeq = 0;
let refusedSeq = 0;

function ack(tool, sid, task = '-', status = '-') {
  ackLines.push(`${tool}\t${sid}\t${task}\t${status}`);
  if (tool.startsWith('refused:')) counts.refused += 1;
  else counts.acknowledged += 1;
}

/** A worker: its tracking sessions ({sid, tasks: {id: 'new'|'running'|'ended'}, ended}). */
class Worker {
  constructor(slot) {
    this.slot = slot;
    this.sessions = [];
  }

  /** One call; false when the server is gone (the worker stops for this point). */
  async step(client) {
    const open = this.sessions.filter((s) => !s.ended);
    const r = rand();
    this.touched = null;
    try {
      if (open.length === 0 || (r < 0.12 && open.length < 4)) return await this.startSession(client);
      const s = pick(open);
      this.touched = s;
      const tasks = Object.entries(s.tasks);
      const fresh = tasks.filter(([, st]) => st === 'new');
      const running = tasks.filter(([, st]) => st === 'running');
      if (r < 0.17) return await this.refusedStart(client, s, `NOT-IN-${refusedSeq++}`, 'TASK_NOT_IN_SESSION');
      if (r < 0.21 && fresh.length) return await this.refusedEnd(client, s, pick(fresh)[0]);
      if (r < 0.30) { counts.reads += 1; return this.read(await client.call('time_session_summary', { session_id: s.sid }), s); }
      if (running.length && r < 0.60) return await this.endTask(client, s, pick(running)[0]);
      if (fresh.length) return await this.startTask(client, s, pick(fresh)[0]);
      if (running.length) return await this.endTask(client, s, pick(running)[0]);
      return await this.endSession(client, s);
    } catch (err) {
      if (err instanceof TransportError) return false;
      throw err;
    } finally {
      counts.calls += 1;
    }
  }

  /** A reply to a change: the payload, or null (logged refused, session dropped) for a tool error. */
  outcome(result, s, refusedLine) {
    if (!result) throw new Error('a tools/call without a result');
    const sc = result.structuredContent ?? {};
    if (!result.isError) return sc;
    errorCodes[sc.error_code] = (errorCodes[sc.error_code] ?? 0) + 1;
    if (refusedLine) ack(...refusedLine);
    if (s) this.drop(s);
    return null;
  }

  read(result, s) {
    if (result.isError) {
      const code = result.structuredContent?.error_code;
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
      this.drop(s);
    }
    return true;
  }

  drop(s) { this.sessions = this.sessions.filter((x) => x !== s); }

  async startSession(client) {
    const n = sessionSeq++;
    const tasks = ['T1', 'T2', 'T3'];
    const sc = this.outcome(await client.call('time_session_start', {
      milestone_id: `CP-${n}`, task_ids: tasks, idempotency_key: `cp-${opts.seed}-${n}`,
    }), null, null);
    if (sc) {
      if (sc.already_started) throw new Error(`a fresh key answered already_started: ${JSON.stringify(sc)}`);
      ack('time_session_start', sc.session_id);
      this.sessions.push({ sid: sc.session_id, tasks: Object.fromEntries(tasks.map((t) => [t, 'new'])), ended: false });
    }
    return true;
  }

  async startTask(client, s, task) {
    const sc = this.outcome(await client.call('time_task_start', { session_id: s.sid, task_id: task }),
      s, ['refused:time_task_start', s.sid, task]);
    if (sc) {
      if (sc.already_running) throw new Error(`already_running for a task never started: ${JSON.stringify(sc)}`);
      ack('time_task_start', s.sid, task);
      s.tasks[task] = 'running';
    }
    return true;
  }

  async endTask(client, s, task) {
    const sc = this.outcome(await client.call('time_task_end', { session_id: s.sid, task_id: task }),
      s, ['refused:time_task_end', s.sid, task]);
    if (sc) {
      if (sc.already_ended) throw new Error(`already_ended for a running task: ${JSON.stringify(sc)}`);
      ack('time_task_end', s.sid, task, sc.status ?? '-');
      s.tasks[task] = 'ended';
    }
    return true;
  }

  async endSession(client, s) {
    const sc = this.outcome(await client.call('time_session_end', { session_id: s.sid }),
      s, ['refused:time_session_end', s.sid]);
    if (sc) {
      ack('time_session_end', s.sid);
      s.ended = true;
      // A change on the ended session: SESSION_ENDED, absent.
      const late = `LATE-${refusedSeq++}`;
      const r = await client.call('time_task_start', { session_id: s.sid, task_id: late });
      this.expectRefused(r, 'SESSION_ENDED', ['refused:time_task_start', s.sid, late]);
      this.drop(s);
    }
    return true;
  }

  /** A change the server must refuse with `code`. */
  expectRefused(result, code, line) {
    const got = result.isError ? result.structuredContent?.error_code : 'success';
    if (got !== code) throw new Error(`${line[0]} ${line[2]}: expected ${code}, got ${JSON.stringify(result.structuredContent)}`);
    ack(...line);
  }

  async refusedStart(client, s, task, code) {
    this.expectRefused(await client.call('time_task_start', { session_id: s.sid, task_id: task }), code,
      ['refused:time_task_start', s.sid, task]);
    return true;
  }

  async refusedEnd(client, s, task) {
    this.expectRefused(await client.call('time_task_end', { session_id: s.sid, task_id: task }), 'TASK_NOT_STARTED',
      ['refused:time_task_end', s.sid, task]);
    // Never touched again: its events must stay none (journal_check's rule).
    s.tasks[task] = 'refused';
    return true;
  }
}

// -- the points

const slots = [
  { name: 'stdio-1', make: () => new StdioProcess(), workers: 1 },
  { name: 'stdio-2', make: () => new StdioProcess(), workers: 1 },
  { name: 'http', make: () => new HttpProcess(), workers: 2 },
];
for (const slot of slots) slot.pool = Array.from({ length: slot.workers }, () => new Worker(slot));

async function ensureRunning(slot) {
  if (!slot.proc || slot.dead) {
    slot.proc = await slot.make().start();
    slot.dead = false;
    slot.starts = (slot.starts ?? 0) + 1;
  }
}

async function runWorker(slot, worker, round) {
  let client;
  try {
    client = await slot.proc.client();
  } catch (err) {
    if (err instanceof TransportError) return;
    throw err;
  }
  while (!round.stop) {
    if (!(await worker.step(client))) {
      // The call in flight has no known outcome: its session is dropped.
      counts.unknown += 1;
      if (worker.touched) worker.drop(worker.touched);
      return;
    }
  }
}

function check(point, extra = []) {
  writeFileSync(ackPath, `${[...ackLines, ...extra].join('\n')}\n`);
  const r = spawnSync(opts.check, ['--data-dir', dataDir, '--ack-log', ackPath, '--show', '10'], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`crash_points: point ${point}: journal_check exit ${r.status}\n${r.stdout}${r.stderr}`);
    return null;
  }
  return r.stdout;
}

const t0 = Date.now();
let kills = 0;
let last = '';
let failed = false;
try {
  for (let point = 1; point <= opts.points; point += 1) {
    for (const slot of slots) await ensureRunning(slot);
    const round = { stop: false };
    const running = slots.flatMap((slot) => slot.pool.map((w) => runWorker(slot, w, round)));
    const delay = 20 + Math.floor(rand() * 480);
    await new Promise((resolve) => setTimeout(resolve, delay));
    const victims = point % 4 === 0 ? slots : [pick(slots)];
    await Promise.all(victims.map(async (slot) => {
      slot.dead = true;
      await slot.proc.kill();
      kills += 1;
    }));
    round.stop = true;
    await Promise.all(running);
    for (const slot of victims) await ensureRunning(slot); // the restart: recovery of the journal
    const out = check(point);
    if (out === null) { failed = true; break; }
    last = out;
  }
} finally {
  for (const slot of slots) if (slot.proc && !slot.dead) await slot.proc.stop().catch(() => {});
}

// The checker can fail: an invented acknowledgement, and a refusal of a
// change the journal has, must each make it fail.
if (!failed) {
  const ended = ackLines.find((l) => l.startsWith('time_session_end\t'));
  const invented = [`time_session_start\t${randomUUID()}\t-\t-`, ...(ended ? [`refused:${ended}`] : [])];
  for (const extra of invented) {
    writeFileSync(ackPath, `${[...ackLines, extra].join('\n')}\n`);
    const r = spawnSync(opts.check, ['--data-dir', dataDir, '--ack-log', ackPath], { encoding: 'utf8' });
    if (r.status !== 1) {
      console.error(`crash_points: journal_check passed (exit ${r.status}) with ${extra}:\n${r.stdout}`);
      failed = true;
    }
  }
}

const secs = ((Date.now() - t0) / 1000).toFixed(1);
console.log(last.trimEnd());
console.log(`crash_points: ${opts.points} points (seed ${opts.seed}), ${kills} processes SIGKILLed, ` +
  `${slots.map((s) => `${s.name} started ${s.starts}x`).join(', ')}, in ${secs} s`);
console.log(`calls ${counts.calls}: acknowledged changes ${counts.acknowledged}, refused changes ${counts.refused}, ` +
  `reads ${counts.reads}, in flight at a kill (outcome unknown) ${counts.unknown}; tool errors by code ${JSON.stringify(errorCodes)}`);
console.log(failed ? 'FAIL' : `OK: after every restart, lost 0, duplicated 0, refused present 0`);
if (opts.keep) console.log(`kept ${work}`);
else rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
