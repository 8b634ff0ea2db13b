// time_calculate driven by the official MCP TypeScript SDK over stdio (issue
// 18 item 3): the SDK validates every structuredContent against the listed
// outputSchema, refusals included; a second validator checks it closed.
// Run: TTM_BINARY=/abs/path node --test sdk_calculate.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect, connectV2Stdio } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

describe('time_calculate over the SDK', () => {
  let conn;
  let validate;

  before(async () => {
    conn = await connect(BINARY);
    const { tools } = await conn.client.listTools();
    const tool = tools.find((t) => t.name === 'time_calculate');
    assert.ok(tool, 'tools/list includes time_calculate');
    assert.deepEqual(
      [tool.annotations.readOnlyHint, tool.annotations.destructiveHint,
        tool.annotations.idempotentHint, tool.annotations.openWorldHint],
      [true, false, true, false]);
    assert.deepEqual(tool.inputSchema.required, ['operation', 'start']);
    assert.deepEqual(tool.inputSchema.properties.operation.enum,
      ['add', 'subtract', 'difference', 'business_days']);
    assert.deepEqual(tool.inputSchema.properties.weekend.items.enum,
      ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']);
    assert.match(tool.description, /no\s+holiday data is built in/);
    validate = makeValidator(tool.outputSchema);
  });

  after(async () => {
    assert.deepEqual(conn.errors(), []);
    await conn.close();
  });

  async function calculate(args) {
    const result = await conn.client.callTool({ name: 'time_calculate', arguments: args });
    assert.deepEqual(validate(result.structuredContent), [], JSON.stringify(result.structuredContent));
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    return result;
  }

  test('P1D keeps the wall time across the Berlin spring change, PT24H the elapsed time', T, async () => {
    const day = await calculate({
      operation: 'add', start: '2026-03-28T12:00', duration: 'P1D', timezone: 'Europe/Berlin',
    });
    assert.equal(day.isError, false);
    const { result } = day.structuredContent;
    assert.equal(result.timestamp, '2026-03-29T12:00:00.000+02:00');
    assert.equal(result.abbreviation, 'CEST');
    assert.equal(result.is_dst, true);
    assert.equal(result.disambiguation, null);
    assert.equal(result.elapsed_ms, 23 * 3_600_000);
    const hours = await calculate({
      operation: 'add', start: '2026-03-28T12:00', duration: 'PT24H', timezone: 'Europe/Berlin',
    });
    assert.equal(hours.structuredContent.result.timestamp, '2026-03-29T13:00:00.000+02:00');
  });

  test('a calendar step into the gap is shifted and labelled, or refused on request', T, async () => {
    const shifted = await calculate({
      operation: 'add', start: '2026-03-28T02:30', duration: 'P1D', timezone: 'Europe/Berlin',
    });
    assert.equal(shifted.structuredContent.result.timestamp, '2026-03-29T03:30:00.000+02:00');
    assert.equal(shifted.structuredContent.result.disambiguation, 'later');
    const refused = await calculate({
      operation: 'add', start: '2026-03-28T02:30', duration: 'P1D', timezone: 'Europe/Berlin',
      result_disambiguation: 'reject',
    });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error_code, 'NONEXISTENT_LOCAL_TIME');
    assert.deepEqual(refused.structuredContent.suggestions,
      ['2026-03-29T01:30:00+01:00', '2026-03-29T03:30:00+02:00']);
  });

  test('difference: exact and calendar, negative when end is first', T, async () => {
    const res = await calculate({
      operation: 'difference', start: '2026-10-26T09:00', end: '2026-01-31T08:30', timezone: 'Europe/Berlin',
    });
    const d = res.structuredContent.difference;
    assert.equal(d.negative, true);
    assert.equal(d.calendar.duration_iso, '-P8M26DT30M'); // counted from Jan 31: Sep 30, then 26 days
    assert.equal(d.duration_iso, '-PT6432H30M');
    assert.equal(d.duration, '268 days'); // its two largest units: days and (zero) hours
    assert.equal(d.duration_ms, -(6432 * 60 + 30) * 60_000);
  });

  test('business_days: count with holidays, add with another weekend', T, async () => {
    const count = await calculate({
      operation: 'business_days', start: '2026-12-23', end: '2027-01-04', timezone: 'UTC',
      holidays: ['2026-12-24', '2026-12-25', '2027-01-01'],
    });
    assert.equal(count.structuredContent.business_days.count, 5);
    assert.equal(count.structuredContent.business_days.holidays_excluded, 3);
    const add = await calculate({
      operation: 'business_days', start: '2026-03-26', days: 1, timezone: 'UTC',
      weekend: ['friday', 'saturday'],
    });
    assert.equal(add.structuredContent.business_days.end_date, '2026-03-29');
    assert.equal(add.structuredContent.business_days.end_day_of_week, 'Sunday');
  });

  test('bad arguments are VALIDATION_ERROR or INVALID_TIMEZONE naming the field', T, async () => {
    const duration = await calculate({ operation: 'add', start: 'now', duration: 'P1H' });
    assert.equal(duration.structuredContent.error_code, 'VALIDATION_ERROR');
    assert.match(duration.structuredContent.message, /^duration: .*Accepted form:/);
    const missing = await calculate({ operation: 'difference', start: 'now' });
    assert.match(missing.structuredContent.message, /^end: required/);
    const zone = await calculate({ operation: 'add', start: 'now', duration: 'P1D', timezone: 'Asia/Tokio' });
    assert.equal(zone.structuredContent.error_code, 'INVALID_TIMEZONE');
    assert.ok(zone.structuredContent.suggestions.includes('Asia/Tokyo'));
  });
});

// Issue 19: the output schema is compacted (the repeated timestamp object
// once under $defs, {"$ref": "#/$defs/..."} where it is used). Both SDK
// generations validate replies against it: v1 (ajv) above, v2 here.
describe('time_calculate\'s compacted output schema over the SDK v2 (2026-07-28)', () => {
  test('$defs and $ref: the v2 client and the closed validator accept a difference and a refusal', T, async () => {
    const v2 = await connectV2Stdio(BINARY);
    try {
      const { tools } = await v2.client.listTools();
      const tool = tools.find((t) => t.name === 'time_calculate');
      assert.ok(tool.outputSchema.$defs, 'the repeated object is in $defs');
      const refs = JSON.stringify(tool.outputSchema).match(/"\$ref":"#\/\$defs\/[a-z_0-9]+"/g) ?? [];
      assert.ok(refs.length >= 2, `used at least twice: ${refs}`);
      const check = makeValidator(tool.outputSchema, { closed: true });
      const diff = await v2.client.callTool({ name: 'time_calculate', arguments: {
        operation: 'difference', start: '2026-03-28T12:00', end: '2026-03-29T12:00', timezone: 'Europe/Berlin',
      } });
      assert.equal(diff.isError, false, JSON.stringify(diff.structuredContent));
      assert.deepEqual(check(diff.structuredContent), []);
      assert.equal(diff.structuredContent.start.timestamp, '2026-03-28T12:00:00.000+01:00');
      const bad = await v2.client.callTool({ name: 'time_calculate', arguments: {
        operation: 'add', start: '2026-03-28T12:00', duration: 'P1D', timezone: 'Mars/Olympus',
      } });
      assert.equal(bad.isError, true);
      assert.deepEqual(check(bad.structuredContent), []);
    } finally {
      await v2.close();
    }
  });
});
