// What the OAuth resource server refuses, and how, over real HTTP (issue 36
// item 5): the real server with oidc-provider as its authorization server
// (tests/oauth, its own process on loopback). The tokens a provider will not
// mint (expired, not yet valid, another audience or issuer, a bad
// signature, an unpublished kid) are signed here with node's crypto, with the
// provider's own key or a rogue one (lib/oauth.mjs); the rest come from the
// provider. Every refusal is checked for the spec's status and
// `WWW-Authenticate` header: 401 `Bearer resource_metadata="…"` (with
// `error="invalid_token"` for a token that is there but not good), 403
// `error="insufficient_scope"` naming the scope. Then key rotation (an
// unknown kid is refused, then accepted once the JWKS has it: the server
// fetches again on an unknown kid), ES256 and EdDSA keys, the JWKS endpoint
// down (the cached keys keep working) and a start-up without the keys (the
// log says so).
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, sseMessages, stopAllHttpServers,
} from './lib/http_server.mjs';
import {
  AuthorizationServer, READ_SCOPE, WRITE_SCOPE, accessTokenClaims, generateSigningKey,
  reserveLoopbackPort, signJwt,
} from './lib/oauth.mjs';
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const VERSION = '2025-11-25';
const BOTH = `${READ_SCOPE} ${WRITE_SCOPE}`;
// The server fetches the keys again for an unknown kid at most every 10 s
// by default (--oauth-jwks-min-refetch); the tests that need a second fetch
// soon after the first (a rotation, the JWKS endpoint down) set 0 s, so they
// need no waiting.
const FAST_REFETCH = ['--oauth-jwks-min-refetch', '0s'];

after(stopAllHttpServers);

/** The parameters of a `WWW-Authenticate: Bearer k="v", …` header. */
function bearerChallenge(header) {
  assert.ok(header, 'a WWW-Authenticate header');
  assert.match(header, /^Bearer\s/);
  const params = {};
  for (const m of header.matchAll(/(\w+)="([^"]*)"/g)) params[m[1]] = m[2];
  return params;
}

/** The JSON-RPC message of a 200 reply, whether JSON or SSE. */
function message(res) {
  assert.equal(res.status, 200, res.body);
  if (/text\/event-stream/.test(res.headers['content-type'] ?? '')) return sseMessages(res.body).at(-1);
  return res.json;
}

/** A server with `--oauth-issuer as`, serving at its resource URI; returns { server, resource }. */
async function startResourceServer(as, port, resource, { args = [], fastRefetch = false } = {}) {
  const server = await HttpServer.start({
    binary: BINARY,
    listen: `127.0.0.1:${port}`,
    // --ephemeral: no journal to open; these tests keep no sessions.
    args: ['--oauth-issuer', as.issuer, '--oauth-resource', resource, '--ephemeral',
      ...(fastRefetch ? FAST_REFETCH : []), ...args],
  });
  assert.equal(server.url, resource);
  return server;
}

