// Assertions on `time_get_current` results, shared by the SDK and raw tests.
import assert from 'node:assert/strict';

export const TOOL_NAME = 'time_get_current';
export const FORMATS = ['iso8601', 'unix', 'unix_ms', 'friendly'];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export const ISO8601_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;
export const UNIX_RE = /^\d+$/;
export const FRIENDLY_RE =
  /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4} \d{1,2}:\d\d:\d\d (AM|PM) \S+$/;
export const UTC_OFFSET_RE = /^[+-]\d\d:\d\d$/;
export const UTC_ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * How far a reported time may be from the test's clock: the call's latency.
 * The ThreadSanitizer pass sets TTM_CLOCK_TOLERANCE_MS (tests/CMakeLists.txt):
 * its servers answer 5-15 times slower, past 5 s under load.
 */
export const CLOCK_TOLERANCE_MS = Number(process.env.TTM_CLOCK_TOLERANCE_MS ?? 5_000);

/** Asserts one text content block whose JSON equals structuredContent. */
export function assertSingleTextBlockMatches(result) {
  assert.ok(Array.isArray(result.content), 'content must be an array');
  assert.equal(result.content.length, 1, 'content must hold exactly one block');
  const [block] = result.content;
  assert.equal(block.type, 'text', 'the content block must be text');
  assert.equal(typeof block.text, 'string');
  let parsed;
  assert.doesNotThrow(() => { parsed = JSON.parse(block.text); },
    `the text block must be JSON, got ${JSON.stringify(block.text)}`);
  assert.deepEqual(parsed, result.structuredContent,
    'the text block must be the same JSON as structuredContent');
}

/**
 * Asserts a successful tool result: isError false, one text block whose JSON
 * equals structuredContent, and the common fields well typed. Returns
 * structuredContent.
 */
export function assertTimeResult(result) {
  assert.equal(result.isError, false,
    `expected a successful result, got ${JSON.stringify(result)}`);
  const sc = result.structuredContent;
  assert.ok(sc && typeof sc === 'object', 'structuredContent must be an object');
  assertSingleTextBlockMatches(result);

  assert.equal(typeof sc.timestamp, 'string', 'timestamp must be a string');
  assert.equal(typeof sc.timezone, 'string', 'timezone must be a string');
  assert.ok(sc.timezone.length > 0, 'timezone must not be empty');
  assert.notEqual(sc.timezone.toLowerCase(), 'local', 'timezone must be resolved, never "local"');
  assert.match(sc.utc_offset, UTC_OFFSET_RE);
  assert.ok(WEEKDAYS.includes(sc.day_of_week), `day_of_week ${sc.day_of_week} is not an English weekday`);
  assert.equal(typeof sc.is_dst, 'boolean', 'is_dst must be a boolean');
  assert.equal(typeof sc.abbreviation, 'string', 'abbreviation must be a string');
  assert.ok(sc.abbreviation.length > 0, 'abbreviation must not be empty');
  assert.match(sc.utc, UTC_ISO_RE);
  assert.ok(Math.abs(Date.parse(sc.utc) - Date.now()) <= CLOCK_TOLERANCE_MS,
    `utc ${sc.utc} is more than ${CLOCK_TOLERANCE_MS} ms away from now`);
  for (const [field, min, max] of [['iso_week', 1, 53], ['day_of_year', 1, 366], ['quarter', 1, 4],
    ['days_in_month', 28, 31]]) {
    assert.ok(Number.isInteger(sc[field]) && sc[field] >= min && sc[field] <= max,
      `${field} ${sc[field]} must be an integer in ${min}..${max}`);
  }
  assert.ok(Number.isInteger(sc.iso_week_year), 'iso_week_year must be an integer');
  assert.equal(sc.is_weekend, sc.day_of_week === 'Saturday' || sc.day_of_week === 'Sunday',
    'is_weekend must say whether day_of_week is Saturday or Sunday');
  return sc;
}

/**
 * Asserts an iso8601 timestamp: the pattern, within CLOCK_TOLERANCE_MS of
 * now, its offset equal to utc_offset, and day_of_week matching its date.
 */
export function assertIso8601Now(sc) {
  assert.match(sc.timestamp, ISO8601_RE);
  const parsed = Date.parse(sc.timestamp);
  assert.ok(Number.isFinite(parsed), `Date cannot parse ${sc.timestamp}`);
  assert.ok(Math.abs(parsed - Date.now()) <= CLOCK_TOLERANCE_MS,
    `${sc.timestamp} is more than ${CLOCK_TOLERANCE_MS} ms away from now (${new Date().toISOString()})`);
  assert.ok(sc.timestamp.endsWith(sc.utc_offset),
    `timestamp ${sc.timestamp} must end with utc_offset ${sc.utc_offset}`);
  const [year, month, day] = sc.timestamp.slice(0, 10).split('-').map(Number);
  const weekday = WEEKDAYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()];
  assert.equal(sc.day_of_week, weekday, `day_of_week must be the weekday of ${sc.timestamp}`);
  assert.equal(Date.parse(sc.utc), parsed, `utc ${sc.utc} must be the instant ${sc.timestamp}`);
  assert.equal(sc.quarter, Math.floor((month - 1) / 3) + 1, `quarter must be that of ${sc.timestamp}`);
  assert.equal(sc.days_in_month, new Date(Date.UTC(year, month, 0)).getUTCDate(),
    `days_in_month must be that of ${sc.timestamp}`);
}

export function assertUnixNow(sc) {
  assert.match(sc.timestamp, UNIX_RE);
  const seconds = Number(sc.timestamp);
  assert.ok(Math.abs(seconds - Date.now() / 1000) <= CLOCK_TOLERANCE_MS / 1000,
    `unix time ${sc.timestamp} is more than ${CLOCK_TOLERANCE_MS / 1000} s away from now`);
}

export function assertUnixMsNow(sc) {
  assert.match(sc.timestamp, UNIX_RE);
  const millis = Number(sc.timestamp);
  assert.ok(Math.abs(millis - Date.now()) <= CLOCK_TOLERANCE_MS,
    `unix_ms time ${sc.timestamp} is more than ${CLOCK_TOLERANCE_MS} ms away from now`);
}

export function assertFriendly(sc) {
  assert.match(sc.timestamp, FRIENDLY_RE);
  assert.ok(sc.timestamp.endsWith(` ${sc.abbreviation}`),
    `friendly time ${JSON.stringify(sc.timestamp)} must end with the abbreviation ${sc.abbreviation}`);
}

/** The offset of IANA `zone` now as "+05:45", computed by the JS runtime's ICU. */
export function intlUtcOffset(zone, at = new Date()) {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at).find((part) => part.type === 'timeZoneName').value; // "GMT+05:45" or "GMT"
  return name === 'GMT' ? '+00:00' : name.slice(3);
}

/**
 * Asserts a tool execution error (isError true) whose structuredContent is
 * {error: true, error_code, message, ...} and whose text block is the same
 * JSON. Returns structuredContent.
 */
export function assertToolError(result, errorCode) {
  assert.equal(result.isError, true, `expected isError true, got ${JSON.stringify(result)}`);
  const sc = result.structuredContent;
  assert.ok(sc && typeof sc === 'object', 'an error result must carry structuredContent');
  assertSingleTextBlockMatches(result);
  assert.equal(sc.error, true, 'structuredContent.error must be true');
  assert.equal(sc.error_code, errorCode, `expected error_code ${errorCode}, got ${JSON.stringify(sc)}`);
  assert.equal(typeof sc.message, 'string');
  assert.ok(sc.message.length > 0, 'the error message must not be empty');
  return sc;
}
