// Checks on the five session tools (spec V2): field formats, and a model of
// a tracking session that every reply is compared with.
//
// `SessionDriver` calls the tools through an SDK client and checks EVERY
// reply against the tool's declared outputSchema, twice (lib/json_schema.mjs,
// closed: no undeclared field; and the SDK's ajv), and that content[0].text is
// the same JSON as structuredContent. `TrackedSession` keeps what the server
// should know about one session (runs, statuses, timestamps, durations) and
// checks each reply against it: counts, run numbers, start/end times,
// durations and their strings, summaries entry by entry.
import assert from 'node:assert/strict';

import { makeValidator } from './json_schema.mjs';
import {
  assertSingleTextBlockMatches, assertToolError, CLOCK_TOLERANCE_MS, ISO8601_RE, intlUtcOffset,
} from './time_assertions.mjs';

export const SESSION_TOOLS = [
  'time_session_start', 'time_task_start', 'time_task_end', 'time_session_end', 'time_session_summary',
];

/** The default toolsets' tools, in tools/list order (the committed snapshot). */
export { DEFAULT_TOOLS } from './tools_snapshot.mjs';

/** RFC 9562 version 4 (random) UUID, lower case. */
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December',
];

/** "0 seconds", "29 seconds", "1 minute 13 seconds", "2 hours 5 minutes", ... */
export const DURATION_RE =
  /^(?:0 seconds|[1-9]\d* (?:day|hour|minute|second)s?(?: [1-9]\d* (?:hour|minute|second)s?)?)$/;
export const DURATION_ISO_RE = /^PT(?:0S|(?=\d)(?:[1-9]\d*H)?(?:[1-9]\d*M)?(?:[1-9]\d*S)?)$/;

/**
 * How far a duration_ms (monotonic clock) may be from the difference of the
 * ISO timestamps around it (wall clock, millisecond precision). Both are
 * read in the same call, so only a clock step during the test could exceed it.
 */
export const WALL_VS_MONO_TOLERANCE_MS = 50;

const UNIT_SECONDS = { day: 86_400, hour: 3_600, minute: 60, second: 1 };

/**
 * The human-readable form of `ms` as the spec's examples write it ("1 minute
 * 13 seconds", "29 seconds", "11 minutes 46 seconds"): whole seconds, the
 * largest non-zero unit and, when non-zero, the next smaller one.
 */
export function expectedDuration(ms) {
  const s = Math.floor(Math.max(ms, 0) / 1000);
  const parts = [
    [Math.floor(s / 86_400), 'day'], [Math.floor(s / 3_600) % 24, 'hour'],
    [Math.floor(s / 60) % 60, 'minute'], [s % 60, 'second'],
  ];
  const unit = ([n, name]) => `${n} ${name}${n === 1 ? '' : 's'}`;
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return '0 seconds';
  const out = [unit(parts[first])];
  if (first + 1 < parts.length && parts[first + 1][0] > 0) out.push(unit(parts[first + 1]));
  return out.join(' ');
}

