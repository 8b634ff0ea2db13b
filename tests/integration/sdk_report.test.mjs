// time_session_report (issue 16) driven by the official MCP TypeScript SDK
// over stdio and Streamable HTTP, in both eras (2025-11-25 with v1, the
// pinned 2026-07-28 with v2): an active session as of now, the same session
// ended, every format, a session of an earlier server process read from the
// journal, and another principal's session answered exactly like an id that
// never existed. Every structuredContent is checked against the listed
// outputSchema. Rendering details are unit-tested (tests/unit/report_test.cpp).
// Run: TTM_BINARY=/abs/path node --test sdk_report.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { withoutRequestIds } from './lib/modern.mjs';
import { makeValidator } from './lib/json_schema.mjs';
import {
  connect, connectHttp, connectV2Http, connectV2Stdio, MODERN_PROTOCOL_VERSION,
} from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const ALICE = 'alice-token-report-61c0';
const BOB = 'bob-token-report-2d9e';
const NEVER = '0f0e0d0c-0b0a-4908-8706-050403020100';

after(stopAllHttpServers);

/** Calls a tool; checks the reply against the tool's listed outputSchema. */
async function caller(conn) {
  const { tools } = await conn.client.listTools();
  const report = tools.find((t) => t.name === 'time_session_report');
  assert.ok(report, 'tools/list includes time_session_report');
  assert.equal(report.annotations.readOnlyHint, true);
  assert.deepEqual(report.inputSchema.required, ['session_id']);
  assert.deepEqual(report.inputSchema.properties.format.enum, ['markdown', 'csv', 'json', 'html']);
  const validators = Object.fromEntries(tools.map((t) => [t.name, makeValidator(t.outputSchema)]));
  return async (name, args) => {
    const result = await conn.client.callTool({ name, arguments: args });
    assert.deepEqual(validators[name](result.structuredContent), [], JSON.stringify(result.structuredContent));
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    return result;
  };
}

async function ok(call, name, args) {
  const result = await call(name, args);
  assert.equal(result.isError, false, JSON.stringify(result.structuredContent));
  return result.structuredContent;
}

