// Issue 17: time_tasks_edit with the official SDK client (v1) over stdio and
// Streamable HTTP: a bulk edit with a failing operation changes nothing;
// pause, resume, notes, tasks added and removed; the correction of a
// forgotten end with its audit trail; a retried start (idempotency key)
// after tasks were added and removed; the undo chain (time_undo); and
// recovery after SIGKILL in the
// middle of a 100-operation bulk edit (all or nothing). Durations are
// checked with the fake clock in tests/unit/tasks_edit_test.cpp.
// Run: TTM_BINARY=/abs/path node --test sdk_tasks_edit.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { pollUntil, stopAllServers } from './lib/raw_client.mjs';
import { connect, connectHttp } from './lib/sdk_client.mjs';
import { driverFor } from './lib/session_patterns.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };

after(async () => {
  await stopAllServers();
  await stopAllHttpServers();
});

/** What a summary says that does not move with "now". */
function settled(summary) {
  return {
    task_count: summary.task_count,
    counts: [summary.tasks_completed, summary.tasks_skipped, summary.tasks_failed,
      summary.tasks_in_progress, summary.tasks_not_started],
    tasks: summary.tasks.map((t) => ({
      task_id: t.task_id, run: t.run, status: t.status, start_time: t.start_time, end_time: t.end_time,
      pauses: t.pauses?.length ?? 0, notes: t.notes?.map((n) => n.text) ?? [],
    })),
  };
}

