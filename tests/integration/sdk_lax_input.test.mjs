// Issue 29 item 9 with the official SDK client (v1) over stdio: lax input
// where the meaning is unambiguous (and refusals where it is not), and a
// correction in the forms every tool reads that backdates a session.
// Run: TTM_BINARY=/abs/path node --test sdk_lax_input.test.mjs
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { serverBinary } from './lib/env.mjs';
import { stopAllServers } from './lib/raw_client.mjs';
import { stdioServers } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };
const { server, closeAll } = stdioServers(BINARY);

after(async () => {
  await closeAll();
  await stopAllServers();
});

async function call(conn, name, args) {
  return conn.client.callTool({ name, arguments: args });
}

test('lax input: "5", "true", a number for an estimate, one zone for a list', T, async () => {
  const conn = await server(['--toolsets', 'all']);
  const conv = await call(conn, 'time_convert', { time: '2025-12-14T10:00:00Z', to_timezones: 'Asia/Tokyo' });
  assert.ok(!conv.isError);
  assert.equal(conv.structuredContent.results.length, 1);
  assert.equal(conv.structuredContent.results[0].timezone, 'Asia/Tokyo');

  const start = await call(conn, 'time_session_start', {
    milestone_id: 'L1', task_ids: ['parse', 'lex', 'emit'], estimates: { parse: 15, lex: '10m', emit: 'P1D' },
  });
  assert.ok(!start.isError, JSON.stringify(start.structuredContent));
  const { session_id } = start.structuredContent;
  const summary = await call(conn, 'time_session_summary', { session_id, include_task_details: 'true' });
  assert.ok(!summary.isError);
  const estimates = Object.fromEntries(summary.structuredContent.estimates.map((e) => [e.task_id, e.estimate_ms]));
  assert.deepEqual(estimates, { parse: 900_000, lex: 600_000, emit: 86_400_000 });
  const due = await call(conn, 'request_break_if_needed', { threshold_minutes: '5' });
  assert.ok(!due.isError);

  // Not unambiguous: refused as before, naming the argument.
  const bad = await call(conn, 'request_break_if_needed', { threshold_minutes: '5m' });
  assert.equal(bad.isError, true);
  assert.equal(bad.structuredContent.error_code, 'VALIDATION_ERROR');
  assert.match(bad.structuredContent.message, /threshold_minutes' must be an integer/);
  const yes = await call(conn, 'time_session_summary', { session_id, include_task_details: 'yes' });
  assert.equal(yes.isError, true);
  assert.match(yes.structuredContent.message, /include_task_details' must be a boolean/);
});

test('a correction reads relative and local times and backdates the session', T, async () => {
  const conn = await server(['--toolsets', 'all']);
  const start = await call(conn, 'time_session_start', { milestone_id: 'B1', task_ids: ['a'], timezone: 'UTC' });
  const { session_id, start_time } = start.structuredContent;
  await call(conn, 'time_task_start', { session_id, task_id: 'a' });
  const edit = await call(conn, 'time_tasks_edit', {
    session_id,
    operations: [{ op: 'correct', task_id: 'a', start_time: '1 hour ago', reason: 'began before the session' }],
  });
  assert.ok(!edit.isError, JSON.stringify(edit.structuredContent));
  const summary = (await call(conn, 'time_session_summary', { session_id, include_task_details: true }))
    .structuredContent;
  const movedBy = Date.parse(start_time) - Date.parse(summary.start_time);
  assert.ok(movedBy > 3_500_000 && movedBy <= 3_600_000, `session start moved by ${movedBy} ms`);
  assert.equal(summary.tasks[0].start_time, summary.start_time);
  // A local time in the session's zone (UTC) is read too.
  const local = new Date(Date.parse(summary.start_time) + 60_000).toISOString().slice(0, 19);
  const again = await call(conn, 'time_tasks_edit', {
    session_id, operations: [{ op: 'correct', task_id: 'a', start_time: local, reason: 'a minute later' }],
  });
  assert.ok(!again.isError, JSON.stringify(again.structuredContent));
});
