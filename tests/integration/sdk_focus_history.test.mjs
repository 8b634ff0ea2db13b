// Issue 19: focus sessions (mark_session_start / _end) in history, through
// the official MCP SDK clients: v1 (2025-11-25) and v2 (pinned to
// 2026-07-28) over Streamable HTTP with bearer tokens, one data directory:
//
// - time_session_list lists a principal's focus sessions with `kind`
//   focus or all (rows `kind: "focus"` with the intent), tracking rows
//   only by default;
// - time_stats counts them apart (focus_session_count, focus_time_ms);
// - time_session_report renders one by its id;
// - the other principal sees none of them (its report of the id is
//   SESSION_NOT_FOUND, without the intent);
// - every reply checked against the tool's listed outputSchema (ajv).
//
// Run: TTM_BINARY=/abs/path node --test sdk_focus_history.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { AjvJsonSchemaValidator, connectHttp, connectV2Http } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };
const conns = [];
after(async () => {
  await Promise.all(conns.map((c) => c.close().catch(() => {})));
  await stopAllHttpServers();
});

const ajv = new AjvJsonSchemaValidator();

async function callChecked(conn, name, args) {
  const { tools } = await conn.client.listTools();
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `${name} is listed`);
  const res = await conn.client.callTool({ name, arguments: args });
  const check = ajv.getValidator(tool.outputSchema)(res.structuredContent);
  assert.ok(check.valid, `${name}: ${check.errorMessage}\n${JSON.stringify(res.structuredContent)}`);
  return res;
}

async function ok(conn, name, args = {}) {
  const res = await callChecked(conn, name, args);
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.structuredContent)}`);
  return res.structuredContent;
}

for (const [era, connectFn] of [['2025-11-25 (SDK v1)', connectHttp], ['2026-07-28 (SDK v2)', connectV2Http]]) {
  describe(`focus sessions in history over HTTP, ${era}`, () => {
    test('listed, counted and reported for their principal only', T, async () => {
      const tokens = { alice: 'tok-alice', bob: 'tok-bob' };
      const server = await HttpServer.startWithTokens({
        binary: BINARY,
        tokens: `alice ${tokens.alice}\nbob ${tokens.bob}\n`,
        args: ['--data-dir', freshDataDir(), '--toolsets', 'all'],
      });
      const as = async (who) => {
        const c = await connectFn(server.url, { token: tokens[who], name: `focus-${who}`, context: () => server.context() });
        conns.push(c);
        return c;
      };
      const alice = await as('alice');
      const bob = await as('bob');

      const tracking = (await ok(alice, 'time_session_start', { milestone_id: 'M1', task_ids: ['a'] })).session_id;
      const focus = (await ok(alice, 'mark_session_start', { intent: 'draft the migration plan' })).session_id;
      await ok(alice, 'mark_session_end', { summary: 'plan drafted' });
      const bobs = (await ok(bob, 'mark_session_start', { intent: "bob's private intent" })).session_id;

      const def = await ok(alice, 'time_session_list', {});
      assert.deepEqual(def.sessions.map((r) => r.session_id), [tracking]);
      assert.equal(def.sessions[0].kind, 'tracking');

      const all = await ok(alice, 'time_session_list', { kind: 'all' });
      assert.deepEqual(new Set(all.sessions.map((r) => r.session_id)), new Set([tracking, focus]));
      const row = all.sessions.find((r) => r.session_id === focus);
      assert.equal(row.kind, 'focus');
      assert.equal(row.status, 'ended');
      assert.equal(row.intent, 'draft the migration plan');
      assert.equal(row.note, 'plan drafted');
      assert.equal(row.milestone_id, '');
      assert.ok(!JSON.stringify(all).includes(bobs), 'no row of another principal');

      const only = await ok(alice, 'time_session_list', { kind: 'focus', status: 'ended' });
      assert.deepEqual(only.sessions.map((r) => r.session_id), [focus]);
      const bobList = await ok(bob, 'time_session_list', { kind: 'all' });
      assert.deepEqual(bobList.sessions.map((r) => r.session_id), [bobs]);
      assert.equal(bobList.sessions[0].status, 'active');

      const stats = await ok(alice, 'time_stats', { group_by: 'day' });
      assert.equal(stats.totals.session_count, 1);
      assert.equal(stats.totals.focus_session_count, 1);
      assert.ok(stats.totals.focus_time_ms >= 0);
      assert.equal(stats.groups.reduce((n, g) => n + g.focus_session_count, 0), 1);
      const bobStats = await ok(bob, 'time_stats', {});
      assert.equal(bobStats.totals.focus_session_count, 1);
      assert.equal(bobStats.totals.session_count, 0);

      for (const format of ['markdown', 'csv', 'json', 'html']) {
        const rep = await ok(alice, 'time_session_report', { session_id: focus, format });
        assert.equal(rep.session_id, focus);
        assert.equal(rep.status, 'ended');
        assert.ok(rep.report.includes('draft the migration plan'), `${format} shows the intent`);
      }
      const stranger = await callChecked(bob, 'time_session_report', { session_id: focus });
      assert.equal(stranger.isError, true);
      assert.equal(stranger.structuredContent.error_code, 'SESSION_NOT_FOUND');
      assert.ok(!JSON.stringify(stranger.structuredContent).includes('migration'), 'no intent in an error');

      // Issue 29: a tracking tool given a focus id says what it is and
      // which tool reads it; given another user's, what it says of any
      // unknown id, never "in this MCP session".
      const mixed = await callChecked(alice, 'time_session_summary', { session_id: focus });
      assert.equal(mixed.isError, true);
      assert.equal(mixed.structuredContent.error_code, 'SESSION_NOT_FOUND');
      assert.match(mixed.structuredContent.message, /is one of your focus sessions/);
      assert.match(mixed.structuredContent.message, /time_session_report reads it/);
      const foreign = await callChecked(bob, 'time_session_summary', { session_id: focus });
      assert.equal(foreign.structuredContent.message,
        `You have no tracking session '${focus}'; use the session_id that time_session_start returned.`);
    });
  });
}
