// The official MCP SDK client's OAuth flow end to end against the real
// server over HTTP (issue 36 item 5), with oidc-provider as the
// authorization server (tests/oauth, its own process on loopback): the
// client's first request gets 401 with a `resource_metadata` challenge, it
// reads our Protected Resource Metadata (RFC 9728), the provider's metadata
// (RFC 8414 / OpenID discovery), registers itself (dynamic client
// registration), opens the authorization URL (code + PKCE S256, `resource` =
// our URI: RFC 8707), the test's "browser" signs in and consents, the code
// comes back to the redirect URI, `finishAuth(code)` gets a JWT access token
// (RFC 9068), and then tools/list and tool calls succeed as the token's
// `sub`. Then: a read-only grant calls a write tool, gets 403
// insufficient_scope, and the SDK steps up (a new authorization for the
// scope named in the challenge); static tokens work beside OAuth; the v2
// client (@modelcontextprotocol/client) runs the same flow.
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { assertIso8601Now } from './lib/time_assertions.mjs';
import {
  AuthorizationServer, READ_SCOPE, TestOAuthClientProvider, WRITE_SCOPE, decodeJwt,
  generateSigningKey, reserveLoopbackPort,
} from './lib/oauth.mjs';
import {
  Client, ClientV2, PINNED_MODERN, StreamableHTTPClientTransport, StreamableHTTPClientTransportV2,
} from './lib/sdk_client.mjs';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js');
const { UnauthorizedError: UnauthorizedErrorV2 } = await import('@modelcontextprotocol/client');

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const STATIC_TOKEN = 'static-token-of-dora-5b0c2a71e4';
const STATIC_ALICE = 'static-token-of-alice-93e0d7c1aa';

after(stopAllHttpServers);

