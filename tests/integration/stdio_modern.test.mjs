// MCP 2026-07-28 (the stateless revision) over stdio, in raw JSON-RPC lines:
// the first request decides the connection's era (a 2026-07-28 request or
// `initialize`), what each era then does with the other's messages, the
// envelope checks, per-request logging, notifications/cancelled in both
// eras, and the end of the process on stdin EOF.
// Run: TTM_BINARY=/abs/path node --test stdio_modern.test.mjs
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  ALL_REVISIONS, assertCacheHints, assertModernError, assertModernResult, assertUnsupportedVersionData, Code,
  envelope, META, modernRequest,
} from './lib/modern.mjs';
import { assertErrorResponse, isResponse, preview, RawServer, stopAllServers } from './lib/raw_client.mjs';
import { assertTimeResult, TOOL_NAME } from './lib/time_assertions.mjs';
import { TOOL_NAMES } from './lib/tools_snapshot.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const INITIALIZE_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ttm-stdio-modern', version: '0.0.0' } };

after(stopAllServers);

/** A 2026-07-28 request; returns the response message. */
async function modern(server, method, params = {}, { meta = {}, id = server.newId() } = {}) {
  await server.send(modernRequest(id, method, params, meta));
  return server.waitForResponse(id);
}

/** A 2026-07-28 request that must succeed; returns the result. */
async function modernOk(server, method, params, options) {
  const msg = await modern(server, method, params, options);
  return assertModernResult(msg, msg.id);
}

/**
 * Asserts the server answered nothing to what was sent before, on a
 * 2026-07-28 connection (where ping is gone): the next line it writes must
 * be the reply to a fresh server/discover (stdio replies come in order).
 */
async function expectNoReplyModern(server, why) {
  server.assertStdoutClean();
  const early = server.unread.filter((e) => Array.isArray(e.msg) || isResponse(e.msg));
  assert.deepEqual(early.map((e) => e.raw), [], `expected no reply to a ${why}`);
  const from = server.lines.length;
  const id = `barrier-${server.newId()}`;
  await server.send(modernRequest(id, 'server/discover'));
  const next = await server.waitFor((e) => e.index >= from, `reply to the server/discover (id ${id}) sent after a ${why}`);
  assert.equal(next.msg.id, id, `expected no reply to a ${why}: the next line must answer ${id}, got ${preview(next.raw)}`);
  assertModernResult(next.msg, id);
}

/** Starts a server, runs `body`, checks stdout stayed clean, always kills it. */
async function withStdio(body) {
  const server = await RawServer.start({ binary: BINARY });
  try {
    await body(server);
    server.assertStdoutClean();
  } finally {
    await server.stop();
  }
}

function stdioTest(title, body) {
  test(title, T, () => withStdio(body));
}

