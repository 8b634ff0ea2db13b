// A real Prometheus (Debian's `prometheus`) scrapes `time-tracker-mcp http`
// once a second while tool calls run, then its HTTP API answers a rate()
// and a histogram_quantile() over our metrics. Prometheus runs on loopback
// with a temporary config and storage directory and is stopped by its PID.
// Skipped, saying so, when the prometheus binary is not installed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

import { serverBinary } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, stopAllHttpServers,
} from './lib/http_server.mjs';

const BINARY = serverBinary();
const VERSION = '2025-11-25';
const LOAD_MS = 4_000;

after(stopAllHttpServers);

function prometheusBinary() {
  const r = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** A port free on loopback now (the kernel's pick). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** GET Prometheus' API; returns the JSON `data`. */
async function api(base, what, params = {}) {
  const url = new URL(`${base}/api/v1/${what}`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await rawRequest(url.href, { method: 'GET' });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.status, 'success', res.body);
  return res.json.data;
}

/** Polls the instant query `q` until it has a sample `accept`s (bounded). */
async function queryUntil(base, q, accept, timeoutMs = 8_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await api(base, 'query', { query: q });
    const values = last.result.map((r) => Number(r.value[1]));
    if (values.length > 0 && values.every(accept)) return values;
    if (Date.now() > deadline) assert.fail(`${q}: ${JSON.stringify(last)}`);
    await sleep(250);
  }
}

test('a real Prometheus scrapes /metrics and answers rate() and histogram_quantile()',
  { timeout: 40_000 }, async (t) => {
    const prometheus = prometheusBinary();
    if (!prometheus) {
      t.skip('prometheus is not installed (Debian package prometheus): not run');
      return;
    }
    const server = await HttpServer.start({ binary: BINARY, args: ['--ephemeral'] });
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-prometheus-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    writeFileSync(path.join(dir, 'prometheus.yml'), [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: ttm',
      '    metrics_path: /metrics',
      '    static_configs:',
      `      - targets: ['127.0.0.1:${server.port}']`,
      '',
    ].join('\n'));
    let log = '';
    const child = spawn(prometheus, [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (c) => { log = (log + c).slice(-8192); });
    let calls = 0;
    let stop = false;
    let load = null;
    try {
      // Ready: its own endpoint says so (bounded).
      const readyBy = Date.now() + 10_000;
      for (;;) {
        const r = await rawRequest(`${base}/-/ready`, { method: 'GET' }).catch(() => null);
        if (r?.status === 200) break;
        assert.ok(Date.now() < readyBy, `Prometheus not ready within 10 s:\n${log}`);
        assert.equal(child.exitCode, null, `Prometheus exited:\n${log}`);
        await sleep(100);
      }
      // Load: one MCP session calling time_get_current for LOAD_MS.
      const init = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody(VERSION) });
      const session = init.headers['mcp-session-id'];
      const headers = mcpHeaders({ session, version: VERSION });
      await rawRequest(server.url, {
        headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      // The calls go on while Prometheus is asked (at most LOAD_MS more):
      // a rate over the last seconds needs them.
      load = (async () => {
        const end = Date.now() + LOAD_MS * 3;
        while (!stop && Date.now() < end) {
          const res = await rawRequest(server.url, {
            headers,
            body: JSON.stringify({
              jsonrpc: '2.0', id: ++calls, method: 'tools/call',
              params: { name: 'time_get_current', arguments: { timezone: 'UTC' } },
            }),
          });
          assert.equal(res.status, 200);
          await sleep(5);
        }
      })();
      await sleep(LOAD_MS);
      const up = await queryUntil(base, 'up{job="ttm"}', (v) => v === 1);
      assert.deepEqual(up, [1]);
      const sel = 'mcp_server_operation_duration_seconds_bucket{job="ttm",'
        + 'mcp_method_name="tools/call",gen_ai_tool_name="time_get_current",error_type=""}';
      const rate = await queryUntil(base,
        `sum(rate(mcp_server_operation_duration_seconds_count{job="ttm",gen_ai_tool_name="time_get_current"}[5s]))`,
        (v) => v > 1);
      assert.ok(rate[0] < 10_000, `rate ${rate[0]}`);
      const p90 = await queryUntil(base,
        `histogram_quantile(0.9, sum by (le) (rate(${sel}[5s])))`,
        (v) => Number.isFinite(v) && v > 0);
      // Our calls take microseconds: the 90th percentile is well inside
      // the finite buckets (how far below 10 ms depends on the machine's
      // load; the diagnostic says).
      assert.ok(p90[0] < 1, `p90 ${p90[0]} s`);
      t.diagnostic(`${calls} calls; rate ${rate[0].toFixed(1)}/s; p90 ${(p90[0] * 1e6).toFixed(0)} us`);
    } finally {
      stop = true;
      await load?.catch(() => {});
      child.kill('SIGTERM');
      const stopped = await Promise.race([
        new Promise((resolve) => child.once('exit', () => resolve(true))),
        sleep(5_000).then(() => false),
      ]);
      if (!stopped && child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      await server.stop();
    }
  });
