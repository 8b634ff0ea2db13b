// The spec's example tracking session and its Pattern 1 (full milestone
// execution with per-task tracking) as a test flow, shared by
// sdk_sessions.test.mjs (over stdio) and sdk_http.test.mjs (over Streamable
// HTTP): the same calls and the same checks whatever carries the messages.
// Every reply goes through a SessionDriver (lib/session_assertions.mjs), which
// checks it against the tool's outputSchema and against its model.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { TEST_TIMEOUT_MS } from './env.mjs';
import { AjvJsonSchemaValidator } from './sdk_client.mjs';
import { countsIn, newYorkAbbreviation, SessionDriver } from './session_assertions.mjs';
import { FRIENDLY_RE, intlUtcOffset, TOOL_NAME } from './time_assertions.mjs';

const T = { timeout: TEST_TIMEOUT_MS };

export const NY = 'America/New_York';

/** The spec's time_session_start example request (V2, Tool 1). */
export const SPEC_SESSION = Object.freeze({
  milestone_id: 'M2',
  milestone_name: 'Commit + Lifecycle',
  task_ids: ['M2-001', 'M2-002', 'M2-003', 'M2-004', 'M2-005'],
  timezone: NY,
  metadata: { branch: 'Recipe-Ingest-Agent', execution_date: '2025-12-14' },
  tags: ['milestone:2', 'area:gateway', 'area:orchestrator'],
});
export const TASK_IDS = SPEC_SESSION.task_ids;

/** Per task of Pattern 1: time_task_start and time_task_end arguments (M2-003 is the spec's example). */
export const PATTERN_1_TASKS = [
  { start: { task_id: 'M2-001', task_name: 'Create ImportRecipeRequest model' }, end: { task_id: 'M2-001' } },
  { start: { task_id: 'M2-002', task_name: 'Create ImportRecipeResponse model' }, end: { task_id: 'M2-002' } },
  {
    start: {
      task_id: 'M2-003', task_name: 'Implement POST /api/recipes/import skeleton',
      external_task_id: 'task-guid-12345',
    },
    end: {
      task_id: 'M2-003', status: 'completed',
      metadata: { files_created: 'RecipeImportService.cs', files_modified: 'RecipeEndpoints.cs, Program.cs' },
    },
  },
  {
    start: { task_id: 'M2-004', work_item_id: 'GH-42', metadata: { owner: 'agent' } },
    end: { task_id: 'M2-004', metadata: { files_modified: 'Program.cs' } },
  },
  { start: { task_id: 'M2-005' }, end: { task_id: 'M2-005' } },
];

/** The spec's example session request, with `overrides`. */
export function specSession(overrides = {}) {
  return { ...SPEC_SESSION, ...overrides };
}

/**
 * Builds a SessionDriver on an initialized SDK connection (any transport):
 * lists the tools first, like real clients (the SDK then validates every
 * structuredContent against the tool's outputSchema too), and asks
 * time_get_current which zone "local" is. Returns {tools, driver}.
 */
export async function driverFor(conn) {
  const { tools } = await conn.client.listTools();
  const now = await conn.client.callTool({ name: TOOL_NAME, arguments: {} });
  const localZone = now.structuredContent.timezone;
  const driver = new SessionDriver(conn.client, tools, { ajv: new AjvJsonSchemaValidator(), localZone });
  return { tools, driver };
}

/**
 * Defines the Pattern 1 tests: one session with the spec's example
 * arguments, its five tasks started and ended in turn, summaries on the way,
 * the final report. `getDriver()` returns the SessionDriver to use; it is
 * called when the tests run (after the caller's `before` hooks).
 */
