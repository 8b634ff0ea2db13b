// Windows zone names and locales (issue 18 items 5 and 6) driven by the
// official MCP TypeScript SDK over stdio, with --local-timezone set to a
// Windows name: results are checked against the listed outputSchema.
// Run: TTM_BINARY=/abs/path node --test sdk_i18n.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

describe('Windows zones and locales over the SDK', () => {
  let conn;
  const validators = {};

  before(async () => {
    conn = await connect(BINARY, { args: ['--local-timezone', 'Eastern Standard Time'] });
    const { tools } = await conn.client.listTools();
    for (const name of ['time_get_current', 'time_convert']) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `tools/list includes ${name}`);
      const locale = tool.inputSchema.properties.locale;
      assert.equal(locale.type, 'string');
      assert.equal(locale.default, 'en-US');
      validators[name] = makeValidator(tool.outputSchema);
    }
  });

  after(async () => {
    assert.deepEqual(conn.errors(), []);
    await conn.close();
  });

  async function call(name, args) {
    const result = await conn.client.callTool({ name, arguments: args });
    assert.deepEqual(validators[name](result.structuredContent), [],
      JSON.stringify(result.structuredContent));
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    return result;
  }

  test('Windows names in, IANA names and German dates out', T, async () => {
    const result = await call('time_convert', {
      time: '2026-03-29T03:30', from_timezone: 'W. Europe Standard Time',
      to_timezones: ['Eastern Standard Time', 'tokyo standard time', 'India Standard Time'],
      locale: 'de-DE',
    });
    assert.equal(result.isError, false);
    const { source, results } = result.structuredContent;
    assert.equal(source.timezone, 'Europe/Berlin');
    assert.equal(source.friendly, '29. März 2026 um 03:30:00 CEST');
    assert.equal(source.timestamp, '2026-03-29T03:30:00.000+02:00');
    assert.deepEqual(results.map((r) => [r.timezone, r.friendly, r.date_difference]), [
      ['America/New_York', '28. März 2026 um 21:30:00 EDT', '-1 day'],
      ['Asia/Tokyo', '29. März 2026 um 10:30:00 JST', 'same day'],
      ['Asia/Kolkata', '29. März 2026 um 07:00:00 IST', 'same day'],
    ]);
  });

  test("'local' is the Windows name's IANA zone; ja-JP friendly", T, async () => {
    const result = await call('time_get_current', { format: 'friendly', locale: 'ja-JP' });
    assert.equal(result.isError, false);
    const sc = result.structuredContent;
    assert.equal(sc.timezone, 'America/New_York');
    assert.match(sc.timestamp, /^\d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2}:\d{2} E[SD]T$/);
  });

  test('an unknown locale is a VALIDATION_ERROR with valid tags', T, async () => {
    const result = await call('time_get_current', { format: 'friendly', locale: 'xx-YY' });
    assert.equal(result.isError, true);
    const sc = result.structuredContent;
    assert.equal(sc.error_code, 'VALIDATION_ERROR');
    assert.equal(sc.message,
      "locale: 'xx-YY' is not a locale this server knows; e.g. en-US, de-DE, ja-JP, fr-CA");
    assert.deepEqual(sc.suggestions, ['en-US', 'de-DE', 'ja-JP', 'fr-CA']);
  });

  test('a misspelt Windows name gets Windows names suggested', T, async () => {
    const result = await call('time_convert', { time: 'now', to_timezones: ['Eastern Standart Time'] });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error_code, 'INVALID_TIMEZONE');
    assert.equal(result.structuredContent.suggestions[0], 'Eastern Standard Time');
  });
});
