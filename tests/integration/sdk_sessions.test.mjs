// The five session tools (spec V2) driven by the official MCP TypeScript SDK
// over stdio: the spec's usage patterns end to end, idempotency, parallel and
// repeated tasks, every error code, and per-connection ownership. Pattern 1
// comes from lib/session_patterns.mjs; sdk_http.test.mjs runs it over HTTP.
//
// Every reply is checked against the tool's declared outputSchema by two
// validators (besides the SDK's own check), its text block must be the same
// JSON, and its fields are compared with a model of the session (see
// lib/session_assertions.mjs). Nothing waits for time to pass: durations are
// small, so the checks are about consistency (strings vs milliseconds,
// monotonic vs wall clock, sums, order), not exact values.
//
// Run: TTM_BINARY=/abs/path node --test sdk_sessions.test.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect } from './lib/sdk_client.mjs';
import { countsIn, newYorkAbbreviation, SESSION_TOOLS } from './lib/session_assertions.mjs';
import {
  definePattern1, driverFor, NY, SPEC_SESSION, specSession, TASK_IDS,
} from './lib/session_patterns.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

/** Connects an SDK client over stdio and builds a SessionDriver on it. */
async function openDriver() {
  const conn = await connect(BINARY);
  try {
    return { conn, ...(await driverFor(conn)) };
  } catch (err) {
    await conn.close();
    throw err;
  }
}

/** The declared JSON type(s) of a schema property, as a list (a nullable one is anyOf [T, null]). */
function typesOf(property) {
  if (Array.isArray(property.anyOf)) return property.anyOf.flatMap(typesOf);
  return Array.isArray(property.type) ? property.type : [property.type];
}

/** The spec's output fields and their types, per tool (V2, Tools 1-5). */
const SPEC_SUMMARY_FIELDS = {
  session_id: 'string', milestone_id: 'string', milestone_name: 'string', start_time: 'string',
  end_time: 'string', total_duration: 'string', total_duration_ms: 'integer', tasks_completed: 'integer',
  tasks_skipped: 'integer', tasks_not_started: 'integer', timezone: 'string', metadata: 'object',
  tags: 'array', tasks: 'array',
};
const SPEC_OUTPUT_FIELDS = {
  time_session_start: {
    session_id: 'string', milestone_id: 'string', start_time: 'string', start_time_friendly: 'string',
    task_count: 'integer', timezone: 'string',
  },
  time_task_start: {
    task_id: 'string', start_time: 'string', start_time_friendly: 'string', session_elapsed: 'string',
    tasks_completed: 'integer', tasks_remaining: 'integer', already_running: 'boolean',
  },
  time_task_end: {
    task_id: 'string', start_time: 'string', end_time: 'string', duration: 'string', duration_ms: 'integer',
    status: 'string', tasks_completed: 'integer', tasks_remaining: 'integer', error: 'boolean',
    error_code: 'string',
  },
  time_session_end: SPEC_SUMMARY_FIELDS,
  time_session_summary: SPEC_SUMMARY_FIELDS,
};
const SPEC_TASK_ENTRY_FIELDS = {
  task_id: 'string', task_name: 'string', external_task_id: 'string', start_time: 'string',
  end_time: 'string', duration: 'string', duration_ms: 'integer', status: 'string',
};
const SPEC_REQUIRED_ARGS = {
  time_session_start: ['milestone_id', 'task_ids'],
  time_task_start: ['session_id', 'task_id'],
  time_task_end: ['session_id', 'task_id'],
  time_session_end: ['session_id'],
  time_session_summary: ['session_id'],
};
const SPEC_ARGS = {
  // idempotency_key (issue 20 item 4) and estimates (issue 17) extend the spec.
  time_session_start: ['milestone_id', 'milestone_name', 'task_ids', 'timezone', 'metadata', 'tags', 'idempotency_key',
    'estimates'],
  time_task_start: ['session_id', 'task_id', 'task_name', 'external_task_id', 'work_item_id', 'metadata'],
  time_task_end: ['session_id', 'task_id', 'status', 'metadata'],
  time_session_end: ['session_id', 'include_task_details'],
  time_session_summary: ['session_id', 'include_task_details'],
};

