// The report of bench/compare.sh: reads its manifest (one line per run:
// section, system, round, the bench's JSON file, peak RSS, exit status; or
// "skip", system, reason) and prints the tables, or one JSON document.
// Medians over the rounds. Ratios are to ours (and, over stdio, to the
// echo floor), each taken within one round (numerator and denominator from
// the same interleaved round), then the median of those. A run whose load
// generator used >= SATURATED_SHARE of the cores it was given is marked
// SATURATED: its round gives no ratio, and it never serves as a ceiling.
// The one measure a saturated generator cannot limit is the server's own
// CPU per request (the bench reads /proc for the server and its child
// processes: nginx's master and workers): "req/s per server CPU-second vs
// nginx" compares what each would serve with the machine to itself, and
// keeps its SATURATED rounds.
// Plain Node, no packages.
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
// The generator's share of its cores at or above which a run is SATURATED.
const SATURATED_SHARE = 0.9;
const NPROC = Number(arg.nproc) || 1;

const versions = {};
for (const line of fs.readFileSync(arg.versions, 'utf8').split('\n')) {
  const [k, v] = line.split('\t');
  if (k) versions[k] = v;
}

const skipped = {};
const runs = { http: {}, stdio: {}, cold: {}, open: {}, journal: {}, memory: {} };
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

// The generator's CPU over the window, as a share of the cores it was given
// (its I/O threads, at most the machine's cores; stdio: one).
function generator(d, cores) {
  if (!d || !(d.window_s > 0) || d.bench_cpu_s == null) return { bench_cpu_pct: null, saturated: false };
  const share = d.bench_cpu_s / d.window_s / Math.max(1, Math.min(cores, NPROC));
  return { bench_cpu_pct: (100 * d.bench_cpu_s) / d.window_s, saturated: share >= SATURATED_SHARE };
}

// One run's figures under load, read alike for every section: the bench's
// ROW (its total, or the handshake's operation), its req/s as RPS, the
// server's CPU per reply unless CPU is false, the generator's share of
// CORES; the offered RATE (open loop) and RSS (a peak in KiB) where asked.
function loadFigures(run, { row = run.doc?.total, rps = 'throughput_rps', rate = false, cpu = true, cores = Number(arg.threads) || 1, ...o } = {}) {
  const d = run.doc;
  return {
    round: run.round,
    ...(rate ? { rate: d?.config?.rate ?? null } : {}),
    [rps]: row?.throughput_rps ?? null,
    p50_us: row?.latency_us?.p50 ?? null,
    p99_us: row?.latency_us?.p99 ?? null,
    ...('rss' in o ? { rss_peak_kib: o.rss } : {}),
    cpu_per_reply_us: cpu ? d?.server?.cpu_per_reply_us ?? null : null,
    req_per_cpu_s: cpu && d?.server?.cpu_per_reply_us > 0 ? 1e6 / d.server.cpu_per_reply_us : null,
    ...generator(d, cores),
    errors: d ? d.errors : null,
    exit: run.exit,
  };
}
// Closed loop over HTTP. The bench's server CPU is the pid's and its
// descendants' (nginx: master and workers).
const httpFigures = (run) =>
  loadFigures(run, { row: arg.scenario === 'handshake' ? op(run.doc, '[handshake]') : run.doc?.total, rss: run.rss });
const stdioFigures = (run) => loadFigures(run, { rps: 'calls_per_s', rss: run.doc?.server?.rss_kib?.peak ?? null, cores: 1 });
// Open loop: also how late the bench sent (due time to the write; part of
// the latency): a generator that falls behind shows here.
const openFigures = (run) => ({ ...loadFigures(run, { rate: true }), send_lag_p99_us: run.doc?.send_lag_us?.p99 ?? null });
const journalFigures = (run) => loadFigures(run, { rps: 'calls_per_s' });
function memoryFigures(run) {
  const d = run.doc;
  return {
    round: run.round,
    sessions: d?.memory?.sessions_opened ?? null,
    bytes_per_session: d?.memory?.bytes_per_session ?? null,
    rss_open_kib: d?.memory?.rss_kib?.open ?? null,
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
    ...generator(d, 1),
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
    const saturated = rounds.filter((r) => r.saturated).length;
    out.push({ system, version: versions[system] ?? null, median: med, errors, failed_runs: failed, saturated_runs: saturated, rounds });
  }
  return out;
}

