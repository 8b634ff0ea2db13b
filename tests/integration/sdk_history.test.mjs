// time_session_list and time_stats (issue 16) through the official MCP SDK clients: v1
// (2025-11-25) and v2 (pinned to 2026-07-28), over stdio and Streamable
// HTTP, against real server processes sharing a data directory:
//
// - sessions started and ended through one stdio window are listed, newest
//   first, by a second window on the same directory (another editor
//   window, or the same one after a restart); the 2026-07-28 era lists
//   only its own;
// - over HTTP with bearer tokens each principal lists only its sessions;
//   alice after a reconnect (a new MCP session) finds hers;
// - filters, limit + cursor pages, and refusals (VALIDATION_ERROR);
// - time_stats over the same sessions: groups and totals, per principal;
// - every reply checked against the tool's listed outputSchema.
//
// Run: TTM_BINARY=/abs/path node --test sdk_history.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import {
  AjvJsonSchemaValidator, connect, connectHttp, connectV2Http, connectV2Stdio,
} from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };
const conns = [];
after(async () => {
  await Promise.all(conns.map((c) => c.close().catch(() => {})));
  await stopAllHttpServers();
});

const ajv = new AjvJsonSchemaValidator();
const validators = new Map();

/** Calls `name` and checks structuredContent against the listed outputSchema. */
async function callChecked(conn, name, args) {
  if (!validators.has(name)) {
    const { tools } = await conn.client.listTools();
    const tool = tools.find((t) => t.name === name);
    assert.ok(tool, `${name} is listed`);
    validators.set(name, ajv.getValidator(tool.outputSchema));
  }
  const res = await conn.client.callTool({ name, arguments: args });
  const check = validators.get(name)(res.structuredContent);
  assert.ok(check.valid, `${name}: ${check.errorMessage}\n${JSON.stringify(res.structuredContent)}`);
  assert.equal(res.content[0].text, JSON.stringify(res.structuredContent));
  return res;
}

async function ok(conn, name, args) {
  const res = await callChecked(conn, name, args);
  assert.ok(!res.isError, `${name}: ${JSON.stringify(res.structuredContent)}`);
  return res.structuredContent;
}

const ids = (sc) => sc.sessions.map((r) => r.session_id);

async function start(conn, milestone, extra = {}) {
  const sc = await ok(conn, 'time_session_start', { milestone_id: milestone, task_ids: ['a', 'b'], ...extra });
  return sc.session_id;
}

async function track(c) {
  conns.push(c);
  return c;
}

