// `time-tracker-mcp http` spoken to in raw HTTP: every status the MCP
// endpoint answers with (200, 202, 204, 400, 401, 403, 404, 405, 406, 413,
// 415, 503), content negotiation (JSON or SSE), sessions, health checks,
// timeouts and shutdown. Run: TTM_BINARY=/abs/path node --test http_raw.test.mjs
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, sseMessages, stopAllHttpServers,
} from './lib/http_server.mjs';
import { pollUntil } from './lib/raw_client.mjs';
import { assertTimeResult } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const SESSION_ID_RE = /^[0-9a-f]{32}$/;
const MAX_BODY = 1024;

after(stopAllHttpServers);

/** Runs initialize (+ notifications/initialized); returns the session id. */
async function openSession(server, { version = '2025-11-25' } = {}) {
  const res = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody(version) });
  assert.equal(res.status, 200, res.body);
  const session = res.headers['mcp-session-id'];
  assert.match(session ?? '', SESSION_ID_RE);
  const note = await rawRequest(server.url, {
    headers: mcpHeaders({ session, version }),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(note.status, 202);
  return session;
}

function rpc(id, method, params) {
  const m = { jsonrpc: '2.0', id, method };
  if (params !== undefined) m.params = params;
  return JSON.stringify(m);
}

function assertRpcError(res, status, pattern) {
  assert.equal(res.status, status, res.body);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(res.json?.jsonrpc, '2.0', `a JSON-RPC error body: ${res.body}`);
  assert.equal(typeof res.json.error?.code, 'number');
  if (pattern) assert.match(res.json.error.message, pattern);
}

describe('MCP endpoint, default security', () => {
  let server;
  before(async () => {
    server = await HttpServer.start({ binary: BINARY, args: ['--max-body-bytes', String(MAX_BODY)] });
  });
  after(() => server?.stop());

  test('200: initialize creates a session with a 128-bit hex Mcp-Session-Id', T, async () => {
    const res = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^application\/json/);
    assert.match(res.headers['mcp-session-id'], SESSION_ID_RE);
    assert.equal(res.json.result.protocolVersion, '2025-11-25');
    const other = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
    assert.notEqual(other.headers['mcp-session-id'], res.headers['mcp-session-id']);
  });

  test('200: a tools/call on the session is answered as JSON', T, async () => {
    const session = await openSession(server);
    const res = await rawRequest(server.url, {
      headers: mcpHeaders({ session, version: '2025-11-25' }),
      body: rpc(2, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'UTC' } }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^application\/json/);
    assert.equal(res.json.id, 2);
    assertTimeResult(res.json.result);
  });

  test('202: notifications and responses are accepted with no body', T, async () => {
    const session = await openSession(server);
    for (const body of [
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }),
      JSON.stringify({ jsonrpc: '2.0', id: 'server-req-1', result: {} }),
    ]) {
      const res = await rawRequest(server.url, { headers: mcpHeaders({ session }), body });
      assert.equal(res.status, 202, body);
      assert.equal(res.body, '');
    }
  });

  test('SSE: a client that accepts only text/event-stream gets one', T, async () => {
    const session = await openSession(server);
    const res = await rawRequest(server.url, {
      headers: mcpHeaders({ session, accept: 'text/event-stream' }),
      body: rpc(3, 'ping'),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/event-stream/);
    assert.deepEqual(sseMessages(res.body), [{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  test('SSE: log notifications come first on a stream when the client takes both', T, async () => {
    const session = await openSession(server);
    const level = await rawRequest(server.url, {
      headers: mcpHeaders({ session }), body: rpc(4, 'logging/setLevel', { level: 'debug' }),
    });
    assert.equal(level.status, 200);
    const res = await rawRequest(server.url, {
      headers: mcpHeaders({ session }),
      body: rpc(5, 'tools/call', { name: 'time_get_current', arguments: {} }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/event-stream/);
    const messages = sseMessages(res.body);
    assert.ok(messages.length >= 2, res.body);
    assert.equal(messages.at(-1).id, 5);
    for (const m of messages.slice(0, -1)) assert.equal(m.method, 'notifications/message');
    // A JSON-only client gets the response alone.
    const json = await rawRequest(server.url, {
      headers: mcpHeaders({ session, accept: 'application/json' }),
      body: rpc(6, 'tools/call', { name: 'time_get_current', arguments: {} }),
    });
    assert.match(json.headers['content-type'], /^application\/json/);
    assert.equal(json.json.id, 6);
  });

  test('400: a request without Mcp-Session-Id other than initialize', T, async () => {
    const res = await rawRequest(server.url, { headers: mcpHeaders(), body: rpc(1, 'tools/list') });
    assertRpcError(res, 400, /Mcp-Session-Id/);
  });

  test('400: an unsupported MCP-Protocol-Version; every supported one is accepted', T, async () => {
    const session = await openSession(server);
    const bad = await rawRequest(server.url, { headers: mcpHeaders({ session, version: '2099-01-01' }), body: rpc(1, 'ping') });
    assertRpcError(bad, 400, /MCP-Protocol-Version/);
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25', undefined]) {
      const ok = await rawRequest(server.url, { headers: mcpHeaders({ session, version }), body: rpc(1, 'ping') });
      assert.equal(ok.status, 200, `version ${version}`);
    }
  });

  test('400: a body that is not JSON is a parse error', T, async () => {
    const session = await openSession(server);
    const res = await rawRequest(server.url, { headers: mcpHeaders({ session }), body: '{"jsonrpc":' });
    assertRpcError(res, 400);
    assert.equal(res.json.error.code, -32700);
    assert.equal(res.json.id, null);
  });

  test('400: a malformed Mcp-Session-Id', T, async () => {
    const res = await rawRequest(server.url, { headers: mcpHeaders({ session: 'x'.repeat(129) }), body: rpc(1, 'ping') });
    assertRpcError(res, 400, /Mcp-Session-Id/);
  });

  test('200 without a session: a failed initialize creates none', T, async () => {
    const res = await rawRequest(server.url, {
      headers: mcpHeaders(),
      body: rpc(1, 'initialize', { capabilities: {}, clientInfo: { name: 'x', version: '1' } }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.json.error.code, -32602);
    assert.equal(res.headers['mcp-session-id'], undefined);
  });

  test('403: a foreign Origin, or a foreign Host (DNS rebinding)', T, async () => {
    const evilOrigin = await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Origin: 'http://evil.example.com' } }), body: initializeBody(),
    });
    assertRpcError(evilOrigin, 403, /Origin/);
    assert.equal(evilOrigin.headers['mcp-session-id'], undefined);
    const evilHost = await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Host: `evil.example.com:${server.port}` } }), body: initializeBody(),
    });
    assertRpcError(evilHost, 403, /Host/);
    const otherPort = await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Origin: `http://localhost:${server.port + 1}` } }), body: initializeBody(),
    });
    assert.equal(otherPort.status, 403);
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      const ok = await rawRequest(server.url, {
        headers: mcpHeaders({ extra: { Host: `${name}:${server.port}`, Origin: `http://${name}:${server.port}` } }),
        body: initializeBody(),
      });
      assert.equal(ok.status, 200, name);
    }
  });

  test('404: an unknown session id, and one ended with DELETE (204)', T, async () => {
    const unknown = await rawRequest(server.url, {
      headers: mcpHeaders({ session: '0123456789abcdef0123456789abcdef' }), body: rpc(7, 'ping'),
    });
    assertRpcError(unknown, 404, /Session not found/);
    assert.equal(unknown.json.id, 7);
    const session = await openSession(server);
    const del = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session } });
    assert.equal(del.status, 204);
    const after = await rawRequest(server.url, { headers: mcpHeaders({ session }), body: rpc(8, 'ping') });
    assertRpcError(after, 404);
    const again = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session } });
    assert.equal(again.status, 404);
  });

  test('400: DELETE without Mcp-Session-Id', T, async () => {
    const res = await rawRequest(server.url, { method: 'DELETE' });
    assertRpcError(res, 400, /Mcp-Session-Id/);
  });

  test('404: paths other than the endpoint and the health checks', T, async () => {
    const res = await rawRequest(new URL('/other', server.url), { method: 'GET' });
    assert.equal(res.status, 404);
  });

  test('405: GET opens no SSE stream (the server sends nothing unasked), and other methods', T, async () => {
    const session = await openSession(server);
    for (const method of ['GET', 'PUT', 'PATCH']) {
      const res = await rawRequest(server.url, { method, headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session } });
      assertRpcError(res, 405);
      assert.equal(res.headers.allow, 'POST, DELETE');
    }
  });

  test('406: an Accept header that allows neither JSON nor SSE', T, async () => {
    const res = await rawRequest(server.url, { headers: mcpHeaders({ accept: 'text/html' }), body: initializeBody() });
    assertRpcError(res, 406, /Accept/);
    const q0 = await rawRequest(server.url, {
      headers: mcpHeaders({ accept: 'application/json;q=0, text/html' }), body: initializeBody(),
    });
    assert.equal(q0.status, 406);
  });

  test('413: a body over --max-body-bytes, with Content-Length or chunked', T, async () => {
    const session = await openSession(server);
    const big = rpc(1, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'x'.repeat(MAX_BODY) } });
    // Content-Length over the limit: refused from the header, body unread.
    const sized = await rawRequest(server.url, {
      headers: { ...mcpHeaders({ session }), 'Content-Length': Buffer.byteLength(big) }, body: big,
    });
    assertRpcError(sized, 413, /exceeds/);
    const chunked = await rawRequest(server.url, {
      headers: { ...mcpHeaders({ session }), 'Transfer-Encoding': 'chunked' }, body: big,
    });
    assert.equal(chunked.status, 413);
    // The session is untouched.
    const ping = await rawRequest(server.url, { headers: mcpHeaders({ session }), body: rpc(2, 'ping') });
    assert.equal(ping.status, 200);
  });

  test('413 to a client that sends on and reads late: held by TCP, not reset, once the server has dropped its share of the body', T, async () => {
    const session = await openSession(server);
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // A client that reads only once it cannot send (e.g. one that writes
    // its whole body first): nothing is read from the socket until then.
    socket.pause();
    let failed = null;
    const failure = new Promise((resolve) => socket.once('error', (e) => { failed = e; resolve('error'); }));
    const head = Object.entries({ ...mcpHeaders({ session }), Host: `127.0.0.1:${server.port}`,
      'Content-Length': String(200 << 20) }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.write(`POST /mcp HTTP/1.1\r\n${head}\r\n`);
    const block = Buffer.alloc(1 << 20, 0x20);
    let sent = 0;
    // Past the server's drain (8 MiB) and both sockets' buffers, a write is
    // not taken any more: TCP holds the client (a write pending 300 ms).
    for (let held = false; !held && !failed && sent < (150 << 20); ) {
      sent += block.length;
      if (!socket.write(block)) {
        const drained = new Promise((resolve) => socket.once('drain', () => resolve('drain')));
        const wait = new Promise((resolve) => setTimeout(resolve, 300, 'held'));
        held = (await Promise.race([drained, wait, failure])) === 'held';
      }
    }
    assert.equal(failed, null, `reset after ${sent >> 20} MiB, before the client read its answer`);
    assert.ok(sent < (150 << 20), 'the server read the whole body');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => { received += d; });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.resume();
    await closed; // the server's linger timer ends the hold
    assert.match(received, /^HTTP\/1\.1 413 /, received.slice(0, 200));
  });

  test('415: a Content-Type other than application/json', T, async () => {
    const res = await rawRequest(server.url, {
      headers: { ...mcpHeaders(), 'Content-Type': 'text/plain' }, body: initializeBody(),
    });
    assertRpcError(res, 415, /Content-Type/);
    const charset = await rawRequest(server.url, {
      headers: { ...mcpHeaders(), 'Content-Type': 'application/json; charset=utf-8' }, body: initializeBody(),
    });
    assert.equal(charset.status, 200);
  });

  test('/healthz and /readyz answer 200 with no checks on Host or auth', T, async () => {
    for (const p of ['/healthz', '/readyz']) {
      const res = await rawRequest(new URL(p, server.url), { method: 'GET', headers: { Host: 'probe.internal' } });
      assert.equal(res.status, 200, p);
      assert.ok(['ok', 'ready'].includes(res.json.status));
    }
  });

  test('keep-alive: many requests on one connection', T, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set();
    try {
      const session = await openSession(server);
      agent.on('free', (socket) => sockets.add(socket));
      for (let i = 0; i < 20; i++) {
        const res = await rawRequest(server.url, { headers: mcpHeaders({ session }), body: rpc(i, 'ping'), agent });
        assert.equal(res.status, 200);
        assert.equal(res.json.id, i);
      }
      assert.equal(sockets.size, 1, 'all requests must share one connection');
    } finally {
      agent.destroy();
    }
  });

  test('two sessions are isolated: one\'s logging level is not the other\'s', T, async () => {
    const a = await openSession(server);
    const b = await openSession(server);
    await rawRequest(server.url, { headers: mcpHeaders({ session: a }), body: rpc(1, 'logging/setLevel', { level: 'debug' }) });
    const call = (session) => rawRequest(server.url, {
      headers: mcpHeaders({ session }), body: rpc(2, 'tools/call', { name: 'time_get_current', arguments: {} }),
    });
    const [ra, rb] = await Promise.all([call(a), call(b)]);
    assert.match(ra.headers['content-type'], /^text\/event-stream/);
    assert.match(rb.headers['content-type'], /^application\/json/);
    const del = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': a } });
    assert.equal(del.status, 204);
    assert.equal((await call(b)).status, 200);
  });
});