const http = section('http', httpFigures, ['throughput_rps', 'p50_us', 'p99_us', 'rss_peak_kib', 'cpu_per_reply_us', 'req_per_cpu_s', 'bench_cpu_pct']);
const stdio = section('stdio', stdioFigures, ['calls_per_s', 'p50_us', 'p99_us', 'rss_peak_kib', 'cpu_per_reply_us', 'bench_cpu_pct']);
const cold = section('cold', coldFigures, ['initialize_p50_us', 'initialize_p99_us', 'handshake_p50_us', 'bench_cpu_pct']);
const open = section('open', openFigures, ['rate', 'throughput_rps', 'p50_us', 'p99_us', 'send_lag_p99_us', 'cpu_per_reply_us', 'bench_cpu_pct']);
const journal = section('journal', journalFigures, ['calls_per_s', 'p50_us', 'p99_us', 'cpu_per_reply_us', 'bench_cpu_pct']);
const memory = section('memory', memoryFigures, ['sessions', 'bytes_per_session', 'rss_open_kib']);
const find = (list, s) => list.find((x) => x.system === s);

// A ratio from one run: KEY of system A over KEY of system B in each round
// where both ran cleanly and neither generator was saturated (unless
// SATURATED_OK: a figure the generator does not limit); the median of
// those, their range, and the rounds left out.
function roundRatio(list, a, b, key, { saturatedOk = false } = {}) {
  const A = find(list, a);
  const B = find(list, b);
  if (!A || !B) return null;
  const per = [];
  const as = [];
  const bs = [];
  const excluded = [];
  for (const ra of A.rounds) {
    const rb = B.rounds.find((x) => x.round === ra.round);
    if (!rb) continue;
    if (!saturatedOk && (ra.saturated || rb.saturated)) { excluded.push({ round: ra.round, why: 'SATURATED' }); continue; }
    if (ra.exit !== '0' || rb.exit !== '0') { excluded.push({ round: ra.round, why: 'failed' }); continue; }
    const x = ratio(ra[key], rb[key]);
    if (x != null) {
      per.push(x);
      as.push(ra[key]);
      bs.push(rb[key]);
    }
  }
  // a, b: the medians of the two figures over the rounds used.
  return { a: median(as), b: median(bs), median: median(per), min: per.length ? Math.min(...per) : null, max: per.length ? Math.max(...per) : null, rounds: per.length, per_round: per, excluded };
}
const r2 = (x) => x?.median ?? null;

for (const s of http) {
  s.vs_ours = {
    throughput: r2(roundRatio(http, s.system, 'ours', 'throughput_rps')),
    p99: r2(roundRatio(http, s.system, 'ours', 'p99_us')),
  };
  const tp = s.rounds.map((r) => r.throughput_rps).filter((x) => x != null);
  s.throughput_spread = tp.length > 1 && s.median.throughput_rps ? (Math.max(...tp) - Math.min(...tp)) / s.median.throughput_rps : null;
}
const httpOurs = find(http, 'ours');
const stdioOurs = find(stdio, 'ours');
const floor = find(stdio, 'echo');
for (const s of stdio) {
  s.vs_ours = r2(roundRatio(stdio, s.system, 'ours', 'calls_per_s'));
  s.of_echo_floor = r2(roundRatio(stdio, s.system, 'echo', 'calls_per_s'));
}
const coldOurs = find(cold, 'ours');
for (const s of cold) s.vs_ours = r2(roundRatio(cold, s.system, 'ours', 'initialize_p50_us'));

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
  open_duration: arg['open-duration'],
  journal_duration: arg['journal-duration'],
  journal_clients: Number(arg['journal-clients']),
  idle_sessions: Number(arg['idle-sessions']),
  saturated_share: SATURATED_SHARE,
  ratios: 'within one round, median over rounds; SATURATED rounds excluded',
};

