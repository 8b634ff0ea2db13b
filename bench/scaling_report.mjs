// The report of bench/scaling.sh: reads its manifest (stage, x, round, the
// bench's JSON file, load average at the start of the run, exit status) and
// prints Markdown tables for bench/README.md, or one JSON document. Medians
// over the rounds. Plain Node, no packages.
import fs from 'node:fs';

const arg = {};
for (let i = 2; i < process.argv.length; i += 2) arg[process.argv[i].slice(2)] = process.argv[i + 1];

const SATURATED_SHARE = 0.9;
const NPROC = Number(arg.nproc) || 1;
const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const read = (file) => {
  try {
    return file ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
  } catch {
    return null;
  }
};
const op = (doc, name) => doc?.operations?.find((o) => o.name === name);

const stages = { concurrency: new Map(), tasks: new Map(), memory: new Map(), processes: new Map() };
for (const line of fs.readFileSync(arg.manifest, 'utf8').split('\n')) {
  if (!line) continue;
  const [stage, x, round, file, load, exit] = line.split('\t');
  if (!stages[stage].has(x)) stages[stage].set(x, []);
  stages[stage].get(x).push({ round, doc: read(file), load, exit });
}

function generator(d, cores) {
  if (!d || !(d.window_s > 0) || d.bench_cpu_s == null) return { bench_cpu_pct: null, saturated: false };
  const share = d.bench_cpu_s / d.window_s / Math.max(1, Math.min(cores, NPROC));
  return { bench_cpu_pct: (100 * d.bench_cpu_s) / d.window_s, saturated: share >= SATURATED_SHARE };
}
const common = (runs) => ({
  rounds: runs.length,
  loadavg: runs.map((r) => r.load),
  errors: runs.reduce((n, r) => n + (r.doc?.errors ?? 0), 0),
  failed_runs: runs.filter((r) => r.exit !== '0').length,
});

const concurrency = [...stages.concurrency.entries()].map(([x, runs]) => {
  const fig = runs.map((r) => ({ d: r.doc, ...generator(r.doc, Number(arg.threads) || 1) }));
  return {
    sessions: Number(x),
    req_per_s: median(fig.map((f) => f.d?.total?.throughput_rps)),
    p50_ms: median(fig.map((f) => f.d?.total?.latency_us?.p50 / 1000)),
    p99_ms: median(fig.map((f) => f.d?.total?.latency_us?.p99 / 1000)),
    cpu_us_per_req: median(fig.map((f) => f.d?.server?.cpu_per_reply_us)),
    bench_cpu_pct: median(fig.map((f) => f.bench_cpu_pct)),
    saturated_runs: fig.filter((f) => f.saturated).length,
    ...common(runs),
  };
}).sort((a, b) => a.sessions - b.sessions);

const tasks = [...stages.tasks.entries()].map(([x, runs]) => {
  const lat = (name, p) => median(runs.map((r) => op(r.doc, name)?.latency_us?.[p] / 1000));
  return {
    tasks: Number(x),
    summary_p50_ms: lat('tools/call time_session_summary', 'p50'),
    summary_p99_ms: lat('tools/call time_session_summary', 'p99'),
    report_p50_ms: lat('tools/call time_session_report', 'p50'),
    report_p99_ms: lat('tools/call time_session_report', 'p99'),
    summaries: median(runs.map((r) => op(r.doc, 'tools/call time_session_summary')?.count)),
    ...common(runs),
  };
}).sort((a, b) => a.tasks - b.tasks);

const memory = [...stages.memory.entries()].map(([x, runs]) => ({
  sessions: Number(x),
  opened: median(runs.map((r) => r.doc?.memory?.sessions_opened)),
  bytes_per_session: median(runs.map((r) => r.doc?.memory?.bytes_per_session)),
  rss_baseline_mib: median(runs.map((r) => r.doc?.memory?.rss_kib?.baseline / 1024)),
  rss_open_mib: median(runs.map((r) => r.doc?.memory?.rss_kib?.open / 1024)),
  ...common(runs),
})).sort((a, b) => a.sessions - b.sessions);

const processes = [];
for (const [, runs] of stages.processes) {
  for (const run of runs) {
    for (const row of run.doc?.rows ?? []) processes.push({ ...row, loadavg: [run.load], script_exit: run.exit });
  }
}