describe('tracking sessions through the official MCP SDK (stdio)', () => {
  let conn;
  let tools;
  let driver;

  before(async () => {
    ({ conn, tools, driver } = await openDriver());
  }, T);

  after(async () => {
    await conn?.close();
  });

  function tool(name) {
    const found = tools.find((t) => t.name === name);
    assert.ok(found, `tools/list must include ${name}`);
    return found;
  }

  test('the session tools declare the spec\'s arguments and output fields', T, () => {
    for (const name of SESSION_TOOLS) {
      const { inputSchema, outputSchema } = tool(name);
      assert.deepEqual(Object.keys(inputSchema.properties).sort(), [...SPEC_ARGS[name]].sort(),
        `${name}: the spec's arguments`);
      assert.deepEqual([...inputSchema.required].sort(), [...SPEC_REQUIRED_ARGS[name]].sort(),
        `${name}: required arguments`);
      // Both validators compiled every outputSchema (in the driver); the spec's
      // fields are declared with the spec's types (null may be allowed besides).
      for (const [field, type] of Object.entries(SPEC_OUTPUT_FIELDS[name])) {
        const property = outputSchema.properties[field];
        assert.ok(property, `${name}: outputSchema must declare ${field}`);
        assert.ok(typesOf(property).includes(type),
          `${name}.${field}: declared ${JSON.stringify(property.type)}, the spec says ${type}`);
      }
    }
    for (const name of ['time_session_end', 'time_session_summary']) {
      const item = tool(name).outputSchema.properties.tasks.items;
      for (const [field, type] of Object.entries(SPEC_TASK_ENTRY_FIELDS)) {
        assert.ok(item.properties[field], `${name}: tasks[] must declare ${field}`);
        assert.ok(typesOf(item.properties[field]).includes(type), `${name}: tasks[].${field} must allow ${type}`);
      }
    }
    const { status } = tool('time_task_end').inputSchema.properties;
    // 'failed' extends the spec's two statuses (issue 20 item 3).
    assert.deepEqual(status.enum, ['completed', 'skipped', 'failed']);
    assert.equal(status.default, 'completed');
    assert.equal(tool('time_session_start').inputSchema.properties.timezone.default, 'local');
    for (const name of ['time_session_end', 'time_session_summary']) {
      assert.equal(tool(name).inputSchema.properties.include_task_details.default, true);
    }
  });

  test('the schema checks reject replies that break the declared outputSchema', T, async () => {
    const s = await driver.startSession(specSession({ task_ids: ['a', 'b'] }));
    await s.startTask({ task_id: 'a' });
    const good = await s.end();
    const broken = {
      'a required field missing': (r) => { delete r.total_duration_ms; },
      'a fraction where an integer is declared': (r) => { r.task_count = 2.5; },
      'a string where an integer is declared': (r) => { r.tasks[0].duration_ms = '12'; },
      'a value outside the enum': (r) => { r.status = 'paused'; },
      'null where only a string is allowed': (r) => { r.tasks[0].task_id = null; },
      'an entry without its status': (r) => { delete r.tasks[1].status; },
      'an error without its message': () => ({ error: true, error_code: 'SESSION_NOT_FOUND' }),
    };
    for (const [what, mutate] of Object.entries(broken)) {
      const copy = structuredClone(good);
      const value = mutate(copy) ?? copy;
      const { own, ajv } = driver.problems('time_session_end', value);
      assert.ok(own.length > 0, `lib/json_schema must reject ${what}`);
      assert.equal(ajv.valid, false, `ajv must reject ${what}`);
    }
    // Accepted by both: nulls where declared, the error shape.
    for (const value of [
      { ...structuredClone(good), milestone_name: null },
      { error: true, error_code: 'SESSION_NOT_FOUND', message: 'm' },
    ]) {
      const { own, ajv } = driver.problems('time_session_end', value);
      assert.deepEqual(own, []);
      assert.ok(ajv.valid, ajv.errorMessage);
    }
    // An undeclared field: JSON Schema allows it, the closed check does not.
    assert.ok(driver.problems('time_session_end', { ...good, bogus_field: 1 }).own.length > 0);
    // A keyword the small validator does not know fails loudly.
    assert.throws(() => makeValidator({ type: 'string', pattern: '^x' }), /unsupported JSON Schema keyword "pattern"/);
  });

  definePattern1(() => driver);

  test('Pattern 2: batch execution, no task calls: every task not_started', T, async () => {
    const s = await driver.startSession(specSession(), { abbreviation: newYorkAbbreviation });
    const sc = await s.end();
    assert.equal(sc.task_count, 5);
    assert.equal(sc.tasks_not_started, 5);
    assert.equal(sc.tasks_remaining, 5);
    assert.equal(sc.tasks_completed + sc.tasks_skipped + sc.tasks_in_progress + sc.tasks_interrupted, 0);
    assert.deepEqual(sc.tasks.map((t) => [t.task_id, t.status]), TASK_IDS.map((id) => [id, 'not_started']));
    assert.equal(sc.busy_duration_ms, 0);
    assert.equal(sc.task_time_ms, 0);
  });

  test('time_task_start is idempotent while the task runs: already_running, same start_time', T, async () => {
    const s = await driver.startSession(specSession());
    const first = await s.startTask({ task_id: 'M2-001', task_name: 'first name' });
    const again = await s.startTask({ task_id: 'M2-001', task_name: 'second name' });
    assert.equal(first.already_running, false);
    assert.equal(again.already_running, true);
    assert.equal(again.start_time, first.start_time);
    assert.equal(again.start_time_friendly, first.start_time_friendly);
    assert.equal(again.run, 1);
    assert.deepEqual(countsIn(again), countsIn(first));
    const sc = await s.summary();
    assert.equal(sc.tasks.length, 5, 'no second run');
    assert.equal(sc.tasks[0].task_name, 'first name', 'the repeated call changed nothing');
  });

  test('tasks may run in parallel: tasks_in_progress 2, busy time not double-counted', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const second = await s.startTask({ task_id: 'M2-002' });
    assert.equal(second.tasks_in_progress, 2);
    assert.equal(second.tasks_not_started, 3);
    const mid = await s.summary();
    assert.deepEqual(mid.tasks.slice(0, 2).map((t) => [t.status, t.end_time]), [['in_progress', null], ['in_progress', null]]);
    const a = await s.endTask({ task_id: 'M2-001' });
    assert.equal(a.tasks_in_progress, 1);
    await s.endTask({ task_id: 'M2-002' });
    const sc = await s.end(); // busy <= task_time (+ rounding) and busy <= total are checked there
    assert.equal(sc.tasks_completed, 2);
    assert.ok(sc.busy_duration_ms >= Math.max(sc.tasks[0].duration_ms, sc.tasks[1].duration_ms));
  });

  test('a task started again after it ended gets run 2; every run is kept', T, async () => {
    const s = await driver.startSession(specSession());
    const run1 = await s.startTask({ task_id: 'M2-001', task_name: 'first try' });
    await s.endTask({ task_id: 'M2-001' });
    const run2 = await s.startTask({ task_id: 'M2-001', task_name: 'second try' });
    assert.equal(run2.run, 2);
    assert.equal(run2.already_running, false);
    assert.ok(Date.parse(run2.start_time) >= Date.parse(run1.start_time));
    assert.equal(run2.tasks_completed, 0, 'the latest run counts: running again');
    assert.equal(run2.tasks_in_progress, 1);
    const end2 = await s.endTask({ task_id: 'M2-001', status: 'skipped' });
    assert.equal(end2.run, 2);
    assert.equal(end2.tasks_skipped, 1);
    assert.equal(end2.tasks_completed, 0);
    const sc = await s.end();
    assert.deepEqual(sc.tasks.slice(0, 2).map((t) => [t.task_id, t.run, t.status, t.task_name]),
      [['M2-001', 1, 'completed', 'first try'], ['M2-001', 2, 'skipped', 'second try']]);
    assert.equal(sc.tasks.length, 6, 'two runs of M2-001 and four tasks never started');
  });

  test('a failed run counts as tasks_failed until the task is retried (issue 20)', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const failed = await s.endTask({ task_id: 'M2-001', status: 'failed' });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.tasks_failed, 1);
    const mid = await s.summary();
    assert.equal(mid.tasks_failed, 1);
    assert.equal(mid.tasks[0].status, 'failed');
    const retry = await s.startTask({ task_id: 'M2-001' });
    assert.equal(retry.run, 2);
    assert.equal(retry.tasks_failed, 0);
    const done = await s.endTask({ task_id: 'M2-001' });
    assert.equal(done.tasks_failed, 0);
    const sc = await s.end();
    assert.deepEqual(sc.tasks.slice(0, 2).map((t) => [t.run, t.status]), [[1, 'failed'], [2, 'completed']]);
  });

  test('a retried start with its idempotency_key returns the first session (issue 20)', T, async () => {
    const args = { ...specSession({ task_ids: ['a', 'b'] }), idempotency_key: randomUUID() };
    const first = await driver.ok('time_session_start', args);
    assert.equal(first.already_started, false);
    const again = await driver.ok('time_session_start', args);
    assert.equal(again.already_started, true);
    assert.equal(again.session_id, first.session_id);
    assert.equal(again.start_time, first.start_time);
    const other = await driver.call('time_session_start', { ...args, milestone_id: 'other' });
    assert.equal(other.isError, true);
    assert.equal(other.structuredContent.error_code, 'IDEMPOTENCY_KEY_REUSED');
    await driver.ok('time_session_end', { session_id: first.session_id });
  });

  test('two sessions open at once in one connection stay apart', T, async () => {
    const s1 = await driver.startSession(specSession());
    const s2 = await driver.startSession(specSession({ milestone_id: 'M3', timezone: 'Asia/Kathmandu' }));
    assert.ok(s2.started.start_time.endsWith('+05:45'));
    await s1.startTask({ task_id: 'M2-001' });
    await s2.startTask({ task_id: 'M2-001' });
    await s2.endTask({ task_id: 'M2-001' });
    await s2.startTask({ task_id: 'M2-002' });
    // Each summary is compared with its own model: s1 has one task running, s2 one done and one running.
    const one = await s1.summary();
    const two = await s2.summary();
    assert.deepEqual([one.tasks_in_progress, one.tasks_completed], [1, 0]);
    assert.deepEqual([two.tasks_in_progress, two.tasks_completed], [1, 1]);
    await s2.end();
    const still = await s1.summary({ include_task_details: false });
    assert.equal(still.status, 'active');
    await s1.end();
  });

  test('time_task_end repeated: the run\'s original result with already_ended true', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const first = await s.endTask({ task_id: 'M2-001' });
    const again = await s.endTask({ task_id: 'M2-001', status: 'skipped' });
    assert.equal(again.already_ended, true);
    for (const key of ['run', 'start_time', 'end_time', 'duration', 'duration_ms', 'duration_iso', 'status']) {
      assert.deepEqual(again[key], first[key], key);
    }
    assert.equal(again.tasks_completed, 1);
    assert.equal(again.tasks_skipped, 0);
  });

  test('time_session_end closes running tasks as interrupted', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    await s.startTask({ task_id: 'M2-002' });
    await s.endTask({ task_id: 'M2-002' });
    const sc = await s.end();
    assert.equal(sc.tasks_interrupted, 1);
    assert.equal(sc.tasks_in_progress, 0);
    assert.equal(sc.tasks[0].status, 'interrupted');
    assert.equal(sc.tasks[0].end_time, sc.end_time, 'an interrupted task ends with the session');
  });

  test('TASK_NOT_STARTED: ending a task of the session that was never started', T, async () => {
    const s = await driver.startSession(specSession());
    const err = await driver.fail('time_task_end', { session_id: s.id, task_id: 'M2-003' }, 'TASK_NOT_STARTED');
    assert.match(err.message, /M2-003/);
    const sc = await s.summary(); // nothing changed: checked against the model
    assert.equal(sc.tasks_not_started, 5);
  });

  test('TASK_NOT_IN_SESSION: a task id the session does not have, with the valid ids', T, async () => {
    const s = await driver.startSession(specSession());
    for (const name of ['time_task_start', 'time_task_end']) {
      const err = await driver.fail(name, { session_id: s.id, task_id: 'M2-006' }, 'TASK_NOT_IN_SESSION');
      assert.match(err.message, /M2-006/);
      assert.deepEqual(err.suggestions, TASK_IDS);
    }
    const sc = await s.summary();
    assert.equal(sc.tasks_not_started, 5);
    assert.equal(sc.tasks.length, 5);
  });

  test('SESSION_NOT_FOUND for a session_id never handed out', T, async () => {
    const unknown = randomUUID();
    for (const [name, args] of [
      ['time_task_start', { task_id: 'M2-001' }], ['time_task_end', { task_id: 'M2-001' }],
      ['time_session_summary', {}], ['time_session_end', {}],
    ]) {
      const err = await driver.fail(name, { session_id: unknown, ...args }, 'SESSION_NOT_FOUND');
      assert.ok(err.message.includes(unknown), `${name}: the message must name the session: ${err.message}`);
    }
  });

  test('SESSION_ENDED: task calls after time_session_end; the summary still answers', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    await s.endTask({ task_id: 'M2-001' });
    await s.end();
    for (const [name, taskId] of [
      ['time_task_start', 'M2-002'], ['time_task_start', 'M2-001'], ['time_task_end', 'M2-001'],
      ['time_task_end', 'M2-002'],
    ]) {
      await driver.fail(name, { session_id: s.id, task_id: taskId }, 'SESSION_ENDED');
    }
    const sc = await s.summary(); // unchanged: compared with the model
    assert.equal(sc.status, 'ended');
    assert.equal(sc.tasks_completed, 1);
  });

  test('time_session_end twice: the same summary, already_ended true', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const first = await s.end();
    const second = await s.end(); // deep-equal to the first but already_ended (checked in end())
    assert.equal(first.already_ended, false);
    assert.equal(second.already_ended, true);
    assert.equal(second.end_time, first.end_time);
    assert.equal(second.total_duration_ms, first.total_duration_ms);
    const third = await s.end({ include_task_details: false });
    assert.equal(third.already_ended, true);
  });

  test('time_task_end with status \'bogus\' is a tool error VALIDATION_ERROR (2025-11-25)', T, async () => {
    assert.equal(conn.negotiatedVersion(), '2025-11-25', 'this behaviour is specific to 2025-11-25');
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const err = await driver.fail('time_task_end', { session_id: s.id, task_id: 'M2-001', status: 'bogus' },
      'VALIDATION_ERROR');
    assert.match(err.message, /status/);
    for (const status of ['completed', 'skipped']) assert.ok(err.message.includes(status), err.message);
    const sc = await s.summary(); // the task still runs
    assert.equal(sc.tasks[0].status, 'in_progress');
  });

  test('include_task_details false: the same summary without a tasks key', T, async () => {
    const s = await driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    const active = await s.summary({ include_task_details: false });
    assert.ok(!('tasks' in active));
    const ended = await s.end({ include_task_details: false });
    assert.ok(!('tasks' in ended));
    const full = await s.end(); // already ended: everything but tasks equal
    const { tasks, ...rest } = full;
    assert.equal(tasks.length, 5);
    assert.deepEqual({ ...rest, already_ended: false }, ended);
    const summary = await s.summary({ include_task_details: false });
    const { already_ended: _, ...report } = ended;
    assert.deepEqual(summary, report);
  });

  test('timezone omitted: timestamps in the host zone, as time_get_current reports it', T, async () => {
    const s = await driver.startSession({ milestone_id: 'M3', task_ids: ['only'] });
    assert.equal(s.started.timezone, driver.localZone);
    assert.notEqual(s.started.timezone.toLowerCase(), 'local');
    await s.startTask({ task_id: 'only' });
    await s.endTask({ task_id: 'only' });
    const sc = await s.end();
    assert.equal(sc.milestone_name, null);
    assert.deepEqual(sc.metadata, {});
    assert.deepEqual(sc.tags, []);
  });

  test('a session with no tasks: task_count 0, an empty tasks array', T, async () => {
    const s = await driver.startSession({ milestone_id: 'M4', task_ids: [], timezone: 'UTC' });
    assert.equal(s.started.task_count, 0);
    const sc = await s.end();
    assert.deepEqual(sc.tasks, []);
    assert.equal(sc.tasks_remaining, 0);
  });

  test('time_session_start refuses duplicate task ids and unknown zones', T, async () => {
    const dup = await driver.fail('time_session_start', { milestone_id: 'M2', task_ids: ['a', 'b', 'a'] },
      'VALIDATION_ERROR');
    assert.match(dup.message, /'a'/);
    const zone = await driver.fail('time_session_start', { ...SPEC_SESSION, timezone: 'America/NewYork' },
      'INVALID_TIMEZONE');
    assert.ok(zone.suggestions.includes(NY), JSON.stringify(zone.suggestions));
  });

  test('every session tool\'s replies were checked against its outputSchema', T, () => {
    for (const name of SESSION_TOOLS) {
      const counted = driver.checked.get(name);
      assert.ok(counted?.ok > 0, `no successful ${name} reply was checked`);
    }
    for (const name of SESSION_TOOLS) {
      assert.ok(driver.checked.get(name)?.error > 0, `no ${name} error reply was checked`);
    }
  });

  test('the SDK saw nothing on stdout but valid JSON-RPC for it', T, async () => {
    assert.deepEqual(await conn.client.ping(), {}); // a barrier: earlier output has been read
    assert.deepEqual(conn.errors(), []);
  });
});

