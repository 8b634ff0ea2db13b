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

  test('two clients, one process: B cannot see or touch A\'s tracking session, A still can', T, async () => {
    const a = await connectTo(server, { name: 'client-a' });
    const b = await connectTo(server, { name: 'client-b' });
    try {
      assert.notEqual(a.transport.sessionId, b.transport.sessionId, 'two MCP sessions');
      const { driver: driverA } = await driverFor(a);
      const { driver: driverB } = await driverFor(b);
      const s = await driverA.startSession(specSession());
      await s.startTask({ task_id: 'M2-001' });

      // B gets exactly what it gets for an id never handed out: same code,
      // same message once the id is replaced, so nothing tells B the id exists.
      const never = randomUUID();
      const id = '<session_id>';
      for (const [name, args] of [
        ['time_session_summary', {}], ['time_task_start', { task_id: 'M2-002' }],
        ['time_task_end', { task_id: 'M2-001' }], ['time_session_end', {}],
      ]) {
        const foreign = await driverB.fail(name, { session_id: s.id, ...args }, 'SESSION_NOT_FOUND');
        const unknown = await driverB.fail(name, { session_id: never, ...args }, 'SESSION_NOT_FOUND');
        assert.ok(foreign.message.includes(s.id), `${name}: the message names the id: ${foreign.message}`);
        assert.equal(foreign.message.replaceAll(s.id, id), unknown.message.replaceAll(never, id),
          `${name}: A's session must look like one never handed out`);
        assert.deepEqual(Object.keys(foreign).sort(), Object.keys(unknown).sort(), `${name}: the same fields`);
      }

      // B's attempts changed nothing in A (the model says so: task M2-001
      // still runs, M2-002 never started, the session is active).
      const sc = await s.summary();
      assert.equal(sc.status, 'active');
      assert.equal(sc.tasks_in_progress, 1);
      assert.equal(sc.tasks_not_started, 4);
      await s.endTask({ task_id: 'M2-001' });
      await s.startTask({ task_id: 'M2-002' });
      // And the other way round: B's own session is B's alone.
      const other = await driverB.startSession(specSession({ milestone_id: 'M3' }));
      assert.notEqual(other.id, s.id);
      await driverA.fail('time_session_summary', { session_id: other.id }, 'SESSION_NOT_FOUND');
      await other.end();
      const ended = await s.end();
      assert.equal(ended.tasks_completed, 1);
      assert.equal(ended.tasks_interrupted, 1);
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