/** The ISO 8601 duration of `ms` in whole seconds: PT0S, PT29S, PT2M34S, PT1H5S. */
export function expectedDurationIso(ms) {
  const s = Math.floor(Math.max(ms, 0) / 1000);
  if (s === 0) return 'PT0S';
  const h = Math.floor(s / 3_600);
  const m = Math.floor(s / 60) % 60;
  const sec = s % 60;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${sec ? `${sec}S` : ''}`;
}

/** The seconds a human-readable duration ("1 minute 13 seconds") stands for. */
export function durationSeconds(text) {
  assert.match(text, DURATION_RE, `${JSON.stringify(text)} is not a human-readable duration`);
  let total = 0;
  for (const [, n, name] of text.matchAll(/(\d+) (day|hour|minute|second)s?/g)) {
    total += Number(n) * UNIT_SECONDS[name];
  }
  return total;
}

/**
 * Asserts that `sc[msKey]` is a non-negative integer and that `sc[textKey]`
 * (and `sc[isoKey]` when given) are its human-readable and ISO 8601 forms.
 */
export function assertDurationFields(sc, msKey, textKey, isoKey, label = '') {
  const ms = sc[msKey];
  assert.ok(Number.isInteger(ms) && ms >= 0, `${label}${msKey} must be a non-negative integer, got ${ms}`);
  assert.equal(sc[textKey], expectedDuration(ms), `${label}${textKey} must read ${msKey} ${ms}`);
  if (isoKey) {
    assert.match(sc[isoKey], DURATION_ISO_RE, `${label}${isoKey}`);
    assert.equal(sc[isoKey], expectedDurationIso(ms), `${label}${isoKey} must be ${msKey} ${ms} in ISO 8601`);
  }
  return ms;
}

/** Asserts a monotonic duration agrees with the wall-clock timestamps around it. */
export function assertMonoMatchesWall(durationMs, wallMs, label) {
  assert.ok(Math.abs(durationMs - wallMs) <= WALL_VS_MONO_TOLERANCE_MS,
    `${label}: ${durationMs} ms measured, but the timestamps are ${wallMs} ms apart`);
}

/**
 * Asserts `ts` is an ISO 8601 timestamp with milliseconds, near now, whose
 * offset is `zone`'s offset at that instant (per the JS runtime's ICU).
 * Returns it in Unix milliseconds.
 */
export function assertZonedTimestamp(ts, zone, label) {
  assert.equal(typeof ts, 'string', `${label} must be a string`);
  assert.match(ts, ISO8601_RE, `${label}`);
  const ms = Date.parse(ts);
  assert.ok(Number.isFinite(ms), `${label}: Date cannot parse ${ts}`);
  assert.ok(Math.abs(ms - Date.now()) <= CLOCK_TOLERANCE_MS,
    `${label} ${ts} is more than ${CLOCK_TOLERANCE_MS} ms away from now (${new Date().toISOString()})`);
  assert.equal(ts.slice(-6), intlUtcOffset(zone, new Date(ms)),
    `${label} ${ts} must carry ${zone}'s offset at that instant`);
  return ms;
}

