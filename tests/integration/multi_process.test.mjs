// Several server processes on one data directory (issue 15): every editor
// window starts its own `time-tracker-mcp stdio`, the README's command 1 an
// HTTP server, and all of them share the journal. Driven by the official MCP
// SDK clients (v1 over stdio and HTTP, the v2 client pinned to 2026-07-28):
//
// - three stdio servers (one SDK v1 client each, one per "window") and one
//   HTTP server run the spec's Pattern 1 at the same time, each its own
//   session, and each reads the others' reports;
// - `kill -9` of a window half-way through Pattern 1: a client of the same
//   principal and era in another live process (a window; the HTTP server
//   without auth, principal `local`) names the session_id and finishes it,
//   every task intact; the other era cannot see it;
// - a 2026-07-28 session used alternately through two live processes (two
//   HTTP servers of one principal; a stdio server and an HTTP server, both
//   `local`): each sees the other's changes; other principals, and the
//   2025 era, get SESSION_NOT_FOUND exactly as for an id never issued;
// - two processes racing (Promise.all) to end the same task, to start it, to
//   end the session: exactly one wins, the other answers already_ended /
//   already_running true with the winner's outcome; one run, never two;
// - an HTTP client that reconnects (a new MCP session, same principal)
//   continues its session by id, also through another server process;
// - `--max-tracking-sessions 2` counts the open sessions of the whole
//   directory: two open in process A, a start in process B is LIMIT_REACHED.
//
// Every reply goes through a SessionDriver (lib/session_assertions.mjs): the
// tool's outputSchema, and a model of the session that one driver keeps
// whichever process carries the call (`Route`). Nothing waits for time:
// waits end on events (a reply, the start-up log line, the child's exit).
// Every child is killed by its PID in the after() hooks.
//
// Run: TTM_BINARY=/abs/path node --test multi_process.test.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { withoutRequestIds } from './lib/modern.mjs';
import {
  assertPattern1Report, pattern1, pattern1FirstHalf, pattern1SecondHalf, reportAsSummary, Route,
} from './lib/pattern1_halves.mjs';
import { pollUntil } from './lib/raw_client.mjs';
import {
  connect, connectHttp, connectV2Http, connectV2Stdio, MODERN_PROTOCOL_VERSION,
} from './lib/sdk_client.mjs';
import { countsIn, newYorkAbbreviation } from './lib/session_assertions.mjs';
import { driverFor, PATTERN_1_TASKS, SPEC_SESSION, specSession } from './lib/session_patterns.mjs';
import { assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
/** Each test drives several processes, some of them at once. */
const T = { timeout: 60_000 };

/** Every SDK connection opened here, closed (and its child killed by PID) at the end. */
const conns = [];
after(async () => {
  await Promise.all(conns.map((conn) => conn.close().catch(() => {})));
  await stopAllHttpServers();
});

// ---------------------------------------------------------------------------
// Connections and routes.

/** A stdio server (`time-tracker-mcp stdio ...args`) with an SDK v1 client: one editor window. */
async function openWindow(name, args) {
  const conn = await connect(BINARY, { args });
  conns.push(conn);
  const { tools, driver } = await driverFor(conn);
  return { name, conn, tools, driver, pid: conn.pid() };
}

/** An SDK client (`connectFn`: connectHttp or connectV2Http) on `server`, with its driver. */
async function openHttp(name, connectFn, server, { token } = {}) {
  const conn = await connectFn(server.url, { token, name, context: () => server.context() });
  conns.push(conn);
  const { tools, driver } = await driverFor(conn);
  return { name, conn, tools, driver, server };
}

/** A stdio server with an SDK v2 client pinned to 2026-07-28. */
async function openV2Stdio(name, args) {
  const conn = await connectV2Stdio(BINARY, { args, name });
  conns.push(conn);
  assert.equal(conn.negotiatedVersion(), MODERN_PROTOCOL_VERSION);
  const { tools, driver } = await driverFor(conn);
  return { name, conn, tools, driver, pid: conn.pid() };
}

/** SIGKILLs the server of an SDK stdio connection (by its PID) and waits for its end. */
async function killWindow(window) {
  process.kill(window.pid, 'SIGKILL');
  await pollUntil(() => window.conn.exited(), `end of the SIGKILLed server (pid ${window.pid})`, { timeoutMs: 10_000 });
  await window.conn.client.close().catch(() => {});
}

/** The server log of a client's process (its stderr tail), for failure messages. */
function logOf(client) {
  if (client.server) return `\n--- ${client.name}: ${client.server.context().trimStart()}`;
  return `\n--- ${client.name}: server stderr (tail) ---\n${client.conn.stderr?.() ?? ''}`;
}

/** Runs `body`; a failure's message gets the server logs of `clients`. */
async function withLogs(clients, body) {
  try {
    return await body();
  } catch (err) {
    err.message += clients.map(logOf).join('');
    throw err;
  }
}

/**
 * Asserts `driver` gets `errorCode` for `args.session_id` exactly as for an
 * id never issued (ids leak nothing).
 */
async function assertUnknown(driver, name, args) {
  const theirs = await driver.fail(name, args, 'SESSION_NOT_FOUND');
  const never = randomUUID();
  const fresh = await driver.fail(name, { ...args, session_id: never }, 'SESSION_NOT_FOUND');
  // Alike but for the request's own id (request_id).
  assert.deepEqual(JSON.parse(withoutRequestIds(JSON.stringify(theirs))),
    JSON.parse(withoutRequestIds(JSON.stringify(fresh).replaceAll(never, args.session_id))),
    `${name}: the answer for ${args.session_id} must be the one for an id never issued`);
}

// ---------------------------------------------------------------------------
// Races: the same change sent through two processes at once.

/** Ten tasks ended in a race, one started in a race, one never started. */
const RACE_TASKS = Array.from({ length: 12 }, (_, i) => `R-${i + 1}`);
const [RACE_START, RACE_IDLE] = RACE_TASKS.slice(-2);

/**
 * Starts a session through `a`, then for each of ten tasks: starts it
 * (alternately through a and b) and ends it through both at once (a says
 * completed, b skipped): one ends it, the other answers already_ended with
 * the winner's outcome. Then a time_task_start race (RACE_START) and a
 * time_session_end race. The report and both processes' summaries hold one
 * run per task.
 */
function raceThrough(a, b) {
  return withLogs([a, b], () => race(a, b));
}

async function race(a, b) {
  const { driver: da } = a;
  const { driver: db } = b;
  const started = await da.ok('time_session_start', { milestone_id: 'RACE', task_ids: RACE_TASKS });
  const id = started.session_id;
  const winners = [];
  for (const [k, task_id] of RACE_TASKS.slice(0, -2).entries()) {
    const start = await (k % 2 === 0 ? da : db).ok('time_task_start', { session_id: id, task_id });
    assert.equal(start.already_running, false);
    assert.equal(start.run, 1);
    const replies = await Promise.all([
      da.ok('time_task_end', { session_id: id, task_id, status: 'completed' }),
      db.ok('time_task_end', { session_id: id, task_id, status: 'skipped' }),
    ]);
    const label = `${task_id} ended through ${a.name} and ${b.name} at once`;
    assert.deepEqual(replies.map((r) => r.already_ended).sort(), [false, true],
      `${label}: exactly one must end it: ${JSON.stringify(replies)}`);
    const w = replies.findIndex((r) => !r.already_ended);
    const [winner, loser] = [replies[w], replies[1 - w]];
    assert.equal(winner.status, w === 0 ? 'completed' : 'skipped', `${label}: the winner's own status`);
    assert.equal(winner.start_time, start.start_time, `${label}: the run's start`);
    for (const key of ['task_id', 'run', 'status', 'start_time', 'end_time', 'duration', 'duration_ms', 'duration_iso']) {
      assert.deepEqual(loser[key], winner[key], `${label}: the loser reports the winner's ${key}`);
    }
    winners.push(winner);
  }
  // time_task_start of one task through both at once: one run, started once.
  const [s1, s2] = await Promise.all([
    da.ok('time_task_start', { session_id: id, task_id: RACE_START }),
    db.ok('time_task_start', { session_id: id, task_id: RACE_START }),
  ]);
  assert.deepEqual([s1.already_running, s2.already_running].sort(), [false, true],
    `${RACE_START} started through ${a.name} and ${b.name} at once: exactly one starts it: ${JSON.stringify([s1, s2])}`);
  assert.equal(s1.run, 1);
  assert.equal(s2.run, 1);
  assert.equal(s1.start_time, s2.start_time, 'one start_time for the one run');
  // Both see it running; then time_session_end through both at once.
  for (const d of [da, db]) {
    const sc = await d.ok('time_session_summary', { session_id: id });
    assert.deepEqual(sc.tasks.map((t) => [t.task_id, t.run, t.status]), [
      ...winners.map((w) => [w.task_id, 1, w.status]), [RACE_START, 1, 'in_progress'], [RACE_IDLE, null, 'not_started'],
    ]);
  }
  const ends = await Promise.all([
    da.ok('time_session_end', { session_id: id }),
    db.ok('time_session_end', { session_id: id }),
  ]);
  assert.deepEqual(ends.map((r) => r.already_ended).sort(), [false, true],
    `time_session_end through ${a.name} and ${b.name} at once: exactly one ends it`);
  const report = ends.find((r) => !r.already_ended);
  assert.deepEqual(reportAsSummary(ends.find((r) => r.already_ended)), reportAsSummary(report),
    'the loser of the time_session_end race reports the winner\'s report');
  assert.equal(report.status, 'ended');
  assert.equal(report.start_time, started.start_time);
  assert.deepEqual(report.tasks.map((t) => [t.task_id, t.run, t.status, t.start_time, t.end_time]), [
    ...winners.map((w) => [w.task_id, 1, w.status, w.start_time, w.end_time]),
    [RACE_START, 1, 'interrupted', s1.start_time, report.end_time],
    [RACE_IDLE, null, 'not_started', null, null],
  ], 'one run per task, each with the winner\'s outcome');
  const skipped = winners.filter((w) => w.status === 'skipped').length;
  assert.deepEqual(countsIn(report, { interrupted: true }), {
    tasks_completed: winners.length - skipped, tasks_skipped: skipped, tasks_in_progress: 0, tasks_not_started: 1,
    tasks_remaining: 1, tasks_interrupted: 1,
  });
  for (const d of [da, db]) {
    assert.deepEqual(await d.ok('time_session_summary', { session_id: id }), reportAsSummary(report),
      'both processes report the same ended session');
  }
  return report;
}

// ---------------------------------------------------------------------------

describe('three stdio windows and one HTTP server on one data directory (SDK v1, 2025-11-25, principal local)', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir];
  let windows;
  let server;
  let web; // the SDK v1 client of the HTTP server (no auth: local)
  const runs = new Map();

  before(async () => {
    // All four started at once: none refuses to start because another runs.
    [server, ...windows] = await Promise.all([
      HttpServer.start({ binary: BINARY, args }),
      openWindow('window-1', args), openWindow('window-2', args), openWindow('window-3', args),
    ]);
    web = await openHttp('http-v1', connectHttp, server);
  }, T);

  test('all four processes run on the directory: distinct PIDs, all serving', T, () => {
    const pids = [server.child.pid, ...windows.map((w) => w.pid)];
    assert.equal(new Set(pids).size, 4, `four server processes: ${pids}`);
    for (const w of windows) assert.equal(w.conn.exited(), false, `${w.name} is running:\n${w.conn.stderr()}`);
    assert.equal(server.exitInfo, null);
  });

  test('Pattern 1 in all four at once (Promise.all): all succeed, each its own session', T, async () => {
    const clients = [...windows, web];
    const results = await Promise.all(clients.map((c) => pattern1(new Route(c), c.name)));
    results.forEach((run, i) => runs.set(clients[i].name, run));
    const ids = results.map((run) => run.s.id);
    assert.equal(new Set(ids).size, 4, `four distinct session ids: ${ids}`);
    results.forEach((run, i) => {
      assert.equal(run.report.session_id, run.s.id);
      assert.deepEqual(run.report.metadata, { ...SPEC_SESSION.metadata, window: clients[i].name },
        `${clients[i].name} reports its own session`);
    });
  });

  test('each process reads every other one\'s session (same principal and era): the report its owner got', T, async () => {
    for (const reader of [...windows, web]) {
      for (const [owner, run] of runs) {
        const sc = await reader.driver.ok('time_session_summary', { session_id: run.s.id });
        assert.deepEqual(sc, reportAsSummary(run.report), `${reader.name} reading ${owner}'s session`);
      }
    }
  });

  test('kill -9 of window 1 half-way through Pattern 1: window 2 (another live stdio server) finishes it, ' +
    'every task intact', T, async () => {
    const [w1, w2] = windows;
    const route = new Route(w1);
    const run = await pattern1FirstHalf(route.driver, { window: w1.name });
    const left = await run.s.summary();
    await killWindow(w1);
    // The 2026-07-28 era of the same principal (through the HTTP server) cannot see it, and changes nothing.
    const modern = await openHttp('http-v2', connectV2Http, server);
    await assertUnknown(modern.driver, 'time_session_summary', { session_id: run.s.id });
    await assertUnknown(modern.driver, 'time_task_end', { session_id: run.s.id, task_id: 'M2-003' });
    await assertUnknown(modern.driver, 'time_session_end', { session_id: run.s.id });
    // Window 2 names the session: the state window 1 reported, then the rest of Pattern 1.
    route.use(w2);
    const claimed = await run.s.summary();
    assert.deepEqual(claimed.tasks.map((t) => [t.task_id, t.run, t.status, t.start_time, t.end_time]),
      left.tasks.map((t) => [t.task_id, t.run, t.status, t.start_time, t.end_time]),
      'window 2 sees every task as window 1 left it');
    await pattern1SecondHalf(run);
    // The HTTP server's client (local, 2025 era) reads the same report.
    assert.deepEqual(await web.driver.ok('time_session_summary', { session_id: run.s.id }), reportAsSummary(run.report));
  });

  test('kill -9 of window 3 half-way through Pattern 1: the HTTP server (no auth: local, 2025 era) finishes it', T, async () => {
    const w3 = windows[2];
    const route = new Route(w3);
    const run = await pattern1FirstHalf(route.driver, { window: w3.name });
    await killWindow(w3);
    route.use(web);
    await pattern1SecondHalf(run);
    assert.deepEqual(await windows[1].driver.ok('time_session_summary', { session_id: run.s.id }),
      reportAsSummary(run.report), 'window 2 reads the report the HTTP client got');
  });

  test('window 2 and the HTTP server race (time_task_end, time_task_start, time_session_end of one session)', T, async () => {
    await raceThrough(windows[1], web);
  });

  test('the surviving processes are unharmed; no client saw anything but valid JSON-RPC', T, async () => {
    assert.equal(windows[1].conn.exited(), false, windows[1].conn.stderr());
    assert.equal(server.exitInfo, null, server.context());
    for (const c of [windows[1], web]) {
      assert.deepEqual(c.conn.errors(), [], c.name);
    }
  });
});

