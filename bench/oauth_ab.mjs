// get_current req/s and p99 with a static bearer token against a JWT access
// token (RS256, keys cached), side by side in alternating rounds on one
// server (issue 36's closing figure). The authorization server is the OAuth
// tests' real oidc-provider (tests/oauth); the JWT is signed with its key.
//
//   node bench/oauth_ab.mjs BUILD_DIR [ROUNDS] [SECONDS] [CLIENTS]
//
// Needs the npm test tooling of tests/oauth and tests/integration
// (scripts/test.sh installs both).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AuthorizationServer, generateSigningKey, signJwt, accessTokenClaims,
  reserveLoopbackPort, READ_SCOPE, WRITE_SCOPE,
} from '../tests/integration/lib/oauth.mjs';

const [build = 'build', rounds = '3', seconds = '5', clients = '32'] = process.argv.slice(2);
const binary = path.resolve(build, 'time-tracker-mcp');
const bench = path.resolve(build, 'time-tracker-bench');

const dir = mkdtempSync(path.join(tmpdir(), 'ttm-oauth-ab-'));
const tokens = path.join(dir, 'tokens');
const staticToken = 'static-bench-token-0123456789abcdef';
writeFileSync(tokens, `alice ${staticToken}\n`, { mode: 0o600 });

const port = await reserveLoopbackPort();
const resource = `http://127.0.0.1:${port}/mcp`;
const key = generateSigningKey('RS256');
const as = await AuthorizationServer.start({ resources: [resource], keys: [key] });
const jwt = signJwt(key, accessTokenClaims({
  issuer: as.issuer, resource, scope: `${READ_SCOPE} ${WRITE_SCOPE}`,
  exp: Math.floor(Date.now() / 1000) + 3600,
}));

const server = spawn(binary, ['http', '--listen', `127.0.0.1:${port}`, '--ephemeral',
  '--auth-token-file', tokens, '--oauth-issuer', as.issuer, '--oauth-resource', resource,
  '--rate-limit', 'off', '--log-level', 'warning'], { stdio: ['ignore', 'ignore', 'inherit'] });
try {
  for (let i = 0; i < 100; ++i) {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
    if (r?.status === 200) break;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const run = (token) => {
    const out = spawnSync(bench, ['--url', resource, '--header', `Authorization: Bearer ${token}`,
      '--server-pid', String(server.pid), '--clients', clients, '--duration', `${seconds}s`,
      '--warmup', '1s', '--json'], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`bench failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  const rows = [];
  for (let r = 0; r < Number(rounds); ++r)
    for (const [name, token] of [['static', staticToken], ['jwt', jwt]]) {
      const j = run(token);
      rows.push({ round: r + 1, token: name, ...summary(j) });
    }
  console.table(rows);
} finally {
  server.kill('SIGTERM');
  await as.stop();
  rmSync(dir, { recursive: true, force: true });
}

function summary(j) {
  // time-tracker-bench --json: every request of the window ("total").
  const t = j.total;
  return {
    req_s: Math.round(t.throughput_rps), p50_ms: +(t.latency_us.p50 / 1000).toFixed(2),
    p99_ms: +(t.latency_us.p99 / 1000).toFixed(2), errors: t.errors,
    server_cpu_us_per_reply: j.server?.cpu_per_reply_us != null ? Math.round(j.server.cpu_per_reply_us) : null,
  };
}