/** "2025-12-14T09:47:15.456-05:00" → "9:47:15 AM" (the time of day as written there). */
export function clockTimeOf(ts) {
  const hour = Number(ts.slice(11, 13));
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${h12}:${ts.slice(14, 16)}:${ts.slice(17, 19)} ${hour < 12 ? 'AM' : 'PM'}`;
}

/** "2025-12-14T09:45:32.123-05:00" + "EST" → "December 14, 2025 9:45:32 AM EST". */
export function friendlyOf(ts, abbreviation) {
  const month = MONTHS[Number(ts.slice(5, 7)) - 1];
  return `${month} ${Number(ts.slice(8, 10))}, ${ts.slice(0, 4)} ${clockTimeOf(ts)} ${abbreviation}`;
}

/** The abbreviation America/New_York uses with `offset`. */
export function newYorkAbbreviation(offset) {
  const abbreviation = { '-05:00': 'EST', '-04:00': 'EDT' }[offset];
  assert.ok(abbreviation, `America/New_York is never at ${offset}`);
  return abbreviation;
}

/**
 * Asserts `friendly` is the friendly form of ISO `ts`: exactly, with the
 * zone abbreviation, when `abbreviation` is known, else up to it.
 */
export function assertFriendlyOf(friendly, ts, abbreviation, label) {
  if (abbreviation) {
    assert.equal(friendly, friendlyOf(ts, abbreviation), `${label} must be the friendly form of ${ts}`);
  } else {
    const prefix = friendlyOf(ts, '');
    assert.ok(friendly.startsWith(prefix) && /^\S+$/.test(friendly.slice(prefix.length)),
      `${label} ${JSON.stringify(friendly)} must be "${prefix}<abbreviation>"`);
  }
}

/** The spec's task counts, from the latest run status of each task. */
function countsOf(statuses) {
  const c = { completed: 0, skipped: 0, failed: 0, in_progress: 0, interrupted: 0, not_started: 0 };
  for (const status of statuses) c[status] += 1;
  return {
    tasks_completed: c.completed,
    tasks_skipped: c.skipped,
    tasks_failed: c.failed,
    tasks_in_progress: c.in_progress,
    tasks_not_started: c.not_started,
    tasks_remaining: c.not_started,
    tasks_interrupted: c.interrupted,
  };
}

const COUNT_KEYS = ['tasks_completed', 'tasks_skipped', 'tasks_in_progress', 'tasks_not_started', 'tasks_remaining'];

/** Picks the task counts of a reply (summaries add tasks_interrupted; `failed` adds tasks_failed). */
export function countsIn(sc, { interrupted = false, failed = false } = {}) {
  const keys = [...COUNT_KEYS, ...(failed ? ['tasks_failed'] : []), ...(interrupted ? ['tasks_interrupted'] : [])];
  return Object.fromEntries(keys.map((k) => [k, sc[k]]));
}

/**
 * Calls the session tools through an SDK client and checks every reply
 * against the tool's outputSchema (see the module comment).
 */
export class SessionDriver {
  /**
   * @param client an SDK Client, connected
   * @param tools the tools/list result's tools
   * @param ajv the SDK's AjvJsonSchemaValidator (a second opinion)
   * @param localZone the zone "local" resolves to
   */
  constructor(client, tools, { ajv, localZone }) {
    this.client = client;
    this.localZone = localZone;
    this.validators = new Map();
    for (const tool of tools) {
      this.validators.set(tool.name, {
        own: makeValidator(tool.outputSchema, { closed: true }),
        ajv: ajv.getValidator(tool.outputSchema),
      });
    }
    /** name → {ok, error}: the replies checked against the schema. */
    this.checked = new Map();
    /** Every session_id handed out so far. */
    this.sessionIds = new Set();
    /** Ordering of tool calls, for telling parallel from sequential runs. */
    this.seq = 0;
  }

  /**
   * What is wrong with `value` as a reply of `name`: `own` (lib/json_schema,
   * closed) lists problems, `ajv` is the SDK validator's verdict.
   */
  problems(name, value) {
    const validator = this.validators.get(name);
    assert.ok(validator, `tools/list has no ${name}`);
    return { own: validator.own(value), ajv: validator.ajv(value) };
  }

  /** Asserts `sc` validates against `name`'s outputSchema (both validators). */
  assertMatchesSchema(name, sc) {
    const { own, ajv } = this.problems(name, sc);
    assert.deepEqual(own, [], `${name} reply does not match its outputSchema`);
    assert.ok(ajv.valid, `${name} reply does not match its outputSchema (ajv): ${ajv.errorMessage}`);
  }

  /** Calls a tool; checks the reply's shape and schema; returns the result. */
  async call(name, args) {
    this.seq += 1;
    const result = await this.client.callTool({ name, arguments: args });
    assert.equal(typeof result.isError, 'boolean', `${name}: isError must be a boolean`);
    const sc = result.structuredContent;
    assert.ok(sc && typeof sc === 'object' && !Array.isArray(sc), `${name}: structuredContent must be an object`);
    assertSingleTextBlockMatches(result);
    this.assertMatchesSchema(name, sc);
    if (result.isError) assert.equal(sc.error, true, `${name}: an error result must say error: true`);
    else assert.notEqual(sc.error, true, `${name}: a successful result must not say error: true`);
    const counter = this.checked.get(name) ?? { ok: 0, error: 0 };
    counter[result.isError ? 'error' : 'ok'] += 1;
    this.checked.set(name, counter);
    return result;
  }

  /** Calls a tool that must succeed; returns structuredContent. */
  async ok(name, args) {
    const result = await this.call(name, args);
    assert.equal(result.isError, false, `${name} failed: ${JSON.stringify(result.structuredContent)}`);
    return result.structuredContent;
  }

  /** Calls a tool that must fail with `errorCode`; returns structuredContent. */
  async fail(name, args, errorCode) {
    return assertToolError(await this.call(name, args), errorCode);
  }

  /**
   * time_session_start with `args`; checks the reply and returns the
   * TrackedSession that follows it. `abbreviation` (e.g. "EST"): check the
   * friendly strings exactly.
   */
  async startSession(args, { abbreviation } = {}) {
    const sc = await this.ok('time_session_start', args);
    const zone = args.timezone === undefined || args.timezone === 'local' ? this.localZone : args.timezone;
    assert.match(sc.session_id, UUID_V4_RE, 'session_id must be a UUID v4');
    assert.ok(!this.sessionIds.has(sc.session_id), `session_id ${sc.session_id} was handed out before`);
    this.sessionIds.add(sc.session_id);
    assert.equal(sc.milestone_id, args.milestone_id);
    assert.equal(sc.timezone, zone);
    assert.equal(sc.task_count, args.task_ids.length);
    const startMs = assertZonedTimestamp(sc.start_time, zone, 'session start_time');
    const abbr = abbreviation?.(sc.start_time.slice(-6));
    assertFriendlyOf(sc.start_time_friendly, sc.start_time, abbr, 'session start_time_friendly');
    return new TrackedSession(this, args, sc, { zone, startMs, abbreviation });
  }
}

/** One session as the server should see it; see the module comment. */
export class TrackedSession {
  constructor(driver, args, started, { zone, startMs, abbreviation }) {
    this.driver = driver;
    this.args = args;
    this.started = started;
    this.id = started.session_id;
    this.zone = zone;
    this.startMs = startMs;
    this.abbreviation = abbreviation;
    /** task id → its runs, in order */
    this.runs = new Map(args.task_ids.map((id) => [id, []]));
    this.ended = false;
    this.endMs = null;
    this.firstEnd = null;
    /** The latest timestamp the server reported: later ones must not be earlier. */
    this.lastMs = startMs;
  }

  /** Checks a new timestamp of this session: zone, near now, not before the last one. */
  timestamp(ts, label) {
    const ms = assertZonedTimestamp(ts, this.zone, label);
    assert.ok(ms >= this.lastMs,
      `${label} ${ts} is earlier than a timestamp reported before it (${new Date(this.lastMs).toISOString()})`);
    this.lastMs = ms;
    return ms;
  }

  friendlyAbbreviation(ts) {
    return this.abbreviation?.(ts.slice(-6));
  }

  /** The counts the server should report now. */
  counts() {
    return countsOf([...this.runs.values()].map((runs) => runs.at(-1)?.status ?? 'not_started'));
  }

  runsOf(taskId) {
    const runs = this.runs.get(taskId);
    assert.ok(runs, `test bug: ${taskId} is not one of the session's tasks`);
    return runs;
  }

  /** time_task_start; checks the reply against the model, updates it, returns the reply. */
  async startTask(args) {
    const sc = await this.driver.ok('time_task_start', { session_id: this.id, ...args });
    const label = `time_task_start ${args.task_id}: `;
    const runs = this.runsOf(args.task_id);
    const current = runs.at(-1);
    assert.equal(sc.task_id, args.task_id, `${label}task_id`);
    if (current?.status === 'in_progress') {
      assert.equal(sc.already_running, true, `${label}the task is running: already_running must be true`);
      assert.equal(sc.run, current.run, `${label}run`);
      assert.equal(sc.start_time, current.start_time, `${label}start_time must be the original one`);
      const elapsed = durationSeconds(sc.session_elapsed) * 1000;
      assert.ok(elapsed <= Date.now() - this.startMs + WALL_VS_MONO_TOLERANCE_MS,
        `${label}session_elapsed ${sc.session_elapsed} is more than the session's age`);
    } else {
      assert.equal(sc.already_running, false, `${label}already_running`);
      assert.equal(sc.run, runs.length + 1, `${label}run must count the task's runs`);
      const startMs = this.timestamp(sc.start_time, `${label}start_time`);
      // Whole seconds since the session started, from the monotonic clock.
      const elapsed = durationSeconds(sc.session_elapsed) * 1000;
      const wall = startMs - this.startMs;
      assert.ok(elapsed <= wall + WALL_VS_MONO_TOLERANCE_MS && wall < elapsed + 1000 + WALL_VS_MONO_TOLERANCE_MS,
        `${label}session_elapsed ${sc.session_elapsed}, but the task started ${wall} ms after the session`);
      runs.push({
        run: sc.run,
        status: 'in_progress',
        start_time: sc.start_time,
        startMs,
        startSeq: this.driver.seq,
        end_time: null,
        endMs: null,
        endSeq: null,
        duration_ms: null,
        task_name: args.task_name ?? null,
        external_task_id: args.external_task_id ?? null,
        work_item_id: args.work_item_id ?? null,
        metadata: args.metadata ?? {},
        completion_metadata: {},
      });
    }
    assert.equal(sc.start_time_friendly, clockTimeOf(sc.start_time), `${label}start_time_friendly`);
    assert.deepEqual(countsIn(sc, { failed: true }), countsIn(this.counts(), { failed: true }), `${label}counts`);
    return sc;
  }

  /** time_task_end; checks the reply against the model, updates it, returns the reply. */
  async endTask(args) {
    const sc = await this.driver.ok('time_task_end', { session_id: this.id, ...args });
    const label = `time_task_end ${args.task_id}: `;
    const current = this.runsOf(args.task_id).at(-1);
    assert.ok(current, `test bug: ${args.task_id} was never started`);
    assert.equal(sc.task_id, args.task_id, `${label}task_id`);
    assert.equal(sc.error, false, `${label}error must be false`);
    assert.equal(sc.run, current.run, `${label}run`);
    assert.equal(sc.start_time, current.start_time, `${label}start_time must be the run's start`);
    assertDurationFields(sc, 'duration_ms', 'duration', 'duration_iso', label);
    assert.equal(sc.duration_source, 'monotonic', `${label}duration_source`);
    if (current.status === 'in_progress') {
      assert.equal(sc.already_ended, false, `${label}already_ended`);
      assert.equal(sc.status, args.status ?? 'completed', `${label}status`);
      const endMs = this.timestamp(sc.end_time, `${label}end_time`);
      assertMonoMatchesWall(sc.duration_ms, endMs - current.startMs, `${label}duration_ms`);
      Object.assign(current, {
        status: sc.status,
        end_time: sc.end_time,
        endMs,
        endSeq: this.driver.seq,
        duration_ms: sc.duration_ms,
        completion_metadata: args.metadata ?? {},
      });
    } else {
      // A repeated call: the run's original outcome, nothing changed.
      assert.equal(sc.already_ended, true, `${label}the run has ended: already_ended must be true`);
      assert.equal(sc.status, current.status, `${label}status must be the original one`);
      assert.equal(sc.end_time, current.end_time, `${label}end_time must be the original one`);
      assert.equal(sc.duration_ms, current.duration_ms, `${label}duration_ms must be the original one`);
    }
    assert.deepEqual(countsIn(sc, { failed: true }), countsIn(this.counts(), { failed: true }), `${label}counts`);
    return sc;
  }

  /** time_session_summary; checks the whole reply against the model. */
  async summary({ include_task_details: details } = {}) {
    const args = { session_id: this.id };
    if (details !== undefined) args.include_task_details = details;
    const sc = await this.driver.ok('time_session_summary', args);
    this.checkSummary(sc, { includeTasks: details !== false, label: 'time_session_summary: ' });
    assert.ok(!('already_ended' in sc), 'time_session_summary does not report already_ended');
    return sc;
  }

  /**
   * time_session_end; checks the whole reply against the model (running
   * runs become interrupted at the session's end). A repeated call must
   * return the first reply with already_ended true.
   */
  async end({ include_task_details: details } = {}) {
    const args = { session_id: this.id };
    if (details !== undefined) args.include_task_details = details;
    const wasEnded = this.ended;
    const sc = await this.driver.ok('time_session_end', args);
    const label = 'time_session_end: ';
    assert.equal(sc.already_ended, wasEnded, `${label}already_ended`);
    if (!wasEnded) {
      this.ended = true;
      this.endMs = this.timestamp(sc.end_time, `${label}end_time`);
      for (const runs of this.runs.values()) {
        const last = runs.at(-1);
        if (last?.status === 'in_progress') {
          Object.assign(last, { status: 'interrupted', end_time: sc.end_time, endMs: this.endMs, endSeq: this.driver.seq });
        }
      }
      this.firstEnd = sc;
    }
    this.checkSummary(sc, { includeTasks: details !== false, label });
    if (wasEnded) {
      const withoutTasks = ({ tasks, ...rest }) => rest;
      assert.deepEqual(withoutTasks(sc), { ...withoutTasks(this.firstEnd), already_ended: true },
        `${label}a repeated call must return the first summary, with already_ended true`);
      if ('tasks' in sc && 'tasks' in this.firstEnd) {
        assert.deepEqual(sc.tasks, this.firstEnd.tasks, `${label}a repeated call must return the same tasks`);
      }
    }
    return sc;
  }

  /** Checks a summary (time_session_summary or time_session_end) against the model. */
  checkSummary(sc, { includeTasks, label }) {
    const { args } = this;
    assert.equal(sc.session_id, this.id, `${label}session_id`);
    assert.equal(sc.milestone_id, args.milestone_id, `${label}milestone_id`);
    assert.equal(sc.milestone_name, args.milestone_name ?? null, `${label}milestone_name`);
    assert.equal(sc.status, this.ended ? 'ended' : 'active', `${label}status`);
    assert.equal(sc.timezone, this.zone, `${label}timezone`);
    assert.deepEqual(sc.metadata, args.metadata ?? {}, `${label}metadata`);
    assert.deepEqual(sc.tags, args.tags ?? [], `${label}tags`);
    assert.equal(sc.start_time, this.started.start_time, `${label}start_time`);
    assert.equal(sc.start_time_friendly, this.started.start_time_friendly, `${label}start_time_friendly`);

    // end_time: the session's end once ended, else now.
    let endMs;
    if (this.ended) {
      endMs = assertZonedTimestamp(sc.end_time, this.zone, `${label}end_time`);
      assert.equal(endMs, this.endMs, `${label}end_time must be the session's end`);
    } else {
      endMs = this.timestamp(sc.end_time, `${label}end_time (now)`);
    }
    assertFriendlyOf(sc.end_time_friendly, sc.end_time, this.friendlyAbbreviation(sc.end_time),
      `${label}end_time_friendly`);

    const total = assertDurationFields(sc, 'total_duration_ms', 'total_duration', 'total_duration_iso', label);
    assert.equal(sc.duration_source, 'monotonic', `${label}duration_source`);
    assertMonoMatchesWall(total, endMs - this.startMs, `${label}total_duration_ms`);
    const busy = assertDurationFields(sc, 'busy_duration_ms', 'busy_duration', undefined, label);
    const taskTime = assertDurationFields(sc, 'task_time_ms', 'task_time', undefined, label);
    assert.ok(busy <= total, `${label}busy_duration_ms ${busy} exceeds total_duration_ms ${total}`);

    assert.equal(sc.task_count, args.task_ids.length, `${label}task_count`);
    const { tasks_failed: failed, ...counts } = this.counts();
    assert.deepEqual(countsIn(sc, { interrupted: true }), counts, `${label}counts`);
    assert.equal(sc.tasks_failed, failed, `${label}tasks_failed`);
    const { tasks_completed: c, tasks_skipped: s, tasks_failed: f, tasks_in_progress: p, tasks_interrupted: i,
      tasks_not_started: n } = sc;
    assert.equal(c + s + f + p + i + n, sc.task_count, `${label}the counts must add up to task_count`);

    // Every run, in task_ids order then run order; never-started tasks once.
    const allRuns = [...this.runs.values()].flat();
    const expected = [];
    for (const [taskId, runs] of this.runs) {
      if (runs.length === 0) expected.push({ task_id: taskId, run: null });
      for (const run of runs) expected.push({ task_id: taskId, ...run });
    }
    if (!includeTasks) {
      assert.ok(!('tasks' in sc), `${label}include_task_details false: there must be no tasks key`);
    } else {
      assert.ok(Array.isArray(sc.tasks), `${label}tasks must be an array`);
      assert.deepEqual(sc.tasks.map((t) => [t.task_id, t.run, t.status]),
        expected.map((t) => [t.task_id, t.run, t.status ?? 'not_started']),
        `${label}tasks: one entry per run, in task order`);
      sc.tasks.forEach((entry, k) => this.checkTaskEntry(entry, expected[k], { endMs, total, label: `${label}tasks[${k}] ${entry.task_id}: ` }));
      const sum = sc.tasks.reduce((acc, t) => acc + (t.duration_ms ?? 0), 0);
      assert.equal(taskTime, sum, `${label}task_time_ms must be the sum of the tasks' duration_ms`);
      const longest = Math.max(0, ...sc.tasks.map((t) => t.duration_ms ?? 0));
      assert.ok(busy >= longest, `${label}busy_duration_ms ${busy} is less than one run's ${longest}`);
    }
    // The union of the runs is at most their sum (each run's milliseconds are
    // floored separately, hence the slack of one per run); for runs one after
    // the other it is their sum.
    assert.ok(busy <= taskTime + Math.max(0, allRuns.length - 1),
      `${label}busy_duration_ms ${busy} exceeds task_time_ms ${taskTime}`);
    const byStart = [...allRuns].sort((a, b) => a.startSeq - b.startSeq);
    const sequential = byStart.every((run, k) => k === 0 ||
      (byStart[k - 1].endSeq !== null && byStart[k - 1].endSeq < run.startSeq));
    if (sequential) {
      assert.ok(busy >= taskTime, `${label}runs one after the other: busy_duration_ms ${busy} < task_time_ms ${taskTime}`);
    }
  }

  /** Checks one entry of a summary's tasks against the model's run. */
  checkTaskEntry(entry, run, { endMs, total, label }) {
    if (run.run === null) {
      assert.deepEqual(entry, {
        task_id: run.task_id,
        task_name: null,
        external_task_id: null,
        work_item_id: null,
        run: null,
        start_time: null,
        end_time: null,
        duration: null,
        duration_ms: null,
        duration_iso: null,
        duration_source: null,
        status: 'not_started',
        metadata: {},
        completion_metadata: {},
      }, `${label}a task never started`);
      return;
    }
    for (const key of ['task_name', 'external_task_id', 'work_item_id', 'metadata', 'completion_metadata',
      'start_time']) {
      assert.deepEqual(entry[key], run[key], `${label}${key}`);
    }
    assertDurationFields(entry, 'duration_ms', 'duration', 'duration_iso', label);
    // Within one boot every duration comes from the monotonic clock.
    assert.equal(entry.duration_source, 'monotonic', `${label}duration_source`);
    assert.ok(entry.duration_ms <= total, `${label}duration_ms ${entry.duration_ms} exceeds the session's ${total}`);
    if (run.status === 'in_progress') {
      assert.equal(entry.end_time, null, `${label}a running task has no end_time`);
      assertMonoMatchesWall(entry.duration_ms, endMs - run.startMs, `${label}time so far`);
      return;
    }
    assert.equal(entry.end_time, run.end_time, `${label}end_time`);
    if (run.duration_ms === null) {
      // Interrupted by time_session_end: its duration runs to the session's end.
      assertMonoMatchesWall(entry.duration_ms, run.endMs - run.startMs, `${label}duration_ms`);
      run.duration_ms = entry.duration_ms;
    }
    assert.equal(entry.duration_ms, run.duration_ms, `${label}duration_ms must be the run's`);
  }
}