describe('2026-07-28: one session used alternately through two live processes (SDK v2)', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir];
  const ALICE_1 = 'tok-alice-one-3f1a';
  const ALICE_2 = 'tok-alice-two-8c2d';
  const BOB = 'tok-bob-5e90';
  const TOKENS = `alice ${ALICE_1}\nalice ${ALICE_2}\nbob ${BOB}\n`;
  let httpA;
  let httpB;
  let httpLocal;
  let aliceA; // alice through server A
  let aliceB; // alice (her other token) through server B
  let stdioLocal; // a stdio server: principal local
  let webLocal; // an HTTP server without auth: principal local

  before(async () => {
    [httpA, httpB, httpLocal] = await Promise.all([
      HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args }),
      HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args }),
      HttpServer.start({ binary: BINARY, args }),
    ]);
    [aliceA, aliceB, webLocal, stdioLocal] = await Promise.all([
      openHttp('alice@A', connectV2Http, httpA, { token: ALICE_1 }),
      openHttp('alice@B', connectV2Http, httpB, { token: ALICE_2 }),
      openHttp('local@http', connectV2Http, httpLocal),
      openV2Stdio('local@stdio', args),
    ]);
    for (const c of [aliceA, aliceB, webLocal]) assert.equal(c.conn.negotiatedVersion(), MODERN_PROTOCOL_VERSION);
  }, T);

  /**
   * Pattern 1's tasks, each change made through one process and checked
   * through the other: start in A, B sees it running; end in B, A sees it
   * ended; and the other way round; the session ended in B, A reads the report.
   */
  async function alternate(a, b) {
    const route = new Route(a);
    const s = await route.driver.startSession(specSession(), { abbreviation: newYorkAbbreviation });
    for (const [i, { start, end }] of PATTERN_1_TASKS.entries()) {
      const [x, y] = i % 2 === 0 ? [a, b] : [b, a];
      route.use(x);
      const started = await s.startTask(start);
      route.use(y);
      const seen = await s.summary();
      assert.equal(seen.tasks[i].status, 'in_progress', `${y.name} sees ${start.task_id} started in ${x.name}`);
      assert.equal(seen.tasks[i].start_time, started.start_time);
      // A repeated start through the other process: already running, the same run.
      const again = await s.startTask(start);
      assert.equal(again.already_running, true);
      await s.endTask(end);
      route.use(x);
      const back = await s.summary();
      assert.equal(back.tasks[i].status, 'completed', `${x.name} sees ${start.task_id} ended in ${y.name}`);
      // A repeated end through the first process: already ended, the same outcome.
      assert.equal((await s.endTask(end)).already_ended, true);
    }
    route.use(b);
    const report = await s.end();
    assert.equal(report.tasks_completed, 5);
    route.use(a);
    assert.deepEqual(await s.summary(), reportAsSummary(report), `${a.name} reads the report ${b.name} got`);
    assert.equal((await s.end()).already_ended, true);
    return s;
  }

  test('alice through two HTTP servers (two tokens of one name): each sees the other\'s changes', T, async () => {
    await alternate(aliceA, aliceB);
  });

  test('local through a stdio server and an HTTP server without auth: each sees the other\'s changes', T, async () => {
    await alternate(stdioLocal, webLocal);
  });

  test('another principal, or alice\'s 2025 era, in another process: SESSION_NOT_FOUND as for an id never ' +
    'issued, and nothing changes', T, async () => {
    const route = new Route(aliceA);
    const s = await route.driver.startSession(specSession({ task_ids: ['X-1', 'X-2'] }));
    await s.startTask({ task_id: 'X-1' });
    const bob = await openHttp('bob@B', connectV2Http, httpB, { token: BOB });
    const aliceLegacy = await openHttp('alice-v1@B', connectHttp, httpB, { token: ALICE_2 });
    for (const other of [bob, aliceLegacy, webLocal, stdioLocal]) {
      await assertUnknown(other.driver, 'time_session_summary', { session_id: s.id });
      await assertUnknown(other.driver, 'time_task_end', { session_id: s.id, task_id: 'X-1' });
      await assertUnknown(other.driver, 'time_task_start', { session_id: s.id, task_id: 'X-2' });
      await assertUnknown(other.driver, 'time_session_end', { session_id: s.id });
    }
    // Nothing changed, seen through B; the model (through A, then B) agrees.
    route.use(aliceB);
    const sc = await s.summary();
    assert.equal(sc.status, 'active');
    assert.deepEqual(sc.tasks.map((t) => t.status), ['in_progress', 'not_started']);
    await s.end();
  });

  test('two HTTP servers race (alice): time_task_end, time_task_start and time_session_end of one session', T, async () => {
    await raceThrough(aliceA, aliceB);
  });

  test('a stdio server and an HTTP server race (local)', T, async () => {
    await raceThrough(stdioLocal, webLocal);
  });

  test('no client saw anything but valid JSON-RPC', T, () => {
    for (const c of [aliceA, aliceB, webLocal, stdioLocal]) assert.deepEqual(c.conn.errors(), [], c.name);
    for (const s of [httpA, httpB, httpLocal]) assert.equal(s.exitInfo, null, s.context());
    assert.equal(stdioLocal.conn.exited(), false);
  });
});