describe('the first request decides the era', () => {
  stdioTest('a 2026-07-28 request first: a 2026-07-28 connection; initialize is then -32022', async (server) => {
    const list = await modernOk(server, 'tools/list');
    assert.deepEqual(list.tools.map((t) => t.name), TOOL_NAMES);
    assertCacheHints(list);
    assertTimeResult(await modernOk(server, 'tools/call', { name: TOOL_NAME, arguments: {} }));
    const init = await server.request('initialize', INITIALIZE_PARAMS, { id: 'init-1' });
    const error = assertModernError(init, Code.UnsupportedProtocolVersion, 'init-1');
    assertUnsupportedVersionData(error, '2025-11-25');
    // Still a 2026-07-28 connection.
    assertTimeResult(await modernOk(server, 'tools/call', { name: TOOL_NAME, arguments: { timezone: 'UTC' } }));
  });

  stdioTest('then a request without the envelope is -32602, whatever the method', async (server) => {
    await modernOk(server, 'tools/list');
    for (const [method, params] of [
      ['tools/list', {}], ['tools/call', { name: TOOL_NAME, arguments: {} }], ['ping', undefined],
      ['logging/setLevel', { level: 'debug' }], ['server/discover', {}],
    ]) {
      const id = `plain-${method}`;
      assertModernError(await server.request(method, params, { id }), Code.InvalidParams, id);
    }
    await expectNoReplyModern(server, 'request (none pending)');
  });

  stdioTest('and initialize, ping, logging/setLevel with the envelope are -32601', async (server) => {
    await modernOk(server, 'tools/list');
    for (const [method, params] of [
      ['initialize', INITIALIZE_PARAMS], ['ping', {}], ['logging/setLevel', { level: 'debug' }],
    ]) {
      const id = `claimed-${method}`;
      assertModernError(await modern(server, method, params, { id }), Code.MethodNotFound, id);
    }
  });

  stdioTest('server/discover first decides it too', async (server) => {
    const discover = await modernOk(server, 'server/discover', {}, { id: 'discover-1' });
    assert.deepEqual(discover.supportedVersions, ALL_REVISIONS);
    assertCacheHints(discover);
    const init = await server.request('initialize', INITIALIZE_PARAMS, { id: 2 });
    assertUnsupportedVersionData(assertModernError(init, Code.UnsupportedProtocolVersion, 2), '2025-11-25');
  });

  stdioTest('initialize first: a 2025 connection, where _meta is ignored', async (server) => {
    const init = await server.initialize('2025-11-25');
    assert.equal(init.protocolVersion, '2025-11-25');
    // A claim, even of a version we do not serve, changes nothing.
    const list = await server.call('tools/list', { _meta: envelope({ [META.protocolVersion]: 'v999.0.0' }) });
    assert.deepEqual(Object.keys(list), ['tools'], 'a 2025 result: no resultType, ttlMs, cacheScope, _meta');
    assert.deepEqual(await server.call('ping', { _meta: envelope() }), {});
    // Neither does a logLevel: no notifications without logging/setLevel.
    const call = await server.call('tools/call', {
      name: TOOL_NAME, arguments: {}, _meta: envelope({ [META.logLevel]: 'debug' }),
    });
    assert.ok(!('resultType' in call) && !('_meta' in call), JSON.stringify(call).slice(0, 200));
    assertTimeResult(call);
    assert.deepEqual(server.lines.filter((l) => l.msg.method === 'notifications/message').map((l) => l.raw), []);
    // A broken envelope is not looked at either.
    const broken = await server.call('tools/call', {
      name: TOOL_NAME, arguments: {}, _meta: { [META.protocolVersion]: 7 }, // not a string, no clientCapabilities
    });
    assertTimeResult(broken);
    // server/discover is not a 2025 method.
    assertErrorResponse(await server.request('server/discover', { _meta: envelope() }), Code.MethodNotFound);
    // And a second initialize is refused as before.
    assertErrorResponse(await server.request('initialize', INITIALIZE_PARAMS), Code.InvalidRequest);
    await server.assertPingWorks();
  });

  stdioTest('a request whose envelope fails decides nothing: initialize still works', async (server) => {
    const bad = await modern(server, 'tools/list', {}, { meta: { [META.clientCapabilities]: undefined }, id: 1 });
    assertModernError(bad, Code.InvalidParams, 1);
    const unsupported = await modern(server, 'tools/list', {}, { meta: { [META.protocolVersion]: '2099-01-01' }, id: 2 });
    assertUnsupportedVersionData(assertModernError(unsupported, Code.UnsupportedProtocolVersion, 2), '2099-01-01');
    assert.equal((await server.initialize()).protocolVersion, '2025-11-25');
    await server.assertPingWorks();
  });

  stdioTest('a request whose envelope fails decides nothing: a 2026-07-28 request still works', async (server) => {
    const bad = await modern(server, 'tools/list', {}, { meta: { [META.logLevel]: 'loud' }, id: 1 });
    assertModernError(bad, Code.InvalidParams, 1);
    await modernOk(server, 'tools/list');
    assertModernError(await server.request('initialize', INITIALIZE_PARAMS, { id: 3 }), Code.UnsupportedProtocolVersion, 3);
  });
});

