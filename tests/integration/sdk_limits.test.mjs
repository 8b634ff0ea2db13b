// The global tracking-session limit end to end, through the real actors (the
// client actor asks the supervisor for a slot): refusal at the limit, ended
// sessions reclaimed to make room (gone from memory, still in the journal:
// named again, ended). The limit comes from the environment, as a user would set
// it. Nothing waits for time: expiry by age or inactivity is covered by the
// deterministic unit tests, which move a fake clock.
//
// Run: TTM_BINARY=/abs/path node --test sdk_limits.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { connect } from './lib/sdk_client.mjs';
import { assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

describe('time-tracker-mcp with --max-tracking-sessions 2 (via the environment)', () => {
  let server;
  before(async () => {
    server = await connect(BINARY, {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TZ: 'UTC',
        TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS: '2',
        TIME_TRACKER_MCP_LOG_LEVEL: 'warning',
      },
    });
  });
  after(async () => { await server?.close(); });

  const call = (name, args) => server.client.callTool({ name, arguments: args });
  const start = (milestone) => call('time_session_start', { milestone_id: milestone, task_ids: ['T1'] });

  test('the third open session is refused with LIMIT_REACHED naming the limit; ending one makes room', T, async () => {
    const a = await start('A');
    const b = await start('B');
    assert.equal(a.isError, false);
    assert.equal(b.isError, false);
    const aId = a.structuredContent.session_id;
    const bId = b.structuredContent.session_id;

    const refused = await start('C');
    assertToolError(refused, 'LIMIT_REACHED');
    assert.match(refused.structuredContent.message, /\b2\b/, 'the message names the limit value');
    assert.match(refused.structuredContent.message, /max_tracking_sessions/);

    // Both sessions are untouched by the refusal.
    for (const id of [aId, bId]) {
      const s = await call('time_session_summary', { session_id: id });
      assert.equal(s.isError, false);
      assert.equal(s.structuredContent.status, 'active');
    }

    // Ending A keeps its summary available ...
    const ended = await call('time_session_end', { session_id: aId });
    assert.equal(ended.isError, false);
    const again = await call('time_session_summary', { session_id: aId });
    assert.equal(again.structuredContent.status, 'ended');

    // ... until room is needed: C now gets A's slot. A leaves the server's
    // memory, not the journal: named again, it loads, still ended.
    const c = await start('C');
    assert.equal(c.isError, false, JSON.stringify(c.structuredContent));
    const reloaded = await call('time_session_summary', { session_id: aId });
    assert.equal(reloaded.isError, false, JSON.stringify(reloaded.structuredContent));
    assert.equal(reloaded.structuredContent.status, 'ended');
    assert.equal(reloaded.structuredContent.end_time, ended.structuredContent.end_time);
    assertToolError(await call('time_task_start', { session_id: aId, task_id: 'T1' }), 'SESSION_ENDED');

    // B, still open, was never a candidate.
    const bTask = await call('time_task_start', { session_id: bId, task_id: 'T1' });
    assert.equal(bTask.isError, false);

    // With two open sessions and none ended, the limit holds again.
    assertToolError(await start('D'), 'LIMIT_REACHED');
    assert.deepEqual(server.errors(), []);
  });
});
