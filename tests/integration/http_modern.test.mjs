// MCP 2026-07-28 (the stateless revision) on the Streamable HTTP endpoint,
// in raw HTTP: results (resultType, serverInfo, cache hints), every envelope
// and header check with its status and code in the documented order, ids
// echoed, no Mcp-Session-Id, per-request logging over SSE, legacy sessions
// unchanged on the same endpoint meanwhile, a client hanging up, pipelining.
// Run: TTM_BINARY=/abs/path node --test http_modern.test.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, JSON_AND_SSE, mcpHeaders, rawHttpRequest, rawRequest, socketExchange, sseMessages,
  stopAllHttpServers,
} from './lib/http_server.mjs';
import {
  ALL_REVISIONS, assertCacheHints, assertModernError, assertModernErrorCode, assertModernResult,
  assertUnsupportedVersionData, base64Header, Code, envelope, META, MODERN, modernHeaders, modernRequest,
  withoutRequestIds,
} from './lib/modern.mjs';
import { assertTimeResult, assertToolError, TOOL_NAME } from './lib/time_assertions.mjs';
import { TOOL_NAMES } from './lib/tools_snapshot.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const SESSION_ID_RE = /^[0-9a-f]{32}$/;

after(stopAllHttpServers);

/** POSTs `body` (an object or a string) with `headers`. */
function post(server, body, headers, options = {}) {
  return rawRequest(server.url, { headers, body: typeof body === 'string' ? body : JSON.stringify(body), ...options });
}

/**
 * A well-formed 2026-07-28 request: envelope `meta` (added to the default
 * one), the headers it needs (Mcp-Name for tools/call) plus `headers`.
 */
function modern(server, id, method, params = {}, { meta = {}, headers = {}, accept } = {}) {
  const name = method === 'tools/call' ? params.name : undefined;
  // As a conforming client does: the tools declare x-mcp-header on session_id.
  const sid = method === 'tools/call' ? params.arguments?.session_id : undefined;
  const mirrored = typeof sid === 'string' ? { 'Mcp-Param-Session-Id': sid } : {};
  return post(server, modernRequest(id, method, params, meta),
    modernHeaders(method, { name, accept, extra: { ...mirrored, ...headers } }));
}

/** The JSON-RPC messages of a reply: the SSE events, or the one JSON body. */
function messagesOf(res) {
  if (/^text\/event-stream/.test(res.headers['content-type'] ?? '')) return sseMessages(res.body);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, `JSON or SSE: ${res.body}`);
  return [JSON.parse(res.body)];
}

/** Asserts a 200 reply whose last message answers `id` and carries no Mcp-Session-Id; returns the messages. */
function assertOk(res, id) {
  assert.equal(res.status, 200, res.body);
  assert.equal(res.headers['mcp-session-id'], undefined, '2026-07-28 responses carry no Mcp-Session-Id');
  const messages = messagesOf(res);
  assert.deepEqual(messages.at(-1).id, id, 'the response comes last and echoes the id');
  for (const m of messages.slice(0, -1)) assert.equal(m.id, undefined, `only notifications before the response: ${JSON.stringify(m)}`);
  return messages;
}

/** Asserts a 200 reply with a 2026-07-28 result for `id` and nothing else; returns the result. */
function assertResult(res, id) {
  const messages = assertOk(res, id);
  assert.equal(messages.length, 1, `no notifications without logLevel: ${res.body}`);
  return assertModernResult(messages[0], id);
}

/**
 * Asserts an HTTP refusal of a 2026-07-28 request: `status`, a JSON body
 * with error `code` for `id`, no Mcp-Session-Id. Returns the error.
 */