/** The shared scenarios, over a SessionDriver `tools`. */
function defineScenarios(getTools) {
  test('a bulk edit with a failing operation fails with its index and changes nothing', T, async () => {
    const tools = getTools();
    const { session_id } = await tools.ok('time_session_start', { milestone_id: 'E1', task_ids: ['a', 'b'] });
    await tools.ok('time_tasks_edit', { session_id, operations: [{ op: 'start', task_id: 'a' }] });
    const before = settled(await tools.ok('time_session_summary', { session_id }));
    const err = await tools.fail('time_tasks_edit', {
      session_id,
      operations: [
        { op: 'add', task_id: 'c' },
        { op: 'note', task_id: 'a', text: 'half-way' },
        { op: 'pause', task_id: 'a' },
        { op: 'end', task_id: 'b' },
      ],
    }, 'TASK_NOT_STARTED');
    assert.equal(err.operation_index, 3);
    assert.match(err.message, /^Operation 3 \(end of task 'b'\)/);
    assert.deepEqual(settled(await tools.ok('time_session_summary', { session_id })), before);
  });

  test('pause, resume, notes, tasks added and removed, in one call each', T, async () => {
    const tools = getTools();
    const { session_id } = await tools.ok('time_session_start', { milestone_id: 'E2', task_ids: ['a', 'b'] });
    const r = await tools.ok('time_tasks_edit', {
      session_id,
      operations: [
        { op: 'start', task_id: 'a', task_name: 'First' },
        { op: 'pause', task_id: 'a' },
        { op: 'pause', task_id: 'a' },
        { op: 'note', task_id: 'a', text: 'waiting for review' },
        { op: 'add', task_id: 'found' },
        { op: 'remove', task_id: 'b' },
      ],
    });
    assert.deepEqual(r.operations.map((o) => o.unchanged), [false, false, true, false, false, false]);
    assert.equal(r.operations[1].paused, true);
    assert.equal(r.task_count, 2);
    assert.equal(r.tasks_in_progress, 1);
    const paused = r.operations[1].active_ms;
    const resumed = await tools.ok('time_tasks_edit', {
      session_id, operations: [{ op: 'resume', task_id: 'a' }, { op: 'resume', task_id: 'a' }],
    });
    assert.deepEqual(resumed.operations.map((o) => o.unchanged), [false, true]);
    assert.ok(resumed.operations[0].active_ms >= paused, 'no time is lost, none gained while paused');
    const s = await tools.ok('time_session_summary', { session_id });
    assert.deepEqual(s.tasks.map((t) => t.task_id), ['a', 'found']);
    const a = s.tasks[0];
    assert.equal(a.pauses.length, 1);
    assert.equal(typeof a.pauses[0].end_time, 'string');
    assert.equal(a.notes[0].text, 'waiting for review');
    assert.ok(a.active_ms <= Date.parse(s.end_time) - Date.parse(a.start_time));
  });

  test('estimates: estimate, actual and difference per task and in total; the forecast (Pattern 4)', T, async () => {
    const tools = getTools();
    const { session_id } = await tools.ok('time_session_start', {
      milestone_id: 'E4', task_ids: ['a', 'b'], estimates: { a: '10', b: 'PT1H30M' },
    });
    await tools.ok('time_task_start', { session_id, task_id: 'a' });
    const s = await tools.ok('time_session_summary', { session_id });
    assert.deepEqual(s.estimates.map((e) => [e.task_id, e.estimate_ms]), [['a', 600_000], ['b', 5_400_000]]);
    assert.equal(s.estimate_total_ms, 6_000_000);
    assert.equal(s.estimate_difference_ms, s.estimate_actual_ms - 6_000_000);
    assert.equal(s.forecast.basis, 'estimates');
    assert.equal(s.forecast.tasks_left, 2);
    assert.ok(s.forecast.remaining_ms <= 6_000_000 && s.forecast.remaining_ms > 5_900_000);
    assert.match(s.forecast.message, /^On track to complete in approximately 1 hour 40 minutes \(2 tasks left\)\.$/);
    await tools.fail('time_session_start', { milestone_id: 'E4', task_ids: ['a'], estimates: { a: 'soon' } },
      'VALIDATION_ERROR');
  });

  test('a retried start with its idempotency key after tasks were added and removed', T, async () => {
    const tools = getTools();
    const start = {
      milestone_id: 'E5', task_ids: ['a', 'b'], estimates: { a: '5' }, idempotency_key: `e5-${Date.now()}`,
    };
    const first = await tools.ok('time_session_start', start);
    await tools.ok('time_tasks_edit', {
      session_id: first.session_id,
      operations: [{ op: 'add', task_id: 'c', estimate: '3' }, { op: 'remove', task_id: 'b' }],
    });
    const again = await tools.ok('time_session_start', start);
    assert.equal(again.session_id, first.session_id);
    assert.equal(again.already_started, true);
    await tools.fail('time_session_start', { ...start, task_ids: ['a', 'c'] }, 'IDEMPOTENCY_KEY_REUSED');
  });

  test('the correction of a forgotten end: the run ends then, the trail keeps what it was', T, async () => {
    const tools = getTools();
    const { session_id } = await tools.ok('time_session_start', { milestone_id: 'E3', task_ids: ['a'] });
    const started = await tools.ok('time_task_start', { session_id, task_id: 'a' });
    const startMs = Date.parse(started.start_time);
    // The clock must move past the start by a few milliseconds (no duration is asserted).
    await pollUntil(() => Date.now() > startMs + 6, 'a few milliseconds', { intervalMs: 1 });
    // Whole milliseconds on both ends (the start as reported is truncated).
    const startTime = new Date(startMs + 1).toISOString();
    const endTime = new Date(startMs + 4).toISOString();
    const r = await tools.ok('time_tasks_edit', {
      session_id,
      operations: [{ op: 'correct', task_id: 'a', start_time: startTime, end_time: endTime, reason: 'forgot to end it' }],
    });
    assert.equal(r.operations[0].task_status, 'completed');
    assert.equal(r.operations[0].active_ms, 3);
    const s = await tools.ok('time_session_summary', { session_id });
    const [a] = s.tasks;
    assert.equal(a.duration_source, 'corrected');
    assert.equal(a.duration_ms, 3);
    assert.equal(Date.parse(a.end_time), startMs + 4);
    assert.equal(a.corrections[0].start_time_before, started.start_time);
    assert.equal(a.corrections.length, 1);
    assert.equal(a.corrections[0].reason, 'forgot to end it');
    assert.equal(a.corrections[0].status_before, 'in_progress');
    assert.equal(a.corrections[0].end_time_before, null);
    await tools.fail('time_tasks_edit', {
      session_id,
      operations: [{ op: 'correct', task_id: 'a', end_time: '2100-01-01T00:00:00Z', reason: 'r' }],
    }, 'INVALID_CORRECTION');
  });

  test('the undo chain: an end, a bulk edit, a start, newest first; then nothing', T, async () => {
    const tools = getTools();
    const { session_id } = await tools.ok('time_session_start', { milestone_id: 'U1', task_ids: ['a', 'b'] });
    const fresh = settled(await tools.ok('time_session_summary', { session_id }));
    await tools.ok('time_task_start', { session_id, task_id: 'a' });
    const started = settled(await tools.ok('time_session_summary', { session_id }));
    await tools.ok('time_tasks_edit', {
      session_id, operations: [{ op: 'end', task_id: 'a' }, { op: 'add', task_id: 'c' }, { op: 'note', task_id: 'a', text: 'x' }],
    });
    const edited = settled(await tools.ok('time_session_summary', { session_id }));
    const ended = await tools.ok('time_session_end', { session_id });
    assert.equal(ended.status, 'ended');

    let u = await tools.ok('time_undo', { session_id });
    assert.equal(u.undone.change, 'session_ended');
    assert.equal(u.reopened, true);
    assert.equal(u.status, 'active');
    assert.deepEqual(settled(await tools.ok('time_session_summary', { session_id })), edited);
    u = await tools.ok('time_undo', { session_id });
    assert.equal(u.undone.change, 'tasks_edited');
    assert.equal(u.undone.operation_count, 3);
    assert.equal(u.task_count, 2);
    assert.deepEqual(settled(await tools.ok('time_session_summary', { session_id })), started);
    u = await tools.ok('time_undo', { session_id });
    assert.deepEqual([u.undone.change, u.undone.task_id, u.undoable_left], ['task_started', 'a', 0]);
    assert.match(u.description, /^Undid the start of task 'a' at /);
    assert.deepEqual(settled(await tools.ok('time_session_summary', { session_id })), fresh);
    const none = await tools.fail('time_undo', { session_id }, 'NOTHING_TO_UNDO');
    assert.match(none.message, /never its start/);
    // The session goes on as if nothing had happened.
    await tools.ok('time_task_start', { session_id, task_id: 'b' });
    assert.equal((await tools.ok('time_session_end', { session_id })).tasks_interrupted, 1);
  });
}

