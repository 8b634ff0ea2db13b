// Request ids, trace context and structured logs (issue 31, items 1-2),
// through the real binary: X-Request-Id echoed (also on refusals), the
// traceparent header's and params._meta.traceparent's trace id used,
// error.data.request_id and structuredContent.request_id, --log-format json
// lines, and a trace-level run over HTTP and stdio whose stderr must not
// hold a token, intent, note, task name or metadata value.
// Run: TTM_BINARY=/abs/path node --test request_ids.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { initializeBody, mcpHeaders, rawRequest } from './lib/http_server.mjs';
import { envelope, MODERN, modernHeaders } from './lib/modern.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const META_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const META_TRACEPARENT = `00-${META_TRACE_ID}-b7ad6b7169203331-01`;
const GENERATED = /^[0-9a-f]{32}$/;

// What must never reach the log, at any level.
const SECRETS = {
  token: 'TOKENSECRETq8Zr2Lm5Vx1Nb7Kd4',
  wrongToken: 'WRONGTOKENSECRETy6Tp3Hs9Jw2',
  intent: 'INTENT_SECRET_plan the quarterly migration',
  summary: 'SUMMARY_SECRET_migration planned',
  note: 'NOTE_SECRET_the parser needs a retry',
  taskName: 'TASKNAME_SECRET_Write the parser',
  milestoneName: 'MILESTONENAME_SECRET_Ingest',
  metaStart: 'METAVALUE_SECRET_start_branch',
  metaTask: 'METAVALUE_SECRET_task_ticket',
  metaEnd: 'METAVALUE_SECRET_end_result',
  longTaskName: `TASKNAMELONG_SECRET_${'x'.repeat(1100)}`,
  longMeta: `METAVALUELONG_SECRET_${'y'.repeat(4100)}`,
};