describe('the SDK client signs in with OAuth and calls tools', () => {
  const key = generateSigningKey('RS256');
  let as;
  let server;
  let resource;
  let tokenDir;
  const clients = [];

  before(async () => {
    const port = await reserveLoopbackPort();
    resource = `http://127.0.0.1:${port}/mcp`;
    as = await AuthorizationServer.start({ resources: [resource], keys: [key] });
    tokenDir = mkdtempSync(path.join(tmpdir(), 'ttm-tokens-'));
    const tokenFile = path.join(tokenDir, 'tokens');
    writeFileSync(tokenFile, `dora ${STATIC_TOKEN}\nalice ${STATIC_ALICE}\n`, { mode: 0o600 });
    server = await HttpServer.start({
      binary: BINARY,
      listen: `127.0.0.1:${port}`,
      args: ['--oauth-issuer', as.issuer, '--oauth-resource', resource, '--auth-token-file', tokenFile],
    });
    assert.equal(server.url, resource, 'the server serves MCP at the resource URI');
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await server?.stop();
    await as?.stop();
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  });

  const context = () => `${server.context()}${as.context()}`;

  /**
   * The SDK v1 flow as `login`: connect (401 -> discovery -> registration ->
   * authorization, which the provider's "browser" completes), finishAuth,
   * connect again. Returns { client, provider }.
   */
  async function signIn(login, { grantOnly } = {}) {
    const provider = new TestOAuthClientProvider({ login, grantOnly });
    const client = new Client({ name: `ttm-oauth-${login}`, version: '1.0.0' });
    clients.push(client);
    const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await assert.rejects(client.connect(first), UnauthorizedError, context());
    assert.ok(provider.authorizationCode, 'the redirect brought a code');
    await first.finishAuth(provider.authorizationCode);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    return { client, provider };
  }

  const structured = async (client, name, args) => {
    const res = await client.callTool({ name, arguments: args });
    assert.ok(!res.isError, `${name}: ${JSON.stringify(res.structuredContent)}${context()}`);
    return res.structuredContent;
  };

  let aliceSession;

  test('v1: 401 -> discovery -> registration -> code + PKCE -> token; tools/list, a time call and a tracking call as sub', T, async () => {
    const { client, provider } = await signIn('alice');
    // The authorization request the SDK built from our metadata.
    const [authorization] = provider.redirects;
    assert.equal(authorization.origin, as.issuer);
    assert.equal(authorization.searchParams.get('resource'), resource);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.deepEqual(authorization.searchParams.get('scope').split(' ').sort(), [READ_SCOPE, WRITE_SCOPE]);
    assert.deepEqual(provider.prompts, ['login', 'consent']);
    const { claims } = decodeJwt(provider.tokens().access_token);
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.aud, resource);

    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'time_get_current'));
    assert.ok(tools.some((t) => t.name === 'time_session_start'));
    const now = await structured(client, 'time_get_current', { timezone: 'UTC' });
    assertIso8601Now(now);
    const started = await structured(client, 'time_session_start', { milestone_id: 'OAUTH-1', task_ids: ['a'] });
    aliceSession = started.session_id;
    const listed = await structured(client, 'time_session_list', {});
    assert.deepEqual(listed.sessions.map((s) => s.session_id), [aliceSession]);
  });

  test('the principal is the sub: alice again (a new client, a new token) sees her session, bob does not', T, async () => {
    assert.ok(aliceSession, 'the first test started a session');
    const again = await signIn('alice');
    const mine = await structured(again.client, 'time_session_list', {});
    assert.deepEqual(mine.sessions.map((s) => s.session_id), [aliceSession]);
    const bob = await signIn('bob');
    const his = await structured(bob.client, 'time_session_list', {});
    assert.deepEqual(his.sessions, []);
    const report = await bob.client.callTool({ name: 'time_session_report', arguments: { session_id: aliceSession } });
    assert.ok(report.isError);
    assert.match(JSON.stringify(report.structuredContent), /SESSION_NOT_FOUND/);
  });

  test('a read-only grant reads; a write gets 403 insufficient_scope and the SDK steps up to the scope named', T, async () => {
    const { client, provider } = await signIn('carol', { grantOnly: READ_SCOPE });
    assert.equal(decodeJwt(provider.tokens().access_token).claims.scope, READ_SCOPE);
    await structured(client, 'time_get_current', { timezone: 'UTC' });
    await structured(client, 'time_session_list', {});
    // The write: 403 with error="insufficient_scope" scope="tracker.write";
    // the SDK authorizes again for that scope (the "browser" consents) and
    // reports UnauthorizedError until the code is exchanged.
    provider.grantOnly = undefined;
    await assert.rejects(structured(client, 'time_session_start', { milestone_id: 'OAUTH-2', task_ids: ['a'] }),
      UnauthorizedError, context());
    const stepUp = provider.redirects.at(-1);
    assert.equal(provider.redirects.length, 2);
    assert.ok(stepUp.searchParams.get('scope').split(' ').includes(WRITE_SCOPE), stepUp.href);
    assert.equal(stepUp.searchParams.get('resource'), resource);
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await transport.finishAuth(provider.authorizationCode);
    assert.ok(decodeJwt(provider.tokens().access_token).claims.scope.split(' ').includes(WRITE_SCOPE));
    const writer = new Client({ name: 'ttm-oauth-carol-2', version: '1.0.0' });
    clients.push(writer);
    await writer.connect(transport);
    const started = await structured(writer, 'time_session_start', { milestone_id: 'OAUTH-2', task_ids: ['a'] });
    assert.ok(started.session_id);
  });

  test('a static token works beside OAuth (both on at once)', T, async () => {
    const client = new Client({ name: 'ttm-static', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: `Bearer ${STATIC_TOKEN}` } },
    }));
    await structured(client, 'time_session_start', { milestone_id: 'STATIC-1', task_ids: ['a'] });
    const listed = await structured(client, 'time_session_list', {});
    assert.equal(listed.sessions.length, 1, 'dora sees her own session only');
    // A static NAME equal to an OAuth principal is that principal
    // (docs/authorization.md#static-tokens-beside-oauth).
    const alice = new Client({ name: 'ttm-static-alice', version: '1.0.0' });
    clients.push(alice);
    await alice.connect(new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { Authorization: `Bearer ${STATIC_ALICE}` } },
    }));
    const hers = await structured(alice, 'time_session_list', {});
    assert.deepEqual(hers.sessions.map((s) => s.session_id), [aliceSession]);
  });

  test('v2 client (@modelcontextprotocol/client): the same flow, then tools as sub', T, async () => {
    const provider = new TestOAuthClientProvider({ login: 'erin' });
    const client = new ClientV2({ name: 'ttm-oauth-v2', version: '1.0.0' }, { versionNegotiation: PINNED_MODERN });
    clients.push(client);
    const first = new StreamableHTTPClientTransportV2(new URL(server.url), { authProvider: provider });
    await assert.rejects(client.connect(first), UnauthorizedErrorV2, context());
    assert.ok(provider.authorizationCode, 'the redirect brought a code');
    await first.finishAuth(provider.authorizationCode, provider.redirectIssuer);
    assert.equal(decodeJwt(provider.tokens().access_token).claims.sub, 'erin');
    await client.connect(new StreamableHTTPClientTransportV2(new URL(server.url), { authProvider: provider }));
    await structured(client, 'time_get_current', { timezone: 'UTC' });
    await structured(client, 'time_session_start', { milestone_id: 'OAUTH-V2', task_ids: ['a'] });
    const listed = await structured(client, 'time_session_list', {});
    assert.equal(listed.sessions.length, 1);
  });
});