/** The walk every transport and era gets: active, then ended, each format. */
async function reportWalk(conn) {
  const call = await caller(conn);
  const started = await ok(call, 'time_session_start', {
    milestone_id: 'M7', milestone_name: 'Reports | <b>bold</b>', task_ids: ['M7-001', 'M7-002'],
    timezone: 'Europe/Berlin', metadata: { branch: 'i16-report' }, tags: ['area:reports'],
  });
  const sid = started.session_id;
  await ok(call, 'time_task_start', { session_id: sid, task_id: 'M7-001', task_name: 'Render, "quoted"' });

  const active = await ok(call, 'time_session_report', { session_id: sid });
  assert.equal(active.format, 'markdown');
  assert.equal(active.mime_type, 'text/markdown; charset=utf-8');
  assert.equal(active.status, 'active');
  assert.equal(active.timezone, 'Europe/Berlin');
  assert.match(active.report, /^# Milestone M7 Execution Report: Reports \| &lt;b>bold&lt;\/b>\n/);
  assert.match(active.report, /\*\*End Time:\*\* still running \(report as of /);
  assert.match(active.report, /\*\*Branch:\*\* i16-report\n/);
  assert.match(active.report, /\| M7-001 \| Render, "quoted" \| [^|]+ \| running \|/);
  assert.match(active.report, /```mermaid\ngantt\n/);
  // Read-only: the task still runs.
  const summary = await ok(call, 'time_session_summary', { session_id: sid });
  assert.equal(summary.tasks_in_progress, 1);

  await ok(call, 'time_session_end', { session_id: sid });
  const json = await ok(call, 'time_session_report', { session_id: sid, format: 'json', timezone: 'UTC' });
  assert.equal(json.mime_type, 'application/json');
  const doc = JSON.parse(json.report);
  assert.equal(doc.version, 1);
  assert.equal(doc.session.status, 'ended');
  assert.equal(doc.session.timezone, 'UTC');
  assert.match(doc.session.start_time, /\+00:00$/);
  assert.deepEqual(doc.runs.map((r) => [r.task_id, r.status]), [['M7-001', 'interrupted']]);
  assert.deepEqual(doc.tasks_not_started, ['M7-002']);

  const csv = await ok(call, 'time_session_report', { session_id: sid, format: 'csv' });
  const lines = csv.report.split('\r\n');
  assert.equal(lines[0], 'session_id,milestone_id,task_id,task_name,run,status,start_time,end_time,'
    + 'duration_ms,duration,external_task_id,work_item_id');
  assert.match(lines[1], new RegExp(`^${sid},M7,M7-001,"Render, ""quoted""",1,interrupted,`));
  assert.equal(lines.length, 3); // header, one run, the final CRLF

  const html = await ok(call, 'time_session_report', { session_id: sid, format: 'html' });
  assert.match(html.report, /^<!DOCTYPE html>/);
  assert.ok(html.report.includes('Reports | &lt;b&gt;bold&lt;/b&gt;'));
  assert.equal((html.report.match(/<rect class="bar /g) ?? []).length, 1);

  const zone = await call('time_session_report', { session_id: sid, timezone: 'Mars/Olympus' });
  assert.equal(zone.isError, true);
  assert.equal(zone.structuredContent.error_code, 'INVALID_TIMEZONE');
  const unknown = await call('time_session_report', { session_id: NEVER });
  assert.equal(unknown.structuredContent.error_code, 'SESSION_NOT_FOUND');
  return sid;
}

describe('time_session_report over stdio', () => {
  test('2025-11-25 (SDK v1): active, ended, every format', T, async () => {
    const conn = await connect(BINARY);
    try {
      assert.equal(conn.negotiatedVersion(), '2025-11-25');
      await reportWalk(conn);
      assert.deepEqual(conn.errors(), []);
    } finally { await conn.close(); }
  });

  test('2026-07-28 (SDK v2): active, ended, every format', T, async () => {
    const conn = await connectV2Stdio(BINARY);
    try {
      assert.equal(conn.negotiatedVersion(), MODERN_PROTOCOL_VERSION);
      await reportWalk(conn);
      assert.deepEqual(conn.errors(), []);
    } finally { await conn.close(); }
  });

  test('a session of an earlier server process is reported from the journal', T, async () => {
    const dir = freshDataDir();
    const first = await connect(BINARY, { args: ['--data-dir', dir] });
    let sid;
    try { sid = await reportWalk(first); } finally { await first.close(); }
    const second = await connect(BINARY, { args: ['--data-dir', dir] });
    try {
      const call = await caller(second);
      const md = await ok(call, 'time_session_report', { session_id: sid });
      assert.equal(md.status, 'ended');
      assert.match(md.report, /\| M7-001 \| Render, "quoted" \| [^|]+ \| [^|]+ \| [^|]+ \| ⚠️ interrupted \|/);
    } finally { await second.close(); }
  });
});

describe('time_session_report over Streamable HTTP, principals apart', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({ binary: BINARY, tokens: `alice ${ALICE}\nbob ${BOB}\n` });
  });
  after(async () => { await server?.stop(); });

  const eras = [
    ['2025-11-25 (SDK v1)', (token) => connectHttp(server.url, { token, context: () => server.context() })],
    ['2026-07-28 (SDK v2)', (token) => connectV2Http(server.url, { token, context: () => server.context() })],
  ];
  for (const [era, open] of eras) {
    test(`${era}: Alice's report; Bob gets exactly the answer of an id that never existed`, T, async () => {
      const alice = await open(ALICE);
      const bob = await open(BOB);
      try {
        const sid = await reportWalk(alice);
        const call = await caller(bob);
        const foreign = await call('time_session_report', { session_id: sid });
        const never = await call('time_session_report', { session_id: NEVER });
        assert.equal(foreign.isError, true);
        assert.equal(foreign.structuredContent.error_code, 'SESSION_NOT_FOUND');
        assert.deepEqual( // alike but for the request's own id
          JSON.parse(withoutRequestIds(JSON.stringify(foreign.structuredContent).replaceAll(sid, '<id>'))),
          JSON.parse(withoutRequestIds(JSON.stringify(never.structuredContent).replaceAll(NEVER, '<id>'))));
        assert.ok(!JSON.stringify(foreign).includes('M7'), 'nothing of the session leaks');
        assert.deepEqual(alice.errors(), []);
        assert.deepEqual(bob.errors(), []);
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }
});