describe('2026-07-28 over stdio', () => {
  stdioTest('results carry resultType and serverInfo; ids are echoed', async (server) => {
    for (const id of ['a', 0, 9, 'x-y-z']) {
      await modernOk(server, 'server/discover', {}, { id });
    }
    const done = await modernOk(server, 'completion/complete',
      { ref: { type: 'ref/prompt', name: 'execution_report' }, argument: { name: 'session_id', value: '' } });
    assert.deepEqual(done.completion, { values: [], total: 0, hasMore: false });
  });

  stdioTest('envelope checks: -32602, -32022, -32601; handler errors', async (server) => {
    await modernOk(server, 'tools/list');
    const cases = [
      [{ [META.clientCapabilities]: undefined }, 'tools/list', Code.InvalidParams],
      [{ [META.clientCapabilities]: [] }, 'tools/list', Code.InvalidParams],
      [{ [META.logLevel]: 'loud' }, 'tools/list', Code.InvalidParams],
      [{ [META.protocolVersion]: '2025-06-18' }, 'tools/list', Code.UnsupportedProtocolVersion],
      [{}, 'resources/subscribe', Code.MethodNotFound],
    ];
    for (const [meta, method, code] of cases) {
      const id = `case-${server.newId()}`;
      const error = assertModernError(await modern(server, method, {}, { meta, id }), code, id);
      if (code === Code.UnsupportedProtocolVersion) assertUnsupportedVersionData(error, '2025-06-18');
    }
    assertModernError(await modern(server, 'tools/call', { name: 'time_travel', arguments: {} }, { id: 'u' }),
      Code.InvalidParams, 'u');
    assertModernError(await modern(server, 'tools/list', { cursor: 'abc' }, { id: 'c' }), Code.InvalidParams, 'c');
    await server.send([modernRequest(1, 'tools/list'), modernRequest(2, 'tools/list')]);
    const { msg } = await server.nextResponse();
    assertModernError(msg, Code.InvalidRequest, null);
  });

  stdioTest('logLevel: notifications/message before the response, for that request only', async (server) => {
    const id = 'logged';
    await server.send(modernRequest(id, 'tools/call', { name: TOOL_NAME, arguments: {} }, { [META.logLevel]: 'debug' }));
    const response = await server.waitFor((e) => e.msg.id === id, 'the logged call\'s response');
    const notes = server.lines.filter((l) => l.msg.method === 'notifications/message');
    assert.ok(notes.length >= 1, 'a debug notification');
    assert.ok(notes.every((l) => l.index < response.index && l.msg.params.level === 'debug'));
    assertTimeResult(assertModernResult(response.msg, id));
    const before = server.lines.length;
    await modernOk(server, 'tools/call', { name: TOOL_NAME, arguments: {} });
    await expectNoReplyModern(server, 'call without logLevel');
    assert.deepEqual(server.lines.slice(before).filter((l) => l.msg.method).map((l) => l.raw), [],
      'no notification for a request without logLevel');
  });
});