describe('bearer token authentication', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({ binary: BINARY, tokens: '# test tokens\nsecret-one\nsecret-two\n' });
  });
  after(async () => { await server?.stop(); });

  test('401 with WWW-Authenticate: Bearer for a missing or wrong token', T, async () => {
    const missing = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
    assertRpcError(missing, 401);
    assert.match(missing.headers['www-authenticate'], /^Bearer /);
    const wrong = await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Authorization: 'Bearer secret-three' } }), body: initializeBody(),
    });
    assertRpcError(wrong, 401);
    assert.match(wrong.headers['www-authenticate'], /invalid_token/);
    const basic = await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Authorization: 'Basic c2VjcmV0LW9uZQ==' } }), body: initializeBody(),
    });
    assert.equal(basic.status, 401);
  });

  test('200 with any configured token; health checks need none', T, async () => {
    for (const token of ['secret-one', 'secret-two']) {
      const ok = await rawRequest(server.url, {
        headers: mcpHeaders({ extra: { Authorization: `Bearer ${token}` } }), body: initializeBody(),
      });
      assert.equal(ok.status, 200, token);
    }
    assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
  });

  test('the log never shows a token', T, async () => {
    await rawRequest(server.url, {
      headers: mcpHeaders({ extra: { Authorization: 'Bearer not-a-token-xyz' } }), body: initializeBody(),
    });
    // /healthz as a barrier: the refusal above was logged before it answered.
    await rawRequest(new URL('/healthz', server.url), { method: 'GET' });
    assert.ok(!/secret-one|secret-two|not-a-token-xyz/.test(server.stderrText), server.stderrText);
  });
});

