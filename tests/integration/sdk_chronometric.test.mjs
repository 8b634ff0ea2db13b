// Issue 19 with the official SDK clients, over stdio and Streamable HTTP, in
// both protocol eras (v1 client: 2025-11-25; v2 client pinned to
// 2026-07-28): the default toolsets' tools/list, every chronometric and
// preference tool (the SDK validates structuredContent against the
// outputSchema), the null result of request_break_if_needed in each era's
// encoding (null in 2026-07-28, {"result": null} in 2025: SEP-2106), the caller's zone where `timezone` is omitted, and a disabled
// tool refused with a message naming --toolsets.
// Run: TTM_BINARY=/abs/path node --test sdk_chronometric.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import { connect, connectHttp, connectV2Http, connectV2Stdio } from './lib/sdk_client.mjs';
import { UUID_V4_RE } from './lib/session_assertions.mjs';
import { DEFAULT_TOOLS, TOOL_NAMES } from './lib/tools_snapshot.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const ISO_DURATION = /^PT(\d+H)?(\d+M)?(\d+S)?$/;
const SETS = ['--toolsets', 'time,tracking,history,chronometric,preferences'];
const PREFERENCE_TOOLS = ['time_preferences_get', 'time_preferences_set'];
/** What SETS lists: the default tools and the preference tools, in tools/list order. */
const SETS_TOOLS = TOOL_NAMES.filter((name) => DEFAULT_TOOLS.includes(name) || PREFERENCE_TOOLS.includes(name));

after(stopAllHttpServers);

const transports = [
  ['stdio, 2025-11-25 (SDK v1)', false, () => connect(BINARY, { args: SETS })],
  ['stdio, 2026-07-28 (SDK v2)', true, () => connectV2Stdio(BINARY, { args: SETS })],
  ['HTTP, 2025-11-25 (SDK v1)', false, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: SETS });
    return connectHttp(server.url, { context: () => server.context() });
  }],
  ['HTTP, 2026-07-28 (SDK v2)', true, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: SETS });
    return connectV2Http(server.url, { context: () => server.context() });
  }],
];

for (const [label, modern, open] of transports) {
  describe(`chronometric tools and preferences over ${label}`, () => {
    test('toolsets, every tool, the null result, the caller\'s zone, refusal', T, async () => {
      const conn = await open();
      try {
        const { tools } = await conn.client.listTools();
        assert.deepEqual(tools.map((t) => t.name), SETS_TOOLS);
        const validators = Object.fromEntries(tools.map((t) => [t.name, makeValidator(t.outputSchema)]));
        const call = async (name, args = {}) => {
          const r = await conn.client.callTool({ name, arguments: args });
          if (r.structuredContent !== null) {
            assert.deepEqual(validators[name](r.structuredContent), [], `${name}: ${JSON.stringify(r.structuredContent)}`);
          }
          return r;
        };

        const ctx = await call('get_time_context');
        assert.equal(ctx.isError, false);
        assert.match(ctx.structuredContent.now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
        assert.equal(ctx.structuredContent.current_session_length, null);
        assert.ok(['morning_peak', 'midday', 'afternoon_dip', 'evening_quiet', 'night_owl_caution']
          .includes(ctx.structuredContent.energy_zone));

        const set = await call('time_preferences_set', { timezone: 'Asia/Kathmandu', idle_consent: true });
        assert.equal(set.isError, false);
        assert.equal(set.structuredContent.timezone, 'Asia/Kathmandu');
        const bad = await call('time_preferences_set', { week_start: 'sunday', end_of_day_local: '7pm' });
        assert.equal(bad.isError, true);
        assert.equal(bad.structuredContent.error_code, 'VALIDATION_ERROR');
        assert.match(bad.structuredContent.message, /end_of_day_local: .*HH:MM/);
        const got = await call('time_preferences_get');
        assert.equal(got.structuredContent.week_start, 'monday', 'nothing partially applied');

        const now = await call('time_get_current');
        assert.equal(now.structuredContent.timezone, 'Asia/Kathmandu');
        assert.equal(now.structuredContent.utc_offset, '+05:45');

        const none = await call('request_break_if_needed', { threshold_minutes: 1 });
        assert.equal(none.isError, false);
        // 2026-07-28: null itself, against an outputSchema anyOf null or the
        // object (SEP-2106); 2025: the SDK's wrap, {"result": null}.
        const breakTool = tools.find((t) => t.name === 'request_break_if_needed');
        if (modern) {
          assert.equal(none.structuredContent, null);
          assert.equal(none.content[0].text, 'null');
          assert.equal(breakTool.outputSchema.anyOf[0].type, 'null');
        } else {
          assert.deepEqual(none.structuredContent, { result: null });
          assert.equal(breakTool.outputSchema.type, 'object');
          assert.deepEqual(breakTool.outputSchema.properties.result.anyOf[0], { type: 'null' });
        }
        const invalid = await call('request_break_if_needed', { threshold_minutes: 0 });
        assert.equal(invalid.structuredContent.error_code, 'INVALID_THRESHOLD');

        const start = await call('mark_session_start', { intent: 'write the «plan», only that' });
        assert.match(start.structuredContent.session_id, UUID_V4_RE);
        assert.match(start.structuredContent.start_time, /\+05:45$/);
        assert.equal(start.structuredContent.error, false, 'every success says error: false');
        assert.equal(start.structuredContent.started_at, undefined, 'one vocabulary: start_time');
        const again = await call('mark_session_start', { intent: 'second' });
        assert.equal(again.structuredContent.auto_closed_prior_session.session_id, start.structuredContent.session_id);
        const open = await call('get_time_context');
        assert.match(open.structuredContent.current_session_length_iso, ISO_DURATION);
        assert.match(open.structuredContent.time_since_last_prompt_iso, ISO_DURATION);
        assert.equal(typeof open.structuredContent.current_session_length_ms, 'number');
        assert.match(open.structuredContent.current_session_length, /second|minute/);

        const idle = await call('idle_status');
        assert.equal(idle.structuredContent.consent_granted, true);
        assert.equal(idle.structuredContent.activity_source, 'mcp_requests');
        assert.equal(idle.structuredContent.hyperfocus_signal, 'active_here');

        const end = await call('mark_session_end', { summary: 'done' });
        assert.equal(end.structuredContent.session_id, again.structuredContent.session_id);
        assert.match(end.structuredContent.duration_iso, ISO_DURATION);
        assert.match(end.structuredContent.duration, /second|minute/, 'words, as time_task_end says it');
        assert.equal(typeof end.structuredContent.duration_ms, 'number');
        assert.match(end.structuredContent.end_time, /\+05:45$/);
        assert.equal(end.structuredContent.error, false);
        const noOpen = await call('mark_session_end');
        assert.equal(noOpen.structuredContent.error_code, 'NO_OPEN_SESSION');

        await assert.rejects(conn.client.callTool({ name: 'time_undo', arguments: {} }),
          (err) => /--toolsets/.test(err.message) && /edit/.test(err.message));
        assert.deepEqual(conn.errors(), []);
      } finally {
        await conn.close();
      }
    });
  });
}

describe('the default toolsets', () => {
  test('the reviewed default set (time, tracking, history, chronometric); preferences refused, naming --toolsets', T, async () => {
    const conn = await connect(BINARY, { args: ['--toolsets', 'default'] });
    try {
      const { tools } = await conn.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), DEFAULT_TOOLS);
      await assert.rejects(conn.client.callTool({ name: 'time_preferences_set', arguments: {} }),
        (err) => /--toolsets/.test(err.message) && /preferences/.test(err.message));
    } finally {
      await conn.close();
    }
  });
});

