// Any node serves any client (issue 32 item 2): two `time-tracker-mcp http`
// processes on one data directory share the journal, and with it the MCP
// sessions of the 2025 eras.
//
// - raw HTTP: initialize on A, calls with the same Mcp-Session-Id on B work
//   with the negotiated revision (a JSON-RPC batch, 2025-03-26 only) and the
//   principal (another token's holder gets 404 on B too); logging/setLevel
//   on A holds on B; DELETE on B, and A answers 404;
// - the official SDK v1 client behind a tiny round-robin proxy (each POST to
//   the other node) keeps its Mcp-Session-Id when the node that issued it is
//   killed (kill -9): every later call goes to the survivor, no
//   re-initialize;
// - 2026-07-28: tools declare x-mcp-header on session_id, and a tools/call
//   whose Mcp-Param-Session-Id disagrees with its body (missing, different,
//   or sent without the argument) is 400 / -32020 HeaderMismatch.
//
// Nothing waits for time: waits end on events (a reply, the start-up log
// line, the child's exit). Every child is killed by its PID in after().
//
// Run: TTM_BINARY=/abs/path node --test any_node.test.mjs
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, sseMessages, stopAllHttpServers,
} from './lib/http_server.mjs';
import { Code, modernHeaders, modernRequest } from './lib/modern.mjs';
import { connectHttp } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const ALICE = 'alice-token-5c0e7a19d2';
const BOB = 'bob-token-8f3b62d04e';
const auth = (token) => ({ Authorization: `Bearer ${token}` });

after(async () => { await stopAllHttpServers(); });

/** The last JSON-RPC message of a reply (SSE or JSON), and all of them. */
function messagesOf(res) {
  if (/text\/event-stream/.test(res.headers['content-type'] ?? '')) return sseMessages(res.body);
  assert.ok(res.json !== undefined, `a JSON body: ${res.status} ${res.body}`);
  return [res.json];
}

/** Two nodes on one fresh directory, with alice's and bob's tokens. */
async function twoNodes(args = []) {
  const dir = freshDataDir();
  const tokens = `alice ${ALICE}\nbob ${BOB}\n`;
  const start = () => HttpServer.startWithTokens({ binary: BINARY, tokens, args: ['--data-dir', dir, ...args] });
  const a = await start();
  const b = await start();
  return { dir, a, b };
}