// -- issue 33's targets (item 4): figure, ours, peer, ratio, target, met? ------
const fmtMs = (us) => (us == null ? null : us / 1000);
function target(figure, ours, peer, rr, goal, met, note) {
  return { figure, ours, peer, ratio: rr?.median ?? null, ratio_range: rr && rr.rounds > 1 ? [rr.min, rr.max] : null,
    ratio_rounds: rr?.rounds ?? null, excluded: rr?.excluded ?? [], target: goal, met, note: note ?? null };
}
const judge = (x, ok) => (x == null ? null : ok(x));
// The targets for WHO (ours, or base beside it): figures of that system,
// ratios against the peers from the same rounds.
function targetsFor(who) {
  const targets = [];
  const pre = who === 'ours' ? '' : `${who}-`;
  const me = (list) => find(list, who);
  const hOurs = me(http);
  const ng = find(http, 'nginx');
  const mt = find(http, 'mcp-time');
  if (hOurs && ng) {
    const rr = roundRatio(http, who, 'nginx', 'throughput_rps');
    const sat = ng.saturated_runs > 0;
    targets.push(target('HTTP req/s vs nginx (ceiling)', rr?.a ?? hOurs.median.throughput_rps, rr?.b ?? null, rr, '>= 0.5x',
      judge(rr?.median, (x) => x >= 0.5),
      sat ? `nginx SATURATED in ${ng.saturated_runs} run(s): those are no ceiling` : null));
    // What the generator cannot limit: requests per CPU-second of each
    // server (the throughput each would reach with a core to itself).
    const rc = roundRatio(http, who, 'nginx', 'req_per_cpu_s', { saturatedOk: true });
    targets.push(target('HTTP req/s per server CPU-second vs nginx', rc?.a ?? null, rc?.b ?? null, rc, '>= 0.5x',
      judge(rc?.median, (x) => x >= 0.5),
      rc?.a != null && rc?.b != null
        ? `CPU per request ${(1e6 / rc.a).toFixed(1)} us (ours) vs ${(1e6 / rc.b).toFixed(1)} us (nginx); with ${NPROC} cores to itself: ` +
          `${Math.round(NPROC * rc.a)} vs ${Math.round(NPROC * rc.b)} req/s; SATURATED rounds kept (the generator does not set CPU per request)`
        : null));
  }
  if (hOurs && mt) {
    const rr = roundRatio(http, who, 'mcp-time', 'throughput_rps');
    targets.push(target('HTTP req/s vs mcp-time', rr?.a ?? hOurs.median.throughput_rps, rr?.b ?? null, rr, '>= 1.5x', judge(rr?.median, (x) => x >= 1.5)));
    const rp = roundRatio(http, who, 'mcp-time', 'p99_us');
    targets.push(target('HTTP p99 ms vs mcp-time', fmtMs(rp?.a ?? hOurs.median.p99_us), fmtMs(rp?.b ?? null), rp, '< 1.0x', judge(rp?.median, (x) => x < 1)));
  }
  const op = me(open);
  if (op) {
    const ok = op.rounds.filter((r) => !r.saturated && r.exit === '0');
    const p99 = median(ok.map((r) => r.p99_us));
    targets.push(target('open-loop p99 ms at half the max req/s', fmtMs(p99), null, null, '< 2 ms',
      judge(p99, (x) => x < 2000), `at ${op.median.rate ?? '-'} req/s` + (ok.length < op.rounds.length ? `; ${op.rounds.length - ok.length} run(s) SATURATED or failed` : '')));
  }
  const sOurs = me(stdio);
  if (sOurs && floor) {
    const rr = roundRatio(stdio, who, 'echo', 'calls_per_s');
    targets.push(target('stdio calls/s vs echo floor', rr?.a ?? sOurs.median.calls_per_s, rr?.b ?? null, rr, '>= 0.95x', judge(rr?.median, (x) => x >= 0.95)));
  }
  const cm = find(cold, 'mcp-time');
  const cOurs = me(cold);
  if (cOurs) {
    const rr = cm ? roundRatio(cold, who, 'mcp-time', 'initialize_p50_us') : null;
    targets.push(target('cold: spawn -> initialize reply p50 ms', fmtMs(cOurs.median.initialize_p50_us), fmtMs(cm?.median.initialize_p50_us), rr,
      '<= 3 ms', judge(cOurs.median.initialize_p50_us, (x) => x <= 3000)));
    if (cm) {
      const rh = roundRatio(cold, who, 'mcp-time', 'handshake_p50_us');
      targets.push(target('cold: whole short-lived process p50 ms', fmtMs(cOurs.median.handshake_p50_us), fmtMs(cm.median.handshake_p50_us), rh,
        '<= 1.0x', judge(rh?.median, (x) => x <= 1)));
    }
  }
  const jf = find(journal, `${pre}full`);
  const je = find(journal, `${pre}ephemeral`);
  if (jf && je) {
    const rr = roundRatio(journal, `${pre}full`, `${pre}ephemeral`, 'calls_per_s');
    targets.push(target('workflow calls/s, journal full vs --ephemeral', rr?.a ?? jf.median.calls_per_s, rr?.b ?? null, rr, '>= 0.90x',
      judge(rr?.median, (x) => x >= 0.9)));
  }
  const mem = me(memory);
  if (mem) {
    const kib = mem.median.bytes_per_session == null ? null : mem.median.bytes_per_session / 1024;
    targets.push(target(`KiB per idle MCP session at ${config.idle_sessions}`, kib, null, null, '<= 4 KiB', judge(kib, (x) => x <= 4),
      mem.rounds.some((r) => r.errors) ? 'errors in the run: sessions refused?' : null));
  }
  return targets;
}
const targets = targetsFor('ours');
const baseTargets = find(http, 'base') || find(stdio, 'base') || find(journal, 'base-full') ? targetsFor('base') : [];

