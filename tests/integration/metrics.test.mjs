// GET /metrics of the real binary: over HTTP (the MCP listener and
// --metrics-listen) and in stdio mode (--metrics-listen; stdout stays the
// protocol). Tool calls and refusals are driven first, then the page must
// show them under the documented families and labels, carry no session id
// or principal, and pass `promtool check metrics` (skipped, saying so,
// when promtool is not installed).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, stopAllHttpServers,
} from './lib/http_server.mjs';
import { fetchMetrics, promtool, promtoolCheck, samples, total } from './lib/metrics.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const VERSION = '2025-11-25';
const OP = 'mcp_server_operation_duration_seconds_count';

after(stopAllHttpServers);

function rpc(id, method, params) {
  const m = { jsonrpc: '2.0', id, method };
  if (params !== undefined) m.params = params;
  return JSON.stringify(m);
}

async function openSession(server) {
  const res = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody(VERSION) });
  assert.equal(res.status, 200, res.body);
  const session = res.headers['mcp-session-id'];
  const note = await rawRequest(server.url, {
    headers: mcpHeaders({ session, version: VERSION }),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(note.status, 202);
  return session;
}

async function call(server, session, id, name, args) {
  const res = await rawRequest(server.url, {
    headers: mcpHeaders({ session, version: VERSION }),
    body: rpc(id, 'tools/call', { name, arguments: args }),
  });
  assert.equal(res.status, 200, res.body);
  return res.json;
}

/** Waits for the --metrics-listen start-up line; returns its URL. */
function metricsUrl(server) {
  const m = /serving Prometheus metrics at (http:\/\/\S+)/.exec(server.stderrText);
  assert.ok(m, `no metrics URL in the log${server.context()}`);
  return m[1];
}

describe('GET /metrics over HTTP', () => {
  let server;
  let page;
  let toolErrorCode;
  before(async () => {
    server = await HttpServer.start({
      binary: BINARY, args: ['--max-body-bytes', '1024', '--metrics-listen', '127.0.0.1:0'],
    });
    await server.waitForStderr(/serving Prometheus metrics at/);
    const session = await openSession(server);
    for (let i = 0; i < 5; ++i) {
      const ok = await call(server, session, 10 + i, 'time_get_current', { timezone: 'UTC' });
      assert.equal(ok.result?.isError, false, JSON.stringify(ok));
    }
    // The journal: a tracking session (one transaction) and a focus session.
    const started = await call(server, session, 15, 'time_session_start', { milestone_id: 'M1', task_ids: ['T1'] });
    assert.equal(started.result?.isError, false, JSON.stringify(started));
    const focus = await call(server, session, 16, 'mark_session_start', { intent: 'private intent xyzzy' });
    assert.equal(focus.result?.isError, false, JSON.stringify(focus));
    // A tool error (its error_code), an unknown tool (-32602), an unknown
    // method (-32601).
    const bad = await call(server, session, 20, 'time_get_current', { timezone: 'Not/AZone' });
    assert.equal(bad.result?.isError, true, JSON.stringify(bad));
    toolErrorCode = bad.result.structuredContent.error_code;
    const unknown = await call(server, session, 21, 'no_such_tool_xyz', {});
    assert.equal(unknown.error?.code, -32602);
    const method = await rawRequest(server.url, {
      headers: mcpHeaders({ session, version: VERSION }), body: rpc(22, 'no/such/method'),
    });
    assert.equal(method.json?.error?.code, -32601);
    // Refusals: 404 (an unknown session, a path), 413 (too large).
    const gone = await rawRequest(server.url, {
      headers: mcpHeaders({ session: 'f'.repeat(32), version: VERSION }), body: rpc(30, 'ping'),
    });
    assert.equal(gone.status, 404);
    const nowhere = await rawRequest(`${server.origin}/nowhere`, { method: 'GET' });
    assert.equal(nowhere.status, 404);
    const big = await rawRequest(server.url, {
      headers: mcpHeaders({ session, version: VERSION }), body: rpc(31, 'ping', { pad: 'x'.repeat(4096) }),
    });
    assert.equal(big.status, 413);
    page = await fetchMetrics(`${server.origin}/metrics`);
  });
  after(() => server?.stop());

  test('each tool call is one sample of the operation histogram, with the conventions\' labels', T, () => {
    const base = {
      mcp_method_name: 'tools/call', mcp_protocol_version: VERSION, network_transport: 'tcp',
    };
    assert.equal(total(page, OP, { ...base, gen_ai_tool_name: 'time_get_current', error_type: '' }), 5, page);
    // The tool's own error code, for an isError result.
    assert.equal(total(page, OP, { ...base, gen_ai_tool_name: 'time_get_current', error_type: toolErrorCode }), 1);
    // A name the client made up is not a label value.
    assert.equal(total(page, OP, { ...base, gen_ai_tool_name: '_OTHER', error_type: '-32602' }), 1);
    assert.equal(samples(page, OP, { gen_ai_tool_name: 'no_such_tool_xyz' }).length, 0);
    assert.equal(total(page, OP, { mcp_method_name: '_OTHER', error_type: '-32601' }), 1);
    assert.equal(total(page, OP, { mcp_method_name: 'initialize', error_type: '' }), 1);
    assert.equal(total(page, OP, { mcp_method_name: 'notifications/initialized' }), 1);
    // The fine buckets below 10 ms, then the conventions' own, cumulative.
    // (How many calls fall under 10 ms depends on the machine's load: a
    // call descheduled mid-way takes longer; not asserted.)
    const bucket = (le) => samples(page, 'mcp_server_operation_duration_seconds_bucket',
      { ...base, gen_ai_tool_name: 'time_get_current', error_type: '', le });
    const les = ['1e-05', '2.5e-05', '5e-05', '0.0001', '0.00025', '0.0005', '0.001', '0.0025', '0.005',
      '0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '2', '5', '10', '30', '60', '120', '300', '+Inf'];
    const counts = les.map((le) => {
      const b = bucket(le);
      assert.equal(b.length, 1, `bucket le="${le}"`);
      return b[0].value;
    });
    for (let i = 1; i < counts.length; ++i) assert.ok(counts[i] >= counts[i - 1], les[i]);
    assert.equal(counts.at(-1), 5);
  });

  test('refusals are counted by status; sessions, process and build info are there', T, () => {
    assert.ok(total(page, 'time_tracker_http_refusals_total', { code: '404' }) >= 2, page);
    assert.equal(total(page, 'time_tracker_http_refusals_total', { code: '413' }), 1);
    assert.equal(total(page, 'time_tracker_mcp_sessions_open'), 1);
    assert.equal(samples(page, 'time_tracker_build_info').length, 1);
    assert.ok(total(page, 'process_resident_memory_bytes') > 1e6);
    assert.ok(total(page, 'process_open_fds') > 3);
    assert.ok(total(page, 'process_start_time_seconds') > Date.now() / 1000 - 600);
    // No session id or principal anywhere on the page.
    assert.doesNotMatch(page, /[0-9a-f]{32}/);
    assert.doesNotMatch(page, /principal|session_id|task_id/);
  });

  test('journal commits, held tracking sessions and open focus sessions', T, () => {
    assert.ok(total(page, 'time_tracker_journal_transactions_total') >= 1, page);
    assert.ok(total(page, 'time_tracker_journal_transaction_events_sum') >= 1);
    assert.ok(total(page, 'time_tracker_journal_commit_duration_seconds_count') >= 1);
    assert.equal(total(page, 'time_tracker_tracking_sessions_open'), 1);
    assert.equal(total(page, 'time_tracker_focus_sessions_open'), 1);
    assert.equal(total(page, 'time_tracker_journal_fences_total'), 0);
    assert.doesNotMatch(page, /xyzzy|M1|T1/);
  });

  test('the --metrics-listen listener serves the same page, and nothing else', T, async () => {
    const url = metricsUrl(server);
    const other = await fetchMetrics(url);
    assert.equal(total(other, OP, { gen_ai_tool_name: 'time_get_current', error_type: '' }), 5);
    const mcp = await rawRequest(url.replace(/\/metrics$/, '/mcp'), {
      headers: mcpHeaders(), body: initializeBody(VERSION),
    });
    assert.equal(mcp.status, 404);
    const post = await rawRequest(url, { method: 'POST', body: '' });
    assert.equal(post.status, 405);
  });

  test('the page passes promtool check metrics', T, (t) => {
    if (!promtool()) {
      t.skip('promtool is not installed (Debian package prometheus): not checked');
      return;
    }
    const r = promtoolCheck(page);
    assert.equal(r.status, 0, r.output);
    assert.equal(r.output.trim(), '', r.output);
  });
});

describe('GET /metrics with bearer tokens', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({ binary: BINARY, tokens: 'alice s3cret\n' });
  });
  after(() => server?.stop());

  test('on a loopback listener it needs no token; MCP requests without one are 401 and counted', T, async () => {
    const refused = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody(VERSION) });
    assert.equal(refused.status, 401);
    const page = await fetchMetrics(`${server.origin}/metrics`);
    assert.equal(total(page, 'time_tracker_http_refusals_total', { code: '401' }), 1);
    assert.doesNotMatch(page, /alice|s3cret/);
    // A foreign Host (DNS rebinding) is refused as on the MCP endpoint.
    const rebound = await rawRequest(`${server.origin}/metrics`, {
      method: 'GET', headers: { Host: `evil.example:${server.port}` },
    });
    assert.equal(rebound.status, 403);
  });
});