describe('stdio, SDK v1', () => {
  let conn;
  let tools;
  after(async () => { await conn?.close().catch(() => {}); });
  test('connects', T, async () => {
    conn = await connect(BINARY);
    ({ driver: tools } = await driverFor(conn));
  });
  defineScenarios(() => tools);
});

describe('Streamable HTTP, SDK v1', () => {
  let conn;
  let tools;
  after(async () => { await conn?.close().catch(() => {}); });
  test('connects', T, async () => {
    const server = await HttpServer.start({ binary: BINARY });
    conn = await connectHttp(`${server.url}`);
    ({ driver: tools } = await driverFor(conn));
  });
  defineScenarios(() => tools);
});

describe('SIGKILL in the middle of a 100-operation bulk edit', () => {
  test('after a restart the edit is there entirely or not at all', T, async () => {
    const dataDir = freshDataDir();
    const args = ['--data-dir', dataDir];
    const taskIds = Array.from({ length: 50 }, (_, i) => `t${i}`);
    let conn = await connect(BINARY, { args });
    let { driver } = await driverFor(conn);
    const { session_id } = await driver.ok('time_session_start', { milestone_id: 'K', task_ids: taskIds });
    const outcomes = [];
    for (let round = 0; round < 4; round += 1) {
      // 50 starts and 50 notes, or 50 pauses and 50 resumes: all change something.
      const operations = round % 2 === 0
        ? taskIds.flatMap((task_id) => [
          { op: round === 0 ? 'start' : 'resume', task_id }, { op: 'note', task_id, text: `round ${round}` }])
        : taskIds.flatMap((task_id) => [{ op: 'pause', task_id }, { op: 'note', task_id, text: `round ${round}` }]);
      const before = settled(await driver.ok('time_session_summary', { session_id }));
      const pending = conn.client.callTool({ name: 'time_tasks_edit', arguments: { session_id, operations } })
        .then(() => 'replied', () => 'cut off');
      // Kill it as soon as the request is on its way: before, during or after the write.
      setImmediate(() => { try { process.kill(conn.pid(), 'SIGKILL'); } catch { /* gone */ } });
      outcomes.push(await pending);
      await pollUntil(() => conn.exited(), 'end of the SIGKILLed server', { timeoutMs: 10_000 });
      await conn.client.close().catch(() => {});
      conn = await connect(BINARY, { args });
      ({ driver } = await driverFor(conn));
      const now = settled(await driver.ok('time_session_summary', { session_id }));
      const notes = now.tasks.map((t) => t.notes.length);
      const wanted = before.tasks[0].notes.length;
      assert.ok(notes.every((n) => n === notes[0]), `all tasks alike: ${JSON.stringify(notes)}`);
      if (notes[0] === wanted) {
        assert.deepEqual(now, before, `round ${round}: nothing applied`);
        // Apply it now, so the next round starts from a known state.
        await driver.ok('time_tasks_edit', { session_id, operations });
      } else {
        assert.equal(notes[0], wanted + 1, `round ${round}: all applied`);
      }
      const applied = settled(await driver.ok('time_session_summary', { session_id }));
      assert.ok(applied.tasks.every((t) => t.notes.length === round + 1));
      assert.ok(applied.tasks.every((t) => t.pauses === Math.floor((round + 1) / 2)));
    }
    await conn.close();
    assert.equal(outcomes.length, 4);
  });
});
