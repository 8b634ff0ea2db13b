// OAuth test tooling for oauth_*.test.mjs: the authorization server
// (tests/oauth/authorization_server.mjs: oidc-provider as its own process on
// a loopback port, stopped by its PID), signing keys and JWTs made with
// node's crypto (for the tokens a provider will not mint: expired, another
// audience, a rogue key), the login and consent a user would do in the
// browser (devInteractions' forms, driven with fetch), and an
// OAuthClientProvider for the official SDK client that keeps everything in
// memory.
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const OAUTH_DIR = fileURLToPath(new URL('../../oauth/', import.meta.url));
const AS_SCRIPT = path.join(OAUTH_DIR, 'authorization_server.mjs');
// oidc-provider 9 supports Node >= 22: the pinned `node` package's.
const NODE22 = path.join(OAUTH_DIR, 'node_modules', '.bin', 'node');
if (!existsSync(path.join(OAUTH_DIR, 'node_modules', 'oidc-provider', 'package.json')) || !existsSync(NODE22)) {
  throw new Error('oidc-provider (and its Node 22) is not installed: run `npm ci` in tests/oauth (scripts/test.sh does)');
}

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export const READ_SCOPE = 'tracker.read';
export const WRITE_SCOPE = 'tracker.write';

const b64url = (data) => Buffer.from(data).toString('base64url');

/**
 * A new signing key: { alg, kid, privateJwk, publicJwk, privateKey }.
 * alg is RS256, ES256 or EdDSA (Ed25519).
 */
export function generateSigningKey(alg = 'RS256', kid = `k-${randomUUID()}`) {
  const pair = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : alg === 'EdDSA' ? generateKeyPairSync('ed25519')
        : null;
  if (!pair) throw new Error(`no key type for alg ${alg}`);
  const common = { kid, alg, use: 'sig' };
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    privateJwk: { ...pair.privateKey.export({ format: 'jwk' }), ...common },
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), ...common },
  };
}

/**
 * A compact JWS of `claims` signed with `key` (from generateSigningKey),
 * header { alg, typ: 'at+jwt', kid } unless `header` overrides it.
 */
export function signJwt(key, claims, header = {}) {
  const h = { alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header };
  const input = `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(claims))}`;
  const digest = key.alg === 'EdDSA' ? null : 'sha256';
  const options = key.alg === 'ES256' ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' } : key.privateKey;
  return `${input}.${b64url(sign(digest, Buffer.from(input), options))}`;
}

/** The claims of an RFC 9068 access token, `over` changing or adding some. */
export function accessTokenClaims({ issuer, resource, sub = 'alice', scope, now = Math.floor(Date.now() / 1000), ...over }) {
  return {
    iss: issuer,
    sub,
    aud: resource,
    client_id: 'test-client',
    scope,
    iat: now,
    nbf: now,
    exp: now + 300,
    jti: randomUUID(),
    ...over,
  };
}

/** The claims of a JWT (no check: the tests read what the provider minted). */
export function decodeJwt(token) {
  const [h, p] = token.split('.');
  return { header: JSON.parse(Buffer.from(h, 'base64url')), claims: JSON.parse(Buffer.from(p, 'base64url')) };
}

/**
 * A loopback port nobody listens on now (the kernel picks it): the MCP
 * server's resource URI must be known before the authorization server and
 * the MCP server start.
 */