export function definePattern1(getDriver) {
  describe('Pattern 1: full milestone execution with per-task tracking', () => {
    let s;
    const started = [];
    const ended = [];

    test('time_session_start with the spec\'s example arguments', T, async () => {
      const offsetBefore = intlUtcOffset(NY);
      s = await getDriver().startSession(specSession(), { abbreviation: newYorkAbbreviation });
      const offsetAfter = intlUtcOffset(NY);
      const sc = s.started;
      assert.equal(sc.milestone_id, 'M2');
      assert.equal(sc.task_count, 5);
      assert.equal(sc.timezone, NY);
      const offset = sc.start_time.slice(-6);
      assert.ok(offset === '-05:00' || offset === '-04:00', `New York is at -05:00 or -04:00, not ${offset}`);
      assert.ok(offset === offsetBefore || offset === offsetAfter,
        `start_time ${sc.start_time} must carry New York's offset today (${offsetBefore})`);
      assert.match(sc.start_time_friendly, FRIENDLY_RE);
      assert.ok(sc.start_time_friendly.endsWith(offset === '-05:00' ? ' EST' : ' EDT'));
    });

    /** Runs Pattern 1's tasks `from`..`to`-1: start, check the counts, end, check them. */
    async function runTasks(from, to) {
      for (let i = from; i < to; i += 1) {
        const { start, end } = PATTERN_1_TASKS[i];
        const a = await s.startTask(start);
        assert.equal(a.already_running, false);
        assert.equal(a.run, 1);
        assert.deepEqual(countsIn(a), {
          tasks_completed: i, tasks_skipped: 0, tasks_in_progress: 1, tasks_not_started: 4 - i, tasks_remaining: 4 - i,
        }, `counts after time_task_start ${start.task_id}`);
        started.push(a);
        const b = await s.endTask(end);
        assert.equal(b.status, 'completed');
        assert.equal(b.already_ended, false);
        assert.deepEqual(countsIn(b), {
          tasks_completed: i + 1, tasks_skipped: 0, tasks_in_progress: 0, tasks_not_started: 4 - i,
          tasks_remaining: 4 - i,
        }, `counts after time_task_end ${end.task_id}`);
        ended.push(b);
      }
    }

    test('M2-001..M2-003 started and ended in turn: completed goes up, remaining down', T, async () => {
      await runTasks(0, 3);
    });

    test('time_session_summary mid-way, while M2-004 runs', T, async () => {
      const a = await s.startTask(PATTERN_1_TASKS[3].start);
      started.push(a);
      const sc = await s.summary();
      assert.equal(sc.status, 'active');
      assert.deepEqual(countsIn(sc, { interrupted: true }), {
        tasks_completed: 3, tasks_skipped: 0, tasks_in_progress: 1, tasks_not_started: 1, tasks_remaining: 1,
        tasks_interrupted: 0,
      });
      assert.equal(sc.task_count, 5);
      assert.deepEqual(sc.tasks.map((t) => t.status), ['completed', 'completed', 'completed', 'in_progress', 'not_started']);
      assert.equal(sc.tasks[3].end_time, null, 'a running task has no end_time');
      assert.equal(sc.tasks[3].start_time, a.start_time);
      // The session is still running: a later summary's end_time ("now") is not earlier.
      const again = await s.summary({ include_task_details: false });
      assert.ok(Date.parse(again.end_time) >= Date.parse(sc.end_time));
      assert.ok(again.total_duration_ms >= sc.total_duration_ms);
    });

    test('M2-004 ends, M2-005 runs: all five completed, the session still active', T, async () => {
      const b = await s.endTask(PATTERN_1_TASKS[3].end);
      assert.deepEqual(countsIn(b), {
        tasks_completed: 4, tasks_skipped: 0, tasks_in_progress: 0, tasks_not_started: 1, tasks_remaining: 1,
      });
      ended.push(b);
      await runTasks(4, 5);
      const sc = await s.summary();
      assert.equal(sc.status, 'active');
      assert.equal(sc.tasks_completed, 5);
      assert.equal(sc.tasks_remaining, 0);
    });

    test('time_session_end: the complete report', T, async () => {
      const sc = await s.end();
      assert.equal(sc.status, 'ended');
      assert.equal(sc.already_ended, false);
      assert.equal(sc.milestone_name, 'Commit + Lifecycle');
      assert.deepEqual(sc.metadata, SPEC_SESSION.metadata);
      assert.deepEqual(sc.tags, SPEC_SESSION.tags);
      assert.deepEqual(countsIn(sc, { interrupted: true }), {
        tasks_completed: 5, tasks_skipped: 0, tasks_in_progress: 0, tasks_not_started: 0, tasks_remaining: 0,
        tasks_interrupted: 0,
      });
      assert.equal(sc.task_count, 5);
      assert.equal(sc.tasks.length, 5);
      assert.deepEqual(sc.tasks.map((t) => t.task_id), TASK_IDS, 'tasks in task order');
      sc.tasks.forEach((entry, i) => {
        assert.equal(entry.status, 'completed');
        assert.equal(entry.run, 1);
        assert.equal(entry.start_time, started[i].start_time, `${entry.task_id}: start_time of time_task_start`);
        assert.equal(entry.end_time, ended[i].end_time, `${entry.task_id}: end_time of time_task_end`);
        assert.equal(entry.duration_ms, ended[i].duration_ms, `${entry.task_id}: duration_ms of time_task_end`);
        assert.equal(entry.duration, ended[i].duration);
      });
      assert.equal(sc.tasks[0].task_name, 'Create ImportRecipeRequest model');
      assert.equal(sc.tasks[2].external_task_id, 'task-guid-12345');
      assert.deepEqual(sc.tasks[2].completion_metadata, PATTERN_1_TASKS[2].end.metadata);
      assert.equal(sc.tasks[3].work_item_id, 'GH-42');
      assert.deepEqual(sc.tasks[3].metadata, { owner: 'agent' });
      assert.equal(sc.task_time_ms, sc.tasks.reduce((sum, t) => sum + t.duration_ms, 0));
      assert.ok(sc.busy_duration_ms <= sc.total_duration_ms);
      // session start <= M2-001 start <= M2-001 end <= M2-002 start <= ... <= session end
      const times = [sc.start_time, ...sc.tasks.flatMap((t) => [t.start_time, t.end_time]), sc.end_time];
      for (let k = 1; k < times.length; k += 1) {
        assert.ok(Date.parse(times[k - 1]) <= Date.parse(times[k]), `${times[k - 1]} must not be after ${times[k]}`);
      }
      assert.ok(sc.end_time_friendly.endsWith(sc.end_time.slice(-6) === '-05:00' ? ' EST' : ' EDT'));
    });

    test('time_session_summary after the end reports the same session', T, async () => {
      const sc = await s.summary();
      const { already_ended: _, ...report } = s.firstEnd;
      assert.deepEqual(sc, report);
    });
  });
}