function assertRefusal(res, status, code, id) {
  assert.equal(res.status, status, `expected HTTP ${status} with ${code}, got ${res.status}: ${res.body}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(res.headers['mcp-session-id'], undefined, 'no Mcp-Session-Id on a 2026-07-28 refusal');
  assert.ok(res.json, `a JSON-RPC error body: ${res.body}`);
  return assertModernError(res.json, code, id);
}

/** initialize + notifications/initialized on `server`; returns the session id. */
async function openLegacySession(server, headers = {}) {
  const res = await post(server, initializeBody('2025-11-25'), mcpHeaders({ extra: headers }));
  assert.equal(res.status, 200, res.body);
  const session = res.headers['mcp-session-id'];
  assert.match(session ?? '', SESSION_ID_RE);
  const note = await post(server, { jsonrpc: '2.0', method: 'notifications/initialized' },
    mcpHeaders({ session, version: '2025-11-25', extra: headers }));
  assert.equal(note.status, 202);
  return session;
}

/** A request on a legacy session. */
function legacy(server, session, id, method, params, headers = {}) {
  const m = { jsonrpc: '2.0', id, method };
  if (params !== undefined) m.params = params;
  return post(server, m, mcpHeaders({ session, version: '2025-11-25', extra: headers }));
}

const SPEC_SESSION = { milestone_id: 'M2', task_ids: ['M2-001', 'M2-002'], timezone: 'UTC' };

describe('2026-07-28 results over HTTP', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  test('server/discover: every revision, the capabilities, instructions, cache hints, serverInfo', T, async () => {
    const res = await modern(server, 'discover-1', 'server/discover');
    assert.match(res.headers['content-type'], /^application\/json/);
    const result = assertResult(res, 'discover-1');
    assert.deepEqual(result.supportedVersions, ALL_REVISIONS);
    assert.deepEqual(result.capabilities,
      { completions: {}, logging: {}, prompts: { listChanged: false }, resources: { listChanged: false },
        tools: { listChanged: false } });
    assert.equal(typeof result.instructions, 'string');
    assert.ok(result.instructions.length > 0);
    assertCacheHints(result);
  });

  test('clientInfo is optional', T, async () => {
    const res = await modern(server, 1, 'server/discover', {}, { meta: { [META.clientInfo]: undefined } });
    assertResult(res, 1);
  });

  test('tools/list: every tool in a fixed order, cache hints, no nextCursor', T, async () => {
    const result = assertResult(await modern(server, 2, 'tools/list'), 2);
    assert.deepEqual(result.tools.map((t) => t.name), TOOL_NAMES);
    assertCacheHints(result);
    assert.ok(!('nextCursor' in result));
    for (const tool of result.tools) {
      assert.equal(tool.inputSchema.type, 'object', `${tool.name}: inputSchema.type`);
      // request_break_if_needed's may be null (SEP-2106): anyOf null or the object.
      if (tool.name === 'request_break_if_needed') assert.equal(tool.outputSchema.anyOf[0].type, 'null');
      else assert.equal(tool.outputSchema?.type, 'object', `${tool.name}: outputSchema.type`);
    }
  });

  test('tools/list is byte-identical whatever the caller says about itself, and the same tools as 2025', T, async () => {
    const a = await modern(server, 7, 'tools/list');
    const b = await modern(server, 7, 'tools/list', {}, {
      meta: {
        [META.clientInfo]: { name: 'someone-else', version: '9.9.9' },
        [META.clientCapabilities]: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
        [META.logLevel]: 'debug',
      },
      headers: { 'Mcp-Session-Id': 'f'.repeat(32) },
    });
    assert.equal(a.status, 200);
    assert.equal(b.body, a.body, 'tools/list must not vary with the caller');
    const session = await openLegacySession(server);
    const old = await legacy(server, session, 7, 'tools/list');
    assert.equal(old.status, 200);
    // One set of tools for both eras; a nullable result's schema is wrapped
    // for 2025 as {result: <the 2026-07-28 schema>} (SEP-2106).
    const unwrap = (t) => (t.name === 'request_break_if_needed'
      ? { ...t, outputSchema: t.outputSchema.properties.result } : t);
    assert.deepEqual(old.json.result.tools.map(unwrap), a.json.result.tools, 'one set of tools for both eras');
  });

  test('tools/call: a time_get_current result with resultType and serverInfo', T, async () => {
    const res = await modern(server, 3, 'tools/call', { name: TOOL_NAME, arguments: { timezone: 'UTC' } });
    const result = assertResult(res, 3);
    const sc = assertTimeResult(result);
    assert.equal(sc.timezone, 'UTC');
    assert.ok(!('ttlMs' in result) && !('cacheScope' in result), 'tools/call results are not cacheable');
  });

  test('tools/call: invalid arguments are a VALIDATION_ERROR result, not a JSON-RPC error', T, async () => {
    const res = await modern(server, 4, 'tools/call', { name: TOOL_NAME, arguments: { format: 'rfc2822' } });
    assertToolError(assertResult(res, 4), 'VALIDATION_ERROR');
  });

  test('completion/complete: zone names for a prompt argument', T, async () => {
    const res = await modern(server, 5, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'standup' }, argument: { name: 'timezone', value: 'europe/ber' },
    });
    const result = assertResult(res, 5);
    assert.deepEqual(result.completion, { values: ['Europe/Berlin'], total: 1, hasMore: false });
  });

  test('subscriptions/listen: acknowledged with no subscriptions, then ended', T, async () => {
    const res = await modern(server, 'listen-1', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const messages = assertOk(res, 'listen-1');
    assert.equal(messages.length, 2, res.body);
    assert.deepEqual(messages[0], {
      jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [META.subscriptionId]: 'listen-1' }, notifications: {} },
    });
    const result = assertModernResult(messages[1], 'listen-1');
    assert.equal(result._meta[META.subscriptionId], 'listen-1');
  });

  test('handler errors are in-band (HTTP 200): an unknown tool, a cursor', T, async () => {
    const unknown = await modern(server, 6, 'tools/call', { name: 'time_travel', arguments: {} });
    assert.equal(unknown.status, 200, unknown.body);
    assert.equal(unknown.headers['mcp-session-id'], undefined);
    assertModernError(unknown.json, Code.InvalidParams, 6);
    const cursor = await modern(server, 8, 'tools/list', { cursor: 'abc' });
    assert.equal(cursor.status, 200, cursor.body);
    assertModernError(cursor.json, Code.InvalidParams, 8);
  });

  test('ids are echoed exactly: strings, 0, negative and 64-bit integers', T, async () => {
    for (const id of ['a-string', '', 0, -5, 42]) {
      assertResult(await modern(server, id, 'server/discover'), id);
    }
    const big = '9007199254740993';
    const body = JSON.stringify(modernRequest(0, 'tools/list')).replace('"id":0', `"id":${big}`);
    const res = await post(server, body, modernHeaders('tools/list'));
    assert.equal(res.status, 200);
    assert.ok(res.body.startsWith(`{"jsonrpc":"2.0","id":${big},`), res.body.slice(0, 80));
  });
});

describe('2026-07-28 envelope and header checks (in order)', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  /** A discover body with `_meta` replaced by `meta` (undefined: no _meta). */
  function discoverWithMeta(id, meta) {
    const params = meta === undefined ? {} : { _meta: meta };
    return { jsonrpc: '2.0', id, method: 'server/discover', params };
  }

  // [title, body, headers, status, code]
  const cases = [
    ['clientCapabilities missing', discoverWithMeta(1, envelope({ [META.clientCapabilities]: undefined })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['clientCapabilities not an object', discoverWithMeta(2, envelope({ [META.clientCapabilities]: 'all' })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['protocolVersion not a string', discoverWithMeta(3, envelope({ [META.protocolVersion]: 20260728 })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['a logLevel that is no level', discoverWithMeta(4, envelope({ [META.logLevel]: 'verbose' })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['a logLevel that is not a string', discoverWithMeta(5, envelope({ [META.logLevel]: 7 })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['an invalid envelope comes before a header mismatch',
      discoverWithMeta(6, envelope({ [META.clientCapabilities]: undefined })),
      modernHeaders('tools/list', { version: '2025-11-25' }), 400, Code.InvalidParams],
    ['MCP-Protocol-Version missing', discoverWithMeta(10, envelope()),
      modernHeaders('server/discover', { extra: { 'MCP-Protocol-Version': undefined } }), 400, Code.HeaderMismatch],
    ['MCP-Protocol-Version 2025-11-25, body 2026-07-28', discoverWithMeta(11, envelope()),
      modernHeaders('server/discover', { version: '2025-11-25' }), 400, Code.HeaderMismatch],
    ['MCP-Protocol-Version 2026-07-28, body v999.0.0 (mismatch before unsupported)',
      discoverWithMeta(12, envelope({ [META.protocolVersion]: 'v999.0.0' })),
      modernHeaders('server/discover'), 400, Code.HeaderMismatch],
    ['Mcp-Method different from the body', discoverWithMeta(13, envelope()),
      modernHeaders('tools/list'), 400, Code.HeaderMismatch],
    ['Mcp-Method differing in case only (values are case-sensitive)', discoverWithMeta(14, envelope()),
      modernHeaders('Server/Discover'), 400, Code.HeaderMismatch],
    ['Mcp-Method mismatch comes before an unsupported version',
      discoverWithMeta(15, envelope({ [META.protocolVersion]: '2099-01-01' })),
      modernHeaders('tools/list', { version: '2099-01-01' }), 400, Code.HeaderMismatch],
    ['a 2026-07-28 header without params', { jsonrpc: '2.0', id: 20, method: 'server/discover' },
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['a 2026-07-28 header without _meta', discoverWithMeta(21, undefined),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['a 2026-07-28 header, _meta without protocolVersion (no claim)',
      discoverWithMeta(22, envelope({ [META.protocolVersion]: undefined })),
      modernHeaders('server/discover'), 400, Code.InvalidParams],
    ['a later-era header (2099-01-01) without a claim', discoverWithMeta(23, undefined),
      modernHeaders('server/discover', { version: '2099-01-01' }), 400, Code.InvalidParams],
    ['Mcp-Method missing', discoverWithMeta(30, envelope()),
      modernHeaders('server/discover', { extra: { 'Mcp-Method': undefined } }), 400, Code.HeaderMismatch],
    ['tools/call without Mcp-Name', modernRequest(40, 'tools/call', { name: TOOL_NAME, arguments: {} }),
      modernHeaders('tools/call'), 400, Code.HeaderMismatch],
    ['tools/call with another Mcp-Name', modernRequest(41, 'tools/call', { name: TOOL_NAME, arguments: {} }),
      modernHeaders('tools/call', { name: 'time_session_start' }), 400, Code.HeaderMismatch],
    ['tools/call with Mcp-Name in another case', modernRequest(42, 'tools/call', { name: TOOL_NAME, arguments: {} }),
      modernHeaders('tools/call', { name: TOOL_NAME.toUpperCase() }), 400, Code.HeaderMismatch],
    ['tools/call with a base64 Mcp-Name of another tool', modernRequest(43, 'tools/call', { name: TOOL_NAME, arguments: {} }),
      modernHeaders('tools/call', { name: base64Header('time_session_end') }), 400, Code.HeaderMismatch],
    ['tools/call with a malformed base64 Mcp-Name', modernRequest(44, 'tools/call', { name: TOOL_NAME, arguments: {} }),
      modernHeaders('tools/call', { name: '=?base64?!!!?=' }), 400, Code.HeaderMismatch],
    ['tools/call of an unknown tool without Mcp-Name', modernRequest(45, 'tools/call', { name: 'time_travel', arguments: {} }),
      modernHeaders('tools/call'), 400, Code.HeaderMismatch],
  ];
  for (const [title, body, headers, status, code] of cases) {
    test(`${status} ${code}: ${title}`, T, async () => {
      assertRefusal(await post(server, body, headers), status, code, body.id);
    });
  }

  test('400 -32022 for an unsupported version, with data {supported, requested}', T, async () => {
    for (const version of ['2099-01-01', 'v999.0.0', '2025-11-25', '2025-03-26', '1900-01-01']) {
      const body = modernRequest(`v-${version}`, 'server/discover', {}, { [META.protocolVersion]: version });
      const res = await post(server, body, modernHeaders('server/discover', { version }));
      assertUnsupportedVersionData(assertRefusal(res, 400, Code.UnsupportedProtocolVersion, body.id), version);
    }
  });

  test('an unsupported version comes before a missing Mcp-Method', T, async () => {
    const body = modernRequest(31, 'server/discover', {}, { [META.protocolVersion]: '2099-01-01' });
    const res = await post(server, body,
      modernHeaders('server/discover', { version: '2099-01-01', extra: { 'Mcp-Method': undefined } }));
    assertUnsupportedVersionData(assertRefusal(res, 400, Code.UnsupportedProtocolVersion, 31), '2099-01-01');
  });

  test('Mcp-Name: a base64 value is decoded; optional whitespace around header values is ignored', T, async () => {
    const body = modernRequest(46, 'tools/call', { name: TOOL_NAME, arguments: {} });
    assertResult(await post(server, body, modernHeaders('tools/call', { name: base64Header(TOOL_NAME) })), 46);
    const padded = modernHeaders('tools/call', { name: `  ${TOOL_NAME}\t` });
    padded['Mcp-Method'] = ' tools/call ';
    assertResult(await post(server, body, padded), 46);
    // Header names are case-insensitive.
    const lower = { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call', 'mcp-name': TOOL_NAME };
    assertResult(await post(server, body, lower), 46);
  });

  test('404 -32601 for every method 2026-07-28 does not have (with a valid envelope and headers)', T, async () => {
    const methods = [
      ['initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
      ['ping'], ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'file:///x' }], ['resources/unsubscribe', { uri: 'file:///x' }],
      ['tasks/list'], ['sampling/createMessage'], ['no/such-method'],
    ];
    let id = 100;
    for (const [method, params = {}] of methods) {
      id += 1;
      const name = params.name ?? params.uri;
      const res = await post(server, modernRequest(id, method, params), modernHeaders(method, { name }));
      const error = assertRefusal(res, 404, Code.MethodNotFound, id);
      assert.ok(error.message.includes(method), `the message names ${method}: ${error.message}`);
    }
  });

  test('400 -32600 for a batch, whether or not it carries the headers', T, async () => {
    const batch = [modernRequest(1, 'tools/list'), modernRequest(2, 'server/discover')];
    for (const headers of [modernHeaders('tools/list'), mcpHeaders()]) {
      const res = await post(server, batch, headers);
      assertRefusal(res, 400, Code.InvalidRequest, null);
    }
  });

  test('400 -32600 for a JSON-RPC response posted with a 2026-07-28 header', T, async () => {
    const res = await post(server, { jsonrpc: '2.0', id: 'server-1', result: {} }, modernHeaders('tools/list'));
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json?.error?.code, Code.InvalidRequest, res.body);
    assert.equal(res.headers['mcp-session-id'], undefined);
  });

  test('202 with no body for a posted notification (notifications/cancelled), with or without envelope', T, async () => {
    const bare = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } };
    const enveloped = { ...bare, params: { ...bare.params, _meta: envelope() } };
    for (const [body, headers] of [
      [bare, modernHeaders('notifications/cancelled')],
      [bare, modernHeaders('notifications/cancelled', { extra: { 'Mcp-Method': undefined } })],
      [enveloped, modernHeaders('notifications/cancelled')],
      [enveloped, modernHeaders('notifications/cancelled', { extra: { 'Mcp-Method': undefined } })],
    ]) {
      const res = await post(server, body, headers);
      assert.equal(res.status, 202, `${JSON.stringify(body)}: ${res.body}`);
      assert.equal(res.body, '');
      assert.equal(res.headers['mcp-session-id'], undefined);
    }
    // A header that is there must still match.
    const res = await post(server, enveloped, modernHeaders('tools/list'));
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json?.error?.code, Code.HeaderMismatch);
  });

  test('405 for DELETE with a 2026-07-28 header (the legacy session named stays alive) and for GET', T, async () => {
    const session = await openLegacySession(server);
    const del = await rawRequest(server.url, {
      method: 'DELETE', headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Session-Id': session },
    });
    assert.equal(del.status, 405, del.body);
    assert.equal(del.headers['mcp-session-id'], undefined);
    const ping = await legacy(server, session, 1, 'ping');
    assert.equal(ping.status, 200, 'the DELETE refused must not end the legacy session');
    for (const headers of [{ 'MCP-Protocol-Version': MODERN, Accept: 'text/event-stream' }, { Accept: 'text/event-stream' }]) {
      const get = await rawRequest(server.url, { method: 'GET', headers });
      assert.equal(get.status, 405, JSON.stringify(headers));
    }
  });

  test('Mcp-Session-Id and Last-Event-ID are ignored: malformed, unknown or live', T, async () => {
    const live = await openLegacySession(server);
    for (const sid of ['not a valid id!', '0'.repeat(32), live]) {
      const res = await modern(server, 50, 'tools/list', {}, { headers: { 'Mcp-Session-Id': sid, 'Last-Event-ID': '7' } });
      assertResult(res, 50);
    }
    // A refusal does not look at it either.
    const res = await post(server, modernRequest(51, 'tools/list'),
      modernHeaders('server/discover', { extra: { 'Mcp-Session-Id': 'not a valid id!' } }));
    assertRefusal(res, 400, Code.HeaderMismatch, 51);
  });

  test('Mcp-Session-Id is ignored also when only the body claims 2026-07-28 (header missing or 2025)', T, async () => {
    // The body's claim makes the request a 2026-07-28 one; its headers are
    // then wrong (-32020), and a leftover session header changes nothing.
    const cases = [
      ['no MCP-Protocol-Version, a malformed Mcp-Session-Id', { 'MCP-Protocol-Version': undefined, 'Mcp-Session-Id': 'not a valid id!' }],
      ['no MCP-Protocol-Version, an unknown Mcp-Session-Id', { 'MCP-Protocol-Version': undefined, 'Mcp-Session-Id': '0'.repeat(32) }],
      ['MCP-Protocol-Version 2025-11-25, a malformed Mcp-Session-Id', { 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Session-Id': 'not a valid id!' }],
      ['MCP-Protocol-Version 2024-11-05 (never served), an unknown Mcp-Session-Id', { 'MCP-Protocol-Version': '2024-11-05', 'Mcp-Session-Id': '0'.repeat(32) }],
    ];
    const problems = [];
    let id = 60;
    for (const [title, extra] of cases) {
      id += 1;
      const res = await post(server, modernRequest(id, 'tools/list'), modernHeaders('tools/list', { extra }));
      try {
        assertRefusal(res, 400, Code.HeaderMismatch, id);
      } catch (err) {
        problems.push(`${title}: ${res.status} ${res.body}`);
      }
    }
    assert.deepEqual(problems, [], 'each must be 400 -32020 echoing the id');
  });
});

describe('HTTP-level refusals of 2026-07-28 requests use no legacy code', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({ binary: BINARY, tokens: 'alice secret-alice\nsecret-anon\n' });
  });
  after(async () => { await server?.stop(); });

  const auth = { Authorization: 'Bearer secret-alice' };

  test('401 without a token, then 200 with one', T, async () => {
    const missing = await modern(server, 1, 'tools/list');
    assert.equal(missing.status, 401, missing.body);
    assert.match(missing.headers['www-authenticate'] ?? '', /^Bearer /);
    assertResult(await modern(server, 1, 'tools/list', {}, { headers: auth }), 1);
  });

  test('tools/list is byte-identical for two principals', T, async () => {
    const a = await modern(server, 9, 'tools/list', {}, { headers: auth });
    const b = await modern(server, 9, 'tools/list', {}, { headers: { Authorization: 'Bearer secret-anon' } });
    assert.equal(a.status, 200);
    assert.equal(b.body, a.body);
  });

  test('401, 403, 405, 406, 415: each a JSON-RPC error with a code outside -32000..-32019', T, async () => {
    const body = JSON.stringify(modernRequest(1, 'tools/list'));
    const refusals = [
      [401, { headers: modernHeaders('tools/list'), body }],
      [403, { headers: modernHeaders('tools/list', { extra: { ...auth, Origin: 'http://evil.example.com' } }), body }],
      [405, { method: 'DELETE', headers: { ...auth, 'MCP-Protocol-Version': MODERN } }],
      [405, { method: 'GET', headers: { ...auth, 'MCP-Protocol-Version': MODERN } }],
      [406, { headers: modernHeaders('tools/list', { accept: 'text/html', extra: auth }), body }],
      [415, { headers: modernHeaders('tools/list', { extra: { ...auth, 'Content-Type': 'text/plain' } }), body }],
    ];
    const problems = [];
    for (const [status, options] of refusals) {
      const res = await rawRequest(server.url, options);
      assert.equal(res.status, status, `${options.method ?? 'POST'}: ${res.body}`);
      assert.equal(res.json?.jsonrpc, '2.0', `a JSON-RPC error body for ${status}: ${res.body}`);
      try {
        assertModernErrorCode(res.json.error?.code);
      } catch (err) {
        problems.push(`${status} (${options.method ?? 'POST'}): ${err.message}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});

describe('logging per request (_meta logLevel)', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  const call = (id, args, meta, accept) =>
    modern(server, id, 'tools/call', { name: TOOL_NAME, arguments: args }, { meta, accept });

  test('logLevel debug: notifications/message on the request\'s SSE stream, before its result', T, async () => {
    const res = await call(1, { timezone: 'UTC' }, { [META.logLevel]: 'debug' });
    assert.match(res.headers['content-type'], /^text\/event-stream/);
    const messages = assertOk(res, 1);
    assert.ok(messages.length >= 2, res.body);
    for (const m of messages.slice(0, -1)) {
      assert.equal(m.method, 'notifications/message');
      assert.equal(m.params.level, 'debug');
    }
    assertTimeResult(assertModernResult(messages.at(-1), 1));
  });

  test('for that request only: the next one without logLevel gets none', T, async () => {
    await call(2, {}, { [META.logLevel]: 'debug' });
    const res = await call(3, {});
    assert.match(res.headers['content-type'], /^application\/json/);
    assertResult(res, 3);
  });

  test('the threshold: info reports a failure, error does not', T, async () => {
    const info = assertOk(await call(4, { timezone: 'Mars/Olympus' }, { [META.logLevel]: 'info' }), 4);
    assert.ok(info.length >= 2, 'an info notification about the failed call');
    assert.ok(info.slice(0, -1).every((m) => m.method === 'notifications/message' && m.params.level === 'info'),
      JSON.stringify(info));
    assertToolError(assertModernResult(info.at(-1), 4), 'INVALID_TIMEZONE');
    const error = assertOk(await call(5, { timezone: 'Mars/Olympus' }, { [META.logLevel]: 'error' }), 5);
    assert.equal(error.length, 1, JSON.stringify(error));
    const quiet = assertOk(await call(6, { timezone: 'Mars/Olympus' }), 6);
    assert.equal(quiet.length, 1, JSON.stringify(quiet));
  });

  test('a JSON-only client gets the result alone', T, async () => {
    const res = await call(7, {}, { [META.logLevel]: 'debug' }, 'application/json');
    assert.match(res.headers['content-type'], /^application\/json/);
    assertResult(res, 7);
  });

  test('a legacy session\'s logging/setLevel does not reach 2026-07-28 requests', T, async () => {
    const session = await openLegacySession(server);
    const set = await legacy(server, session, 1, 'logging/setLevel', { level: 'debug' });
    assert.equal(set.status, 200);
    const res = await call(8, {}, {}, undefined);
    assertResult(res, 8);
    const sameHeader = await modern(server, 9, 'tools/call', { name: TOOL_NAME, arguments: {} },
      { headers: { 'Mcp-Session-Id': session } });
    assertResult(sameHeader, 9);
  });
});