export function reserveLoopbackPort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Every authorization server started here and not yet stopped. */
const running = new Set();
process.on('exit', () => {
  for (const as of running) {
    try { process.kill(as.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

export class AuthorizationServer {
  /**
   * Starts tests/oauth/authorization_server.mjs for `resources` with the
   * signing `keys` (from generateSigningKey; the first signs); `opaque`:
   * opaque access tokens instead, which `introspectionClient` ({client_id,
   * client_secret}) may introspect (RFC 7662); resolves once
   * it listens (this.issuer, this.pid).
   */
  static async start({
    resources, keys, scopes = [READ_SCOPE, WRITE_SCOPE], accessTokenTtl = 300, opaque = false, introspectionClient,
  }) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-as-'));
    const configFile = path.join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({
      resources, scopes, accessTokenTtl, opaque, introspectionClient, keys: keys.map((k) => k.privateJwk),
    }), { mode: 0o600 });
    const child = spawn(NODE22, [AS_SCRIPT, configFile],
      { cwd: OAUTH_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBUG: '' } });
    const as = new AuthorizationServer(child, dir);
    running.add(as);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the authorization server did not start${as.context()}`)),
        START_TIMEOUT_MS);
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const m = /authorization server at (http:\/\/\S+)/.exec(out);
        if (m && !as.issuer) {
          clearTimeout(timer);
          as.issuer = m[1];
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the authorization server exited (${code ?? signal}) before listening${as.context()}`));
      });
    });
    return as;
  }

  constructor(child, dir) {
    this.child = child;
    this.pid = child.pid;
    this.dir = dir;
    this.stderrText = '';
    child.stderr.on('data', (chunk) => { this.stderrText = (this.stderrText + chunk).slice(-16_384); });
    this.exited = new Promise((resolve) => child.once('exit', () => {
      running.delete(this);
      rmSync(dir, { recursive: true, force: true });
      resolve();
    }));
  }

  context() {
    return `\n--- authorization server stderr (tail) ---\n${this.stderrText}`;
  }

  async control(what, body = {}) {
    const res = await fetch(`${this.issuer}/__test/${what}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`authorization server ${what}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** Key rotation: from now on the provider signs with keys[0] and publishes all of `keys`. */
  rotateKeys(keys) { return this.control('keys', { keys: keys.map((k) => k.privateJwk) }); }

  /** The jwks endpoint answers 503 until jwksUp(). */
  jwksDown() { return this.control('jwks-down'); }

  jwksUp() { return this.control('jwks-up'); }

  /** Stops the process by its PID (SIGTERM, then SIGKILL if it lingers); resolves once it exited. */
  async stop() {
    if (!running.has(this)) return;
    process.kill(this.pid, 'SIGTERM');
    const timer = setTimeout(() => { try { process.kill(this.pid, 'SIGKILL'); } catch { /* gone */ } },
      STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

/** A minimal cookie jar for one browser session with the authorization server. */
class CookieJar {
  constructor() { this.cookies = new Map(); }

  take(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expires = attrs.map((a) => a.trim()).find((a) => /^expires=/i.test(a));
      const gone = !value || (expires && Date.parse(expires.slice(8)) <= Date.now());
      if (gone) this.cookies.delete(name); else this.cookies.set(name, value);
    }
  }

  header() { return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '); }
}

/**
 * What a user does in the browser after the client opened
 * `authorizationUrl`: follows the redirects, signs in as `login` on the
 * provider's login form, consents on its consent form, and returns the
 * query of the final redirect to `redirectUri` (code, state, or error).
 * Every step is checked: a form that is not there fails with the page.
 */
export async function loginAndConsent(authorizationUrl, { login, redirectUri, maxSteps = 12 }) {
  const jar = new CookieJar();
  let url = String(authorizationUrl);
  let method = 'GET';
  let body;
  const prompts = [];
  for (let step = 0; step < maxSteps; step += 1) {
    if (url.startsWith(redirectUri)) return { params: new URL(url).searchParams, prompts };
    const res = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    jar.take(res);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get('location'), url).href;
      method = 'GET';
      body = undefined;
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`authorization step ${url}: ${res.status}\n${page}`);
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
    const prompt = /name="prompt" value="(\w+)"/.exec(form?.[2] ?? '');
    if (!form || !prompt) throw new Error(`no login or consent form at ${url}:\n${page}`);
    prompts.push(prompt[1]);
    url = new URL(form[1].replaceAll('&amp;', '&'), url).href;
    method = 'POST';
    body = prompt[1] === 'login'
      ? new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString()
      : new URLSearchParams({ prompt: 'consent' }).toString();
  }
  throw new Error(`no redirect to ${redirectUri} within ${maxSteps} steps (last ${url})`);
}

/**
 * The SDK's OAuthClientProvider, in memory: dynamic registration as a
 * public client (PKCE), and a "browser" (loginAndConsent) that signs in as
 * `login` when the SDK redirects to the authorization URL. After the SDK's
 * UnauthorizedError, `this.authorizationCode` is what the redirect brought.
 */
export class TestOAuthClientProvider {
  /**
   * `grantOnly`: the scope the user consents to, fewer than the client asks
   * for (the scope parameter of the authorization URL is replaced by it).
   */
  constructor({ login, redirectUri = 'http://127.0.0.1/callback', scope, grantOnly } = {}) {
    this.login = login;
    this.grantOnly = grantOnly;
    this.redirectUri = redirectUri;
    this.metadataScope = scope;
    this.stored = {};
    this.redirects = [];
  }

  get redirectUrl() { return this.redirectUri; }

  get clientMetadata() {
    return {
      client_name: 'time-tracker-mcp OAuth test',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.metadataScope ? { scope: this.metadataScope } : {}),
    };
  }

  state() {
    this.expectedState = createHash('sha256').update(randomUUID()).digest('base64url');
    return this.expectedState;
  }

  clientInformation() { return this.stored.client; }

  saveClientInformation(info) { this.stored.client = info; }

  tokens() { return this.stored.tokens; }

  saveTokens(tokens) { this.stored.tokens = tokens; }

  saveCodeVerifier(verifier) { this.stored.verifier = verifier; }

  codeVerifier() { return this.stored.verifier; }

  async redirectToAuthorization(authorizationUrl) {
    const url = new URL(authorizationUrl);
    this.redirects.push(new URL(url));
    if (this.grantOnly) url.searchParams.set('scope', this.grantOnly);
    const { params, prompts } = await loginAndConsent(url,
      { login: this.login, redirectUri: this.redirectUri });
    this.prompts = prompts;
    if (params.get('error')) throw new Error(`authorization refused: ${params.get('error')}: ${params.get('error_description')}`);
    if (params.get('state') !== this.expectedState) throw new Error('the redirect brought another state');
    this.authorizationCode = params.get('code');
    this.redirectIssuer = params.get('iss'); // RFC 9207
  }

  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'client') delete this.stored.client;
    if (scope === 'all' || scope === 'tokens') delete this.stored.tokens;
    if (scope === 'all' || scope === 'verifier') delete this.stored.verifier;
  }
}
