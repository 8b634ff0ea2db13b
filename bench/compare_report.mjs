// The report of bench/compare.sh: reads its manifest (one line per run:
// section, system, round, the bench's JSON file, peak RSS, exit status; or
// "skip", system, reason) and prints the tables, or one JSON document.
// Medians over the rounds; ratios are to ours (and, over stdio, to the
// echo floor). Plain Node, no packages.
import fs from 'node:fs';

const arg = {};
for (let i = 2; i < process.argv.length; i += 2) arg[process.argv[i].slice(2)] = process.argv[i + 1];

const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const ratio = (a, b) => (a != null && b != null && b !== 0 ? a / b : null);

const versions = {};
for (const line of fs.readFileSync(arg.versions, 'utf8').split('\n')) {
  const [k, v] = line.split('\t');
  if (k) versions[k] = v;
}

const skipped = {};
const runs = { http: {}, stdio: {}, cold: {} };
for (const line of fs.readFileSync(arg.manifest, 'utf8').split('\n')) {
  if (!line) continue;
  const [section, system, round, file, rss, exit] = line.split('\t');
  if (section === 'skip') {
    skipped[system] = exit;
    continue;
  }
  let doc = null;
  try {
    if (file) doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    doc = null;
  }
  (runs[section][system] ??= []).push({ round: Number(round), doc, rss: rss ? Number(rss) : null, exit });
}

const op = (doc, name) => doc?.operations?.find((o) => o.name === name);

// One run's figures.
function httpFigures(run, system) {
  const d = run.doc;
  const row = arg.scenario === 'handshake' ? op(d, '[handshake]') : d?.total;
  return {
    round: run.round,
    throughput_rps: row?.throughput_rps ?? null,
    p50_us: row?.latency_us?.p50 ?? null,
    p99_us: row?.latency_us?.p99 ?? null,
    rss_peak_kib: run.rss,
    // The bench reads one pid: nginx's master, not its workers.
    cpu_per_reply_us: system === 'nginx' ? null : d?.server?.cpu_per_reply_us ?? null,
    bench_cpu_pct: d && d.window_s > 0 && d.bench_cpu_s != null ? (100 * d.bench_cpu_s) / d.window_s : null,
    errors: d ? d.errors : null,
    exit: run.exit,
  };
}
function stdioFigures(run) {
  const d = run.doc;
  return {
    round: run.round,
    calls_per_s: d?.total?.throughput_rps ?? null,
    p50_us: d?.total?.latency_us?.p50 ?? null,
    p99_us: d?.total?.latency_us?.p99 ?? null,
    rss_peak_kib: d?.server?.rss_kib?.peak ?? null,
    cpu_per_reply_us: d?.server?.cpu_per_reply_us ?? null,
    errors: d ? d.errors : null,
    exit: run.exit,
  };
}
function coldFigures(run) {
  const d = run.doc;
  const init = op(d, 'initialize (spawn)');
  const hs = op(d, '[handshake]');
  return {
    round: run.round,
    spawns: init?.count ?? null,
    initialize_p50_us: init?.latency_us?.p50 ?? null,
    initialize_p99_us: init?.latency_us?.p99 ?? null,
    handshake_p50_us: hs?.latency_us?.p50 ?? null,
    errors: d ? d.errors : null,
    exit: run.exit,
  };
}

function section(name, figures, keys) {
  const out = [];
  for (const [system, rs] of Object.entries(runs[name])) {
    const rounds = rs.sort((a, b) => a.round - b.round).map((r) => figures(r, system));
    const med = {};
    for (const k of keys) med[k] = median(rounds.map((r) => r[k]));
    const errors = rounds.reduce((n, r) => n + (r.errors ?? 0), 0);
    const failed = rounds.filter((r) => r.exit !== '0').length;
    out.push({ system, version: versions[system] ?? null, median: med, errors, failed_runs: failed, rounds });
  }
  return out;
}

const http = section('http', httpFigures, ['throughput_rps', 'p50_us', 'p99_us', 'rss_peak_kib', 'cpu_per_reply_us', 'bench_cpu_pct']);
const stdio = section('stdio', stdioFigures, ['calls_per_s', 'p50_us', 'p99_us', 'rss_peak_kib', 'cpu_per_reply_us']);
const cold = section('cold', coldFigures, ['initialize_p50_us', 'initialize_p99_us', 'handshake_p50_us']);
const find = (list, s) => list.find((x) => x.system === s);

const httpOurs = find(http, 'ours');
for (const s of http) {
  s.vs_ours = {
    throughput: ratio(s.median.throughput_rps, httpOurs?.median.throughput_rps),
    p99: ratio(s.median.p99_us, httpOurs?.median.p99_us),
  };
  const tp = s.rounds.map((r) => r.throughput_rps).filter((x) => x != null);
  s.throughput_spread = tp.length > 1 && s.median.throughput_rps ? (Math.max(...tp) - Math.min(...tp)) / s.median.throughput_rps : null;
}
const stdioOurs = find(stdio, 'ours');
const floor = find(stdio, 'echo');
for (const s of stdio) {
  s.vs_ours = ratio(s.median.calls_per_s, stdioOurs?.median.calls_per_s);
  s.of_echo_floor = ratio(s.median.calls_per_s, floor?.median.calls_per_s);
}
const coldOurs = find(cold, 'ours');
for (const s of cold) s.vs_ours = ratio(s.median.initialize_p50_us, coldOurs?.median.initialize_p50_us);

const machine = {
  nproc: Number(arg.nproc),
  cpu: arg.cpu,
  kernel: arg.kernel,
  loadavg_before: arg['loadavg-before'],
  loadavg_after: arg['loadavg-after'],
};
const config = {
  scenario: arg.scenario,
  clients: Number(arg.clients),
  duration: arg.duration,
  warmup: arg.warmup,
  rounds: Number(arg.rounds),
  bench_threads: Number(arg.threads),
  stdio_duration: arg['stdio-duration'],
  cold_duration: arg['cold-duration'],
};

