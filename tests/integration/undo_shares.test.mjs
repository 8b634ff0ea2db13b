// time_undo of a session's end reopens it, and a reopened session counts
// against the shares exactly like a start (issue 34 item 7): one MCP session
// that starts and ends 20 sessions six times and then undoes every end used
// to hold 99 open sessions, and every other principal got LIMIT_REACHED.
// Through the real binary and its journal, default limits (100 in the
// directory, 50 per principal, 20 per MCP session):
//
// - one stdio server: 6 x (start 20, end 20), then undo each of the 120
//   ends: 20 reopen, the other 100 answer LIMIT_REACHED naming the MCP
//   session's share, with a start's guidance, and stay ended;
// - a second server on the same directory (principal `local` too, its
//   share set to 30): 10 more starts reach the principal's share over the
//   directory; an undo through it is refused by that share, changing
//   nothing, and goes through once an end made room.
//
// Run: TTM_BINARY=/abs/path node --test undo_shares.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { stdioServers } from './lib/sdk_client.mjs';
import { assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: 120_000 };
const servers = stdioServers(BINARY);
after(() => servers.closeAll());

const call = (conn, name, args) => conn.client.callTool({ name, arguments: args });

async function start(conn, milestone) {
  const r = await call(conn, 'time_session_start', { milestone_id: milestone, task_ids: ['T1'] });
  assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
  return r.structuredContent.session_id;
}

async function status(conn, id) {
  const r = await call(conn, 'time_session_summary', { session_id: id });
  assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
  return r.structuredContent.status;
}

function assertRefusedLike(r, limit, value) {
  const sc = assertToolError(r, 'LIMIT_REACHED');
  assert.equal(sc.limit, limit, JSON.stringify(sc));
  assert.match(sc.message, new RegExp(`The limit of ${value} open tracking sessions .*\\(${limit}\\) is reached`));
  // The guidance a refused start gives.
  assert.match(sc.message, /End sessions you no longer need with time_session_end: only open sessions count/);
}

describe('time_undo reopening an ended session counts against the shares', () => {
  test('6 x (20 starts, 20 ends), then 120 undos: 20 reopen, 100 are refused; the principal\'s share holds over the directory', T, async () => {
    const dir = freshDataDir();
    const args = ['--data-dir', dir, '--toolsets', 'all', '--max-tracking-sessions-per-principal', '30'];
    const first = await servers.server(args);
    const ids = [];
    for (let round = 0; round < 6; round += 1) {
      const batch = [];
      for (let k = 0; k < 20; k += 1) batch.push(await start(first, `R${round}-${k}`));
      for (const id of batch) {
        const r = await call(first, 'time_session_end', { session_id: id });
        assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
      }
      ids.push(...batch);
    }
    const reopened = [];
    const refused = [];
    for (const id of ids) {
      const r = await call(first, 'time_undo', { session_id: id });
      if (r.isError) {
        assertRefusedLike(r, 'max_tracking_sessions_per_mcp_session', 20);
        refused.push(id);
      } else {
        assert.equal(r.structuredContent.reopened, true, JSON.stringify(r.structuredContent));
        reopened.push(id);
      }
    }
    assert.equal(reopened.length, 20, `reopened ${reopened.length} of 120 (share 20)`);
    assert.equal(refused.length, 100);
    // A refused undo changed nothing: still ended, its end still undoable.
    for (const id of [refused[0], refused[57], refused[99]]) assert.equal(await status(first, id), 'ended');
    for (const id of [reopened[0], reopened[19]]) assert.equal(await status(first, id), 'active');

    // Another process on the directory, principal local too: 20 are open,
    // the share of 30 leaves 10.
    const second = await servers.server(args);
    for (let k = 0; k < 10; k += 1) await start(second, `S${k}`);
    const over = await call(second, 'time_session_start', { milestone_id: 'S10', task_ids: ['T1'] });
    assert.equal(assertToolError(over, 'LIMIT_REACHED').limit, 'max_tracking_sessions_per_principal');
    const undo = await call(second, 'time_undo', { session_id: refused[3] });
    const sc = assertToolError(undo, 'LIMIT_REACHED');
    assert.equal(sc.limit, 'max_tracking_sessions_per_principal', JSON.stringify(sc));
    assert.match(sc.message, /The limit of 30 open tracking sessions per principal/);
    assert.match(sc.message, /End sessions you no longer need with time_session_end/);
    assert.equal(await status(second, refused[3]), 'ended');
    // Ending one makes room for exactly that undo.
    const end = await call(second, 'time_session_end', { session_id: reopened[0] });
    assert.equal(end.isError, false, JSON.stringify(end.structuredContent));
    const again = await call(second, 'time_undo', { session_id: refused[3] });
    assert.equal(again.isError, false, JSON.stringify(again.structuredContent));
    assert.equal(again.structuredContent.reopened, true);
    assert.equal(await status(first, refused[3]), 'active');
  });
});