describe('the MCP-session cap', () => {
  let server;
  before(async () => {
    server = await HttpServer.start({ binary: BINARY, args: ['--max-mcp-sessions', '1'] });
  });
  after(() => server?.stop());

  test('503 with Retry-After beyond --max-mcp-sessions; room again after DELETE', T, async () => {
    const first = await openSession(server);
    const refused = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
    assertRpcError(refused, 503, /limit/);
    assert.match(refused.headers['retry-after'], /^\d+$/);
    assert.equal(refused.headers['mcp-session-id'], undefined);
    const del = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': first } });
    assert.equal(del.status, 204);
    await openSession(server);
  });
});

describe('connections and lifecycle', () => {
  test('a client that sends half a header is disconnected after --read-timeout', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--read-timeout', '1'] });
    try {
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Ends on the server's close, not on a timer of ours.
      await new Promise((resolve) => socket.once('close', resolve));
      assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
    } finally {
      await server.stop();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT']) {
    test(`${signal}: stops accepting and exits 0, also with idle keep-alive connections`, T, async () => {
      const server = await HttpServer.start({ binary: BINARY });
      const agent = new http.Agent({ keepAlive: true });
      try {
        await openSession(server);
        await rawRequest(new URL('/healthz', server.url), { method: 'GET', agent });
        const { code, signal: killedBy } = await server.terminate(signal);
        assert.equal(killedBy, null);
        assert.equal(code, 0, server.context());
        await assert.rejects(rawRequest(new URL('/healthz', server.url), { method: 'GET' }));
      } finally {
        agent.destroy();
        await server.stop();
      }
    });
  }

  /**
   * A time_get_current call in flight on a fresh socket: its header (with
   * Expect: 100-continue) is sent and taken, the interim 100 being the event
   * that says the server took it; `finish()` sends the body and checks the
   * answer: 200, the time, and Connection: close (it comes during a drain).
   */
  async function callInFlight(server) {
    const session = await openSession(server);
    const body = rpc(1, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'UTC' } });
    const socket = net.connect(server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk) => { received += chunk; });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      `Content-Type: application/json\r\nAccept: application/json\r\n` +
      `Mcp-Session-Id: ${session}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Expect: 100-continue\r\n\r\n`);
    await new Promise((resolve) => {
      const check = () => {
        if (received.includes('\r\n\r\n')) {
          socket.off('data', check);
          resolve();
        }
      };
      socket.on('data', check);
      check();
    });
    assert.match(received, /^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    return {
      async finish() {
        socket.write(body);
        await closed;
        const [head, payload] = received.slice(received.indexOf('\r\n\r\n') + 4).split('\r\n\r\n');
        assert.match(head, /^HTTP\/1\.1 200 /, server.context());
        assert.match(head, /\r\nConnection: close/i);
        assertTimeResult(JSON.parse(payload).result);
      },
    };
  }

  test('SIGTERM lets a request in flight finish (Connection: close), then exits 0', T, async () => {
    const server = await HttpServer.start({ binary: BINARY });
    try {
      const call = await callInFlight(server);
      // An idle connection's close is an event that says the drain began.
      const idle = net.connect(server.port, '127.0.0.1');
      idle.on('error', () => {}); // a reset is a close too
      await new Promise((resolve) => idle.once('connect', resolve));
      const idleClosed = new Promise((resolve) => idle.once('close', resolve));
      server.child.kill('SIGTERM');
      await server.waitForStderr(/finishing requests in flight/);
      await idleClosed;
      await call.finish();
      const { code } = await server.terminate('SIGTERM');
      assert.equal(code, 0);
    } finally {
      await server.stop();
    }
  });

  // The server stopped (SIGSTOP) while idle connections are opened: they
  // wait in the listen backlog when SIGTERM comes, and whether the I/O
  // thread accepts each before the drain begins is a race. Either way they
  // were opened before the drain and close at once (not after
  // --header-timeout, which would outlast --drain-timeout here), and the
  // request in flight is answered.
  test('SIGTERM: an idle connection still in the listen backlog closes too; the request in flight is answered', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--header-timeout', '60'] });
    try {
      const call = await callInFlight(server);
      server.child.kill('SIGSTOP');
      // Many: accepting them takes the I/O thread longer than the signal
      // takes to start the drain.
      const idle = Array.from({ length: 500 }, () => {
        const s = net.connect(server.port, '127.0.0.1');
        s.on('error', () => {}); // a reset is a close too
        return {
          connected: new Promise((resolve) => s.once('connect', resolve)), // the kernel's handshake
          closed: new Promise((resolve) => s.once('close', resolve)),
        };
      });
      await Promise.all(idle.map((i) => i.connected));
      server.child.kill('SIGTERM');
      server.child.kill('SIGCONT');
      await server.waitForStderr(/finishing requests in flight/);
      await Promise.all(idle.map((i) => i.closed));
      assert.equal(server.exitInfo, null, 'still draining: the request waits for its body');
      await call.finish();
      const { code } = await server.terminate('SIGTERM');
      assert.equal(code, 0);
    } finally {
      server.child.kill('SIGCONT');
      await server.stop();
    }
  });

  /** Sends `text` on a fresh socket and returns everything the server writes until it closes. */
  async function exchange(port, text) {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(text);
    await closed;
    return Buffer.concat(chunks).toString('latin1');
  }

  test('400: two Host headers, and a malformed chunked body (answered, not dropped)', T, async () => {
    const server = await HttpServer.start({ binary: BINARY });
    try {
      const body = initializeBody();
      const twoHosts = await exchange(server.port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nHost: evil.example\r\n`
        + 'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n'
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      assert.match(twoHosts, /^HTTP\/1\.1 400 /, twoHosts);
      assert.match(twoHosts, /more than one Host/);
      const badChunk = await exchange(server.port,
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`
        + 'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n'
        + 'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n');
      assert.match(badChunk, /^HTTP\/1\.1 400 /, badChunk);
    } finally {
      await server.stop();
    }
  });

  test('the address the server was bound to is an allowed Host (127.0.0.2)', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--listen', '127.0.0.2:0'] });
    try {
      const res = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
      assert.equal(res.status, 200, `${res.status} ${res.body}${server.context()}`);
    } finally {
      await server.stop();
    }
  });

  test('503 beyond --max-connections when no connection is idle', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--max-connections', '2'] });
    const idle = [];
    try {
      for (let i = 0; i < 2; i++) {
        const socket = net.connect(server.port, '127.0.0.1');
        socket.on('error', () => {});
        await new Promise((resolve) => socket.once('connect', resolve));
        // Mid-request (the server waits for a body after 100 Continue): not
        // idle, so not closed to make room (silent sockets are, see
        // http_flood.test.mjs).
        const continued = new Promise((resolve) => socket.once('data', resolve));
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`
          + 'Content-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n');
        assert.match(String(await continued), /^HTTP\/1\.1 100 /);
        idle.push(socket);
      }
      // Both slots are held by requests in progress: the next client is
      // told so at once instead of waiting for a timeout.
      const refused = await exchange(server.port,
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
      assert.match(refused, /^HTTP\/1\.1 503 /, refused);
      assert.match(refused, /too many open connections/);
      // A slot frees when one idle socket goes.
      const gone = new Promise((resolve) => idle[0].once('close', resolve));
      idle[0].destroy();
      await gone;
      await pollUntil(async () => (await rawRequest(new URL('/healthz', server.url), { method: 'GET' })
        .catch(() => ({ status: 0 }))).status === 200, 'a connection slot freed', { timeoutMs: 5_000 });
    } finally {
      for (const socket of idle) socket.destroy();
      await server.stop();
    }
  });

  test('a port in use is a clear start-up error', T, async () => {
    const first = await HttpServer.start({ binary: BINARY });
    try {
      await assert.rejects(
        HttpServer.start({ binary: BINARY, args: ['--listen', `127.0.0.1:${first.port}`] }),
        /exited \(code 1|cannot listen/);
    } finally {
      await first.stop();
    }
  });
});
