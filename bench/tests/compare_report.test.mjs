// bench/compare_report.mjs on made-up runs: a saturated load generator
// marks its run SATURATED, such a run is never the ceiling and gives no
// ratio (but its CPU per request does), and ratios are taken within a
// round. Plain node:test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPORT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'compare_report.mjs');

/** runs: [section, system, round, {rps, p99, benchCpu, cpu}]; returns the JSON report. */
function report(runs, { threads = 1, nproc = 2 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'ttm-compare-report-'));
  try {
    const manifest = runs.map(([section, system, round, f], i) => {
      const file = path.join(dir, `${i}.json`);
      writeFileSync(file, JSON.stringify({
        window_s: 10, bench_cpu_s: f.benchCpu ?? 1, errors: 0,
        total: { throughput_rps: f.rps, latency_us: { p50: 1000, p99: f.p99 ?? 3000 } },
        server: { cpu_per_reply_us: f.cpu ?? 30 },
        ...(f.lag ? { config: { rate: f.rate ?? null }, send_lag_us: { p99: f.lag } } : {}),
      }));
      return [section, system, round, file, '1000', '0'].join('\t');
    });
    writeFileSync(path.join(dir, 'm.tsv'), manifest.join('\n') + '\n');
    writeFileSync(path.join(dir, 'v.tsv'), 'ours\tx\n');
    const args = ['--manifest', path.join(dir, 'm.tsv'), '--versions', path.join(dir, 'v.tsv'), '--json', '1',
      '--scenario', 'get-current', '--clients', '64', '--duration', '10s', '--warmup', '2s', '--rounds', '2',
      '--threads', String(threads), '--stdio-duration', '0', '--cold-duration', '0', '--open-duration', '0',
      '--journal-duration', '0', '--journal-clients', '64', '--idle-sessions', '0', '--commit', 'x',
      '--started', 'now', '--loadavg-before', '1', '--loadavg-after', '1', '--cpu', 'c', '--nproc', String(nproc),
      '--kernel', 'k'];
    const r = spawnSync(process.execPath, [REPORT, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const ceiling = (doc) => doc.targets.find((t) => t.figure.startsWith('HTTP req/s vs nginx'));

test('ratios are taken within a round, not from two medians', () => {
  // Round 1: ours 10k, nginx 20k (0.5); round 2: ours 40k, nginx 40k (1.0).
  // Medians of the figures would give 25k / 30k = 0.83.
  const doc = report([
    ['http', 'ours', '1', { rps: 10000 }], ['http', 'nginx', '1', { rps: 20000 }],
    ['http', 'ours', '2', { rps: 40000 }], ['http', 'nginx', '2', { rps: 40000 }],
  ]);
  const t = ceiling(doc);
  assert.equal(t.ratio, 0.75);
  assert.deepEqual(t.ratio_range, [0.5, 1]);
  assert.equal(t.met, true);
  assert.deepEqual(t.excluded, []);
});

test('a saturated generator: SATURATED, no ceiling, its round gives no ratio', () => {
  const doc = report([
    ['http', 'ours', '1', { rps: 10000 }], ['http', 'nginx', '1', { rps: 30000, benchCpu: 9.5 }],
    ['http', 'ours', '2', { rps: 10000 }], ['http', 'nginx', '2', { rps: 40000 }],
  ]);
  const nginx = doc.http.find((s) => s.system === 'nginx');
  assert.equal(nginx.saturated_runs, 1);
  assert.equal(nginx.rounds.find((r) => r.round === 1).saturated, true);
  const t = ceiling(doc);
  assert.equal(t.ratio, 0.25); // round 2 only
  assert.equal(t.peer, 40000);
  assert.deepEqual(t.excluded, [{ round: 1, why: 'SATURATED' }]);

  const all = report([
    ['http', 'ours', '1', { rps: 10000 }], ['http', 'nginx', '1', { rps: 30000, benchCpu: 9.5 }],
    ['http', 'ours', '2', { rps: 10000 }], ['http', 'nginx', '2', { rps: 40000, benchCpu: 9.9 }],
  ]);
  assert.equal(ceiling(all).ratio, null);
  assert.equal(ceiling(all).met, null);
});

test('saturation is judged against the cores the generator was given', () => {
  // 1.2 cores of 2 threads on 2 cores: 60 %, not saturated; 1.9: saturated.
  const runs = (cpu) => [
    ['http', 'ours', '1', { rps: 10000, benchCpu: cpu }], ['http', 'nginx', '1', { rps: 20000 }],
    ['http', 'ours', '2', { rps: 10000 }], ['http', 'nginx', '2', { rps: 20000 }],
  ];
  assert.equal(report(runs(12), { threads: 2 }).http.find((s) => s.system === 'ours').saturated_runs, 0);
  assert.equal(report(runs(19), { threads: 2 }).http.find((s) => s.system === 'ours').saturated_runs, 1);
  // 4 threads on 2 cores: the cores are the limit.
  assert.equal(report(runs(19), { threads: 4 }).http.find((s) => s.system === 'ours').saturated_runs, 1);
});

test('the CPU ceiling: req/s per server CPU-second, SATURATED rounds kept', () => {
  // Round 1: ours 40 us, nginx 10 us per request (0.25); round 2: 30 vs 15
  // (0.5). Both nginx rounds SATURATED: the req/s row has no ratio, this
  // one has both rounds.
  const doc = report([
    ['http', 'ours', '1', { rps: 10000, cpu: 40 }], ['http', 'nginx', '1', { rps: 30000, benchCpu: 9.5, cpu: 10 }],
    ['http', 'ours', '2', { rps: 10000, cpu: 30 }], ['http', 'nginx', '2', { rps: 40000, benchCpu: 9.9, cpu: 15 }],
  ]);
  assert.equal(ceiling(doc).ratio, null);
  const t = doc.targets.find((x) => x.figure === 'HTTP req/s per server CPU-second vs nginx');
  assert.equal(t.ratio, 0.375);
  assert.deepEqual(t.ratio_range, [0.25, 0.5]);
  assert.equal(t.ratio_rounds, 2);
  assert.deepEqual(t.excluded, []);
  assert.equal(t.met, false);
  const nginx = doc.http.find((s) => s.system === 'nginx');
  assert.equal(nginx.median.cpu_per_reply_us, 12.5);
});

test('open loop: the p99 target and how late the bench sent, medians over rounds', () => {
  const doc = report([
    ['open', 'ours', '1', { rps: 9000, rate: 9000, p99: 1500, lag: 300 }],
    ['open', 'ours', '2', { rps: 9000, rate: 9000, p99: 2500, lag: 900 }],
    ['open', 'ours', '3', { rps: 9000, rate: 9000, p99: 1800, lag: 400 }],
  ]);
  const ours = doc.open_loop.find((s) => s.system === 'ours');
  assert.equal(ours.median.send_lag_p99_us, 400);
  assert.equal(ours.median.rate, 9000);
  const t = doc.targets.find((x) => x.figure.startsWith('open-loop p99'));
  assert.equal(t.met, true);
});