describe('stdio windows on one data directory', () => {
  test('a second window lists the first one\'s sessions, live and ended; the other era its own only', T, async () => {
    const dir = freshDataDir();
    const w1 = await track(await connect(BINARY, { args: ['--data-dir', dir] }));
    const s1 = await start(w1, 'M-1', { milestone_name: 'Checkout flow', tags: ['web'] });
    await ok(w1, 'time_task_start', { session_id: s1, task_id: 'a', task_name: 'Write parser' });
    await ok(w1, 'time_task_end', { session_id: s1, task_id: 'a' });
    await ok(w1, 'time_session_end', { session_id: s1 });
    const s2 = await start(w1, 'M-2');
    await ok(w1, 'time_task_start', { session_id: s2, task_id: 'b' });

    const w2 = await track(await connect(BINARY, { args: ['--data-dir', dir] }));
    const all = await ok(w2, 'time_session_list', { timezone: 'UTC' });
    assert.deepEqual(ids(all), [s2, s1]);
    assert.equal(all.next_cursor, null);
    assert.equal(all.timezone, 'UTC');
    const [r2, r1] = all.sessions;
    assert.equal(r2.status, 'active');
    assert.equal(r2.end_time, null);
    assert.equal(r2.tasks_completed, 0);
    assert.equal(r2.task_count, 2);
    assert.equal(r1.status, 'ended');
    assert.equal(r1.milestone_name, 'Checkout flow');
    assert.deepEqual(r1.tags, ['web']);
    assert.equal(r1.tasks_completed, 1);
    assert.match(r1.start_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.ok(r1.total_duration_ms >= 0);

    assert.deepEqual(ids(await ok(w2, 'time_session_list', { status: 'ended' })), [s1]);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', { text: 'PARSER' })), [s1]);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', { tags: ['web'] })), [s1]);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', { milestone_id: 'M-2' })), [s2]);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', { started_after: '2000-01-01', started_before: '2000-01-02' })), []);

    // Pages: limit 1, then the cursor; a session started meanwhile does not move page 2.
    const p1 = await ok(w2, 'time_session_list', { limit: 1 });
    assert.deepEqual(ids(p1), [s2]);
    assert.equal(typeof p1.next_cursor, 'string');
    const s3 = await start(w1, 'M-3');
    const p2 = await ok(w2, 'time_session_list', { limit: 1, cursor: p1.next_cursor });
    assert.deepEqual(ids(p2), [s1]);
    assert.equal(p2.next_cursor, null);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', { limit: 1 })), [s3]);

    // 2026-07-28 on the same directory: the 2025 sessions are not its own.
    const modern = await track(await connectV2Stdio(BINARY, { args: ['--data-dir', dir] }));
    assert.deepEqual(ids(await ok(modern, 'time_session_list', {})), []);
    const m1 = await start(modern, 'M-9');
    assert.deepEqual(ids(await ok(modern, 'time_session_list', {})), [m1]);
    assert.deepEqual(ids(await ok(w2, 'time_session_list', {})), [s3, s2, s1]);

    // Statistics over the same sessions, from the second window.
    const byMilestone = await ok(w2, 'time_stats', { group_by: 'milestone', timezone: 'UTC' });
    assert.deepEqual(byMilestone.groups.map((g) => g.key).sort(), ['M-1', 'M-2', 'M-3']);
    assert.equal(byMilestone.totals.session_count, 3);
    assert.equal(byMilestone.totals.run_count, 2);
    assert.equal(byMilestone.totals.runs_completed, 1);
    assert.equal(byMilestone.totals.runs_in_progress, 1);
    assert.equal(byMilestone.truncated, false);
    const byDay = await ok(w2, 'time_stats', { group_by: 'day', timezone: 'UTC' });
    assert.equal(byDay.groups.reduce((n, g) => n + g.session_count, 0), 3);
    assert.match(byDay.groups[0].key, /^\d{4}-\d\d-\d\d$/);
    assert.equal((await ok(modern, 'time_stats', {})).totals.session_count, 1);
  });

  test('refusals name the field and change nothing', T, async () => {
    const w = await track(await connect(BINARY));
    for (const [args, field] of [
      [{ limit: 0 }, 'limit'], [{ limit: 101 }, 'limit'], [{ cursor: 'not-a-cursor' }, 'cursor'],
      [{ started_after: 'the day after never' }, 'started_after'],
    ]) {
      const res = await callChecked(w, 'time_session_list', args);
      assert.equal(res.isError, true, JSON.stringify(args));
      assert.equal(res.structuredContent.error_code, 'VALIDATION_ERROR');
      assert.ok(res.structuredContent.message.startsWith(`${field}:`), res.structuredContent.message);
    }
    const tz = await callChecked(w, 'time_session_list', { timezone: 'Mars/Olympus' });
    assert.equal(tz.structuredContent.error_code, 'INVALID_TIMEZONE');
    const range = await callChecked(w, 'time_stats', { from: '2020-01-01', to: '2026-01-01' });
    assert.equal(range.structuredContent.error_code, 'VALIDATION_ERROR');
    assert.ok(range.structuredContent.message.startsWith('from:'), range.structuredContent.message);
  });
});

describe('Streamable HTTP with bearer tokens: history belongs to the principal', () => {
  test('each principal lists its own sessions, in both eras; a reconnect finds them', T, async () => {
    const tokens = { alice: 'tok-alice', bob: 'tok-bob' };
    const server = await HttpServer.startWithTokens({
      binary: BINARY, tokens: `alice ${tokens.alice}\nbob ${tokens.bob}\n`, args: ['--data-dir', freshDataDir()],
    });
    const as = async (who, fn = connectHttp) => track(await fn(server.url, {
      token: tokens[who], name: `history-${who}`, context: () => server.context(),
    }));
    const alice = await as('alice');
    const a1 = await start(alice, 'A-1');
    await ok(alice, 'time_session_end', { session_id: a1 });
    const a2 = await start(alice, 'A-2');
    const bob = await as('bob');
    const b1 = await start(bob, 'B-1');

    assert.deepEqual(ids(await ok(alice, 'time_session_list', {})), [a2, a1]);
    assert.deepEqual(ids(await ok(bob, 'time_session_list', {})), [b1]);
    // A new MCP session of alice (a reconnect) finds hers.
    const again = await as('alice');
    assert.deepEqual(ids(await ok(again, 'time_session_list', {})), [a2, a1]);
    // Her 2026-07-28 requests list her 2026-07-28 sessions.
    const modern = await as('alice', connectV2Http);
    assert.deepEqual(ids(await ok(modern, 'time_session_list', {})), []);
    const m1 = await start(modern, 'A-9');
    assert.deepEqual(ids(await ok(modern, 'time_session_list', {})), [m1]);
    const bobModern = await as('bob', connectV2Http);
    assert.deepEqual(ids(await ok(bobModern, 'time_session_list', {})), []);
    // Statistics belong to the principal too.
    assert.equal((await ok(alice, 'time_stats', { group_by: 'milestone' })).totals.session_count, 2);
    assert.deepEqual((await ok(bob, 'time_stats', { group_by: 'milestone' })).groups.map((g) => g.key), ['B-1']);
  });
});
