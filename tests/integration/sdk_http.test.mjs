// time-tracker-mcp driven by the official MCP TypeScript SDK over Streamable
// HTTP (StreamableHTTPClientTransport): the same suite as over stdio, then
// what only HTTP has: sessions, their end, and several clients at once in
// one server process, each with its own tracking sessions; and the spec's
// Pattern 1 (lib/session_patterns.mjs) over HTTP.
// Run: TTM_BINARY=/abs/path node --test sdk_http.test.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, mcpHeaders, rawRequest, stopAllHttpServers } from './lib/http_server.mjs';
import { connectHttp, LoggingMessageNotificationSchema } from './lib/sdk_client.mjs';
import { call, defineSdkSuite } from './lib/sdk_suite.mjs';
import { definePattern1, driverFor, specSession } from './lib/session_patterns.mjs';
import { assertTimeResult } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllHttpServers);

/**
 * Connects an SDK client to `server` and runs the initialize handshake.
 * Returns {client, transport, negotiatedVersion(), errors(), close()}.
 */
function connectTo(server, { name = 'ttm-sdk-http-test' } = {}) {
  return connectHttp(server.url, { name, context: () => server.context() });
}

/** The shared suite's connect: one server per connection. */
async function connect({ env } = {}) {
  const server = await HttpServer.start({ binary: BINARY, env: env ?? process.env });
  try {
    const conn = await connectTo(server);
    return {
      ...conn,
      async close() {
        await conn.client.close();
        const { code } = await server.terminate('SIGTERM');
        assert.equal(code, 0, `the server must exit 0 on SIGTERM${server.context()}`);
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

defineSdkSuite('Streamable HTTP', connect);

describe('MCP sessions over HTTP (SDK)', () => {
  let server;
  before(async () => {
    server = await HttpServer.start({ binary: BINARY });
  });
  after(() => server?.stop());

  test('the transport holds the server\'s session id', T, async () => {
    const conn = await connectTo(server);
    try {
      assert.match(conn.transport.sessionId, /^[0-9a-f]{32}$/);
      assertTimeResult(await call(conn, { timezone: 'UTC' }));
    } finally {
      await conn.close();
    }
  });

  test('terminateSession() sends DELETE: the session is gone for every client', T, async () => {
    const conn = await connectTo(server);
    try {
      const session = conn.transport.sessionId;
      await conn.transport.terminateSession();
      assert.equal(conn.transport.sessionId, undefined);
      const res = await rawRequest(server.url, {
        headers: mcpHeaders({ session }), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      assert.equal(res.status, 404);
    } finally {
      await conn.close();
    }
  });

  test('terminateSession() ends the MCP session only: the principal\'s next client continues its tracking ' +
    'session and ends the task (issue 29)', T, async () => {
    const a = await connectTo(server, { name: 'client-a' });
    let b;
    try {
      const { driver: driverA } = await driverFor(a);
      const s = await driverA.startSession(specSession());
      const started = await s.startTask({ task_id: 'M2-001' });
      await a.transport.terminateSession();
      assert.equal(a.transport.sessionId, undefined);
      b = await connectTo(server, { name: 'client-b' });
      const { driver: driverB } = await driverFor(b);
      const seen = await driverB.ok('time_session_summary', { session_id: s.id });
      assert.equal(seen.status, 'active');
      assert.equal(seen.tasks_in_progress, 1);
      const ended = await driverB.ok('time_task_end', { session_id: s.id, task_id: 'M2-001' });
      assert.equal(ended.status, 'completed');
      assert.equal(ended.start_time, started.start_time);
      const done = await driverB.ok('time_session_end', { session_id: s.id });
      assert.equal(done.already_ended, false);
      assert.equal(done.tasks_completed, 1);
      assert.deepEqual(a.errors(), []);
      assert.deepEqual(b.errors(), []);
    } finally {
      await a.close();
      await b?.close();
    }
  });

  test('a session ended elsewhere: the SDK sees 404 Session not found', T, async () => {
    const conn = await connectTo(server);
    try {
      const del = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': conn.transport.sessionId } });
      assert.equal(del.status, 204);
      await assert.rejects(conn.client.ping(), /404|Session not found/);
    } finally {
      await conn.close();
    }
  });

  test('two clients at once get their own sessions and log levels', T, async () => {
    const a = await connectTo(server, { name: 'client-a' });
    const b = await connectTo(server, { name: 'client-b' });
    try {
      assert.notEqual(a.transport.sessionId, b.transport.sessionId);
      const logsA = [];
      const logsB = [];
      a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logsA.push(n.params));
      b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logsB.push(n.params));
      await a.client.setLoggingLevel('debug');
      const calls = [];
      for (let i = 0; i < 10; i++) {
        calls.push(call(a, { timezone: 'UTC' }), call(b, { timezone: 'Asia/Tokyo' }));
      }
      const results = await Promise.all(calls);
      results.forEach((r, i) => {
        const sc = assertTimeResult(r);
        assert.equal(sc.timezone, i % 2 === 0 ? 'UTC' : 'Asia/Tokyo');
      });
      // Debug notifications arrive on A's responses (SSE) only.
      assert.ok(logsA.length >= 10, `client A got ${logsA.length} log notifications`);
      assert.deepEqual(logsB, []);
      // Ending A leaves B alone.
      await a.transport.terminateSession();
      assertTimeResult(await call(b, {}));
      assert.deepEqual(a.errors(), []);
      assert.deepEqual(b.errors(), []);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('two clients of one principal, one process: B naming A\'s tracking session takes it over (a reconnect ' +
    'does the same), each sees the other\'s changes; an id never handed out is SESSION_NOT_FOUND', T, async () => {
    const a = await connectTo(server, { name: 'client-a' });
    const b = await connectTo(server, { name: 'client-b' });
    try {
      assert.notEqual(a.transport.sessionId, b.transport.sessionId, 'two MCP sessions');
      const { driver: driverA } = await driverFor(a);
      const { driver: driverB } = await driverFor(b);
      const s = await driverA.startSession(specSession());
      await s.startTask({ task_id: 'M2-001' });
      await driverB.fail('time_session_summary', { session_id: randomUUID() }, 'SESSION_NOT_FOUND');
      // B (the same principal, `local` without auth) continues A's session (issue 15).
      const seen = await driverB.ok('time_session_summary', { session_id: s.id });
      assert.equal(seen.status, 'active');
      assert.equal(seen.tasks_in_progress, 1);
      await driverB.ok('time_task_end', { session_id: s.id, task_id: 'M2-001' });
      await driverB.ok('time_task_start', { session_id: s.id, task_id: 'M2-002' });
      // A sees B's changes when it names the session again.
      const back = await driverA.ok('time_session_summary', { session_id: s.id });
      assert.equal(back.tasks_completed, 1);
      assert.equal(back.tasks_in_progress, 1);
      assert.deepEqual(back.tasks.map((t) => t.status).slice(0, 2), ['completed', 'in_progress']);
      const ended = await driverA.ok('time_session_end', { session_id: s.id });
      assert.equal(ended.tasks_completed, 1);
      assert.equal(ended.tasks_interrupted, 1);
      const again = await driverB.ok('time_session_end', { session_id: s.id });
      assert.equal(again.already_ended, true);
      assert.deepEqual(a.errors(), []);
      assert.deepEqual(b.errors(), []);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('tracking sessions over HTTP (SDK)', () => {
  let server;
  let conn;
  let driver;

  before(async () => {
    server = await HttpServer.start({ binary: BINARY });
    conn = await connectTo(server);
    ({ driver } = await driverFor(conn));
  }, T);

  after(async () => {
    await conn?.close();
    await server?.stop();
  });

  definePattern1(() => driver);

  test('the SDK saw nothing but valid JSON-RPC for it', T, async () => {
    assert.deepEqual(await conn.client.ping(), {});
    assert.deepEqual(conn.errors(), []);
  });
});

describe('expired tracking sessions over HTTP (SDK)', () => {
  test('a session past --session-max-idle is history: listed, and read by the summary and the report (status ' +
    'expired, its running task interrupted at the expiry); writes answer SESSION_EXPIRED with the cause (issue 29)',
  T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--session-max-idle', '1s'] });
    const conn = await connectTo(server);
    try {
      const { driver } = await driverFor(conn);
      const s = await driver.startSession(specSession());
      await s.startTask({ task_id: 'M2-001' });
      const lastCall = Date.now();
      // The one wait for time here (the binary takes no injected clock): just past the 1 s idle limit.
      await new Promise((resolve) => { setTimeout(resolve, Math.max(0, lastCall + 1_100 - Date.now())); });
      const first = await driver.fail('time_task_end', { session_id: s.id, task_id: 'M2-001' }, 'SESSION_EXPIRED');
      assert.match(first.message, /has expired: it was idle past the idle limit \(1 second on this server: no call named it\)/);
      const sum = await driver.ok('time_session_summary', { session_id: s.id });
      assert.equal(sum.status, 'expired');
      assert.equal(sum.tasks_interrupted, 1);
      assert.equal(sum.tasks_in_progress, 0);
      assert.equal(sum.tasks[0].status, 'interrupted');
      assert.equal(sum.tasks[0].end_time, sum.end_time, 'the run ends at the expiry instant');
      const listed = await driver.ok('time_session_list', { status: 'expired' });
      assert.deepEqual(listed.sessions.map((r) => r.session_id), [s.id]);
      const report = await driver.ok('time_session_report', { session_id: s.id, format: 'json' });
      assert.equal(report.status, 'expired');
      assert.ok(JSON.parse(report.report) && report.report.includes(s.id), 'the JSON report is of the session');
      for (const [name, args] of [['time_task_start', { task_id: 'M2-002' }], ['time_session_end', {}],
        ['time_undo', {}]]) {
        const err = await driver.fail(name, { session_id: s.id, ...args }, 'SESSION_EXPIRED');
        assert.match(err.message, /idle limit \(1 second on this server: no call named it\)\. It cannot change any more; time_session_summary and time_session_report still read it/, name);
      }
      // Still history on a second read.
      assert.equal((await driver.ok('time_session_summary', { session_id: s.id })).status, 'expired');
      assert.deepEqual(conn.errors(), []);
    } finally {
      await conn.close();
      await server.stop();
    }
  });
});