describe('2025 MCP sessions in the journal: any node answers any Mcp-Session-Id', () => {
  let a;
  let b;
  before(async () => { ({ a, b } = await twoNodes()); });
  after(async () => { await a?.stop(); await b?.stop(); });

  const post = (node, { token = ALICE, session, version, body }) => rawRequest(node.url, {
    headers: mcpHeaders({ session, version, extra: auth(token) }), body: JSON.stringify(body),
  });
  const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const now = (id) => call(id, 'time_get_current', { timezone: 'UTC' });

  test('initialize on A; B serves the session with its revision and principal; setLevel on A holds on B; '
    + 'DELETE on B ends it on A', T, async () => {
    const version = '2025-03-26';
    const init = await rawRequest(a.url, {
      headers: mcpHeaders({ extra: auth(ALICE) }), body: initializeBody(version),
    });
    assert.equal(init.status, 200, init.body);
    const session = init.headers['mcp-session-id'];
    assert.match(session ?? '', /^[0-9a-f]{32}$/);
    assert.equal(messagesOf(init).at(-1).result.protocolVersion, version);

    const initialized = await post(b, { session, version, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    assert.equal(initialized.status, 202, `B accepts the notification: ${initialized.body}${b.context()}`);
    // A batch: only 2025-03-26 takes them, so B knows what A negotiated.
    const batch = await post(b, { session, version, body: [now(2), { jsonrpc: '2.0', id: 3, method: 'ping' }] });
    assert.equal(batch.status, 200, batch.body);
    const replies = messagesOf(batch).flat();
    assert.deepEqual(replies.map((r) => r.id).sort(), [2, 3]);
    assert.ok(replies.every((r) => r.result), `both answered: ${batch.body}`);
    // The principal came along: bob gets what an unknown id gets, on B.
    const bobs = await post(b, { token: BOB, session, version, body: now(4) });
    assert.equal(bobs.status, 404, bobs.body);
    const unknown = await post(b, { session: 'f'.repeat(32), version, body: now(4) });
    assert.equal(unknown.status, 404, unknown.body);

    // No log level yet: no notifications on B.
    const quiet = await post(b, { session, version, body: now(5) });
    assert.equal(messagesOf(quiet).length, 1, quiet.body);
    const level = await post(a, { session, version, body: { jsonrpc: '2.0', id: 6, method: 'logging/setLevel', params: { level: 'debug' } } });
    assert.ok(messagesOf(level).at(-1).result, level.body);
    const logged = await post(b, { session, version, body: now(7) });
    const messages = messagesOf(logged);
    assert.ok(messages.length > 1, `B sends A's debug log level's notifications: ${logged.body}`);
    assert.equal(messages[0].method, 'notifications/message');
    assert.equal(messages.at(-1).id, 7);

    const del = await rawRequest(b.url, {
      method: 'DELETE', headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': version, ...auth(ALICE) },
    });
    assert.equal(del.status, 204, del.body);
    const onA = await post(a, { session, version, body: now(8) });
    assert.equal(onA.status, 404, `A, which issued it, answers 404 after DELETE on B: ${onA.body}`);
    const onB = await post(b, { session, version, body: now(9) });
    assert.equal(onB.status, 404, onB.body);
  });
});

/**
 * A tiny round-robin HTTP proxy on loopback: each request goes to the next
 * of `targets` (its Host rewritten to the target, as a reverse proxy
 * does); responses stream through. `targets` may be changed meanwhile.
 */
async function roundRobinProxy(targets) {
  let next = 0;
  const seen = [];
  const server = http.createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]);
    seen.push({ method: req.method, port: Number(target.port) });
    const up = http.request({
      host: target.hostname, port: target.port, path: target.pathname, method: req.method,
      headers: { ...req.headers, host: target.host },
    }, (upRes) => {
      res.writeHead(upRes.statusCode, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`, seen, targets,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

describe('the official SDK v1 client through round-robin keeps its Mcp-Session-Id when its node dies', () => {
  let a;
  let b;
  let proxy;
  let conn;
  before(async () => {
    const dir = freshDataDir();
    a = await HttpServer.start({ binary: BINARY, args: ['--data-dir', dir] });
    b = await HttpServer.start({ binary: BINARY, args: ['--data-dir', dir] });
    proxy = await roundRobinProxy([a.url, b.url]);
  });
  after(async () => {
    await conn?.close().catch(() => {});
    await proxy?.close();
    await a?.stop();
    await b?.stop();
  });

  test('initialize through one node, calls through both, kill -9 of one, calls through the other', T, async () => {
    conn = await connectHttp(proxy.url, { context: () => a.context() + b.context() });
    const session = conn.transport.sessionId;
    assert.match(session ?? '', /^[0-9a-f]{32}$/);
    const call = async () => {
      const r = await conn.client.callTool({ name: 'time_get_current', arguments: { timezone: 'UTC' } });
      assert.equal(r.isError, false, JSON.stringify(r));
      return r;
    };
    for (let i = 0; i < 4; i += 1) await call();
    const ports = new Set(proxy.seen.filter((s) => s.method === 'POST').map((s) => s.port));
    assert.equal(ports.size, 2, 'POSTs went to both nodes');
    // The node that answered initialize (the proxy's first POST) dies.
    const first = proxy.seen.find((s) => s.method === 'POST').port;
    const [dead, alive] = first === a.port ? [a, b] : [b, a];
    await dead.kill();
    // From now on every request goes to the survivor, which never saw the
    // initialize.
    proxy.targets.splice(0, proxy.targets.length, alive.url);
    proxy.seen.length = 0;
    for (let i = 0; i < 3; i += 1) await call();
    assert.ok(proxy.seen.every((s) => s.port === alive.port));
    assert.equal(conn.transport.sessionId, session, 'the same Mcp-Session-Id: no re-initialize');
    assert.deepEqual(conn.errors(), [], 'the client saw no transport errors');
  });
});

describe('2026-07-28: Mcp-Param-Session-Id (x-mcp-header on session_id)', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(async () => { await server?.stop(); });

  const post = (id, name, args, extra = {}) => rawRequest(server.url, {
    headers: modernHeaders('tools/call', { name, extra }),
    body: JSON.stringify(modernRequest(id, 'tools/call', { name, arguments: args })),
  });

  test('tools/list declares it on every session_id argument', T, async () => {
    const res = await rawRequest(server.url, {
      headers: modernHeaders('tools/list'), body: JSON.stringify(modernRequest(1, 'tools/list')),
    });
    const tools = messagesOf(res).at(-1).result.tools;
    const withId = tools.filter((t) => t.inputSchema.properties?.session_id);
    assert.ok(withId.length >= 5, `tools taking a session_id: ${withId.map((t) => t.name)}`);
    for (const t of withId) assert.equal(t.inputSchema.properties.session_id['x-mcp-header'], 'Session-Id', t.name);
  });

  test('a call whose header disagrees with its body is 400 / -32020; one that agrees runs', T, async () => {
    const started = await post(1, 'time_session_start', { milestone_id: 'M', task_ids: ['a'] });
    const sid = messagesOf(started).at(-1).result.structuredContent.session_id;
    assert.match(sid, /^[0-9a-f-]{36}$/);
    const args = { session_id: sid, include_task_details: false };
    const mismatch = async (res, re) => {
      assert.equal(res.status, 400, res.body);
      const { error } = messagesOf(res).at(-1);
      assert.equal(error.code, Code.HeaderMismatch, res.body);
      assert.match(error.message, re);
    };
    await mismatch(await post(2, 'time_session_summary', args), /Mcp-Param-Session-Id header is missing/);
    await mismatch(await post(3, 'time_session_summary', args, { 'Mcp-Param-Session-Id': 'other' }),
      /Mcp-Param-Session-Id header value 'other' does not match body value/);
    // A tool that declares no x-mcp-header ignores the header.
    const other = await post(4, 'time_get_current', { timezone: 'UTC' }, { 'Mcp-Param-Session-Id': sid });
    assert.equal(other.status, 200, other.body);
    const ok = await post(5, 'time_session_summary', args, { 'mcp-param-session-id': ` ${sid} ` });
    assert.equal(ok.status, 200, ok.body);
    assert.equal(messagesOf(ok).at(-1).result.isError, false, ok.body);
    const b64 = `=?base64?${Buffer.from(sid).toString('base64')}?=`;
    const encoded = await post(6, 'time_session_summary', args, { 'Mcp-Param-Session-Id': b64 });
    assert.equal(encoded.status, 200, encoded.body);
    // The header without its argument (the header check comes before the
    // arguments' schema).
    await mismatch(await post(7, 'time_session_end', {}, { 'Mcp-Param-Session-Id': sid }),
      /present but arguments.session_id is not/);
  });
});