describe('opaque access tokens through introspection (RFC 7662)', () => {
  const introspectionClient = { client_id: 'ttm-resource-server', client_secret: `secret-${randomUUID()}` };
  let as;
  let server;
  let dir;
  const clients = [];

  before(async () => {
    const port = await reserveLoopbackPort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    as = await AuthorizationServer.start({
      resources: [resource], keys: [generateSigningKey('ES256')], opaque: true, introspectionClient,
    });
    dir = mkdtempSync(path.join(tmpdir(), 'ttm-introspection-'));
    const secretFile = path.join(dir, 'secret');
    writeFileSync(secretFile, `${introspectionClient.client_secret}\n`, { mode: 0o600 });
    server = await HttpServer.start({
      binary: BINARY,
      listen: `127.0.0.1:${port}`,
      args: ['--oauth-issuer', as.issuer, '--oauth-resource', resource,
        '--oauth-introspection-client-id', introspectionClient.client_id,
        '--oauth-introspection-client-secret-file', secretFile],
    });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await server?.stop();
    await as?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the SDK flow yields an opaque token; the server introspects it; tools run as its sub; a made-up one is 401', T, async () => {
    const provider = new TestOAuthClientProvider({ login: 'frank' });
    const client = new Client({ name: 'ttm-oauth-opaque', version: '1.0.0' });
    clients.push(client);
    const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    await assert.rejects(client.connect(first), UnauthorizedError, server.context() + as.context());
    await first.finishAuth(provider.authorizationCode);
    assert.doesNotMatch(provider.tokens().access_token, /^eyJ/, 'an opaque token, not a JWT');
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    const res = await client.callTool({ name: 'time_session_start', arguments: { milestone_id: 'OPAQUE', task_ids: ['a'] } });
    assert.ok(!res.isError, JSON.stringify(res.structuredContent) + server.context());
    const listed = await client.callTool({ name: 'time_session_list', arguments: {} });
    assert.equal(listed.structuredContent.sessions.length, 1);
    const madeUp = await fetch(server.url, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer kjJlqkS7qRSOgsURUPJuEi4ar2AvLdC1vN5Y04EE447',
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    assert.equal(madeUp.status, 401);
    assert.match(madeUp.headers.get('www-authenticate'), /error="invalid_token"/);
  });
});
