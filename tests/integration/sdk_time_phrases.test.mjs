// The time grammar's phrases (issue 30, docs/time-grammar.md) through every
// tool that takes a time, driven by the official MCP TypeScript SDK over
// stdio. The server runs on the real clock, so each phrase is checked
// against a form that names the same instant (an ISO date-time, or an
// older phrase of the grammar), read in the same call or the next.
// Run: TTM_BINARY=/abs/path node --test sdk_time_phrases.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

// phrase, and a form naming the same instant.
const SAME = [
  ['tomorrow at 9am', 'tomorrow at 09:00'],
  ['9am tomorrow', 'tomorrow at 09:00'],
  ['noon tomorrow', 'tomorrow at 12:00'],
  ['next friday 3pm', 'next friday at 15:00'],
  ['the day after tomorrow at 10:30pm', 'in 2 days at 22:30'],
  ['Dec 25, 2026 at 3pm', '2026-12-25T15:00'],
  ['25 December 2026', '2026-12-25'],
  ['March 3rd 2027 at 14:00', '2027-03-03T14:00'],
  ['12/25/2026 3pm', '2026-12-25T15:00'],
  ['end of the month', 'end of month'],
];

describe('time phrases through every tool that takes a time', () => {
  let conn;
  const validators = {};

  before(async () => {
    conn = await connect(BINARY);
    const { tools } = await conn.client.listTools();
    for (const name of ['time_convert', 'time_calculate', 'time_session_list', 'time_stats']) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `tools/list includes ${name}`);
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
    return result;
  }

  test('time_convert reads each phrase as the instant of its plain form', T, async () => {
    for (const [phrase, plain] of SAME) {
      const args = { from_timezone: 'America/New_York', to_timezones: ['UTC'] };
      const a = await call('time_convert', { ...args, time: phrase });
      const b = await call('time_convert', { ...args, time: plain });
      assert.equal(a.isError, false, `${phrase}: ${JSON.stringify(a.structuredContent)}`);
      assert.equal(a.structuredContent.source.timestamp, b.structuredContent.source.timestamp, phrase);
      assert.equal(a.structuredContent.source.input, phrase);
    }
  });

  test('time_convert reports the convention of an ambiguous phrase, and none for ISO', T, async () => {
    const next = await call('time_convert', { time: 'next friday', to_timezones: ['UTC'] });
    assert.match(next.structuredContent.source.convention, /^next Friday: the first Friday after today/);
    assert.equal(next.structuredContent.source.interpreted_as, 'relative');
    const bare = await call('time_convert', { time: 'december 25', to_timezones: ['UTC'] });
    assert.match(bare.structuredContent.source.convention, /a date without a year/);
    const iso = await call('time_convert', { time: '2026-12-25T15:00:00Z', to_timezones: ['UTC'] });
    assert.equal(iso.structuredContent.source.convention, null);
    const dated = await call('time_convert', { time: 'Dec 25, 2026 at 3pm', to_timezones: ['UTC'] });
    assert.equal(dated.structuredContent.source.interpreted_as, 'local');
  });

  test('time_convert reads the locale\'s names and numeric order', T, async () => {
    for (const [locale, phrase] of [
      ['de-DE', '25. Dezember 2026 um 15:00'],
      ['fr-FR', '25 décembre 2026 à 15h'],
      ['en-GB', '25/12/2026 3pm'],
    ]) {
      const r = await call('time_convert', {
        time: phrase, from_timezone: 'Europe/Berlin', to_timezones: ['UTC'], locale,
      });
      assert.equal(r.isError, false, `${locale} ${phrase}: ${JSON.stringify(r.structuredContent)}`);
      assert.equal(r.structuredContent.source.timestamp, '2026-12-25T15:00:00.000+01:00', phrase);
    }
  });

  test('a phrase in a spring gap follows disambiguation and is flagged', T, async () => {
    const args = { time: 'March 8, 2026 at 2:30am', from_timezone: 'America/New_York', to_timezones: ['UTC'] };
    const refused = await call('time_convert', args);
    assert.equal(refused.structuredContent.error_code, 'NONEXISTENT_LOCAL_TIME');
    const later = await call('time_convert', { ...args, disambiguation: 'compatible' });
    assert.equal(later.structuredContent.source.timestamp, '2026-03-08T03:30:00.000-04:00');
    assert.equal(later.structuredContent.source.disambiguation, 'later');
  });

  test('refusals are short, say why and suggest readable phrases', T, async () => {
    for (const [phrase, why, suggestion] of [
      ['in 3 business days', /operation 'business_days'/, 'next business day'],
      ['this month', /a period, not an instant/, 'start of month'],
      ['tomorow at 9am', /not a form/, 'tomorrow at 9am'],
    ]) {
      const r = await call('time_convert', { time: phrase, to_timezones: ['UTC'] });
      assert.equal(r.structuredContent.error_code, 'VALIDATION_ERROR');
      assert.ok(r.structuredContent.message.length <= 300, r.structuredContent.message);
      assert.match(r.structuredContent.message, why);
      assert.match(r.structuredContent.message, /docs\/time-grammar\.md/);
      assert.ok(r.structuredContent.suggestions.includes(suggestion),
        JSON.stringify(r.structuredContent.suggestions));
    }
  });

  test('time_calculate reads phrases in start and end', T, async () => {
    const same = await call('time_calculate', {
      operation: 'difference', start: 'Dec 25, 2026 at 3pm', end: '2026-12-25T16:30',
      timezone: 'America/New_York',
    });
    assert.equal(same.isError, false, JSON.stringify(same.structuredContent));
    assert.equal(same.structuredContent.difference.duration_ms, 90 * 60 * 1000);
    assert.equal(same.structuredContent.start.interpreted_as, 'local');
    const added = await call('time_calculate', {
      operation: 'add', start: 'tomorrow at 9am', duration: 'PT1H30M', timezone: 'Europe/Berlin',
    });
    const plain = await call('time_calculate', {
      operation: 'add', start: 'tomorrow at 10:30', duration: 'PT0S', timezone: 'Europe/Berlin',
    });
    assert.equal(added.structuredContent.result.timestamp, plain.structuredContent.result.timestamp);
    const business = await call('time_calculate', {
      operation: 'business_days', start: 'next monday at 9am', days: 5, timezone: 'UTC',
    });
    assert.equal(business.isError, false, JSON.stringify(business.structuredContent));
    assert.equal(business.structuredContent.business_days.end_day_of_week, 'Monday');
    const bad = await call('time_calculate', {
      operation: 'add', start: 'this month', duration: 'P1D', timezone: 'UTC',
    });
    assert.equal(bad.structuredContent.error_code, 'VALIDATION_ERROR');
    assert.match(bad.structuredContent.message, /^start: /);
  });

  test('time_session_list and time_stats read phrases in their filters', T, async () => {
    for (const args of [
      { started_after: 'a week ago', started_before: 'tomorrow at 9am' },
      { started_after: 'Dec 1, 2025', started_before: 'end of the month' },
    ]) {
      const r = await call('time_session_list', args);
      assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
    }
    const stats = await call('time_stats', { from: 'two weeks ago', to: 'now' });
    assert.equal(stats.isError, false, JSON.stringify(stats.structuredContent));
    const bad = await call('time_stats', { from: 'last month' });
    assert.equal(bad.structuredContent.error_code, 'VALIDATION_ERROR');
    assert.match(bad.structuredContent.message, /^from: .*a period, not an instant/);
    const list = await call('time_session_list', { started_after: 'in 3 business days' });
    assert.match(list.structuredContent.message, /^started_after: .*business_days/);
  });

  test('the standup prompt reads a phrase as its day', T, async () => {
    for (const [date, day] of [['Dec 25, 2026', '2026-12-25'], ['12/24/2026 at 5pm', '2026-12-24']]) {
      const got = await conn.client.getPrompt({ name: 'standup', arguments: { date, timezone: 'UTC' } });
      const { text } = got.messages[0].content;
      assert.ok(text.includes(`on ${day} (UTC)`), text);
    }
  });
});