describe('HTTP: a client that reconnects (a new MCP session) continues its session by id', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir];
  const ALICE = 'tok-alice-a71c';
  const BOB = 'tok-bob-0d4e';
  const TOKENS = `alice ${ALICE}\nbob ${BOB}\n`;
  let one;
  let two;

  before(async () => {
    [one, two] = await Promise.all([
      HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args }),
      HttpServer.startWithTokens({ binary: BINARY, tokens: TOKENS, args }),
    ]);
  }, T);

  test('close the SDK client, connect a new one (same principal): task_start/end and session_end go on; ' +
    'bob gets SESSION_NOT_FOUND', T, async () => {
    const first = await openHttp('alice-1', connectHttp, one, { token: ALICE });
    const firstMcpSession = first.conn.transport.sessionId;
    assert.ok(firstMcpSession, 'the first client has an MCP session id');
    const route = new Route(first);
    const run = await pattern1FirstHalf(route.driver, { window: 'alice' });
    await first.conn.close(); // no DELETE: as when a client restarts or loses its connection

    const second = await openHttp('alice-2', connectHttp, one, { token: ALICE });
    assert.ok(second.conn.transport.sessionId, 'the second client has an MCP session id');
    assert.notEqual(second.conn.transport.sessionId, firstMcpSession, 'a new MCP session');
    const bob = await openHttp('bob', connectHttp, one, { token: BOB });
    await assertUnknown(bob.driver, 'time_task_end', { session_id: run.s.id, task_id: 'M2-003' });
    await assertUnknown(bob.driver, 'time_session_summary', { session_id: run.s.id });
    route.use(second);
    // M2-003 ends, M2-004 starts in the new MCP session.
    run.ended.push(await run.s.endTask(PATTERN_1_TASKS[2].end));
    run.started.push(await run.s.startTask(PATTERN_1_TASKS[3].start));
    await second.conn.close();

    // The next reconnect lands on the other server process (e.g. restarted, or behind a balancer).
    const third = await openHttp('alice-3', connectHttp, two, { token: ALICE });
    route.use(third);
    run.ended.push(await run.s.endTask(PATTERN_1_TASKS[3].end));
    run.started.push(await run.s.startTask(PATTERN_1_TASKS[4].start));
    run.ended.push(await run.s.endTask(PATTERN_1_TASKS[4].end));
    const report = await run.s.end();
    assertPattern1Report(report, run);
    assert.deepEqual(third.conn.errors(), []);
  });
});

