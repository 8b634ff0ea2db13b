// Prompts and completions (issue 16 items 3 and 6) through the official MCP
// SDK clients: v1 (2025-11-25) over stdio and Streamable HTTP, v2 pinned to
// 2026-07-28 over both. Each lists the prompts, renders them, is refused
// with -32602 for bad arguments, and completes zone names.
// Run: TTM_BINARY=/abs/path node --test sdk_prompts.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { connect, connectHttp, connectV2Http, connectV2Stdio } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const PROMPTS = ['execution_report', 'standup', 'plan_milestone'];

after(stopAllHttpServers);

/** Runs the same checks over one connection factory. */
function definePromptSuite(label, open) {
  describe(`prompts over ${label}`, () => {
    let conn;
    let server;

    test('connects', T, async () => {
      ({ conn, server } = await open());
      assert.deepEqual(conn.client.getServerCapabilities().prompts, { listChanged: false });
    });

    after(async () => {
      if (conn) {
        assert.deepEqual(conn.errors(), []);
        await conn.close();
      }
      await server?.stop();
    });

    test('prompts/list: three prompts with titles and arguments', T, async () => {
      const { prompts } = await conn.client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name), PROMPTS);
      for (const p of prompts) {
        assert.ok(p.title && p.description, `${p.name} has a title and a description`);
      }
      const report = prompts.find((p) => p.name === 'execution_report');
      assert.deepEqual(report.arguments.map((a) => [a.name, a.required]), [['session_id', true]]);
      const plan = prompts.find((p) => p.name === 'plan_milestone');
      assert.deepEqual(plan.arguments.filter((a) => a.required).map((a) => a.name), ['milestone_id', 'tasks']);
    });

    test('prompts/get: execution_report names the report call', T, async () => {
      const got = await conn.client.getPrompt({ name: 'execution_report', arguments: { session_id: 'abc-123' } });
      assert.equal(got.messages.length, 1);
      assert.equal(got.messages[0].role, 'user');
      assert.equal(got.messages[0].content.type, 'text');
      assert.ok(got.messages[0].content.text.includes(
        'Call `time_session_report` with {"session_id": "abc-123", "format": "markdown"}'), got.messages[0].content.text);
    });

    test('prompts/get: standup reads the day in the zone', T, async () => {
      const got = await conn.client.getPrompt({
        name: 'standup', arguments: { date: '2026-03-29', timezone: 'W. Europe Standard Time' },
      });
      const { text } = got.messages[0].content;
      assert.ok(text.includes('on 2026-03-29 (Europe/Berlin)'), text);
      assert.ok(text.includes('{"started_after": "2026-03-29T00:00:00.000+01:00", '
        + '"started_before": "2026-03-30T00:00:00.000+02:00"}'), text);
    });

    test('prompts/get: plan_milestone makes a start call the tool accepts', T, async () => {
      const got = await conn.client.getPrompt({
        name: 'plan_milestone', arguments: { milestone_id: 'M3', tasks: 'parse: Parse it\nWrite the docs' },
      });
      const { text } = got.messages[0].content;
      const m = /Call `time_session_start` with (\{.*?\}) and keep/.exec(text);
      assert.ok(m, text);
      const args = JSON.parse(m[1]);
      assert.deepEqual(args, { milestone_id: 'M3', task_ids: ['parse', 'write-the-docs'] });
      const started = await conn.client.callTool({ name: 'time_session_start', arguments: args });
      assert.equal(started.isError, false, JSON.stringify(started.structuredContent));
      await conn.client.callTool({
        name: 'time_session_end', arguments: { session_id: started.structuredContent.session_id },
      });
    });

    test('prompts/get: bad arguments are -32602 naming them', T, async () => {
      const cases = [
        [{ name: 'nope' }, /unknown prompt "nope"/],
        [{ name: 'execution_report', arguments: {} }, /needs the argument 'session_id'/],
        [{ name: 'standup', arguments: { timezone: 'Mars/Base' } }, /timezone: Unknown time zone 'Mars\/Base'/],
        [{ name: 'standup', arguments: { day: 'today' } }, /has no argument "day"/],
      ];
      for (const [params, re] of cases) {
        await assert.rejects(conn.client.getPrompt(params), (e) => {
          assert.equal(e.code, -32602, e.message);
          assert.match(e.message, re);
          return true;
        });
      }
    });

    test('completion/complete: zone names and day forms', T, async () => {
      const zones = await conn.client.complete({
        ref: { type: 'ref/prompt', name: 'standup' }, argument: { name: 'timezone', value: 'asia/kol' },
      });
      assert.deepEqual(zones.completion, { values: ['Asia/Kolkata'], total: 1, hasMore: false });
      const windows = await conn.client.complete({
        ref: { type: 'ref/prompt', name: 'plan_milestone' }, argument: { name: 'timezone', value: 'W. Europe' },
      });
      assert.deepEqual(windows.completion.values, ['W. Europe Standard Time']);
      const days = await conn.client.complete({
        ref: { type: 'ref/prompt', name: 'standup' }, argument: { name: 'date', value: 'last f' },
      });
      assert.deepEqual(days.completion.values, ['last friday']);
      const all = await conn.client.complete({
        ref: { type: 'ref/prompt', name: 'standup' }, argument: { name: 'timezone', value: '' },
      });
      assert.equal(all.completion.values.length, 100);
      assert.equal(all.completion.hasMore, true);
      assert.ok(all.completion.total > 500);
    });
  });
}

definePromptSuite('stdio (2025-11-25)', async () => ({ conn: await connect(BINARY) }));
definePromptSuite('Streamable HTTP (2025-11-25)', async () => {
  const server = await HttpServer.start({ binary: BINARY });
  const conn = await connectHttp(server.url, { context: () => server.context() });
  return { conn, server };
});
definePromptSuite('stdio (2026-07-28)', async () => ({ conn: await connectV2Stdio(BINARY) }));
definePromptSuite('Streamable HTTP (2026-07-28)', async () => {
  const server = await HttpServer.start({ binary: BINARY });
  const conn = await connectV2Http(server.url, { context: () => server.context() });
  return { conn, server };
});