describe('notifications/cancelled', () => {
  /**
   * Sends `request` and its cancellation in one write, then `barrier` (a
   * request whose reply proves everything before it was handled). The call
   * may have been answered before the cancellation arrived: returns its one
   * reply, if any (taken from the queue), and asserts nothing else came.
   */
  async function callAndCancel(server, request, barrier) {
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: request.id } };
    server.queueWrite(`${JSON.stringify(request)}\n${JSON.stringify(cancel)}\n${JSON.stringify(barrier)}\n`);
    const done = await server.waitFor((e) => isResponse(e.msg) && e.msg.id === barrier.id, `reply to ${barrier.id}`);
    const replies = server.lines.filter((l) => l.msg.id === request.id);
    assert.ok(replies.length <= 1, `at most one reply to the cancelled call: ${replies.map((l) => l.raw)}`);
    assert.ok(replies.every((l) => l.index < done.index), 'a reply to the cancelled call comes before the barrier\'s');
    const other = server.unread.filter((e) => e.msg.id !== request.id && (Array.isArray(e.msg) || isResponse(e.msg)));
    assert.deepEqual(other.map((e) => e.raw), [], 'no other reply (none to the notification)');
    if (replies.length === 0) return { reply: undefined, barrier: done.msg };
    return { reply: await server.waitForResponse(request.id), barrier: done.msg };
  }

  stdioTest('2026-07-28: accepted without an envelope, never answered; a call cancelled in flight gets no response', async (server) => {
    await modernOk(server, 'tools/list');
    await server.notify('notifications/cancelled', { requestId: 'never-sent' });
    await expectNoReplyModern(server, 'notifications/cancelled for an unknown id');
    const done = await modernOk(server, 'tools/call', { name: TOOL_NAME, arguments: {} }, { id: 'done' });
    assertTimeResult(done);
    await server.notify('notifications/cancelled', { requestId: 'done', reason: 'too late' });
    await server.notify('notifications/cancelled', { requestId: 'done', _meta: envelope() });
    await expectNoReplyModern(server, 'notifications/cancelled for an answered request');
    let silenced = 0;
    for (let i = 0; i < 10; i += 1) {
      const request = modernRequest(`flight-${i}`, 'tools/call', {
        name: 'time_session_start', arguments: { milestone_id: `M${i}`, task_ids: ['a'] },
      });
      const { reply, barrier } = await callAndCancel(server, request, modernRequest(`barrier-${i}`, 'server/discover'));
      assertModernResult(barrier, `barrier-${i}`);
      if (reply) assertModernResult(reply, request.id);
      else silenced += 1;
    }
    assert.ok(silenced > 0, 'a call cancelled in flight gets no response: all 10 were answered');
    assertTimeResult(await modernOk(server, 'tools/call', { name: TOOL_NAME, arguments: {} }));
  });

  stdioTest('2025: never answered; a call cancelled in flight gets no response', async (server) => {
    await server.initialize();
    await server.notify('notifications/cancelled', { requestId: 'never-sent' });
    await server.expectNoReply('notifications/cancelled for an unknown id');
    let silenced = 0;
    for (let i = 0; i < 10; i += 1) {
      const request = { jsonrpc: '2.0', id: `flight-${i}`, method: 'tools/call',
        params: { name: 'time_session_start', arguments: { milestone_id: `M${i}`, task_ids: ['a'] } } };
      const { reply, barrier } = await callAndCancel(server, request, { jsonrpc: '2.0', id: `ping-${i}`, method: 'ping' });
      assert.deepEqual(barrier, { jsonrpc: '2.0', id: `ping-${i}`, result: {} });
      if (reply) assert.equal(reply.result?.isError, false, JSON.stringify(reply));
      else silenced += 1;
    }
    assert.ok(silenced > 0, 'a call cancelled in flight gets no response: all 10 were answered');
    await server.assertPingWorks();
  });
});

describe('end of input', () => {
  for (const [title, setup] of [
    ['a 2026-07-28 connection holding a tracking session', async (server) => {
      const started = await modernOk(server, 'tools/call', { name: 'time_session_start', arguments: { milestone_id: 'M', task_ids: ['a'] } });
      assert.equal(started.isError, false);
    }],
    ['a process that only answered server/discover (the SDK v2 probe)', async (server) => {
      await modernOk(server, 'server/discover', {}, { id: 'server-discover-probe-1' });
    }],
    ['a process that read nothing', async () => {}],
  ]) {
    test(`${title} exits 0 at once on stdin EOF`, T, async () => {
      const server = await RawServer.start({ binary: BINARY });
      try {
        await setup(server);
        const started = performance.now();
        server.endInput();
        const { code, signal } = await server.waitForExit(2_000);
        const elapsed = performance.now() - started;
        assert.equal(signal, null);
        assert.equal(code, 0, server.context());
        assert.ok(elapsed < 1_000, `exited ${Math.round(elapsed)} ms after EOF`);
        server.assertStdoutClean();
      } finally {
        await server.stop();
      }
    });
  }

  test('a request in flight at EOF is still answered, then the process exits 0', T, async () => {
    const server = await RawServer.start({ binary: BINARY });
    try {
      server.queueWrite(`${JSON.stringify(modernRequest('last', 'tools/call', { name: TOOL_NAME, arguments: {} }))}\n`);
      server.endInput();
      const reply = await server.waitForResponse('last');
      assertTimeResult(assertModernResult(reply, 'last'));
      assert.equal((await server.waitForExit()).code, 0);
    } finally {
      await server.stop();
    }
  });
});