const doc = {
  report: 'time-tracker-mcp scaling', date: arg.started, commit: arg.commit ?? null,
  machine: { nproc: NPROC, cpu: arg.cpu, kernel: arg.kernel, uptime_before: arg['uptime-before'], uptime_after: arg['uptime-after'] },
  config: { duration: arg.duration, warmup: arg.warmup, bench_threads: Number(arg.threads), rounds: Number(arg.rounds),
    tasks_clients: Number(arg['tasks-clients']), summaries: Number(arg.summaries), tasks_duration: arg['tasks-duration'],
    saturated_share: SATURATED_SHARE },
  concurrency, tasks, memory, processes,
};
// Exit status 1 when a run failed (the tables still show what ran).
const anyFailed = [concurrency, tasks, memory].some((l) => l.some((r) => r.failed_runs > 0))
  || processes.some((r) => r.failed_runs > 0 || r.script_exit !== '0')
  || [...stages.processes.values()].some((runs) => runs.some((r) => r.exit !== '0'));
if (arg.json === '1') {
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  process.exit(anyFailed ? 1 : 0);
}

const f = (x, d = 0) => (x == null || Number.isNaN(x) ? '–' : d === 0 ? Math.round(x).toLocaleString('en-US') : x.toFixed(d));
const ms = (x) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(x < 10 ? 2 : 1));
const flag = (r) => (r.failed_runs ? ` (${r.failed_runs} failed)` : '') + (r.saturated_runs ? ' SATURATED' : '');
const loads = (r) => [...new Set(r.loadavg.map((l) => (l || '').split(' ')[0]))].join(', ');
let out = '';
out += `${doc.date}, commit ${doc.commit ?? '?'}, ${NPROC} × ${arg.cpu}, Linux ${arg.kernel}; ` +
  `${doc.config.duration} per run after ${doc.config.warmup}, median of ${doc.config.rounds} round(s), a fresh server per run\n`;
out += `uptime before: ${arg['uptime-before'].trim()}\nuptime after:  ${arg['uptime-after'].trim()}\n`;
if (concurrency.length) {
  out += `\nHTTP get-current, closed loop, one MCP session per client and connection; bench: ${doc.config.bench_threads} thread(s) ` +
    `(SATURATED: the bench used >= ${100 * SATURATED_SHARE}% of them, so req/s is the bench's limit)\n\n`;
  out += '| concurrent sessions | req/s | p50 ms | p99 ms | server CPU µs/req | bench CPU | errors | load avg (1 min) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  for (const r of concurrency) {
    out += `| ${f(r.sessions)} | ${f(r.req_per_s)} | ${ms(r.p50_ms)} | ${ms(r.p99_ms)} | ${f(r.cpu_us_per_req, 1)} | ` +
      `${f(r.bench_cpu_pct)}%${flag(r)} | ${r.errors} | ${loads(r)} |\n`;
  }
}
if (tasks.length) {
  out += `\nworkflow with K tasks, then time_session_report (markdown) and time_session_summary ${doc.config.summaries} times each per session, ` +
    `${doc.config.tasks_clients} clients, closed loop, ${doc.config.tasks_duration} per run plus 1 s per 50 tasks\n\n`;
  out += '| tasks | summary p50 ms | summary p99 ms | report p50 ms | report p99 ms | summaries | errors | load avg (1 min) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  for (const r of tasks) {
    out += `| ${f(r.tasks)} | ${ms(r.summary_p50_ms)} | ${ms(r.summary_p99_ms)} | ${ms(r.report_p50_ms)} | ${ms(r.report_p99_ms)} | ` +
      `${f(r.summaries)} | ${r.errors}${flag(r)} | ${loads(r)} |\n`;
  }
}
if (memory.length) {
  out += '\nidle MCP sessions (idle-sessions scenario; RSS of a fresh server)\n\n';
  out += '| sessions | bytes/session | RSS before MiB | RSS open MiB | errors | load avg (1 min) |\n|---:|---:|---:|---:|---:|---:|\n';
  for (const r of memory) {
    out += `| ${f(r.opened ?? r.sessions)} | ${f(r.bytes_per_session)} | ${f(r.rss_baseline_mib, 1)} | ${f(r.rss_open_mib, 1)} | ` +
      `${r.errors}${flag(r)} | ${loads(r)} |\n`;
  }
}
if (processes.length) {
  const base = processes.find((r) => r.processes === 1) ?? processes[0];
  out += '\nworkflow, processes on one data directory (bench/multi_process.sh; 64 clients in all, split over the processes)\n\n';
  out += '| processes | calls/s | vs 1 process | p99 ms | server CPU µs/call | lock waits | events/txn | errors | failed runs |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  for (const r of processes) {
    out += `| ${r.processes} | ${f(r.calls_per_s)} | ${r.calls_per_s && base.calls_per_s ? (r.calls_per_s / base.calls_per_s).toFixed(2) + '×' : '–'} | ` +
      `${ms(r.p99_ms)} | ${f(r.server_cpu_us_per_call, 1)} | ${f(r.lock_waits)} | ${f(r.events_per_txn, 1)} | ${f(r.errors)} | ${r.failed_runs}/${r.rounds} |\n`;
  }
}
process.stdout.write(out);
if (anyFailed) process.exitCode = 1;