if (arg.json === '1') {
  const doc = { report: 'time-tracker-mcp compare', format_version: 1, date: arg.started, machine, config, versions, skipped, http, stdio, cold_start: cold };
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  process.exit(0);
}

// -- tables -------------------------------------------------------------------

const fmt = {
  rate: (x) => (x == null ? '-' : x >= 100 ? Math.round(x).toString() : x.toFixed(1)),
  ms: (us) => (us == null ? '-' : (us / 1000).toFixed(us < 10000 ? 3 : us < 100000 ? 2 : 1)),
  mib: (kib) => (kib == null || kib === 0 ? '-' : (kib / 1024).toFixed(1)),
  us: (x) => (x == null ? '-' : x.toFixed(1)),
  x: (r) => (r == null ? '-' : r.toFixed(2) + 'x'),
  pct: (r) => (r == null ? '-' : Math.round(100 * r) + '%'),
};
function table(head, rows) {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}
const errs = (s) => (s.failed_runs ? `${s.errors} (${s.failed_runs} run${s.failed_runs > 1 ? 's' : ''} failed)` : String(s.errors));

let out = '';
out += `time-tracker-mcp side by side, ${arg.started}\n`;
out += `machine: ${machine.nproc} x ${machine.cpu}, Linux ${machine.kernel}; load average ${machine.loadavg_before} before, ${machine.loadavg_after} after\n`;
out += `${config.rounds} round${config.rounds > 1 ? 's' : ''}, each system once per round in a rotated order, a fresh server per run; medians over the rounds\n`;
for (const [s, why] of Object.entries(skipped)) out += `skipped: ${s}: ${why}\n`;

if (http.length) {
  out += `\nHTTP ${config.scenario}${config.scenario === 'handshake' ? ' (rows: whole handshakes)' : ''}, ${config.clients} clients, closed loop, ${config.duration} after a ${config.warmup} warm-up; bench: ${config.bench_threads} thread${config.bench_threads > 1 ? 's' : ''}\n`;
  out += table(
    ['system', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'CPU us/req', 'req/s vs ours', 'p99 vs ours', 'spread', 'bench CPU', 'errors'],
    http.map((s) => [
      s.system, fmt.rate(s.median.throughput_rps), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.mib(s.median.rss_peak_kib), fmt.us(s.median.cpu_per_reply_us), fmt.x(s.vs_ours.throughput), fmt.x(s.vs_ours.p99),
      fmt.pct(s.throughput_spread), fmt.pct(s.median.bench_cpu_pct == null ? null : s.median.bench_cpu_pct / 100), errs(s),
    ]),
  );
}
if (stdio.length) {
  out += `\nstdio, sequential calls (1 client, get-current), ${config.stdio_duration} after a ${config.warmup} warm-up\n`;
  out += table(
    ['system', 'calls/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'CPU us/call', 'of echo floor', 'vs ours', 'errors'],
    stdio.map((s) => [
      s.system, fmt.rate(s.median.calls_per_s), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.mib(s.median.rss_peak_kib), fmt.us(s.median.cpu_per_reply_us), fmt.pct(s.of_echo_floor), fmt.x(s.vs_ours), errs(s),
    ]),
  );
}
if (cold.length) {
  out += `\ncold start over stdio: spawn to the initialize reply (handshake scenario, ${config.cold_duration} of back-to-back spawns)\n`;
  out += table(
    ['system', 'spawns', 'init p50 ms', 'init p99 ms', 'handshake p50 ms', 'init p50 vs ours', 'errors'],
    cold.map((s) => [
      s.system, s.rounds.reduce((n, r) => n + (r.spawns ?? 0), 0), fmt.ms(s.median.initialize_p50_us),
      fmt.ms(s.median.initialize_p99_us), fmt.ms(s.median.handshake_p50_us), fmt.x(s.vs_ours), errs(s),
    ]),
  );
}

// The figures issue 6 sets targets for (none is asserted here).
const t = [];
const ng = find(http, 'nginx');
const mt = find(http, 'mcp-time');
if (httpOurs && ng) t.push(`ours reaches ${fmt.pct(ratio(httpOurs.median.throughput_rps, ng.median.throughput_rps))} of the nginx ceiling's req/s (target >= 50%)`);
if (httpOurs && mt) {
  t.push(`ours/mcp-time req/s ${fmt.x(ratio(httpOurs.median.throughput_rps, mt.median.throughput_rps))} (target >= 1.5x)`);
  t.push(`p99 ours ${fmt.ms(httpOurs.median.p99_us)} ms, mcp-time ${fmt.ms(mt.median.p99_us)} ms (target: lower)`);
}
if (stdioOurs && floor) {
  const m = find(stdio, 'mcp-time');
  t.push(`stdio: ours ${fmt.pct(stdioOurs.of_echo_floor)} of the echo floor${m ? `, mcp-time ${fmt.pct(m.of_echo_floor)}` : ''} (target >= 90%)`);
}
const cm = find(cold, 'mcp-time');
if (coldOurs && cm) t.push(`cold start p50: ours ${fmt.ms(coldOurs.median.initialize_p50_us)} ms, mcp-time ${fmt.ms(cm.median.initialize_p50_us)} ms (target: no slower)`);
if (t.length) out += `\ntargets of issue 6 (reported, not asserted):\n` + t.map((x) => `  ${x}\n`).join('');

out += '\nversions:\n' + Object.entries(versions).map(([k, v]) => `  ${k}: ${v}\n`).join('');
process.stdout.write(out);