describe('legacy sessions on the same endpoint, unchanged', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  test('initialize, requests and DELETE work while 2026-07-28 requests run', T, async () => {
    const session = await openLegacySession(server);
    const calls = [];
    for (let i = 0; i < 20; i += 1) {
      calls.push(legacy(server, session, i, 'tools/call', { name: TOOL_NAME, arguments: { timezone: 'UTC' } }));
      calls.push(modern(server, `m${i}`, 'tools/call', { name: TOOL_NAME, arguments: { timezone: 'Asia/Tokyo' } }));
    }
    const replies = await Promise.all(calls);
    replies.forEach((res, k) => {
      const i = Math.floor(k / 2);
      if (k % 2 === 0) {
        assert.equal(res.status, 200, res.body);
        assert.equal(res.json.id, i);
        assert.ok(!('resultType' in res.json.result) && !('_meta' in res.json.result),
          `a 2025 result stays as it was: ${res.body.slice(0, 200)}`);
        assert.equal(assertTimeResult(res.json.result).timezone, 'UTC');
      } else {
        assert.equal(assertTimeResult(assertResult(res, `m${i}`)).timezone, 'Asia/Tokyo');
      }
    });
    const list = await legacy(server, session, 99, 'tools/list');
    assert.deepEqual(Object.keys(list.json.result), ['tools'], '2025 tools/list: no resultType, ttlMs, cacheScope');
    const ping = await legacy(server, session, 100, 'ping');
    assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 100, result: {} });
    const del = await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session } });
    assert.equal(del.status, 204);
    assert.equal((await legacy(server, session, 101, 'ping')).status, 404);
  });

  test('2025 refusals unchanged: no session, an unknown session', T, async () => {
    const none = await post(server, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, mcpHeaders());
    assert.equal(none.status, 400);
    assert.equal(none.json.error.code, -32000);
    assert.match(none.json.error.message, /Mcp-Session-Id/);
    const unknown = await legacy(server, '0'.repeat(32), 2, 'tools/list');
    assert.equal(unknown.status, 404);
  });

  test('tracking sessions: a 2025 session and the 2026-07-28 principal do not see each other\'s', T, async () => {
    const session = await openLegacySession(server);
    const startModern = assertResult(await modern(server, 1, 'tools/call',
      { name: 'time_session_start', arguments: SPEC_SESSION }), 1);
    const modernId = startModern.structuredContent.session_id;
    const startLegacy = await legacy(server, session, 2, 'tools/call', { name: 'time_session_start', arguments: SPEC_SESSION });
    const legacyId = startLegacy.json.result.structuredContent.session_id;

    const summary = (id) => ({ name: 'time_session_summary', arguments: { session_id: id } });
    const never = randomUUID();
    // What the 2025 session gets for the modern session and for an id never issued.
    const a = await legacy(server, session, 3, 'tools/call', summary(modernId));
    const b = await legacy(server, session, 3, 'tools/call', summary(never));
    assertToolError(a.json.result, 'SESSION_NOT_FOUND');
    assert.equal(withoutRequestIds(a.body.replaceAll(modernId, '<id>')),
      withoutRequestIds(b.body.replaceAll(never, '<id>')));
    // And the other way round, also when the request names the 2025 session in Mcp-Session-Id.
    const c = await modern(server, 4, 'tools/call', summary(legacyId), { headers: { 'Mcp-Session-Id': session } });
    const d = await modern(server, 4, 'tools/call', summary(never));
    assertToolError(assertResult(c, 4), 'SESSION_NOT_FOUND');
    assert.equal(withoutRequestIds(c.body.replaceAll(legacyId, '<id>')),
      withoutRequestIds(d.body.replaceAll(never, '<id>')));
    // Each still works for its owner.
    assert.equal(assertResult(await modern(server, 5, 'tools/call', summary(modernId)), 5).isError, false);
    assert.equal((await legacy(server, session, 6, 'tools/call', summary(legacyId))).json.result.isError, false);
  });
});