describe('OAuth refusals with the spec\'s status and header', () => {
  const key = generateSigningKey('RS256');
  const rogue = generateSigningKey('RS256', key.kid); // same kid, another key
  let as;
  let server;
  let resource;
  let origin;

  // One authorization server; a fresh resource server for every test: a
  // refused token may count as a guess, and ten within a minute lock the
  // address out (docs/http.md#security-defaults), so no server sees more
  // than a few.
  before(async () => {
    as = await AuthorizationServer.start({ resources: [], keys: [key] });
  });
  beforeEach(async (t) => {
    const port = await reserveLoopbackPort();
    resource = `http://127.0.0.1:${port}/mcp`;
    origin = `http://127.0.0.1:${port}`;
    server = await startResourceServer(as, port, resource, { fastRefetch: t.name.startsWith('[refetch]') });
  });
  afterEach(() => server?.stop());
  after(() => as?.stop());

  const context = () => `${server.context()}${as.context()}`;
  const claims = (over = {}) => accessTokenClaims({ issuer: as.issuer, resource, scope: BOTH, ...over });
  const initialize = (token) => rawRequest(server.url, {
    headers: mcpHeaders({ extra: token === undefined ? {} : { Authorization: `Bearer ${token}` } }),
    body: initializeBody(VERSION),
  });

  /** Asserts a 401 whose challenge points at our metadata; returns the challenge's parameters. */
  function assert401(res, error) {
    assert.equal(res.status, 401, `${res.body}${context()}`);
    const params = bearerChallenge(res.headers['www-authenticate']);
    assert.ok([`${origin}/.well-known/oauth-protected-resource/mcp`, `${origin}/.well-known/oauth-protected-resource`]
      .includes(params.resource_metadata), params.resource_metadata);
    if (error) assert.equal(params.error, error, res.headers['www-authenticate']);
    else assert.equal(params.error, undefined, 'no error for a request without a token (RFC 6750 §3.1)');
    return params;
  }

  /** An MCP session opened with `token`; returns call(name, args) -> raw response (call.session: its id). */
  async function sessionWith(token) {
    const auth = { Authorization: `Bearer ${token}` };
    const init = await initialize(token);
    assert.equal(init.status, 200, `${init.body}${context()}`);
    const session = init.headers['mcp-session-id'];
    const note = await rawRequest(server.url, {
      headers: mcpHeaders({ session, version: VERSION, extra: auth }),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(note.status, 202, note.body);
    let id = 1;
    const call = (name, args) => rawRequest(server.url, {
      headers: mcpHeaders({ session, version: VERSION, extra: auth }),
      body: JSON.stringify({ jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } }),
    });
    call.session = session;
    return call;
  }

  test('Protected Resource Metadata (RFC 9728) at both well-known URIs', T, async () => {
    for (const suffix of ['/mcp', '']) {
      const res = await rawRequest(`${origin}/.well-known/oauth-protected-resource${suffix}`, { method: 'GET' });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json.resource, resource);
      assert.deepEqual(res.json.authorization_servers, [as.issuer]);
      for (const s of [READ_SCOPE, WRITE_SCOPE]) assert.ok(res.json.scopes_supported.includes(s), s);
      assert.deepEqual(res.json.bearer_methods_supported, ['header']);
    }
  });

  test('a good token (minted with the provider\'s key) is accepted; so is one just expired within the skew', T, async () => {
    assert.equal((await initialize(signJwt(key, claims()))).status, 200);
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await initialize(signJwt(key, claims({ exp: now - 5, iat: now - 300, nbf: now - 300 })))).status, 200,
      'the default skew is 30 s');
  });

  test('no token: 401 with resource_metadata and no error', T, async () => {
    assert401(await initialize(undefined));
  });

  test('a token for another audience: 401 invalid_token (no passthrough)', T, async () => {
    assert401(await initialize(signJwt(key, claims({ aud: 'http://127.0.0.1:9/other-mcp' }))), 'invalid_token');
    assert401(await initialize(signJwt(key, claims({ aud: [`${resource}/extra`, 'https://api.example'] }))), 'invalid_token');
    // aud as an array that contains us is fine (RFC 7519 §4.1.3).
    assert.equal((await initialize(signJwt(key, claims({ aud: ['https://api.example', resource] })))).status, 200);
  });

  test('another issuer, expired, not yet valid: 401 invalid_token', T, async () => {
    const now = Math.floor(Date.now() / 1000);
    assert401(await initialize(signJwt(key, claims({ iss: 'http://127.0.0.1:9' }))), 'invalid_token');
    assert401(await initialize(signJwt(key, claims({ iat: now - 900, nbf: now - 900, exp: now - 120 }))), 'invalid_token');
    assert401(await initialize(signJwt(key, claims({ nbf: now + 120, exp: now + 600 }))), 'invalid_token');
    // No exp at all: an access token must expire (RFC 9068 §2.2).
    const { exp, ...noExp } = claims();
    assert.ok(exp);
    assert401(await initialize(signJwt(key, noExp)), 'invalid_token');
  });

  test('a bad signature: a rogue key with the provider\'s kid, a changed payload, alg none: 401 invalid_token', T, async () => {
    assert401(await initialize(signJwt(rogue, claims())), 'invalid_token');
    const [h, , s] = signJwt(key, claims({ sub: 'alice' })).split('.');
    const forged = Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url');
    assert401(await initialize(`${h}.${forged}.${s}`), 'invalid_token');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: key.kid })).toString('base64url');
    assert401(await initialize(`${none}.${forged}.`), 'invalid_token');
    assert401(await initialize('not-a-jwt'), 'invalid_token');
  });

  test('missing scope: a read-only token reads, a write gets 403 insufficient_scope naming tracker.write', T, async () => {
    const call = await sessionWith(signJwt(key, claims({ scope: READ_SCOPE, sub: 'reader' })));
    const read = await call('time_get_current', { timezone: 'UTC' });
    assert.ok(!message(read).result.isError, read.body);
    const write = await call('time_session_start', { milestone_id: 'M', task_ids: ['a'] });
    assert.equal(write.status, 403, `${write.body}${context()}`);
    const params = bearerChallenge(write.headers['www-authenticate']);
    assert.equal(params.error, 'insufficient_scope');
    assert.ok(params.scope.split(' ').includes(WRITE_SCOPE), params.scope);
    assert.ok(params.resource_metadata, 'the 403 points at the metadata too');
    // The same call with tracker.write goes through; write implies read.
    const writer = await sessionWith(signJwt(key, claims({ scope: WRITE_SCOPE, sub: 'writer' })));
    assert.ok(!message(await writer('time_session_start', { milestone_id: 'M', task_ids: ['a'] })).result.isError);
    assert.ok(!message(await writer('time_get_current', { timezone: 'UTC' })).result.isError);
  });

  test('every tool: a read-only token gets 403 exactly for the tools not declared readOnlyHint (docs/authorization.md#scopes)', T, async () => {
    const token = signJwt(key, claims({ scope: READ_SCOPE, sub: 'reader' }));
    const call = await sessionWith(token);
    const list = await rawRequest(server.url, {
      headers: mcpHeaders({ session: call.session, version: VERSION, extra: { Authorization: `Bearer ${token}` } }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }),
    });
    const { tools } = message(list).result;
    assert.ok(tools.length > 10, `--toolsets all: ${tools.length} tools`);
    const refused = [];
    for (const tool of tools) {
      const res = await call(tool.name, {});
      if (res.status === 403) {
        assert.equal(bearerChallenge(res.headers['www-authenticate']).error, 'insufficient_scope');
        refused.push(tool.name);
      } else {
        assert.equal(res.status, 200, `${tool.name}: ${res.body}`);
      }
    }
    const writes = tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name);
    assert.deepEqual(refused.sort(), writes.sort());
    assert.ok(writes.includes('time_session_start'));
  });

  test('[refetch] key rotation: an unknown kid is refused, then accepted once the JWKS has it; ES256 and EdDSA too', T, async () => {
    const next = generateSigningKey('ES256');
    const ed = generateSigningKey('EdDSA');
    const early = signJwt(next, claims({ sub: 'rotated' }));
    // Not published yet: the server fetches the JWKS again and still lacks it.
    assert401(await initialize(early), 'invalid_token');
    try {
      await as.rotateKeys([next, ed, key]);
      assert.equal((await initialize(early)).status, 200, `the same token once the JWKS has its key${context()}`);
      assert.equal((await initialize(signJwt(ed, claims()))).status, 200, `EdDSA${context()}`);
      assert.equal((await initialize(signJwt(key, claims()))).status, 200, 'the old key still published, still good');
      // Dropped from the JWKS: after the next fetch (an unknown kid triggers it) the old key is gone.
      await as.rotateKeys([next]);
      assert401(await initialize(signJwt(generateSigningKey('RS256'), claims())), 'invalid_token');
      assert401(await initialize(signJwt(key, claims())), 'invalid_token');
    } finally {
      await as.rotateKeys([key]);
    }
  });

  test('[refetch] the JWKS endpoint down: the cached keys keep working; an unknown kid is refused; the failure is logged', T, async () => {
    const good = signJwt(key, claims());
    assert.equal((await initialize(good)).status, 200);
    await as.jwksDown();
    try {
      assert401(await initialize(signJwt(generateSigningKey('ES256'), claims())), 'invalid_token');
      await server.waitForStderr(/cannot fetch the signing keys of [^\n]*the keys fetched before stay in use/, 3000);
      assert.equal((await initialize(good)).status, 200, `cached keys${context()}`);
    } finally {
      await as.jwksUp();
    }
  });
});

