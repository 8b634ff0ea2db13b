// The shares of the tracking-session cap end to end over HTTP, driven by the
// official SDK clients (issue 21 item 4): one MCP session, or one principal,
// cannot take every slot of --max-tracking-sessions; the refusal is
// LIMIT_REACHED naming the limit (message and `limit` field); another
// client still starts; ending a session frees its share.
//
// Run: TTM_BINARY=/abs/path node --test sdk_shares.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { connectHttp, connectV2Http } from './lib/sdk_client.mjs';
import { assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllHttpServers);

const callOn = (conn) => (name, args) => conn.client.callTool({ name, arguments: args });

async function started(conn, milestone) {
  const r = await callOn(conn)('time_session_start', { milestone_id: milestone, task_ids: ['T1'] });
  assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
  return r.structuredContent.session_id;
}

async function refused(conn, limit, value) {
  const r = await callOn(conn)('time_session_start', { milestone_id: 'X', task_ids: ['T1'] });
  assertToolError(r, 'LIMIT_REACHED');
  assert.equal(r.structuredContent.limit, limit);
  assert.match(r.structuredContent.message, new RegExp(`The limit of ${value} .*\\(${limit}\\)`));
}

describe('shares without tokens: every client is principal local', () => {
  let server;
  const conns = [];
  before(async () => {
    server = await HttpServer.start({
      binary: BINARY,
      args: ['--ephemeral', '--max-tracking-sessions', '10',
        '--max-tracking-sessions-per-mcp-session', '2', '--max-tracking-sessions-per-principal', '5'],
    });
  });
  after(async () => {
    for (const c of conns) await c.close();
    await server?.stop();
  });
  const connect = async (name) => {
    const c = await connectHttp(server.url, { name, context: () => server.context() });
    conns.push(c);
    return c;
  };

  test('the first MCP session hits its share of 2; the second still starts; ending frees the share', T, async () => {
    const first = await connect('first');
    const second = await connect('second');
    const a1 = await started(first, 'A1');
    await started(first, 'A2');
    await refused(first, 'max_tracking_sessions_per_mcp_session', 2);

    await started(second, 'B1');
    await started(second, 'B2');
    await refused(second, 'max_tracking_sessions_per_mcp_session', 2);

    // Ended: still readable, no longer counted in the share.
    const end = await callOn(first)('time_session_end', { session_id: a1 });
    assert.equal(end.isError, false);
    await started(first, 'A3');

    // Four open sessions of principal local (A2, A3, B1, B2): a third MCP
    // session gets the fifth, then meets the principal's share, within its
    // own.
    const third = await connect('third');
    await started(third, 'C1');
    await refused(third, 'max_tracking_sessions_per_principal', 5);
    for (const c of conns) assert.deepEqual(c.errors(), []);
  });
});

describe('shares with tokens: one principal cannot lock another out', () => {
  let server;
  const conns = [];
  before(async () => {
    server = await HttpServer.startWithTokens({
      binary: BINARY,
      tokens: 'alice alice-token-5f3e\nbob bob-token-91c2\n',
      args: ['--ephemeral', '--max-tracking-sessions', '10', '--max-tracking-sessions-per-principal', '3'],
    });
  });
  after(async () => {
    for (const c of conns) await c.close();
    await server?.stop();
  });

  test('alice (2025 session + 2026-07-28 requests) stops at 3; bob still starts', T, async () => {
    const alice2025 = await connectHttp(server.url, { token: 'alice-token-5f3e', context: () => server.context() });
    conns.push(alice2025);
    const aliceModern = await connectV2Http(server.url, { token: 'alice-token-5f3e', context: () => server.context() });
    conns.push(aliceModern);
    const bob = await connectHttp(server.url, { token: 'bob-token-91c2', context: () => server.context() });
    conns.push(bob);

    await started(alice2025, 'A1');
    await started(alice2025, 'A2');
    const m1 = await started(aliceModern, 'A3');
    await refused(aliceModern, 'max_tracking_sessions_per_principal', 3);
    await refused(alice2025, 'max_tracking_sessions_per_principal', 3);

    await started(bob, 'B1');
    await started(bob, 'B2');

    const end = await callOn(aliceModern)('time_session_end', { session_id: m1 });
    assert.equal(end.isError, false);
    await started(alice2025, 'A4');
    for (const c of conns) assert.deepEqual(c.errors(), []);
  });
});