describe('stdio with --metrics-listen', () => {
  test('stdout stays the protocol; the page says network_transport="pipe"', T, async () => {
    const child = spawn(BINARY, ['stdio', '--ephemeral', '--metrics-listen', '127.0.0.1:0'],
      { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    const replies = [];
    let wake = () => {};
    child.stderr.on('data', (c) => { stderr += c; wake(); });
    child.stdout.on('data', (c) => {
      stdout += c;
      let nl;
      while ((nl = stdout.indexOf('\n')) >= 0) {
        replies.push(JSON.parse(stdout.slice(0, nl)));
        stdout = stdout.slice(nl + 1);
      }
      wake();
    });
    const until = (cond, what) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}\n${stderr}`)), 10_000);
      const check = () => {
        if (cond()) { clearTimeout(timer); wake = () => {}; resolve(); }
      };
      wake = check;
      check();
    });
    try {
      await until(() => /serving Prometheus metrics at http:\/\/\S+/.test(stderr), 'the metrics URL');
      const url = /serving Prometheus metrics at (http:\/\/\S+)/.exec(stderr)[1];
      child.stdin.write(`${initializeBody(VERSION)}\n`);
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      child.stdin.write(`${rpc(2, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'UTC' } })}\n`);
      await until(() => replies.length === 2, 'two replies');
      assert.deepEqual(replies.map((r) => r.id), [1, 2]);
      const page = await fetchMetrics(url);
      assert.equal(total(page, OP, {
        mcp_method_name: 'tools/call', gen_ai_tool_name: 'time_get_current', network_transport: 'pipe',
        mcp_protocol_version: VERSION, error_type: '',
      }), 1, page);
      assert.equal(total(page, 'time_tracker_mcp_sessions_open'), 1);
      if (promtool()) {
        const r = promtoolCheck(page);
        assert.equal(r.status, 0, r.output);
      }
      child.stdin.end();
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, stderr);
      assert.equal(stdout, '', 'nothing but replies on stdout');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
