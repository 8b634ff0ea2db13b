// Reading the server's Prometheus page (GET /metrics): fetch it, pick
// samples out of it, and lint it with `promtool check metrics` when the
// machine has promtool (Debian's `prometheus` package).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { rawRequest } from './http_server.mjs';

/** GET `url` (…/metrics); asserts 200 and the text format's Content-Type. */
export async function fetchMetrics(url, headers = {}) {
  const res = await rawRequest(url, { method: 'GET', headers });
  assert.equal(res.status, 200, res.body);
  assert.match(res.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
  return res.body;
}

/**
 * The samples of `name` whose labels include every pair of `labels`, as
 * {labels, value}; `name` is the full sample name (…_count, …_bucket).
 */
export function samples(page, name, labels = {}) {
  const out = [];
  for (const line of page.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = {};
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      have[pair[1]] = pair[2];
    }
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      out.push({ labels: have, value: Number(m[3]) });
    }
  }
  return out;
}

/** The sum of the matching samples' values (0: none). */
export function total(page, name, labels = {}) {
  return samples(page, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** promtool's path, or null when it is not installed. */
export function promtool() {
  const r = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Runs `promtool check metrics` on `page`: {status, output}. */
export function promtoolCheck(page) {
  const r = spawnSync(promtool(), ['check', 'metrics'], { input: page, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