describe('connections: hang-ups and pipelining', () => {
  let server;
  before(async () => {
    server = await HttpServer.start({ binary: BINARY, args: ['--log-level', 'debug'] });
  });
  after(() => server?.stop());

  const callBody = (id, args = { timezone: 'UTC' }, meta = {}) =>
    JSON.stringify(modernRequest(id, 'tools/call', { name: TOOL_NAME, arguments: args }, meta));
  const callRequest = (id, args, meta) => rawHttpRequest(server.port, new URL(server.url).pathname, {
    headers: modernHeaders('tools/call', { name: TOOL_NAME }), body: callBody(id, args, meta),
  });

  async function assertHealthy() {
    assert.equal(server.exitInfo, null, `the server must still run${server.context()}`);
    assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
    assertResult(await modern(server, 'after', 'tools/list'), 'after');
  }

  test('pipelined keep-alive requests are answered in order on one connection', T, async () => {
    const pathname = new URL(server.url).pathname;
    const requests = [];
    const ids = [];
    for (let i = 0; i < 12; i += 1) {
      const id = i % 3 === 0 ? `s${i}` : i;
      ids.push(id);
      if (i % 4 === 1) {
        requests.push(rawHttpRequest(server.port, pathname, {
          headers: modernHeaders('tools/list'), body: JSON.stringify(modernRequest(id, 'tools/list')),
        }));
      } else {
        requests.push(callRequest(id, { timezone: 'UTC' }, i % 4 === 2 ? { [META.logLevel]: 'debug' } : {}));
      }
    }
    const { responses, closed } = await socketExchange(server.port, requests.join(''), { count: ids.length });
    assert.equal(closed, false, 'the connection stays open');
    assert.deepEqual(responses.map((r) => messagesOf(r).at(-1).id), ids, 'answered in request order');
    responses.forEach((r, k) => {
      assert.equal(r.status, 200);
      assert.equal(r.headers['mcp-session-id'], undefined);
      assertModernResult(messagesOf(r).at(-1), ids[k]);
    });
  });

  test('pipelined: refusals (400, 404) in between keep the connection and the order', T, async () => {
    const pathname = new URL(server.url).pathname;
    const req = (headers, body) => rawHttpRequest(server.port, pathname, { headers, body: JSON.stringify(body) });
    const requests = [
      req(modernHeaders('tools/list'), modernRequest('a', 'tools/list')),
      req(modernHeaders('server/discover'), modernRequest('b', 'tools/list')),
      req(modernHeaders('ping'), modernRequest('c', 'ping')),
      callRequest('d'),
    ];
    const { responses, closed } = await socketExchange(server.port, requests.join(''), { count: 4 });
    assert.equal(closed, false, 'the connection stays open');
    assert.deepEqual(responses.map((r) => [r.status, r.json?.id]), [[200, 'a'], [400, 'b'], [404, 'c'], [200, 'd']]);
    assertModernError(responses[1].json, Code.HeaderMismatch, 'b');
    assertModernError(responses[2].json, Code.MethodNotFound, 'c');
  });

  test('a client that hangs up mid-request: the server stays healthy', T, async () => {
    // Destroyed right after the request was written, 20 times over.
    for (let i = 0; i < 20; i += 1) {
      await new Promise((resolve) => {
        const socket = net.connect(server.port, '127.0.0.1', () => {
          socket.write(callRequest(i, { timezone: 'UTC' }, { [META.logLevel]: 'debug' }), () => {
            socket.destroy();
            resolve();
          });
        });
        socket.on('error', resolve);
      });
    }
    // 30 pipelined requests, the connection destroyed after the first answer.
    const many = Array.from({ length: 30 }, (_, i) => callRequest(100 + i)).join('');
    const { responses } = await socketExchange(server.port, many, { count: 1 });
    assert.ok(responses.length >= 1);
    await assertHealthy();
  });

  test('a client that closes its side after the request gets nothing more: the request is cancelled', T, async () => {
    // FIN right behind the request: the server sees the hang-up while the
    // call is in flight and must send nothing for it. A reply written before
    // it noticed is possible, so each attempt gets nothing or one whole
    // reply, and nothing must be the rule.
    const outcomes = [];
    for (let i = 0; i < 20; i += 1) {
      const { responses, bytes, closed } = await socketExchange(server.port, callRequest(i), { end: true });
      assert.equal(closed, true);
      if (bytes.length === 0) {
        outcomes.push('nothing');
      } else {
        assert.equal(responses.length, 1, `a whole reply or nothing, got ${JSON.stringify(bytes.toString('latin1'))}`);
        assertModernResult(messagesOf(responses[0]).at(-1), i);
        outcomes.push('reply');
      }
    }
    assert.ok(outcomes.includes('nothing'),
      `a hung-up client must get nothing more; every one of ${outcomes.length} attempts got a reply`);
    await server.waitForStderr(/request cancelled/);
    await assertHealthy();
  });
});