describe('--max-tracking-sessions 2 counts the open sessions of the whole directory', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir, '--max-tracking-sessions', '2'];
  let a;
  let b;

  before(async () => {
    let server;
    [a, server] = await Promise.all([openWindow('A', args), HttpServer.start({ binary: BINARY, args })]);
    b = await openHttp('B', connectHttp, server);
  }, T);

  /**
   * time_session_start through `c`'s SDK client: the reply as it comes (the
   * last test checks a LIMIT_REACHED reply against the outputSchema).
   */
  const start = (c, milestone) => c.conn.client.callTool({
    name: 'time_session_start', arguments: { milestone_id: milestone, task_ids: ['T1'] },
  });

  /** Asserts `result` is LIMIT_REACHED for max_tracking_sessions 2; returns structuredContent. */
  function assertLimit(result, label) {
    const sc = assertToolError(result, 'LIMIT_REACHED');
    assert.match(sc.message, /\b2\b/, `${label}: the message names the limit value`);
    assert.match(sc.message, /max_tracking_sessions/, `${label}: the message names the limit`);
    assert.equal(sc.limit, 'max_tracking_sessions', `${label}: the limit field (docs/tools.md)`);
    return sc;
  }

  test('two sessions open in process A: a start in process B answers LIMIT_REACHED; ending one in A makes ' +
    'room for B, then A and B are refused; both processes answer alike for every session', T, async () => {
    const s1 = await a.driver.ok('time_session_start', { milestone_id: 'A1', task_ids: ['T1'] });
    const s2 = await a.driver.ok('time_session_start', { milestone_id: 'A2', task_ids: ['T1'] });
    assertLimit(await start(b, 'B1'), 'B with two sessions open in A');
    // The refusal changed nothing: both open, as B sees them too.
    for (const c of [a, b]) {
      for (const s of [s1, s2]) {
        assert.equal((await c.driver.ok('time_session_summary', { session_id: s.session_id })).status, 'active',
          `${s.milestone_id} through ${c.name}`);
      }
    }
    await a.driver.ok('time_session_end', { session_id: s1.session_id });
    // One session open in the directory: B starts one.
    const r3 = await start(b, 'B1');
    assert.equal(r3.isError, false, `B with one session open in the directory: ${JSON.stringify(r3.structuredContent)}`);
    const s3 = r3.structuredContent;
    assertLimit(await start(a, 'A3'), 'A with A2 and B1 open');
    assertLimit(await start(b, 'B2'), 'B with A2 and B1 open');
    // Every process answers the same for every session (s1 ended, or reclaimed to make room).
    for (const s of [s1, s2, s3]) {
      const answers = [];
      for (const c of [a, b]) {
        const r = await c.driver.call('time_session_summary', { session_id: s.session_id });
        answers.push(r.isError ? r.structuredContent.error_code : r.structuredContent.status);
      }
      assert.equal(answers[0], answers[1], `${s.milestone_id}: both processes answer alike: ${answers}`);
    }
    assert.deepEqual(a.conn.errors(), []);
    assert.deepEqual(b.conn.errors(), []);
  });

  test('a LIMIT_REACHED reply matches time_session_start\'s outputSchema (every field declared)', T, async () => {
    // Fill the directory up to its limit, whatever the test before left.
    let refused;
    for (let k = 0; k < 3 && !refused; k += 1) {
      const r = await start(b, `FILL-${k}`);
      if (r.isError) refused = r;
    }
    assert.ok(refused, 'a third start in a directory limited to 2 must be refused');
    const sc = assertLimit(refused, 'B');
    const { own, ajv } = b.driver.problems('time_session_start', sc);
    assert.deepEqual(own, [], `the LIMIT_REACHED reply does not match the outputSchema: ${JSON.stringify(sc)}`);
    assert.ok(ajv.valid, ajv.errorMessage);
  });
});

describe('one idempotency_key through three processes at the same instant (issue 34)', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir];
  let windows;

  before(async () => {
    windows = await Promise.all([1, 2, 3].map((i) => openWindow(`keyed-${i}`, args)));
  }, T);

  test('time_session_start with one key through three stdio servers at once (Promise.all), 10 keys: one ' +
    'session per key; the others answer it with already_started', T, async () => {
    const ROUNDS = 10;
    let duplicated = 0;
    for (let k = 0; k < ROUNDS; k += 1) {
      const key = `race-${k}-${randomUUID()}`;
      const results = await Promise.all(windows.map((w) => w.conn.client.callTool({
        name: 'time_session_start',
        arguments: { milestone_id: `K${k}`, task_ids: ['T1'], idempotency_key: key },
      })));
      for (const r of results) assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
      const ids = new Set(results.map((r) => r.structuredContent.session_id));
      if (ids.size > 1) duplicated += 1;
      else assert.equal(results.filter((r) => !r.structuredContent.already_started).length, 1, `key ${k}: one first start`);
    }
    assert.equal(duplicated, 0, `${duplicated} of ${ROUNDS} keys started more than one session`);
    for (const w of windows) assert.deepEqual(w.conn.errors(), [], w.name);
  });
});