// Exit status 1 when a run failed (the tables still show what ran).
const anyFailed = [http, stdio, cold, open, journal, memory].some((list) => list.some((x) => x.failed_runs > 0));
if (arg.json === '1') {
  const doc = { report: 'time-tracker-mcp compare', format_version: 2, date: arg.started, commit: arg.commit ?? null, machine, config, versions, skipped,
    http, stdio, cold_start: cold, open_loop: open, journal, memory, targets, base_targets: baseTargets };
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  process.exit(anyFailed ? 1 : 0);
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

const satMark = (s) => (s.saturated_runs ? ` SATURATED ${s.saturated_runs}/${s.rounds.length}` : '');
const genCpu = (s) => fmt.pct(s.median.bench_cpu_pct == null ? null : s.median.bench_cpu_pct / 100) + satMark(s);

let out = '';
out += `time-tracker-mcp side by side, ${arg.started}${arg.commit ? `, commit ${arg.commit}` : ''}\n`;
out += `machine: ${machine.nproc} x ${machine.cpu}, Linux ${machine.kernel}; load average ${machine.loadavg_before} before, ${machine.loadavg_after} after\n`;
out += `${config.rounds} round${config.rounds > 1 ? 's' : ''}, each system once per round in a rotated order, a fresh server per run; medians over the rounds\n`;
out += `ratios: numerator and denominator from the same round, median over the rounds; a run whose load generator used >= ${Math.round(100 * SATURATED_SHARE)}% of its cores is SATURATED (its round gives no ratio; never a ceiling)\n`;
for (const [s, why] of Object.entries(skipped)) out += `skipped: ${s}: ${why}\n`;

if (http.length) {
  out += `\nHTTP ${config.scenario}${config.scenario === 'handshake' ? ' (rows: whole handshakes)' : ''}, ${config.clients} clients, closed loop, ${config.duration} after a ${config.warmup} warm-up; bench: ${config.bench_threads} thread${config.bench_threads > 1 ? 's' : ''}\n`;
  out += table(
    ['system', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'CPU us/req', 'req/s vs ours', 'p99 vs ours', 'spread', 'bench CPU', 'errors'],
    http.map((s) => [
      s.system, fmt.rate(s.median.throughput_rps), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.mib(s.median.rss_peak_kib), fmt.us(s.median.cpu_per_reply_us), fmt.x(s.vs_ours.throughput), fmt.x(s.vs_ours.p99),
      fmt.pct(s.throughput_spread), genCpu(s), errs(s),
    ]),
  );
}
if (open.length) {
  out += `\nHTTP ${config.scenario}, ours, OPEN loop at half the req/s of the same round's closed-loop run, ${config.open_duration}; latency from the intended send time\n`;
  out += table(
    ['system', 'rate req/s', 'req/s', 'p50 ms', 'p99 ms', 'sent late p99 ms', 'CPU us/req', 'bench CPU', 'errors'],
    open.map((s) => [s.system, fmt.rate(s.median.rate), fmt.rate(s.median.throughput_rps), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.ms(s.median.send_lag_p99_us), fmt.us(s.median.cpu_per_reply_us), genCpu(s), errs(s)]),
  );
}
if (stdio.length) {
  out += `\nstdio, sequential calls (1 client, get-current), ${config.stdio_duration} after a ${config.warmup} warm-up\n`;
  out += table(
    ['system', 'calls/s', 'p50 ms', 'p99 ms', 'peak RSS MiB', 'CPU us/call', 'of echo floor', 'vs ours', 'bench CPU', 'errors'],
    stdio.map((s) => [
      s.system, fmt.rate(s.median.calls_per_s), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.mib(s.median.rss_peak_kib), fmt.us(s.median.cpu_per_reply_us), fmt.pct(s.of_echo_floor), fmt.x(s.vs_ours), genCpu(s), errs(s),
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
if (journal.length) {
  const vsEph = (sys) => (sys.endsWith('full') ? fmt.x(roundRatio(journal, sys, sys.replace(/full$/, 'ephemeral'), 'calls_per_s')?.median) : '1.00x');
  out += `\nworkflow over HTTP, ${config.journal_clients} clients, ${config.journal_duration}: ours with its journal (--journal-sync full) and --ephemeral\n`;
  out += table(
    ['journal', 'calls/s', 'p50 ms', 'p99 ms', 'CPU us/call', 'vs ephemeral', 'bench CPU', 'errors'],
    journal.map((s) => [s.system, fmt.rate(s.median.calls_per_s), fmt.ms(s.median.p50_us), fmt.ms(s.median.p99_us),
      fmt.us(s.median.cpu_per_reply_us), vsEph(s.system), genCpu(s), errs(s)]),
  );
}
if (memory.length) {
  out += `\nmemory: ${config.idle_sessions} idle MCP sessions (idle-sessions scenario, a fresh server)\n`;
  out += table(
    ['system', 'sessions', 'bytes/session', 'RSS open MiB', 'errors'],
    memory.map((s) => [s.system, fmt.rate(s.median.sessions), fmt.rate(s.median.bytes_per_session), fmt.mib(s.median.rss_open_kib), errs(s)]),
  );
}

if (targets.length) {
  const num = (x) => (x == null ? '-' : Math.abs(x) >= 100 ? Math.round(x).toString() : x.toFixed(x >= 10 ? 1 : 3));
  const rng = (t) => (t.ratio_range ? ` (${t.ratio_range[0].toFixed(2)}-${t.ratio_range[1].toFixed(2)})` : '');
  const rat = (t) => (!t ? '-' : t.ratio == null ? (t.excluded.length ? 'SATURATED' : '-') : fmt.x(t.ratio) + rng(t));
  const met = (t) => (!t || t.met == null ? 'n/a' : t.met ? 'yes' : 'NO');
  const withBase = baseTargets.length > 0;
  out += `\nissue 33's targets (item 4), reported, not asserted; ratio: within a round, median (range) over ${config.rounds} round(s)` +
    `${withBase ? '; base: the --base build in the same rounds (before/after from one run)' : ''}\n`;
  out += table(
    ['figure', 'ours', 'peer', 'ratio', 'target', 'met?', ...(withBase ? ['base', 'base ratio', 'base met?'] : [])],
    targets.map((t) => {
      const b = baseTargets.find((x) => x.figure === t.figure);
      return [t.figure, num(t.ours), num(t.peer), rat(t), t.target, met(t), ...(withBase ? [num(b?.ours), rat(b), met(b)] : [])];
    }),
  );
  for (const [who, list] of [['', targets], ['base: ', baseTargets]]) {
    for (const t of list) {
      if (t.note) out += `  ${who}${t.figure}: ${t.note}\n`;
      if (t.excluded.length) out += `  ${who}${t.figure}: rounds left out: ${t.excluded.map((e) => `${e.round} (${e.why})`).join(', ')}\n`;
    }
  }
}

out += '\nversions:\n' + Object.entries(versions).map(([k, v]) => `  ${k}: ${v}\n`).join('');
process.stdout.write(out);
if (anyFailed) process.exitCode = 1;