describe('a session belongs to the connection (server process) that started it', () => {
  let a;
  let b;

  before(async () => {
    [a, b] = await Promise.all([openDriver(), openDriver()]);
  }, T);

  after(async () => {
    await Promise.all([a?.conn.close(), b?.conn.close()]);
  });

  test('process B answers SESSION_NOT_FOUND for process A\'s session, which stays usable in A', T, async () => {
    assert.notEqual(a.conn.pid(), b.conn.pid(), 'two server processes');
    const s = await a.driver.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    for (const [name, args] of [
      ['time_session_summary', {}], ['time_task_start', { task_id: 'M2-002' }],
      ['time_task_end', { task_id: 'M2-001' }], ['time_session_end', {}],
    ]) {
      await b.driver.fail(name, { session_id: s.id, ...args }, 'SESSION_NOT_FOUND');
    }
    // B's attempts changed nothing in A.
    const sc = await s.summary();
    assert.equal(sc.status, 'active');
    assert.equal(sc.tasks_in_progress, 1);
    await s.endTask({ task_id: 'M2-001' });
    await s.end();
    // And B's own session is its own.
    const other = await b.driver.startSession(specSession());
    assert.notEqual(other.id, s.id);
    await a.driver.fail('time_session_summary', { session_id: other.id }, 'SESSION_NOT_FOUND');
    assert.deepEqual(a.conn.errors(), []);
    assert.deepEqual(b.conn.errors(), []);
  });
});
