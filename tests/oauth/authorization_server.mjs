// The test authorization server of the OAuth end-to-end tests: oidc-provider
// (a certified OpenID Connect provider, pinned in package-lock.json), run as
// its own process on a loopback port by tests/integration/lib/oauth.mjs.
//
//   node authorization_server.mjs CONFIG.json
//
// CONFIG.json (written by the test, mode 0600):
//   { "resources": ["http://127.0.0.1:PORT/mcp", ...],  // resource indicators it mints JWTs for
//     "scopes": ["tracker.read", "tracker.write"],        // their scopes
//     "keys": [<private JWK>, ...],                        // signing keys, the first signs
//     "accessTokenTtl": 300,
//     "opaque": false,                                   // true: opaque access tokens, checked by
//     "introspectionClient": { "client_id", "client_secret" } } // introspection (RFC 7662) with this client
//
// Prints one line `authorization server at http://127.0.0.1:PORT` on stdout
// once it listens. Besides the provider's own endpoints (discovery at
// /.well-known/openid-configuration, jwks, registration, auth, token,
// devInteractions' login and consent forms) it serves, for the test only:
//   POST /__test/keys  {"keys": [...]}   a key rotation: the provider is
//        rebuilt with these keys (registered clients and grants live in
//        oidc-provider's process-wide memory adapter, so they survive it).
//   POST /__test/jwks-down / /__test/jwks-up   the jwks endpoint answers 503
//        (a key server that is down) / answers again.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const resources = new Set(config.resources);
const resourceScope = config.scopes.join(' ');

function buildProvider(issuer, keys) {
  const provider = new Provider(issuer, {
    jwks: { keys },
    // OAuth scopes besides OpenID Connect's: a dynamically registered client
    // may ask for them (the SDK registers with the scope it will request).
    scopes: ['openid', 'offline_access', ...config.scopes],
    claims: { openid: ['sub'] },
    // Any login is an account whose sub is the login (devInteractions' form).
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    // The resource server's own client, for introspection only.
    clients: config.introspectionClient ? [{
      ...config.introspectionClient,
      grant_types: [], response_types: [], redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    }] : [],
    features: {
      introspection: { enabled: Boolean(config.introspectionClient) },
      devInteractions: { enabled: true },
      registration: { enabled: true },
      // RFC 8707: a token is bound to one resource; its JWT (RFC 9068) has
      // that resource as `aud` and the granted scopes in `scope`.
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (!resources.has(resourceIndicator)) throw new errors.InvalidTarget();
          return {
            scope: resourceScope,
            audience: resourceIndicator,
            accessTokenTTL: config.accessTokenTtl ?? 300,
            ...(config.opaque ? { accessTokenFormat: 'opaque' }
              : { accessTokenFormat: 'jwt', jwt: { sign: { alg: keys[0].alg } } }),
          };
        },
      },
    },
    // Public clients (the SDK registers with token_endpoint_auth_method
    // "none") must use PKCE, S256 only: the provider's default.
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      // ID tokens (unused here) signed with a key we have: RS256 is the
      // provider's default, which a set of EC or Ed25519 keys lacks.
      id_token_signed_response_alg: keys.some((k) => k.alg === 'RS256') ? 'RS256' : keys[0].alg,
    },
    ttl: { AccessToken: config.accessTokenTtl ?? 300 },
  });
  // The provider logs server errors through koa's 'error' event; keep them
  // on stderr for the test's context.
  provider.on('server_error', (_ctx, err) => { process.stderr.write(`server_error: ${err.stack}\n`); });
  return provider;
}

let provider;
let providerCallback;
let jwksDown = false;

function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

async function testControl(req, res, issuer) {
  const reply = (status, obj) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };
  if (req.method !== 'POST') return reply(405, { error: 'POST only' });
  if (req.url === '/__test/keys') {
    const { keys } = JSON.parse(await readBody(req));
    provider = buildProvider(issuer, keys);
    providerCallback = provider.callback();
    return reply(200, { kids: keys.map((k) => k.kid) });
  }
  if (req.url === '/__test/jwks-down') { jwksDown = true; return reply(200, {}); }
  if (req.url === '/__test/jwks-up') { jwksDown = false; return reply(200, {}); }
  return reply(404, { error: 'no such test control' });
}

const server = http.createServer((req, res) => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  if (req.url.startsWith('/__test/')) {
    testControl(req, res, issuer).catch((err) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    return;
  }
  if (jwksDown && req.url.startsWith('/jwks')) {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('key server down (test)');
    return;
  }
  providerCallback(req, res);
});

server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  provider = buildProvider(issuer, config.keys);
  providerCallback = provider.callback();
  process.stdout.write(`authorization server at ${issuer}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections(); // the SDK's keep-alive connections
  });
}
