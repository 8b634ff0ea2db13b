// time-tracker-mcp driven by the official MCP TypeScript SDK over Streamable
// HTTP (StreamableHTTPClientTransport): the same suite as over stdio, then
// what only HTTP has: sessions, their end, and several clients at once.
// Run: TTM_BINARY=/abs/path node --test sdk_http.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, mcpHeaders, rawRequest, stopAllHttpServers } from './lib/http_server.mjs';
import { call, Client, defineSdkSuite } from './lib/sdk_suite.mjs';
import { assertTimeResult } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');

after(stopAllHttpServers);

/**
 * Connects an SDK client to `server` and runs the initialize handshake.
 * Returns {client, transport, negotiatedVersion(), errors(), close()}.
 */
async function connectTo(server, { name = 'ttm-sdk-http-test' } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  let negotiatedVersion;
  const setVersion = transport.setProtocolVersion.bind(transport);
  transport.setProtocolVersion = (version) => { negotiatedVersion = version; setVersion(version); };
  const client = new Client({ name, version: '0.0.0' });
  const errors = [];
  client.onerror = (err) => { errors.push(err); };
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    throw new Error(`SDK connect failed: ${err.message}${server.context()}`);
  }
  return {
    client,
    transport,
    negotiatedVersion: () => negotiatedVersion,
    errors: () => errors.map((err) => err.message),
    close: () => client.close(),
  };
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

  // PENDING THE MERGE of the tracking-session tools (time_session_*), which
  // are being built on main: until they are on this branch the test skips
  // itself. After the merge, check the tool and argument names below.
  test('two clients each see only their own tracking sessions', T, async (t) => {
    const a = await connectTo(server, { name: 'client-a' });
    const b = await connectTo(server, { name: 'client-b' });
    try {
      const { tools } = await a.client.listTools();
      const names = tools.map((tool) => tool.name);
      if (!names.includes('time_session_start') || !names.includes('time_session_list')) {
        t.skip('pending the merge of the time_session_* tools from main');
        return;
      }
      const started = await a.client.callTool({ name: 'time_session_start', arguments: { name: 'only-a' } });
      assert.equal(started.isError, false, JSON.stringify(started));
      const listA = await a.client.callTool({ name: 'time_session_list', arguments: {} });
      const listB = await b.client.callTool({ name: 'time_session_list', arguments: {} });
      assert.match(JSON.stringify(listA.structuredContent), /only-a/);
      assert.doesNotMatch(JSON.stringify(listB.structuredContent), /only-a/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