const servers = [];
const dirs = [];
after(() => {
  for (const s of servers) s.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Spawns the binary, keeping all of its stderr (not a tail). */
function spawnServer(args) {
  const child = spawn(BINARY, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const s = { child, stderr: '', stdout: '' };
  child.stderr.on('data', (c) => { s.stderr += c; });
  child.stdout.on('data', (c) => { s.stdout += c; });
  s.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  servers.push(s);
  return s;
}

async function startHttp(extra = []) {
  const s = spawnServer(['http', '--listen', '127.0.0.1:0', '--data-dir', freshDataDir(),
    '--toolsets', 'all', ...extra]);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const m = /serving MCP over HTTP at (http:\/\/[^\s;"]+)/.exec(s.stderr);
    if (m) { s.url = m[1]; return s; }
    if (Date.now() > deadline) throw new Error(`no start-up line:\n${s.stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stop(s) {
  s.child.kill('SIGTERM');
  await s.exited;
}

/** The JSON log lines of `text` (every line must be one object). */
function jsonLines(text) {
  return text.split('\n').filter((l) => l.length > 0).map((l) => {
    try { return JSON.parse(l); } catch { assert.fail(`not a JSON log line: ${l}`); }
    return null;
  });
}

function rpc(id, method, params) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

async function openSession(url, headers = {}) {
  const res = await rawRequest(url, { headers: { ...mcpHeaders(), ...headers }, body: initializeBody() });
  assert.equal(res.status, 200, res.body);
  const session = res.headers['mcp-session-id'];
  const note = await rawRequest(url, {
    headers: { ...mcpHeaders({ session, version: '2025-11-25' }), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(note.status, 202);
  return session;
}

describe('HTTP: request ids', () => {
  test('X-Request-Id is echoed, traceparent and _meta.traceparent give the id, JSON logs', T, async () => {
    const s = await startHttp(['--log-format', 'json']);
    const session = await openSession(s.url);
    const h = (extra = {}) => ({ ...mcpHeaders({ session, version: '2025-11-25' }), ...extra });

    // A client's X-Request-Id: echoed, and in the tool error's structuredContent.
    const bad = await rawRequest(s.url, {
      headers: h({ 'X-Request-Id': 'client-req-0042' }),
      body: rpc(2, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'Mars/Olympus' } }),
    });
    assert.equal(bad.status, 200, bad.body);
    assert.equal(bad.headers['x-request-id'], 'client-req-0042');
    assert.equal(bad.json.result.isError, true);
    assert.equal(bad.json.result.structuredContent.request_id, 'client-req-0042');
    assert.equal(bad.json.result.structuredContent.error_code, 'INVALID_TIMEZONE');

    // An invalid one (a space) is ignored: generated.
    const ignored = await rawRequest(s.url, {
      headers: h({ 'X-Request-Id': 'has space' }), body: rpc(3, 'ping', {}),
    });
    assert.match(ignored.headers['x-request-id'], GENERATED);

    // The traceparent header: its trace id; in a JSON-RPC error's data.
    const traced = await rawRequest(s.url, {
      headers: h({ traceparent: TRACEPARENT, tracestate: 'vendor=1' }),
      body: rpc(4, 'no/such/method', {}),
    });
    assert.equal(traced.headers['x-request-id'], TRACE_ID);
    assert.equal(traced.json.error.code, -32601);
    assert.equal(traced.json.error.data.request_id, TRACE_ID);

    // params._meta.traceparent (a 2026-07-28 request).
    const modern = await rawRequest(s.url, {
      headers: modernHeaders('tools/call', { name: 'time_get_current' }),
      body: JSON.stringify({
        jsonrpc: '2.0', id: 5, method: 'tools/call',
        params: { name: 'time_get_current', arguments: { timezone: 'UTC' },
          _meta: { ...envelope(), traceparent: META_TRACEPARENT } },
      }),
    });
    assert.equal(modern.status, 200, modern.body);
    assert.equal(modern.headers['x-request-id'], META_TRACE_ID);
    assert.equal(modern.json.result.isError, false);

    // Refusals carry it too: 404 (unknown session), 400 (a bad body).
    const gone = await rawRequest(s.url, {
      headers: { ...mcpHeaders({ session: 'f'.repeat(32), version: '2025-11-25' }), 'X-Request-Id': 'req-404' },
      body: rpc(6, 'ping', {}),
    });
    assert.equal(gone.status, 404);
    assert.equal(gone.headers['x-request-id'], 'req-404');
    assert.equal(gone.json.error.data.request_id, 'req-404');
    const notJson = await rawRequest(s.url, { headers: h(), body: '{oops' });
    assert.match(notJson.headers['x-request-id'], GENERATED);
    assert.equal(notJson.json?.error?.data?.request_id, notJson.headers['x-request-id']);

    await stop(s);
    const lines = jsonLines(s.stderr);
    for (const l of lines) {
      assert.match(l.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(['trace', 'debug', 'info', 'warning', 'error'].includes(l.level), l.level);
      assert.equal(typeof l.component, 'string');
    }
    const done = lines.filter((l) => l.msg === 'completed');
    const byId = (id) => done.find((l) => l.request_id === id);
    const toolLine = byId('client-req-0042');
    assert.ok(toolLine, `a completion line for client-req-0042 in\n${s.stderr}`);
    assert.equal(toolLine.level, 'info');
    assert.equal(toolLine.component, 'mcp');
    assert.equal(toolLine.method, 'tools/call');
    assert.equal(toolLine.tool, 'time_get_current');
    assert.equal(toolLine.outcome, 'tool_error');
    assert.equal(toolLine.error_code, 'INVALID_TIMEZONE');
    assert.equal(toolLine.principal, 'local');
    assert.equal(typeof toolLine.duration_ms, 'number');
    const errLine = byId(TRACE_ID);
    assert.equal(errLine.trace_id, TRACE_ID);
    assert.equal(errLine.outcome, 'error');
    assert.equal(errLine.error_code, '-32601');
    const modernLine = byId(META_TRACE_ID);
    assert.equal(modernLine.trace_id, META_TRACE_ID);
    assert.equal(modernLine.outcome, 'ok');
  });
});

describe('stdio: request ids', () => {
  test('_meta.traceparent and generated ids; errors carry them; text logs name them', T, async () => {
    const s = spawnServer(['stdio', '--data-dir', freshDataDir(), '--toolsets', 'all']);
    s.child.stdin.write(`${JSON.stringify({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'time_get_current', arguments: { timezone: 'Mars/Olympus' },
        _meta: { ...envelope(), traceparent: META_TRACEPARENT } },
    })}\n`);
    s.child.stdin.write(`${rpc(2, 'no/such/method', { _meta: envelope() })}\n`);
    s.child.stdin.end();
    assert.equal(await s.exited, 0, s.stderr);
    const replies = s.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const r1 = replies.find((r) => r.id === 1);
    const r2 = replies.find((r) => r.id === 2);
    assert.equal(r1.result.structuredContent.request_id, META_TRACE_ID);
    assert.match(r2.error.data.request_id, GENERATED);
    assert.notEqual(r2.error.data.request_id, META_TRACE_ID);
    // Text format: the id after the component on the completion lines.
    assert.match(s.stderr, new RegExp(`info \\[mcp\\] request_id=${META_TRACE_ID} completed method=tools/call tool=time_get_current outcome=tool_error error_code=INVALID_TIMEZONE duration_ms=\\d+\\.\\d{3}`));
    assert.match(s.stderr, new RegExp(`request_id=${r2.error.data.request_id} completed method=no/such/method outcome=error error_code=-32601`));
  });
});

/** Every secret found in `text`, by name. */
function leaked(text) {
  return Object.entries(SECRETS)
    .filter(([, v]) => text.includes(v.slice(0, 40)))
    .map(([k]) => k);
}

describe('never logged', () => {
  test('HTTP at --log-level trace: no token, intent, note, task name or metadata value', T, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-ids-'));
    dirs.push(dir);
    const tokens = path.join(dir, 'tokens');
    writeFileSync(tokens, `alice ${SECRETS.token}\n`, { mode: 0o600 });
    const s = await startHttp(['--log-level', 'trace', '--log-format', 'json', '--auth-token-file', tokens]);
    const auth = { Authorization: `Bearer ${SECRETS.token}` };
    // A wrong token first (401).
    const denied = await rawRequest(s.url, {
      headers: { ...mcpHeaders(), Authorization: `Bearer ${SECRETS.wrongToken}` }, body: initializeBody(),
    });
    assert.equal(denied.status, 401);
    assert.ok(denied.headers['x-request-id']);
    const session = await openSession(s.url, auth);
    const h = { ...mcpHeaders({ session, version: '2025-11-25' }), ...auth };
    let id = 10;
    const call = async (name, args) => {
      const res = await rawRequest(s.url, { headers: h, body: rpc(++id, 'tools/call', { name, arguments: args }) });
      assert.equal(res.status, 200, res.body);
      return res.json.result;
    };
    const started = await call('time_session_start', {
      milestone_id: 'm1', milestone_name: SECRETS.milestoneName, task_ids: ['t1', 't2'],
      metadata: { branch: SECRETS.metaStart },
    });
    assert.equal(started.isError, false, JSON.stringify(started));
    const sid = started.structuredContent.session_id;
    assert.equal((await call('time_task_start', {
      session_id: sid, task_id: 't1', task_name: SECRETS.taskName, metadata: { ticket: SECRETS.metaTask },
    })).isError, false);
    assert.equal((await call('time_tasks_edit', {
      session_id: sid, operations: [{ op: 'note', task_id: 't1', text: SECRETS.note }],
    })).isError, false);
    assert.equal((await call('time_task_end', {
      session_id: sid, task_id: 't1', metadata: { result: SECRETS.metaEnd },
    })).isError, false);
    // Refused input that holds them: too long (the messages name fields, not values).
    assert.equal((await call('time_task_start', {
      session_id: sid, task_id: 't2', task_name: SECRETS.longTaskName,
    })).isError, true);
    assert.equal((await call('time_task_start', {
      session_id: sid, task_id: 't2', metadata: { k: SECRETS.longMeta },
    })).isError, true);
    assert.equal((await call('mark_session_start', { intent: SECRETS.intent })).isError, false);
    assert.equal((await call('mark_session_end', { summary: SECRETS.summary })).isError, false);
    const report = await call('time_session_report', { session_id: sid, format: 'markdown' });
    assert.equal(report.isError, false);
    await stop(s);
    // The run did log at trace level (so the check below can fail)...
    const lines = jsonLines(s.stderr);
    assert.ok(lines.filter((l) => l.msg === 'completed' && l.principal === 'alice').length >= 9,
      `completion lines of alice in\n${s.stderr.slice(0, 4000)}`);
    assert.ok(lines.some((l) => l.level === 'debug'), 'debug lines were written');
    // ... and none of the secrets.
    assert.deepEqual(leaked(s.stderr), [], 'secrets in the log');
  });

  test('stdio at --log-level trace: none either', T, async () => {
    const s = spawnServer(['stdio', '--log-level', 'trace', '--data-dir', freshDataDir(), '--toolsets', 'all']);
    const lines = [
      rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      rpc(2, 'tools/call', { name: 'time_session_start', arguments: {
        milestone_id: 'm1', milestone_name: SECRETS.milestoneName, task_ids: ['t1'], metadata: { b: SECRETS.metaStart },
        idempotency_key: 'k1' } }),
      rpc(3, 'tools/call', { name: 'mark_session_start', arguments: { intent: SECRETS.intent } }),
      rpc(4, 'tools/call', { name: 'mark_session_end', arguments: { summary: SECRETS.summary } }),
      rpc(5, 'tools/call', { name: 'time_task_start', arguments: { session_id: 'nope', task_id: 't1', task_name: SECRETS.taskName } }),
    ];
    s.child.stdin.end(`${lines.join('\n')}\n`);
    assert.equal(await s.exited, 0, s.stderr);
    const replies = s.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(replies.length, 5, s.stdout);
    assert.match(s.stderr, /completed method=tools\/call tool=mark_session_start outcome=ok/);
    assert.deepEqual(leaked(s.stderr), [], 'secrets in the log');
  });
});
