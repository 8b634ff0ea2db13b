// The test authorization server alone (tests/oauth/authorization_server.mjs,
// oidc-provider), driven by the official SDK's OAuth client functions: what
// the oauth_*.test.mjs files rely on. Its metadata (RFC 8414 / OpenID
// discovery), dynamic client registration of a public client, the
// authorization code flow with PKCE, login and consent by the test's
// "browser", an RFC 9068 JWT access token bound to the resource (RFC 8707)
// with the scopes asked for, the code refused without its verifier, a key
// rotation, the jwks endpoint down, and the process stopped by its PID.
import { TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  AuthorizationServer, READ_SCOPE, TestOAuthClientProvider, WRITE_SCOPE, decodeJwt,
  generateSigningKey, loginAndConsent,
} from './lib/oauth.mjs';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

const {
  discoverAuthorizationServerMetadata, registerClient, startAuthorization, exchangeAuthorization,
} = await import('@modelcontextprotocol/sdk/client/auth.js');

const RESOURCE = 'http://127.0.0.1:9/mcp';

// TEST_TIMEOUT_MS is a per-test limit: on the suite it bounded all six
// tests and the server's start together (cancelled after 33 s at a load of
// 28 on 2 cores, each step a few seconds).
const T = { timeout: TEST_TIMEOUT_MS };

describe('the test authorization server (oidc-provider)', () => {
  const key = generateSigningKey('RS256');
  let as;
  let metadata;

  before(async () => {
    as = await AuthorizationServer.start({ resources: [RESOURCE], keys: [key] });
    metadata = await discoverAuthorizationServerMetadata(as.issuer);
  });
  after(() => as?.stop());

  /** Registers a client and runs the code flow as `login` for `scope`; returns the token response. */
  async function codeFlow({ login, scope, resource = RESOURCE, verifier }) {
    const provider = new TestOAuthClientProvider({ login });
    const client = await registerClient(as.issuer, { metadata, clientMetadata: provider.clientMetadata, scope });
    assert.equal(client.token_endpoint_auth_method, 'none');
    const { authorizationUrl, codeVerifier } = await startAuthorization(as.issuer, {
      metadata, clientInformation: client, redirectUrl: provider.redirectUri, scope, state: 's1',
      resource: new URL(resource),
    });
    assert.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
    const { params, prompts } = await loginAndConsent(authorizationUrl, { login, redirectUri: provider.redirectUri });
    if (params.get('error')) throw new Error(`authorization refused: ${params.get('error')}`);
    assert.deepEqual(prompts, ['login', 'consent']);
    assert.equal(params.get('state'), 's1');
    return exchangeAuthorization(as.issuer, {
      metadata, clientInformation: client, authorizationCode: params.get('code'),
      codeVerifier: verifier ?? codeVerifier, redirectUri: provider.redirectUri, resource: new URL(resource),
    });
  }

  test('publishes its metadata: issuer, registration, S256, the resource scopes', T, () => {
    assert.equal(metadata.issuer, as.issuer);
    assert.ok(metadata.registration_endpoint);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    for (const s of [READ_SCOPE, WRITE_SCOPE]) assert.ok(metadata.scopes_supported.includes(s), s);
  });

  test('code + PKCE: a JWT access token for the resource, the login as sub, the scopes granted', T, async () => {
    const tokens = await codeFlow({ login: 'alice', scope: `${READ_SCOPE} ${WRITE_SCOPE}` });
    assert.equal(tokens.token_type, 'Bearer');
    const { header, claims } = decodeJwt(tokens.access_token);
    assert.deepEqual(header, { alg: 'RS256', typ: 'at+jwt', kid: key.kid });
    assert.equal(claims.iss, as.issuer);
    assert.equal(claims.aud, RESOURCE);
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.scope, `${READ_SCOPE} ${WRITE_SCOPE}`);
    assert.ok(claims.exp > claims.iat);
  });

  test('a read-only grant: scope tracker.read alone', T, async () => {
    const tokens = await codeFlow({ login: 'bob', scope: READ_SCOPE });
    assert.equal(decodeJwt(tokens.access_token).claims.scope, READ_SCOPE);
    assert.equal(decodeJwt(tokens.access_token).claims.sub, 'bob');
  });

  test('the code is refused without its PKCE verifier, and for an unknown resource', T, async () => {
    await assert.rejects(codeFlow({ login: 'alice', scope: READ_SCOPE, verifier: 'x'.repeat(43) }),
      /grant request is invalid|PKCE verification failed/i);
    await assert.rejects(codeFlow({ login: 'alice', scope: READ_SCOPE, resource: 'http://127.0.0.1:9/other' }),
      /authorization refused: invalid_target/);
  });

  test('key rotation: the new key signs, both are published; the jwks endpoint can be down', T, async () => {
    const next = generateSigningKey('ES256');
    await as.rotateKeys([next, key]);
    const jwks = await (await fetch(metadata.jwks_uri)).json();
    assert.deepEqual(jwks.keys.map((k) => k.kid), [next.kid, key.kid]);
    assert.ok(jwks.keys.every((k) => !('d' in k)), 'no private parts in the JWKS');
    const tokens = await codeFlow({ login: 'carol', scope: READ_SCOPE });
    assert.deepEqual(decodeJwt(tokens.access_token).header, { alg: 'ES256', typ: 'at+jwt', kid: next.kid });
    await as.jwksDown();
    assert.equal((await fetch(metadata.jwks_uri)).status, 503);
    await as.jwksUp();
    assert.equal((await fetch(metadata.jwks_uri)).status, 200);
    await as.rotateKeys([key]);
  });

  test('stopped by its PID: nothing answers on its port any more', T, async () => {
    const other = await AuthorizationServer.start({ resources: [RESOURCE], keys: [key] });
    await other.stop();
    assert.throws(() => process.kill(other.pid, 0), /ESRCH/);
    await assert.rejects(fetch(`${other.issuer}/.well-known/openid-configuration`));
  });
});