describe('OAuth start-up without the authorization server', () => {
  test('the keys cannot be fetched: the server starts, says so (log, /readyz 503), refuses tokens', T, async () => {
    const key = generateSigningKey('RS256');
    const port = await reserveLoopbackPort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const as = await AuthorizationServer.start({ resources: [resource], keys: [key] });
    const issuer = as.issuer;
    await as.stop(); // its port no longer answers
    const server = await HttpServer.start({
      binary: BINARY, listen: `127.0.0.1:${port}`,
      // --ephemeral: no journal to wait for, so /readyz answers for the keys alone.
      args: ['--oauth-issuer', issuer, '--oauth-resource', resource, '--ephemeral'],
    });
    try {
      await server.waitForStderr(/cannot fetch the signing keys of [^\n]*no keys yet/);
      await server.waitForStderr(/started without the signing keys of [^\n]*\/readyz says not ready/);
      const ready = await rawRequest(`${new URL(server.url).origin}/readyz`, { method: 'GET' });
      assert.equal(ready.status, 503, 'not ready without the keys');
      assert.match(ready.body, /signing keys/);
      const token = signJwt(key, accessTokenClaims({ issuer, resource, scope: BOTH }));
      const res = await rawRequest(server.url, {
        headers: mcpHeaders({ extra: { Authorization: `Bearer ${token}` } }), body: initializeBody(VERSION),
      });
      assert.equal(res.status, 401, res.body);
      assert.equal(bearerChallenge(res.headers['www-authenticate']).error, 'invalid_token');
    } finally {
      await server.stop();
    }
  });

  test('the authorization server stops after start-up: tokens signed with the cached keys are still accepted', T, async () => {
    const key = generateSigningKey('RS256');
    const port = await reserveLoopbackPort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const as = await AuthorizationServer.start({ resources: [resource], keys: [key] });
    const server = await startResourceServer(as, port, resource);
    try {
      const token = signJwt(key, accessTokenClaims({ issuer: as.issuer, resource, scope: BOTH }));
      const init = () => rawRequest(server.url, {
        headers: mcpHeaders({ extra: { Authorization: `Bearer ${token}` } }), body: initializeBody(VERSION),
      });
      assert.equal((await init()).status, 200, server.context());
      await as.stop(); // stopped by its PID
      assert.equal((await init()).status, 200, `cached keys with the issuer gone${server.context()}`);
    } finally {
      await server.stop();
      await as.stop();
    }
  });
});
