// MCP 2026-07-28 (the stateless revision) on the wire, for the raw tests
// (http_modern.test.mjs, stdio_modern.test.mjs): the per-request `_meta`
// envelope, the HTTP headers that repeat it, and checks every modern reply
// must pass (resultType, serverInfo, no legacy error codes).
import assert from 'node:assert/strict';

export const MODERN = '2026-07-28';
/** server/discover's supportedVersions and -32022's data.supported: every revision served, newest first. */
export const ALL_REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

export const META = Object.freeze({
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
});

/** The JSON-RPC codes of 2026-07-28 (and the ones every era shares). */
export const Code = Object.freeze({
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  HeaderMismatch: -32020,
  UnsupportedProtocolVersion: -32022,
});

/** Every method a 2026-07-28 request may call here. */
export const MODERN_METHODS = ['server/discover', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get',
  'resources/list', 'resources/templates/list', 'resources/read', 'completion/complete', 'subscriptions/listen'];

const SEMVER_RE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * A request `_meta` envelope: protocolVersion, clientCapabilities and
 * clientInfo, then `extra` (a key set to undefined is left out).
 */
export function envelope(extra = {}) {
  const meta = {
    [META.protocolVersion]: MODERN,
    [META.clientCapabilities]: {},
    [META.clientInfo]: { name: 'ttm-modern-raw-test', version: '0.0.0' },
    ...extra,
  };
  for (const [k, v] of Object.entries(meta)) if (v === undefined) delete meta[k];
  return meta;
}

/** A 2026-07-28 request object: `params` plus `_meta` = envelope(`meta`). */
export function modernRequest(id, method, params = {}, meta = {}) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(meta) } };
}

/** The headers of a well-formed 2026-07-28 POST for `method` (and `name` for tools/call). */
export function modernHeaders(method, { name, version = MODERN, accept = 'application/json, text/event-stream', extra = {} } = {}) {
  const h = { 'Content-Type': 'application/json', Accept: accept, 'MCP-Protocol-Version': version, 'Mcp-Method': method };
  if (name !== undefined) h['Mcp-Name'] = name;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) {
      for (const key of Object.keys(h)) if (key.toLowerCase() === k.toLowerCase()) delete h[key];
    } else {
      h[k] = v;
    }
  }
  return h;
}

/** `=?base64?…?=`, the header encoding of values that are not header-safe. */
export function base64Header(text) {
  return `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** Asserts `info` is our serverInfo: name, title, semver version. */
export function assertServerInfo(info, label = 'serverInfo') {
  assert.ok(info && typeof info === 'object', `${label} must be an object, got ${JSON.stringify(info)}`);
  assert.equal(info.name, 'time-tracker-mcp', `${label}.name`);
  assert.equal(info.title, 'Time Tracker MCP', `${label}.title`);
  assert.match(info.version ?? '', SEMVER_RE, `${label}.version`);
}

/**
 * Asserts `msg` is a 2026-07-28 success response to `id`: resultType
 * "complete" and `_meta` serverInfo. Returns the result.
 */
export function assertModernResult(msg, id) {
  assert.equal(msg?.jsonrpc, '2.0', `a JSON-RPC response: ${JSON.stringify(msg)}`);
  assert.deepEqual(msg.id, id, 'the response echoes the request id');
  assert.ok(!('error' in msg), `expected a result, got error ${JSON.stringify(msg.error)}`);
  const { result } = msg;
  assert.ok(result && typeof result === 'object', 'result must be an object');
  assert.equal(result.resultType, 'complete', `every 2026-07-28 result has resultType "complete": ${JSON.stringify(result).slice(0, 300)}`);
  assertServerInfo(result._meta?.[META.serverInfo], 'result._meta serverInfo');
  return result;
}

/** Asserts the ttlMs / cacheScope of tools/list and server/discover. */
export function assertCacheHints(result) {
  assert.equal(result.ttlMs, 3_600_000, 'ttlMs');
  assert.equal(result.cacheScope, 'public', 'cacheScope');
}

/**
 * Asserts an error code a 2026-07-28 reply may carry: none of the legacy or
 * implementation range -32000..-32019, nor -32002 / -32042.
 */
export function assertModernErrorCode(code) {
  assert.ok(Number.isInteger(code), `error code ${code} must be an integer`);
  assert.ok(!(code >= -32019 && code <= -32000), `2026-07-28 replies use no code of -32000..-32019, got ${code}`);
  assert.ok(code !== -32002 && code !== -32042, `2026-07-28 replies never use ${code}`);
}

/** Asserts `msg` is a JSON-RPC error with `code` for request `id`; returns the error. */
export function assertModernError(msg, code, id) {
  assert.equal(msg?.jsonrpc, '2.0', `a JSON-RPC error: ${JSON.stringify(msg)}`);
  assert.ok(msg.error && typeof msg.error === 'object', `expected error ${code}, got ${JSON.stringify(msg)}`);
  assert.equal(msg.error.code, code, `expected error code ${code}, got ${JSON.stringify(msg.error)}`);
  assert.equal(typeof msg.error.message, 'string');
  assert.ok(msg.error.message.length > 0, 'the error message must not be empty');
  assert.deepEqual(msg.id, id, `the error echoes the request id ${JSON.stringify(id)}`);
  assertModernErrorCode(msg.error.code);
  return msg.error;
}

/** Asserts -32022's data: {supported: every revision, requested}, and the request's id. */
export function assertUnsupportedVersionData(error, requested) {
  const { request_id: requestId, ...data } = error.data ?? {};
  assert.equal(typeof requestId, 'string', '-32022 data names the request (request_id)');
  assert.deepEqual(data, { supported: ALL_REVISIONS, requested }, '-32022 data');
}

/**
 * `text` (a reply body) with its request ids (error.data.request_id,
 * structuredContent.request_id, also inside a text block) replaced by
 * `<request_id>`: two replies that must not differ except by request.
 */
export function withoutRequestIds(text) {
  return text.replace(/(\\?"request_id\\?":\\?")[0-9a-f]{32}/g, '$1<request_id>');
}
