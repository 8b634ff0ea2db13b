// time_convert driven by the official MCP TypeScript SDK over stdio (issue
// 18): the SDK validates every structuredContent against the listed
// outputSchema, refusals included; a second validator checks it closed.
// Run: TTM_BINARY=/abs/path node --test sdk_convert.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

describe('time_convert over the SDK', () => {
  let conn;
  let validate;

  before(async () => {
    conn = await connect(BINARY);
    const { tools } = await conn.client.listTools();
    const tool = tools.find((t) => t.name === 'time_convert');
    assert.ok(tool, 'tools/list includes time_convert');
    assert.deepEqual(
      [tool.annotations.readOnlyHint, tool.annotations.destructiveHint,
        tool.annotations.idempotentHint, tool.annotations.openWorldHint],
      [true, false, true, false]);
    assert.deepEqual(tool.inputSchema.required, ['time', 'to_timezones']);
    assert.equal(tool.inputSchema.properties.to_timezones.maxItems, 20);
    assert.match(tool.description, /server's zone, which may not be the user's/);
    validate = makeValidator(tool.outputSchema);
  });

  after(async () => {
    assert.deepEqual(conn.errors(), []);
    await conn.close();
  });

  async function convert(args) {
    const result = await conn.client.callTool({ name: 'time_convert', arguments: args });
    assert.deepEqual(validate(result.structuredContent), [], JSON.stringify(result.structuredContent));
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    return result;
  }

  test('a Berlin evening is the next morning in Tokyo', T, async () => {
    const result = await convert({
      time: '2026-06-10T20:00', from_timezone: 'Europe/Berlin',
      to_timezones: ['Asia/Tokyo', 'Asia/Kathmandu', 'America/New_York'],
    });
    assert.equal(result.isError, false);
    const { source, results } = result.structuredContent;
    assert.equal(source.timestamp, '2026-06-10T20:00:00.000+02:00');
    assert.equal(source.interpreted_as, 'local');
    assert.equal(source.input_offset, null);
    assert.deepEqual(results.map((r) => [r.timezone, r.timestamp, r.date_difference]), [
      ['Asia/Tokyo', '2026-06-11T03:00:00.000+09:00', '+1 day'],
      ['Asia/Kathmandu', '2026-06-10T23:45:00.000+05:45', 'same day'],
      ['America/New_York', '2026-06-10T14:00:00.000-04:00', 'same day'],
    ]);
    assert.equal(results[0].friendly, 'June 11, 2026 3:00:00 AM JST');
    assert.equal(results[2].is_dst, true);
  });

  test('a local time in the spring gap is refused with NONEXISTENT_LOCAL_TIME, or shifted on request', T, async () => {
    const refused = await convert({
      time: '2026-03-29T02:30', from_timezone: 'Europe/Berlin', to_timezones: ['UTC'],
    });
    assert.equal(refused.isError, true);
    const sc = refused.structuredContent;
    assert.equal(sc.error_code, 'NONEXISTENT_LOCAL_TIME');
    assert.match(sc.message,
      /^2026-03-29T02:30 does not exist in Europe\/Berlin: clocks went from 02:00 \+01:00 to 03:00 \+02:00/);
    assert.deepEqual(sc.suggestions, ['2026-03-29T01:30:00+01:00', '2026-03-29T03:30:00+02:00']);

    const shifted = await convert({
      time: '2026-03-29T02:30', from_timezone: 'Europe/Berlin', to_timezones: ['UTC'],
      disambiguation: 'compatible',
    });
    assert.equal(shifted.isError, false);
    assert.equal(shifted.structuredContent.source.timestamp, '2026-03-29T03:30:00.000+02:00');
    assert.equal(shifted.structuredContent.source.disambiguation, 'later');
    assert.equal(shifted.structuredContent.results[0].timestamp, '2026-03-29T01:30:00.000+00:00');
  });

  test('a local time in the autumn overlap is refused with AMBIGUOUS_LOCAL_TIME listing both', T, async () => {
    const refused = await convert({
      time: '2026-10-25T02:30', from_timezone: 'Europe/Berlin', to_timezones: ['UTC'],
    });
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.error_code, 'AMBIGUOUS_LOCAL_TIME');
    assert.deepEqual(refused.structuredContent.suggestions,
      ['2026-10-25T02:30:00+02:00', '2026-10-25T02:30:00+01:00']);
  });

  test('bad arguments are VALIDATION_ERROR or INVALID_TIMEZONE', T, async () => {
    const duplicate = await convert({ time: 'now', to_timezones: ['UTC', 'UTC'] });
    assert.equal(duplicate.structuredContent.error_code, 'VALIDATION_ERROR');
    const unreadable = await convert({ time: 'next fortnight', to_timezones: ['UTC'] });
    assert.equal(unreadable.structuredContent.error_code, 'VALIDATION_ERROR');
    assert.match(unreadable.structuredContent.message, /docs\/time-grammar\.md/);
    const zone = await convert({ time: 'now', to_timezones: ['Asia/Tokio'] });
    assert.equal(zone.structuredContent.error_code, 'INVALID_TIMEZONE');
    assert.ok(zone.structuredContent.suggestions.includes('Asia/Tokyo'));
  });
});
