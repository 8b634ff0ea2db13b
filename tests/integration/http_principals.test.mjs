// A 2025-era MCP session is bound to the principal (bearer token) that
// created it: another principal's valid token with that Mcp-Session-Id gets
// exactly the answer of an id never issued (404, same body), for POST and for
// DELETE, and the attempt is logged as a warning without tokens or full ids.
// Raw HTTP, so the test sees status and body byte for byte.
//
// Run: TTM_BINARY=/abs/path node --test http_principals.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { withoutRequestIds } from './lib/modern.mjs';
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, sseMessages, stopAllHttpServers,
} from './lib/http_server.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const ALICE = 'alice-token-7d1f0c2e9b';
const BOB = 'bob-token-43aa9e01c5';
const VERSION = '2025-11-25';

after(stopAllHttpServers);

const auth = (token) => ({ Authorization: `Bearer ${token}` });

/** The JSON-RPC message of a 200 reply, whether JSON or SSE. */
function message(res) {
  assert.equal(res.status, 200, res.body);
  if (/text\/event-stream/.test(res.headers['content-type'] ?? '')) {
    return sseMessages(res.body).at(-1);
  }
  return res.json;
}

describe('MCP sessions are bound to their principal (--auth-token-file)', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({
      binary: BINARY, tokens: `alice ${ALICE}\nbob ${BOB}\n`,
    });
  });
  after(async () => { await server?.stop(); });

  const post = (token, session, body) => rawRequest(server.url, {
    headers: mcpHeaders({ session, version: session ? VERSION : undefined, extra: auth(token) }), body,
  });
  const del = (token, session) => rawRequest(server.url, {
    method: 'DELETE', headers: { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': VERSION, ...auth(token) },
  });
  const call = (id, name, args) => JSON.stringify({
    jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args },
  });

  test('Bob with Alice\'s Mcp-Session-Id: 404 like an id never issued, POST and DELETE; Alice unaffected', T, async () => {
    const init = await post(ALICE, undefined, initializeBody(VERSION));
    assert.equal(init.status, 200, init.body);
    const aliceSession = init.headers['mcp-session-id'];
    assert.match(aliceSession ?? '', /^[0-9a-f]{32}$/);
    const note = await post(ALICE, aliceSession, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    assert.equal(note.status, 202);
    const started = message(await post(ALICE, aliceSession,
      call(2, 'time_session_start', { milestone_id: 'M-secret', task_ids: ['T1'] })));
    assert.equal(started.result.isError, false, JSON.stringify(started));
    const trackingId = started.result.structuredContent.session_id;

    // An id never issued (same shape), with Bob's valid token.
    const neverIssued = 'f'.repeat(32) === aliceSession ? 'e'.repeat(32) : 'f'.repeat(32);
    const summary = call(3, 'time_session_summary', { session_id: trackingId });
    const unknown = await post(BOB, neverIssued, summary);
    assert.equal(unknown.status, 404, unknown.body);

    const stolen = await post(BOB, aliceSession, summary);
    assert.equal(stolen.status, 404, stolen.body);
    assert.equal(withoutRequestIds(stolen.body), withoutRequestIds(unknown.body),
      'the same body as for an unknown session (but for its request id)');
    assert.equal(stolen.headers['content-type'], unknown.headers['content-type']);
    assert.equal(stolen.json?.error?.code, -32001);
    assert.ok(!stolen.body.includes('M-secret'), stolen.body);

    // A batch and a notification are refused alike.
    const batch = await post(BOB, aliceSession, `[${summary}]`);
    assert.equal(batch.status, 404, batch.body);
    const noteBob = await post(BOB, aliceSession, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    assert.equal(noteBob.status, 404, noteBob.body);

    const delUnknown = await del(BOB, neverIssued);
    const delStolen = await del(BOB, aliceSession);
    assert.equal(delUnknown.status, 404, delUnknown.body);
    assert.equal(delStolen.status, 404, delStolen.body);
    assert.equal(withoutRequestIds(delStolen.body), withoutRequestIds(delUnknown.body));

    // Alice's MCP session and her tracking session are intact.
    const mine = message(await post(ALICE, aliceSession, summary));
    assert.equal(mine.result.isError, false, JSON.stringify(mine));
    assert.equal(mine.result.structuredContent.status, 'active');
    assert.equal(mine.result.structuredContent.milestone_id, 'M-secret');

    // The attempt is logged as a warning: principals and an 8-character
    // prefix of the id, never a token or the full id.
    await server.waitForStderr(/refused an end \(DELETE\) of principal 'bob'/);
    const warned = server.stderrText.split('\n').filter((l) => /of principal 'bob' on MCP session/.test(l));
    assert.ok(warned.length >= 2, server.stderrText);
    for (const line of warned) {
      assert.match(line, /warning/i);
      assert.ok(line.includes(`MCP session ${aliceSession.slice(0, 8)}...`), line);
      assert.match(line, /principal 'alice'/);
    }
    assert.ok(!server.stderrText.includes(aliceSession), 'the full session id is never logged');
    assert.ok(!server.stderrText.includes(ALICE) && !server.stderrText.includes(BOB), 'tokens are never logged');

    // Alice ends her own session: 204, then it is unknown to her too.
    assert.equal((await del(ALICE, aliceSession)).status, 204);
    assert.equal((await post(ALICE, aliceSession, summary)).status, 404);
  });
});
