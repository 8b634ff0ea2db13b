// Pattern 1 (the spec's example session) in two halves, so that a process
// can die, or the route change, in between, and the Route that carries one
// session's calls through several clients (processes, nodes). Shared by
// multi_process.test.mjs and the scale-out tests (tests/scaleout).
import assert from 'node:assert/strict';

import { AjvJsonSchemaValidator } from './sdk_client.mjs';
import { countsIn, newYorkAbbreviation, SessionDriver } from './session_assertions.mjs';
import { PATTERN_1_TASKS, SPEC_SESSION, specSession, TASK_IDS } from './session_patterns.mjs';

/**
 * One SessionDriver (one model of the sessions it starts) whose calls go
 * through whichever client `use()` names last: a tracking session used by
 * several clients in several processes, each reply checked against what
 * all the earlier ones (through any process) said.
 */
export class Route {
  constructor(first) {
    this.via = first;
    const client = { callTool: (params, options) => this.via.conn.client.callTool(params, options) };
    this.driver = new SessionDriver(client, first.tools, {
      ajv: new AjvJsonSchemaValidator(), localZone: first.driver.localZone,
    });
  }

  /** Later calls go through `client` (an openWindow/openHttp/openV2Stdio result); returns the driver. */
  use(client) {
    this.via = client;
    return this.driver;
  }
}

/** Session start, M2-001 and M2-002 started and ended, M2-003 started: returns the run's record. */
export async function pattern1FirstHalf(driver, { window }) {
  const run = { started: [], ended: [] };
  run.s = await driver.startSession(specSession({ metadata: { ...SPEC_SESSION.metadata, window } }),
    { abbreviation: newYorkAbbreviation });
  assert.equal(run.s.started.task_count, 5);
  for (const i of [0, 1]) {
    const a = await run.s.startTask(PATTERN_1_TASKS[i].start);
    assert.equal(a.run, 1);
    run.started.push(a);
    const b = await run.s.endTask(PATTERN_1_TASKS[i].end);
    assert.equal(b.status, 'completed');
    run.ended.push(b);
  }
  run.started.push(await run.s.startTask(PATTERN_1_TASKS[2].start));
  const sc = await run.s.summary();
  assert.deepEqual(sc.tasks.map((t) => t.status), ['completed', 'completed', 'in_progress', 'not_started', 'not_started']);
  return run;
}

/** A summary mid-way, M2-003 ends, M2-004 and M2-005 run, the session ends: returns the report. */
export async function pattern1SecondHalf(run) {
  const mid = await run.s.summary();
  assert.equal(mid.status, 'active');
  assert.equal(mid.tasks[2].start_time, run.started[2].start_time, 'M2-003 keeps the start reported first');
  assert.deepEqual(countsIn(mid, { interrupted: true }), {
    tasks_completed: 2, tasks_skipped: 0, tasks_in_progress: 1, tasks_not_started: 2, tasks_remaining: 2,
    tasks_interrupted: 0,
  });
  run.ended.push(await run.s.endTask(PATTERN_1_TASKS[2].end));
  for (const i of [3, 4]) {
    run.started.push(await run.s.startTask(PATTERN_1_TASKS[i].start));
    run.ended.push(await run.s.endTask(PATTERN_1_TASKS[i].end));
  }
  const report = await run.s.end();
  assertPattern1Report(report, run);
  run.report = report;
  return report;
}

/** The final report of Pattern 1: every task with the timestamps its replies carried. */
export function assertPattern1Report(report, run) {
  assert.equal(report.session_id, run.s.id);
  assert.equal(report.status, 'ended');
  assert.equal(report.already_ended, false);
  assert.equal(report.start_time, run.s.started.start_time);
  assert.deepEqual(countsIn(report, { interrupted: true }), {
    tasks_completed: 5, tasks_skipped: 0, tasks_in_progress: 0, tasks_not_started: 0, tasks_remaining: 0,
    tasks_interrupted: 0,
  });
  assert.deepEqual(report.tasks.map((t) => [t.task_id, t.run, t.status]), TASK_IDS.map((id) => [id, 1, 'completed']));
  report.tasks.forEach((entry, i) => {
    assert.equal(entry.start_time, run.started[i].start_time, `${entry.task_id}: start_time of its time_task_start`);
    assert.equal(entry.end_time, run.ended[i].end_time, `${entry.task_id}: end_time of its time_task_end`);
    assert.equal(entry.duration_ms, run.ended[i].duration_ms, `${entry.task_id}: duration_ms of its time_task_end`);
  });
  assert.equal(report.tasks[2].external_task_id, 'task-guid-12345');
  assert.deepEqual(report.tasks[2].completion_metadata, PATTERN_1_TASKS[2].end.metadata);
  assert.equal(report.tasks[3].work_item_id, 'GH-42');
}

/** The whole of Pattern 1 through `route`'s current client. */
export async function pattern1(route, window) {
  const run = await pattern1FirstHalf(route.driver, { window });
  await pattern1SecondHalf(run);
  return run;
}

/** A summary of an ended session is its report (without already_ended). */
export function reportAsSummary(report) {
  const { already_ended: _, ...summary } = report;
  return summary;
}

