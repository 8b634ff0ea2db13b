// The session journal (durable tracking sessions) end to end: the real
// binary is killed with SIGKILL half-way through the spec's Pattern 1 and
// restarted on the same --data-dir, over stdio (SDK v1, raw 2026-07-28
// lines) and HTTP (SDK v1 and v2, with and without bearer tokens); the
// session finishes with the same session_id and every timestamp the first
// process reported. Also: several servers on one data directory (they share
// it and see each other's changes, stop in any order; a server of an older
// version, which holds the directory for itself, still keeps them out;
// multi_process.test.mjs has the issue 15 scenarios), storage faults
// (corrupt file, a data dir that is a file, a newer schema, then restored:
// recovered without a restart), --ephemeral and the default directories,
// expiry of recovered sessions.
//
// No test waits for time to pass, except the expiry test (about 1.1 s, the
// shortest idle limit the server accepts) and the restored journal (the
// server's retry, 1 to 3 s); restarts wait for events (the child's exit, the
// start-up log line). The servers kept out by an older one exit after their
// own wait (about 2 s); the test waits for their exit.
// Run: TTM_BINARY=/abs/path node --test journal.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { journalSchemaVersion, serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { assertModernResult, modernRequest, withoutRequestIds } from './lib/modern.mjs';
import { pollUntil, RawServer, stopAllServers } from './lib/raw_client.mjs';
import { connect, connectHttp, connectV2Http } from './lib/sdk_client.mjs';
import { assertMonoMatchesWall, countsIn, UUID_V4_RE } from './lib/session_assertions.mjs';
import { driverFor } from './lib/session_patterns.mjs';
import { assertSingleTextBlockMatches, assertTimeResult, assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
/** Restart tests start two or three servers each. */
const T = { timeout: 40_000 };
const NY = 'America/New_York';
const JOURNAL_FILE = 'journal.sqlite3';
/** The schema version this server writes (PRAGMA user_version). */
const CURRENT_SCHEMA = journalSchemaVersion();

after(async () => {
  await stopAllServers();
  await stopAllHttpServers();
});

// ---------------------------------------------------------------------------
// The tracking session every restart test runs: Pattern 1's shape (metadata,
// tags, task names, ids and metadata on start and end), four tasks.

const MILESTONE = Object.freeze({
  milestone_id: 'M7',
  milestone_name: 'Durable sessions',
  task_ids: ['J-001', 'J-002', 'J-003', 'J-004'],
  timezone: NY,
  metadata: { branch: 'session-journal', execution_date: '2026-11-22' },
  tags: ['milestone:7', 'area:storage'],
});

const TASKS = Object.freeze([
  {
    start: { task_id: 'J-001', task_name: 'Schema and migrations', external_task_id: 'task-guid-0001', metadata: { owner: 'agent' } },
    end: { task_id: 'J-001', metadata: { files_created: 'sqlite_store.cpp' } },
  },
  { start: { task_id: 'J-002', task_name: 'Journal actor', work_item_id: 'GH-7' }, end: { task_id: 'J-002' } },
  { start: { task_id: 'J-003' }, end: { task_id: 'J-003', status: 'skipped' } },
]);

/** Summary fields that depend on when the summary was taken. */
const NOW_DEPENDENT = [
  'end_time', 'end_time_friendly', 'total_duration', 'total_duration_ms', 'total_duration_iso',
  'busy_duration', 'busy_duration_ms', 'busy_duration_iso', 'task_time', 'task_time_ms', 'task_time_iso',
  // issue 17: the projected end moves with "now" and the running task.
  'forecast',
];

/** A summary without what changes with "now" (a running task's duration included). */
function stableView(sc) {
  const out = { ...sc };
  for (const key of NOW_DEPENDENT) delete out[key];
  out.tasks = sc.tasks.map((t) => {
    if (t.status !== 'in_progress') return t;
    const { duration: _d, duration_ms: _ms, duration_iso: _iso, ...rest } = t;
    return rest;
  });
  return out;
}

function counts(completed, skipped, inProgress, notStarted) {
  return {
    tasks_completed: completed, tasks_skipped: skipped, tasks_in_progress: inProgress,
    tasks_not_started: notStarted, tasks_remaining: notStarted,
  };
}

/** The first half, on the first process: session start, J-001 start and end, J-002 start, a summary. */
async function firstHalf(tools) {
  const started = await tools.ok('time_session_start', MILESTONE);
  const id = started.session_id;
  assert.match(id, UUID_V4_RE);
  assert.equal(started.timezone, NY);
  assert.equal(started.task_count, 4);
  const j1Start = await tools.ok('time_task_start', { session_id: id, ...TASKS[0].start });
  const j1End = await tools.ok('time_task_end', { session_id: id, ...TASKS[0].end });
  assert.equal(j1End.status, 'completed');
  assert.equal(j1End.start_time, j1Start.start_time);
  assert.equal(j1End.duration_source, 'monotonic');
  const j2Start = await tools.ok('time_task_start', { session_id: id, ...TASKS[1].start });
  assert.equal(j2Start.already_running, false);
  assert.deepEqual(countsIn(j2Start), counts(1, 0, 1, 2));
  const summary = await tools.ok('time_session_summary', { session_id: id });
  assert.equal(summary.status, 'active');
  assert.equal(summary.duration_source, 'monotonic');
  assert.deepEqual(summary.tasks.map((t) => t.status), ['completed', 'in_progress', 'not_started', 'not_started']);
  return { id, started, j1Start, j1End, j2Start, summary };
}

/**
 * On the restarted process: the session is the one the first process
 * reported (every field that does not depend on "now"), and its durations
 * went on across the restart on the monotonic clock.
 */
async function assertRecovered(tools, first) {
  const now = await tools.ok('time_session_summary', { session_id: first.id });
  assert.deepEqual(stableView(now), stableView(first.summary),
    'after the restart the summary must be what the first process reported');
  assert.ok(now.total_duration_ms >= first.summary.total_duration_ms, 'the session time went on');
  assertMonoMatchesWall(now.total_duration_ms, Date.parse(now.end_time) - Date.parse(now.start_time),
    'total_duration_ms across the restart');
  const running = now.tasks[1];
  assert.equal(running.start_time, first.j2Start.start_time);
  assertMonoMatchesWall(running.duration_ms, Date.parse(now.end_time) - Date.parse(running.start_time),
    'J-002 running across the restart');
  return now;
}

/** The second half, on the restarted process: J-002 end, J-003 start and end (skipped), summary, session end. */
async function secondHalf(tools, first) {
  const id = first.id;
  const j2End = await tools.ok('time_task_end', { session_id: id, ...TASKS[1].end });
  assert.equal(j2End.start_time, first.j2Start.start_time, 'J-002 keeps the start the first process reported');
  assert.equal(j2End.run, 1);
  assert.equal(j2End.status, 'completed');
  assert.equal(j2End.already_ended, false);
  assert.equal(j2End.duration_source, 'monotonic');
  assertMonoMatchesWall(j2End.duration_ms, Date.parse(j2End.end_time) - Date.parse(j2End.start_time),
    'J-002, started before the SIGKILL and ended after it');
  assert.deepEqual(countsIn(j2End), counts(2, 0, 0, 2));
  const j3Start = await tools.ok('time_task_start', { session_id: id, ...TASKS[2].start });
  assert.equal(j3Start.run, 1);
  const j3End = await tools.ok('time_task_end', { session_id: id, ...TASKS[2].end });
  assert.equal(j3End.status, 'skipped');
  assert.deepEqual(countsIn(j3End), counts(2, 1, 0, 1));
  const progress = await tools.ok('time_session_summary', { session_id: id, include_task_details: false });
  assert.equal(progress.status, 'active');
  assert.equal(progress.tasks, undefined);
  assert.deepEqual(countsIn(progress, { interrupted: true }), { ...counts(2, 1, 0, 1), tasks_interrupted: 0 });

  const report = await tools.ok('time_session_end', { session_id: id });
  assertFinalReport(report, first, { j2End, j3Start, j3End });
  const again = await tools.ok('time_session_summary', { session_id: id });
  const { already_ended: _, ...summary } = report;
  assert.deepEqual(again, summary, 'a summary after the end is the report');
  return report;
}

/** The final report holds every task with the timestamps its replies carried, from both processes. */
function assertFinalReport(report, first, { j2End, j3Start, j3End }) {
  assert.equal(report.session_id, first.id);
  assert.equal(report.status, 'ended');
  assert.equal(report.already_ended, false);
  assert.equal(report.start_time, first.started.start_time, 'the session keeps its start_time');
  assert.equal(report.start_time_friendly, first.started.start_time_friendly);
  assert.equal(report.milestone_id, MILESTONE.milestone_id);
  assert.equal(report.milestone_name, MILESTONE.milestone_name);
  assert.equal(report.timezone, NY);
  assert.deepEqual(report.metadata, MILESTONE.metadata);
  assert.deepEqual(report.tags, MILESTONE.tags);
  assert.equal(report.task_count, 4);
  assert.deepEqual(countsIn(report, { interrupted: true }), { ...counts(2, 1, 0, 1), tasks_interrupted: 0 });
  assert.equal(report.duration_source, 'monotonic', 'one boot: every duration from the monotonic clock');
  assert.deepEqual(report.tasks.map((t) => [t.task_id, t.run, t.status, t.duration_source]), [
    ['J-001', 1, 'completed', 'monotonic'],
    ['J-002', 1, 'completed', 'monotonic'],
    ['J-003', 1, 'skipped', 'monotonic'],
    ['J-004', null, 'not_started', null],
  ]);
  const [j1, j2, j3, j4] = report.tasks;
  // J-001 ended on the first process: its entry is exactly what that process reported.
  assert.deepEqual(j1, first.summary.tasks[0]);
  assert.equal(j1.start_time, first.j1Start.start_time);
  assert.equal(j1.end_time, first.j1End.end_time);
  assert.equal(j1.duration_ms, first.j1End.duration_ms);
  assert.equal(j1.task_name, TASKS[0].start.task_name);
  assert.equal(j1.external_task_id, TASKS[0].start.external_task_id);
  assert.deepEqual(j1.metadata, TASKS[0].start.metadata);
  assert.deepEqual(j1.completion_metadata, TASKS[0].end.metadata);
  // J-002 spans the SIGKILL.
  assert.equal(j2.start_time, first.j2Start.start_time);
  assert.equal(j2.end_time, j2End.end_time);
  assert.equal(j2.duration_ms, j2End.duration_ms);
  assert.equal(j2.duration, j2End.duration);
  assert.equal(j2.work_item_id, 'GH-7');
  assert.equal(j2.task_name, TASKS[1].start.task_name);
  assert.equal(j3.start_time, j3Start.start_time);
  assert.equal(j3.end_time, j3End.end_time);
  assert.equal(j3.duration_ms, j3End.duration_ms);
  assert.deepEqual(j4, first.summary.tasks[3], 'J-004 was never started');
  assert.equal(j4.start_time, null);
  assertMonoMatchesWall(report.total_duration_ms, Date.parse(report.end_time) - Date.parse(report.start_time),
    'total_duration_ms of a session across a SIGKILL');
  assert.equal(report.task_time_ms, j1.duration_ms + j2.duration_ms + j3.duration_ms);
  assert.ok(report.busy_duration_ms <= report.total_duration_ms);
  const times = [report.start_time, j1.start_time, j1.end_time, j2.start_time, j2.end_time,
    j3.start_time, j3.end_time, report.end_time];
  for (let k = 1; k < times.length; k += 1) {
    assert.ok(Date.parse(times[k - 1]) <= Date.parse(times[k]), `${times[k - 1]} must not be after ${times[k]}`);
  }
}

// ---------------------------------------------------------------------------
// Tool callers: `ok(name, args)` (must succeed: structuredContent), `fail(name,
// args, code)` (must be a tool error with that error_code: structuredContent).
// Over the SDK, lib/session_patterns' driverFor() gives a SessionDriver with
// both, checking every reply against the tool's outputSchema.

/** ok/fail over `call(name, args)` → a CallToolResult. */
function toolsOver(call) {
  return {
    call,
    async ok(name, args) {
      const result = await call(name, args);
      assert.equal(result.isError, false, `${name} failed: ${JSON.stringify(result.structuredContent)}`);
      return result.structuredContent;
    },
    async fail(name, args, errorCode) {
      return assertToolError(await call(name, args), errorCode);
    },
  };
}

/** A RawServer after `initialize` (2025-11-25): tools/call lines. */
function rawTools(server) {
  return toolsOver(async (name, args) => {
    const response = await server.callTool(name, args);
    assert.ok(!('error' in response), `${name}: JSON-RPC error ${JSON.stringify(response.error)}${server.context()}`);
    assertSingleTextBlockMatches(response.result);
    return response.result;
  });
}

/** A RawServer spoken to in 2026-07-28 lines (the `_meta` envelope, no initialize); replies checked against outputSchema. */
async function rawModernTools(server) {
  const request = async (method, params) => {
    const id = server.newId();
    await server.send(modernRequest(id, method, params));
    return assertModernResult(await server.waitForResponse(id), id);
  };
  const { tools } = await request('tools/list');
  const schemas = new Map(tools.map((t) => [t.name, makeValidator(t.outputSchema, { closed: true })]));
  return toolsOver(async (name, args) => {
    const result = await request('tools/call', { name, arguments: args });
    assertSingleTextBlockMatches(result);
    assert.deepEqual(schemas.get(name)(result.structuredContent), [], `${name}: the reply must match its outputSchema`);
    return result;
  });
}

/** A stdio server with `args` (and `env`), initialized; returns {server, tools}. */
async function startRaw(args, { env } = {}) {
  const server = await RawServer.start({ binary: BINARY, args, env });
  await server.initialize();
  return { server, tools: rawTools(server) };
}

/**
 * Asserts that `tools` gets SESSION_NOT_FOUND for `args.session_id` exactly as
 * for an id never issued (ids leak nothing).
 */
async function assertUnknown(tools, name, args) {
  const theirs = await tools.fail(name, args, 'SESSION_NOT_FOUND');
  const never = randomUUID();
  const fresh = await tools.fail(name, { ...args, session_id: never }, 'SESSION_NOT_FOUND');
  // Alike but for the request's own id (request_id).
  assert.deepEqual(JSON.parse(withoutRequestIds(JSON.stringify(theirs))),
    JSON.parse(withoutRequestIds(JSON.stringify(fresh).replaceAll(never, args.session_id))),
    `${name}: the answer for ${args.session_id} must be the one for an id never issued`);
}

// ---------------------------------------------------------------------------
// Processes.

/** SIGKILLs the server of an SDK stdio connection and waits for its end. */
async function crashSdkStdio(conn) {
  process.kill(conn.pid(), 'SIGKILL');
  await pollUntil(() => conn.exited(), 'end of the SIGKILLed server', { timeoutMs: 10_000 });
  await conn.client.close().catch(() => {});
}

/**
 * Runs `time-tracker-mcp ...argv` (stdin left open) until it exits; fails
 * after `timeoutMs`. Resolves {code, signal, stderr, stdout}.
 */
function runUntilExit(argv, { env = process.env, timeoutMs = 15_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`time-tracker-mcp ${argv.join(' ')} still running after ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', (err) => { clearTimeout(timer); reject(err); });
    child.once('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stderr, stdout }); });
  });
}

const RECOVERY_RE = /journal sqlite:(\S+) \(instance \d+; (\d+) open sessions in the directory, (\d+) expired that no server held\)/;

/**
 * The start-up log line's journal part: {file, recovered (sessions open in
 * the directory, to be taken over on use), expired (past their limits while
 * no server held them)}, or null.
 */
function recoveryLine(stderr) {
  const m = RECOVERY_RE.exec(stderr);
  return m && { file: m[1], recovered: Number(m[2]), expired: Number(m[3]) };
}

/** Waits for the start-up line of a stdio server (stderr and stdout are separate pipes). */
function waitForRecoveryLine(stderr) {
  return pollUntil(() => recoveryLine(stderr()), 'start-up log line naming the journal', {
    describe: () => stderr(),
  });
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true }).sort();
}

/** The environment without anything that chooses the journal, plus `extra`. */
function envWith(extra) {
  const { TIME_TRACKER_MCP_DATA_DIR: _d, TIME_TRACKER_MCP_EPHEMERAL: _e, TIME_TRACKER_MCP_CONFIG: _c, ...env } = process.env;
  return { ...env, ...extra };
}

// ---------------------------------------------------------------------------

describe('stdio, SDK v1 (2025-11-25): SIGKILL half-way through Pattern 1, then finish on a new process', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir];
  const conns = [];
  let first;

  after(async () => {
    for (const conn of conns) await conn.close().catch(() => {});
  });

  async function connectTo() {
    const conn = await connect(BINARY, { args });
    conns.push(conn);
    const { driver } = await driverFor(conn);
    return { conn, tools: driver };
  }

  test('the first process runs half of the session, then dies by SIGKILL', T, async () => {
    const { conn, tools } = await connectTo();
    assert.deepEqual(await waitForRecoveryLine(conn.stderr),
      { file: path.join(dataDir, JOURNAL_FILE), recovered: 0, expired: 0 });
    first = await firstHalf(tools);
    await crashSdkStdio(conn);
    assert.ok(existsSync(path.join(dataDir, JOURNAL_FILE)), `the journal is ${JOURNAL_FILE} in the data directory`);
  });

  test('a new process on the same directory adopts the session: the summary is what the first reported', T, async () => {
    const { conn, tools } = await connectTo();
    assert.equal((await waitForRecoveryLine(conn.stderr)).recovered, 1);
    await assertRecovered(tools, first);
    // Pattern 1 goes on: J-002 ends, J-003 runs, the session ends, all with the same session_id.
    first.report = await secondHalf(tools, first);
    await crashSdkStdio(conn);
  });

  test('an ended session comes back ended: the same summary, a repeated time_session_end, SESSION_ENDED for tasks', T, async () => {
    const { conn, tools } = await connectTo();
    assert.equal((await waitForRecoveryLine(conn.stderr)).recovered, 0, 'an ended session is not open');
    const { already_ended: _, ...summary } = first.report;
    assert.deepEqual(await tools.ok('time_session_summary', { session_id: first.id }), summary,
      'the summary of an ended session is the report, unchanged by the restart');
    assert.deepEqual(await tools.ok('time_session_end', { session_id: first.id }), { ...summary, already_ended: true },
      'a repeated time_session_end (a retry after a crash) gets the report again');
    await tools.fail('time_task_start', { session_id: first.id, task_id: 'J-004' }, 'SESSION_ENDED');
    await tools.fail('time_task_end', { session_id: first.id, task_id: 'J-002' }, 'SESSION_ENDED');
    await crashSdkStdio(conn);
  });

  test('a clean exit (stdin EOF, as when an editor restarts its server) keeps open sessions too', T, async () => {
    const dir = freshDataDir();
    const one = await startRaw(['--data-dir', dir]);
    const started = await one.tools.ok('time_session_start', { milestone_id: 'EOF', task_ids: ['a'] });
    const a = await one.tools.ok('time_task_start', { session_id: started.session_id, task_id: 'a' });
    one.server.endInput();
    assert.deepEqual(await one.server.waitForExit(), { code: 0, signal: null }, 'a clean exit on stdin EOF');
    const two = await connect(BINARY, { args: ['--data-dir', dir] });
    conns.push(two);
    const { driver } = await driverFor(two);
    const sc = await driver.ok('time_session_summary', { session_id: started.session_id });
    assert.equal(sc.status, 'active');
    assert.equal(sc.start_time, started.start_time);
    assert.deepEqual(sc.tasks.map((t) => [t.status, t.start_time]), [['in_progress', a.start_time]]);
    await two.close();
  });

  test('a retried time_session_start with its idempotency_key finds the session after a restart (issue 20)', T, async () => {
    const dir = freshDataDir();
    const args = { milestone_id: 'KEY', task_ids: ['a'], idempotency_key: randomUUID() };
    const one = await startRaw(['--data-dir', dir]);
    const started = await one.tools.ok('time_session_start', args);
    assert.equal(started.already_started, false);
    one.server.child.kill('SIGKILL');
    await one.server.waitForExit();
    // The retry is the first call after the restart: the key is looked up
    // in the journal, like a session_id.
    const two = await startRaw(['--data-dir', dir]);
    const again = await two.tools.ok('time_session_start', args);
    assert.equal(again.session_id, started.session_id);
    assert.equal(again.start_time, started.start_time);
    assert.equal(again.already_started, true);
    await two.tools.fail('time_session_start', { ...args, task_ids: ['b'] }, 'IDEMPOTENCY_KEY_REUSED');
    two.server.endInput();
    await two.server.waitForExit();
    // The info line about the session taken over names only the id's first
    // 8 characters (docs/http.md: full session ids are never logged).
    const log = two.server.stderrTail;
    assert.match(log, new RegExp(`took over session ${started.session_id.slice(0, 8)}\\.\\.\\. `));
    assert.ok(!log.includes(started.session_id), `the full session id must not be logged:\n${log}`);
  });
});

describe('stdio, raw 2026-07-28 lines: the same across a SIGKILL', () => {
  test('half of Pattern 1, SIGKILL, a new process finishes it with the same session_id', T, async () => {
    const dataDir = freshDataDir();
    const one = await RawServer.start({ binary: BINARY, args: ['--data-dir', dataDir] });
    let first;
    try {
      first = await firstHalf(await rawModernTools(one));
      one.assertStdoutClean();
    } finally {
      await one.stop(); // SIGKILL
    }
    assert.equal(one.closeInfo.signal, 'SIGKILL');
    const two = await RawServer.start({ binary: BINARY, args: ['--data-dir', dataDir] });
    try {
      const tools = await rawModernTools(two);
      assert.equal((await waitForRecoveryLine(() => two.stderrTail)).recovered, 1, 'one session recovered');
      await assertRecovered(tools, first);
      await secondHalf(tools, first);
      two.assertStdoutClean();
    } finally {
      await two.stop();
    }
  });
});

describe('HTTP: a recovered session goes back to the principal that created it', () => {
  const ALICE_1 = 'tok-alice-one-5b0e';
  const ALICE_2 = 'tok-alice-two-91c3';
  const BOB = 'tok-bob-77d2';
  const TOKENS = `alice ${ALICE_1}\nalice ${ALICE_2}\nbob ${BOB}\n`;
  const conns = [];

  after(async () => {
    for (const conn of conns) await conn.close().catch(() => {});
  });

  /** An SDK connection (`connectHttp` or `connectV2Http`) to `server` with `token`, and its driver. */
  async function as(connectFn, server, token, name) {
    const conn = await connectFn(server.url, { token, name, context: () => server.context() });
    conns.push(conn);
    const { driver } = await driverFor(conn);
    return { conn, tools: driver };
  }

  test('bearer tokens: bob gets SESSION_NOT_FOUND and changes nothing; alice\'s first MCP session re-binds it; ' +
    'her 2026-07-28 session comes back to her', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const one = await HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args });
    // 2025 era: a session in alice's MCP session, with a running task.
    const legacy = await as(connectHttp, one, ALICE_1, 'alice-v1');
    const L = await legacy.tools.ok('time_session_start', MILESTONE);
    const l1 = await legacy.tools.ok('time_task_start', { session_id: L.session_id, ...TASKS[0].start });
    // 2026-07-28 era: a session of the principal alice, with a running task.
    const modern = await as(connectV2Http, one, ALICE_1, 'alice-v2');
    const N = await modern.tools.ok('time_session_start', { ...MILESTONE, milestone_id: 'M7-modern' });
    const n1 = await modern.tools.ok('time_task_start', { session_id: N.session_id, ...TASKS[1].start });
    assert.equal((await one.kill()).signal, 'SIGKILL');

    const two = await HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args });
    try {
      assert.equal((await waitForRecoveryLine(() => two.stderrText)).recovered, 2, `two sessions recovered${two.context()}`);

      // Bob, in both eras: exactly as for an id never issued; his calls change nothing.
      const bob = await as(connectHttp, two, BOB, 'bob-v1');
      await assertUnknown(bob.tools, 'time_session_summary', { session_id: L.session_id });
      await assertUnknown(bob.tools, 'time_task_end', { session_id: L.session_id, task_id: 'J-001' });
      await assertUnknown(bob.tools, 'time_session_end', { session_id: L.session_id });
      await assertUnknown(bob.tools, 'time_task_end', { session_id: N.session_id, task_id: 'J-002' });
      const bobModern = await as(connectV2Http, two, BOB, 'bob-v2');
      await assertUnknown(bobModern.tools, 'time_session_summary', { session_id: N.session_id });
      await assertUnknown(bobModern.tools, 'time_session_end', { session_id: N.session_id });
      await assertUnknown(bobModern.tools, 'time_task_end', { session_id: L.session_id, task_id: 'J-001' });

      // Alice's first MCP session (her other token: the principal is the NAME) re-binds L.
      const alice = await as(connectHttp, two, ALICE_2, 'alice-v1-again');
      const sl = await alice.tools.ok('time_session_summary', { session_id: L.session_id });
      assert.equal(sl.status, 'active', 'bob\'s time_session_end changed nothing');
      assert.equal(sl.start_time, L.start_time);
      assert.deepEqual(sl.tasks.map((t) => [t.task_id, t.status, t.start_time, t.end_time]), [
        ['J-001', 'in_progress', l1.start_time, null], ['J-002', 'not_started', null, null],
        ['J-003', 'not_started', null, null], ['J-004', 'not_started', null, null],
      ], 'bob\'s time_task_end changed nothing');
      // Another MCP session of alice (a reconnect) takes it over, in the same state
      // (issue 15); the first takes it back by naming it again.
      const aliceOther = await as(connectHttp, two, ALICE_1, 'alice-v1-other');
      const other = await aliceOther.tools.ok('time_session_summary', { session_id: L.session_id });
      assert.deepEqual(other.tasks.map((t) => [t.task_id, t.status, t.start_time]),
        sl.tasks.map((t) => [t.task_id, t.status, t.start_time]));
      // Alice finishes it.
      const l1End = await alice.tools.ok('time_task_end', { session_id: L.session_id, ...TASKS[0].end });
      assert.equal(l1End.start_time, l1.start_time);
      assert.equal(l1End.duration_source, 'monotonic');
      const lReport = await alice.tools.ok('time_session_end', { session_id: L.session_id });
      assert.equal(lReport.status, 'ended');
      assert.equal(lReport.start_time, L.start_time);
      assert.equal(lReport.duration_source, 'monotonic');
      assert.deepEqual(lReport.tasks[0].start_time, l1.start_time);
      assert.deepEqual(lReport.tasks[0].end_time, l1End.end_time);
      assert.deepEqual(countsIn(lReport, { interrupted: true }), { ...counts(1, 0, 0, 3), tasks_interrupted: 0 });

      // 2026-07-28: alice's principal gets N back, from any of her connections.
      const aliceModern = await as(connectV2Http, two, ALICE_2, 'alice-v2-again');
      const sn = await aliceModern.tools.ok('time_session_summary', { session_id: N.session_id });
      assert.equal(sn.status, 'active');
      assert.equal(sn.start_time, N.start_time);
      assert.equal(sn.tasks[1].start_time, n1.start_time);
      assert.equal(sn.tasks[1].status, 'in_progress');
      const aliceModern2 = await as(connectV2Http, two, ALICE_1, 'alice-v2-other');
      const n1End = await aliceModern2.tools.ok('time_task_end', { session_id: N.session_id, ...TASKS[1].end });
      assert.equal(n1End.start_time, n1.start_time);
      const nReport = await aliceModern.tools.ok('time_session_end', { session_id: N.session_id });
      assert.equal(nReport.status, 'ended');
      assert.equal(nReport.tasks[1].start_time, n1.start_time);
      assert.equal(nReport.tasks[1].end_time, n1End.end_time);
      assert.equal(nReport.duration_source, 'monotonic');
    } finally {
      await two.stop();
    }
  });

  test('without auth: the local principal re-binds its session', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const one = await HttpServer.start({ binary: BINARY, args });
    const a = await as(connectHttp, one, undefined, 'local-v1');
    const first = await firstHalf(a.tools);
    await one.kill();

    const two = await HttpServer.start({ binary: BINARY, args });
    try {
      assert.equal((await waitForRecoveryLine(() => two.stderrText)).recovered, 1, `one session recovered${two.context()}`);
      const b = await as(connectHttp, two, undefined, 'local-v1-again');
      await assertRecovered(b.tools, first);
      await secondHalf(b.tools, first);
    } finally {
      await two.stop();
    }
  });

  test('a request of the other era gets SESSION_NOT_FOUND after a restart, as before it', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const one = await HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args });
    const legacy = await as(connectHttp, one, ALICE_1, 'alice-v1');
    const L = await legacy.tools.ok('time_session_start', MILESTONE);
    const modern = await as(connectV2Http, one, ALICE_1, 'alice-v2');
    const N = await modern.tools.ok('time_session_start', MILESTONE);
    // Before the restart: each era's session is unknown to the other era.
    await assertUnknown(modern.tools, 'time_session_summary', { session_id: L.session_id });
    await assertUnknown(legacy.tools, 'time_session_summary', { session_id: N.session_id });
    await one.kill();
    const two = await HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args });
    try {
      const modern2 = await as(connectV2Http, two, ALICE_1, 'alice-v2-again');
      await assertUnknown(modern2.tools, 'time_session_summary', { session_id: L.session_id });
      const legacy2 = await as(connectHttp, two, ALICE_1, 'alice-v1-again');
      await assertUnknown(legacy2.tools, 'time_session_summary', { session_id: N.session_id });
      // Each still goes back to its own era.
      assert.equal((await legacy2.tools.ok('time_session_summary', { session_id: L.session_id })).status, 'active');
      assert.equal((await modern2.tools.ok('time_session_summary', { session_id: N.session_id })).status, 'active');
    } finally {
      await two.stop();
    }
  });

  test('a tracking session outlives its MCP session\'s DELETE and a restart: the next client of its principal ' +
    'continues it', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const one = await HttpServer.start({ binary: BINARY, args });
    const a = await as(connectHttp, one, undefined, 'local-v1');
    const L = await a.tools.ok('time_session_start', MILESTONE);
    const j1 = await a.tools.ok('time_task_start', { session_id: L.session_id, ...TASKS[0].start });
    await a.conn.transport.terminateSession(); // DELETE: the MCP session ends, the tracking session stays open
    const b = await as(connectHttp, one, undefined, 'local-v1-next');
    const seen = await b.tools.ok('time_session_summary', { session_id: L.session_id });
    assert.equal(seen.status, 'active');
    assert.equal(seen.tasks[0].status, 'in_progress');
    assert.equal(seen.tasks[0].start_time, j1.start_time);
    await b.conn.transport.terminateSession();
    await one.kill();
    const two = await HttpServer.start({ binary: BINARY, args });
    try {
      const c = await as(connectHttp, two, undefined, 'local-v1-after-restart');
      const ended = await c.tools.ok('time_task_end', { session_id: L.session_id, ...TASKS[0].end });
      assert.equal(ended.start_time, j1.start_time);
      const done = await c.tools.ok('time_session_end', { session_id: L.session_id });
      assert.equal(done.tasks_completed, 1);
    } finally {
      await two.stop();
    }
  });
});

describe('several servers on one data directory', () => {
  test('a second stdio server and an HTTP server start on a directory in use and serve; all three use it ' +
    'and see each other\'s changes', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const { server, tools } = await startRaw(args);
    const s = await tools.ok('time_session_start', { milestone_id: 'SHARE', task_ids: ['a', 'b', 'c'] });
    // Both started at once, while the first answers calls (the after() hook stops whatever starts).
    const pending = Promise.all([startRaw(args), HttpServer.start({ binary: BINARY, args })]);
    const a = await tools.ok('time_task_start', { session_id: s.session_id, task_id: 'a' });
    const [{ server: second, tools: secondTools }, web] = await pending;
    try {
      // The second stdio server (local, 2025 era) names the session: it sees a running and starts b.
      const seen = await secondTools.ok('time_session_summary', { session_id: s.session_id });
      assert.deepEqual(seen.tasks.map((t) => [t.status, t.start_time]),
        [['in_progress', a.start_time], ['not_started', null], ['not_started', null]]);
      const b = await secondTools.ok('time_task_start', { session_id: s.session_id, task_id: 'b' });
      // The HTTP server's client (no auth: local, 2025 era) starts c.
      const conn = await connectHttp(web.url, { context: () => web.context() });
      let c;
      let own;
      try {
        const { driver } = await driverFor(conn);
        c = await driver.ok('time_task_start', { session_id: s.session_id, task_id: 'c' });
        own = await driver.ok('time_session_start', { milestone_id: 'WEB', task_ids: ['w'] });
      } finally {
        await conn.close();
      }
      // The first server sees every change, and the others' own sessions.
      const sc = await tools.ok('time_session_summary', { session_id: s.session_id });
      assert.deepEqual(sc.tasks.map((t) => [t.task_id, t.status, t.start_time]),
        [['a', 'in_progress', a.start_time], ['b', 'in_progress', b.start_time], ['c', 'in_progress', c.start_time]]);
      assert.equal((await tools.ok('time_session_summary', { session_id: own.session_id })).milestone_id, 'WEB');
      for (const [name, proc, stderr] of [['first', server, server.stderrTail], ['second', second, second.stderrTail],
        ['http', web, web.stderrText]]) {
        assert.equal(proc.exitInfo, null, `the ${name} server is still running:\n${stderr}`);
        assert.doesNotMatch(stderr, /is using the data directory|older version/, `the ${name} server's log`);
      }
      assert.match(web.stderrText, /serving MCP over HTTP/);
      server.assertStdoutClean();
      second.assertStdoutClean();
    } finally {
      await server.stop();
      await second.stop();
      await web.stop();
    }
    // All three killed: the journal holds every change, whichever process made it.
    const { server: next, tools: nextTools } = await startRaw(args);
    try {
      const sc = await nextTools.ok('time_session_summary', { session_id: s.session_id });
      assert.deepEqual(sc.tasks.map((t) => t.status), ['in_progress', 'in_progress', 'in_progress']);
    } finally {
      await next.stop();
    }
  });

  test('servers stop in any order: one that exits leaves the other serving; a server started while the ' +
    'first ran takes its session on use once it was killed', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const holder = await startRaw(args);
    const s = await holder.tools.ok('time_session_start', { milestone_id: 'ORDER', task_ids: ['a', 'b'] });
    const a = await holder.tools.ok('time_task_start', { session_id: s.session_id, task_id: 'a' });
    // A second one, started while the first runs (a client restarting its server, another window).
    const second = await startRaw(args);
    const b = await second.tools.ok('time_task_start', { session_id: s.session_id, task_id: 'b' });
    second.server.endInput();
    assert.deepEqual(await second.server.waitForExit(), { code: 0, signal: null }, 'a clean exit on stdin EOF');
    // The first goes on, and sees what the second did.
    const aEnd = await holder.tools.ok('time_task_end', { session_id: s.session_id, task_id: 'a' });
    assert.equal(aEnd.start_time, a.start_time);
    assert.equal(aEnd.already_ended, false);
    const sc = await holder.tools.ok('time_session_summary', { session_id: s.session_id });
    assert.deepEqual(sc.tasks.map((t) => [t.status, t.start_time]), [['completed', a.start_time], ['in_progress', b.start_time]]);
    // A third, started while the first runs; then the first dies: the third takes the session on use.
    const third = await startRaw(args);
    try {
      await holder.server.stop(); // SIGKILL
      const bEnd = await third.tools.ok('time_task_end', { session_id: s.session_id, task_id: 'b' });
      assert.equal(bEnd.start_time, b.start_time, 'b keeps the start the second server reported');
      assert.equal(bEnd.already_ended, false);
      const report = await third.tools.ok('time_session_end', { session_id: s.session_id });
      assert.deepEqual(report.tasks.map((t) => [t.status, t.start_time]),
        [['completed', a.start_time], ['completed', b.start_time]]);
      assert.equal(report.tasks[0].end_time, aEnd.end_time);
      assert.equal(report.tasks[1].end_time, bEnd.end_time);
    } finally {
      await holder.server.stop();
      await third.server.stop();
    }
  });

  test('a server of an older version (it holds an exclusive flock on <dir>/lock) still keeps new ones out: ' +
    'they wait, exit with code 1 and name it; once it is gone they start', T, async () => {
    const dataDir = freshDataDir();
    const lockFile = path.join(dataDir, 'lock');
    // An older server, as far as the lock goes: the exclusive flock, its pid in the file.
    const old = spawn('flock', ['-x', lockFile, 'sh', '-c', 'echo $$ > "$1"; echo "locked $$"; exec cat', 'sh', lockFile],
      { stdio: ['pipe', 'pipe', 'pipe'] });
    let oldPid;
    const oldExit = new Promise((resolve) => { old.once('close', (code, signal) => resolve({ code, signal })); });
    try {
      oldPid = await new Promise((resolve, reject) => {
        let out = '';
        old.stdout.on('data', (chunk) => {
          out += chunk;
          const m = /locked (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        old.once('error', reject);
        old.once('close', (code) => reject(new Error(`flock exited (code ${code}) before locking`)));
      });
      const modes = [['stdio', '--data-dir', dataDir], ['http', '--listen', '127.0.0.1:0', '--data-dir', dataDir]];
      for (const [i, { code, signal, stderr, stdout }] of (await Promise.all(modes.map((argv) => runUntilExit(argv)))).entries()) {
        const mode = modes[i][0];
        assert.deepEqual({ code, signal }, { code: 1, signal: null }, `${mode}: exit code 1; stderr:\n${stderr}`);
        assert.match(stderr, /a version from before servers shared a directory/, `${mode}: the message says why`);
        assert.ok(stderr.includes(dataDir), `${mode}: the message names the directory:\n${stderr}`);
        assert.ok(stderr.includes(`pid ${oldPid}`), `${mode}: the message names the holder:\n${stderr}`);
        assert.doesNotMatch(stderr, /serving MCP/, `${mode}: it never served`);
        assert.equal(stdout, '', `${mode}: nothing on stdout`);
      }
    } finally {
      old.stdin.end(); // cat exits, then sh and flock
      await oldExit;
      if (oldPid) {
        try { process.kill(oldPid, 'SIGKILL'); } catch { /* gone, as it should be */ }
      }
    }
    const { server, tools } = await startRaw(['--data-dir', dataDir]);
    try {
      await tools.ok('time_session_start', { milestone_id: 'AFTER', task_ids: [] });
    } finally {
      await server.stop();
    }
  });
});

describe('storage faults', () => {
  test('garbage in journal.sqlite3: the server runs, time_get_current works, tracking tools answer ' +
    'STORAGE_UNAVAILABLE, stderr names the file, the file is untouched', T, async () => {
    const dataDir = freshDataDir();
    const file = path.join(dataDir, JOURNAL_FILE);
    const garbage = Buffer.concat([
      Buffer.from('this is not a SQLite database, whatever its name says\n'.repeat(80)),
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
    ]);
    writeFileSync(file, garbage);
    const { server, tools } = await startRaw(['--data-dir', dataDir]);
    try {
      assertTimeResult((await server.callTool('time_get_current', { timezone: NY })).result);
      const err = await tools.fail('time_session_start', MILESTONE, 'STORAGE_UNAVAILABLE');
      assert.ok(err.message.length > 0);
      // Still unavailable on the next try, and time_get_current still works.
      await tools.fail('time_session_start', { milestone_id: 'again', task_ids: [] }, 'STORAGE_UNAVAILABLE');
      assertTimeResult((await server.callTool('time_get_current', {})).result);
      assert.ok(server.stderrTail.includes(file), `stderr must name ${file}:${server.context()}`);
      server.endInput();
      assert.deepEqual(await server.waitForExit(), { code: 0, signal: null }, 'a clean exit on stdin EOF');
      server.assertStdoutClean();
    } finally {
      await server.stop();
    }
    assert.ok(readFileSync(file).equals(garbage), 'the corrupt journal must not be modified');
  });

  test('--data-dir names a regular file (HTTP): the server runs, tracking tools answer STORAGE_UNAVAILABLE, ' +
    'the file is untouched', T, async () => {
    const file = path.join(freshDataDir(), 'not-a-directory');
    const content = 'a regular file where the data directory should be\n';
    writeFileSync(file, content);
    const server = await HttpServer.start({ binary: BINARY, args: ['--data-dir', file] });
    try {
      const conn = await connectHttp(server.url, { context: () => server.context() });
      try {
        const { driver } = await driverFor(conn);
        assertTimeResult(await conn.client.callTool({ name: 'time_get_current', arguments: {} }));
        await driver.fail('time_session_start', MILESTONE, 'STORAGE_UNAVAILABLE');
        assert.ok(server.stderrText.includes(file), `stderr must name ${file}:${server.context()}`);
      } finally {
        await conn.close();
      }
      assert.deepEqual(await server.terminate('SIGTERM'), { code: 0, signal: null });
    } finally {
      await server.stop();
    }
    assert.equal(readFileSync(file, 'utf8'), content, 'the file must not be modified');
  });

  test('a journal of a newer schema: refused and untouched; the server runs without it (STORAGE_UNAVAILABLE, ' +
    'both versions named, for a session on disk too, never SESSION_NOT_FOUND); restored, it is opened without a ' +
    'restart and the session is back', T, async () => {
    const dataDir = freshDataDir();
    const file = path.join(dataDir, JOURNAL_FILE);
    // A valid journal with an open session, closed cleanly (so no -wal file holds part of it).
    const first = await startRaw(['--data-dir', dataDir]);
    const { session_id } = await first.tools.ok('time_session_start', MILESTONE);
    first.server.endInput();
    assert.deepEqual(await first.server.waitForExit(), { code: 0, signal: null });
    assert.ok(!existsSync(`${file}-wal`) || readFileSync(`${file}-wal`).length === 0,
      'a clean exit leaves the journal in one file');
    // The SQLite header's user_version: 4 bytes, big-endian, at offset 60.
    const bytes = readFileSync(file);
    assert.equal(bytes.readUInt32BE(60), CURRENT_SCHEMA, 'the journal has the current schema version');
    const newer = CURRENT_SCHEMA + 1;
    bytes.writeUInt32BE(newer, 60);
    writeFileSync(file, bytes);

    const { server, tools } = await startRaw(['--data-dir', dataDir]);
    try {
      await tools.ok('time_get_current', {});
      await tools.fail('time_session_start', MILESTONE, 'STORAGE_UNAVAILABLE');
      const stderr = () => server.stderrTail;
      await pollUntil(() => /schema version/.test(stderr()), 'the refusal in the log', { describe: stderr });
      assert.match(stderr(), new RegExp(`schema version ${newer}\\b`), 'the message names the file\'s version');
      assert.match(stderr(), new RegExp(`\\(${CURRENT_SCHEMA}\\)`), 'the message names the supported version');
      assert.ok(stderr().includes(file), `the message names the file:\n${stderr()}`);
      // The session is on disk: "it never existed" would be a lie.
      const unavailable = await tools.fail('time_session_summary', { session_id }, 'STORAGE_UNAVAILABLE');
      assert.match(unavailable.message, /newer_schema/, 'the message says which fault');
      await tools.fail('time_task_start', { session_id, task_id: 'J-001' }, 'STORAGE_UNAVAILABLE');
      assert.ok(readFileSync(file).equals(bytes), 'a journal of a newer schema must not be modified');
      // The fault clears (the file restored): the server's retries open it (1 s after the first try, then
      // 2 s, 4 s later), without a restart.
      bytes.writeUInt32BE(CURRENT_SCHEMA, 60);
      writeFileSync(file, bytes);
      const summary = await pollUntil(async () => {
        const result = await tools.call('time_session_summary', { session_id });
        return result.isError ? null : result.structuredContent;
      }, 'the session back after the journal was restored', { timeoutMs: 15_000, intervalMs: 200, describe: stderr });
      assert.equal(summary.milestone_id, MILESTONE.milestone_id);
      assert.equal(summary.status, 'active');
      await pollUntil(() => /opened after \d+ failed attempts/.test(stderr()), 'the recovery in the log', { describe: stderr });
      await tools.ok('time_task_start', { session_id, task_id: 'J-001' });
      server.endInput();
      assert.deepEqual(await server.waitForExit(), { code: 0, signal: null });
    } finally {
      await server.stop();
    }
  });
});

describe('--ephemeral and the default data directory', () => {
  test('--ephemeral creates nothing (neither --data-dir nor the default) and a restart does not know the session', T, async () => {
    const home = freshDataDir();
    const state = freshDataDir();
    const unused = path.join(freshDataDir(), 'never-created');
    const env = envWith({ HOME: home, XDG_STATE_HOME: state });
    const { server, tools } = await startRaw(['--ephemeral', '--data-dir', unused], { env });
    const s = await tools.ok('time_session_start', MILESTONE);
    await tools.ok('time_task_start', { session_id: s.session_id, ...TASKS[0].start });
    await server.stop(); // SIGKILL
    assert.match(server.stderrTail, /ephemeral/, 'the start-up line says the sessions live in memory');
    assert.doesNotMatch(server.stderrTail, /journal sqlite:/);

    const { server: next, tools: nextTools } = await startRaw(['--ephemeral'], { env });
    try {
      await assertUnknown(nextTools, 'time_session_summary', { session_id: s.session_id });
      await assertUnknown(nextTools, 'time_task_end', { session_id: s.session_id, task_id: 'J-001' });
    } finally {
      await next.stop();
    }
    assert.equal(existsSync(unused), false, '--data-dir must not be created with --ephemeral');
    assert.deepEqual(filesUnder(home), [], 'nothing under HOME');
    assert.deepEqual(filesUnder(state), [], 'nothing under XDG_STATE_HOME');
  });

  /** A stdio server with only `args` (no --data-dir added) in `env`: starts a session, returns the start-up journal line. */
  async function journalLineWith(args, env) {
    const server = new RawServer(BINARY, ['stdio', ...args], env);
    await server.spawned;
    try {
      await server.initialize();
      await rawTools(server).ok('time_session_start', { milestone_id: 'D', task_ids: [] });
      return await waitForRecoveryLine(() => server.stderrTail);
    } finally {
      await server.stop();
    }
  }

  test('without --data-dir: $XDG_STATE_HOME/time-tracker-mcp, else ~/.local/state/time-tracker-mcp', T, async () => {
    const home = freshDataDir();
    const state = freshDataDir();
    const xdg = await journalLineWith([], envWith({ HOME: home, XDG_STATE_HOME: state }));
    const inState = path.join(state, 'time-tracker-mcp', JOURNAL_FILE);
    assert.equal(xdg?.file, inState);
    assert.ok(existsSync(inState), `${inState} exists`);
    assert.deepEqual(filesUnder(home), [], 'HOME is not used when XDG_STATE_HOME is set');

    const { XDG_STATE_HOME: _, ...noXdg } = envWith({ HOME: home });
    const homeLine = await journalLineWith([], noXdg);
    const inHome = path.join(home, '.local', 'state', 'time-tracker-mcp', JOURNAL_FILE);
    assert.equal(homeLine?.file, inHome);
    assert.ok(existsSync(inHome), `${inHome} exists`);
  });
});

describe('expiry of recovered sessions', () => {
  test('a session idle past --session-max-idle while the server was down expires at start-up, ' +
    'and stays expired under a longer limit: readable history, no writes', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const one = await startRaw(args);
    const s = await one.tools.ok('time_session_start', MILESTONE);
    await one.server.stop(); // SIGKILL

    // Control: with the default idle limit (4h) it is recovered, open.
    const two = await startRaw(args);
    assert.equal((await two.tools.ok('time_session_summary', { session_id: s.session_id })).status, 'active');
    const lastCall = Date.now();
    await two.server.stop();
    assert.equal(recoveryLine(two.server.stderrTail)?.recovered, 1);

    // The one wait for time in this file: just past the 1 s idle limit.
    await new Promise((resolve) => { setTimeout(resolve, Math.max(0, lastCall + 1_100 - Date.now())); });

    const three = await startRaw([...args, '--session-max-idle', '1s']);
    try {
      assert.deepEqual(await waitForRecoveryLine(() => three.server.stderrTail),
        { file: path.join(dataDir, JOURNAL_FILE), recovered: 0, expired: 1 }, three.server.context());
      // History: read only, as for a live session past its limit.
      const read = await three.tools.ok('time_session_summary', { session_id: s.session_id });
      assert.equal(read.status, 'expired');
      const err = await three.tools.call('time_task_start', { session_id: s.session_id, task_id: 'J-001' });
      assert.equal(err.isError, true, `an expired session must not change: ${JSON.stringify(err.structuredContent)}`);
      assert.equal(err.structuredContent.error_code, 'SESSION_EXPIRED', JSON.stringify(err.structuredContent));
      assert.match(err.structuredContent.message, /idle past the idle limit \(1 second on this server/);
    } finally {
      await three.server.stop();
    }

    // The expiry was recorded: a server with the default 4h limit does not bring it back.
    const four = await startRaw(args);
    try {
      assert.deepEqual(await waitForRecoveryLine(() => four.server.stderrTail),
        { file: path.join(dataDir, JOURNAL_FILE), recovered: 0, expired: 0 }, four.server.context());
      const err = await four.tools.call('time_task_start', { session_id: s.session_id, task_id: 'J-001' });
      assert.equal(err.isError, true, `an expired session must stay expired: ${JSON.stringify(err.structuredContent)}`);
      assert.equal(err.structuredContent.error_code, 'SESSION_EXPIRED', JSON.stringify(err.structuredContent));
      assert.equal((await four.tools.ok('time_session_summary', { session_id: s.session_id })).status, 'expired');
    } finally {
      await four.server.stop();
    }
  });
});
