// The report of bench/smoke/multi_process.sh (one run: several server
// processes on one data directory, a bench against each) and of
// bench/multi_process.sh (several such runs side by side). Plain Node, no
// packages.
//
//   node multi_process_report.mjs summarize --manifest FILE --label L
//        --processes N --summary OUT.json
//     FILE: one line per process: index, the bench's --json file, the
//     bench's exit status, the server's exit status, 1 if it was killed,
//     server log lines on contention. Prints a table per process and the
//     aggregate; writes OUT.json.
//
//   node multi_process_report.mjs table --runs FILE [--json 1]
//        [--header TEXT]
//     FILE: one line per run: label, processes, round, summary.json (may be
//     missing), the run's exit status. Prints one row per (label,
//     processes): medians over the rounds.
import fs from 'node:fs';

const [cmd, ...rest] = process.argv.slice(2);
const arg = {};
for (let i = 0; i < rest.length; i += 2) arg[rest[i].replace(/^--/, '')] = rest[i + 1];

const median = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const sum = (xs) => xs.reduce((a, b) => a + (b ?? 0), 0);
const max = (xs) => {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  return v.length ? Math.max(...v) : null;
};
const fmt = (x, digits = 0) => (x == null ? '-' : x.toFixed(digits));
const ms = (us) => (us == null ? null : us / 1000);
const perTxn = (events, txns) => (events != null && txns ? (events / txns).toFixed(1) : '-');
function table(header, rows) {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

function summarize() {
  const procs = [];
  for (const line of fs.readFileSync(arg.manifest, 'utf8').split('\n')) {
    if (!line) continue;
    const [index, file, benchExit, serverExit, killed, busy, events, txns, claims, loads, waitMs] = line.split('\t');
    let doc = null;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      doc = null;
    }
    const wf = doc?.operations?.find((o) => o.name === '[workflow]');
    procs.push({
      index: Number(index),
      killed: killed === '1',
      bench_exit: Number(benchExit),
      server_exit: serverExit === '' ? null : Number(serverExit),
      clients: doc?.config?.clients ?? null,
      window_s: doc?.window_s ?? null,
      calls: doc?.total?.count ?? null,
      calls_per_s: doc?.total?.throughput_rps ?? null,
      workflows_per_s: wf?.throughput_rps ?? null,
      p50_ms: ms(doc?.total?.latency_us?.p50),
      p99_ms: ms(doc?.total?.latency_us?.p99),
      p99_9_ms: ms(doc?.total?.latency_us?.p99_9),
      max_ms: ms(doc?.total?.latency_us?.max),
      server_cpu_pct:
        doc?.server?.cpu_s != null && doc.window_s > 0 ? (100 * doc.server.cpu_s) / doc.window_s : null,
      errors: doc ? doc.errors : null,
      error_messages: doc?.error_messages ?? [],
      lock_waits: Number(busy || 0),
      lock_wait_ms: Number(waitMs || 0),
      journal_events: events ? Number(events) : null,
      journal_transactions: txns ? Number(txns) : null,
      journal_claims: claims ? Number(claims) : null,
      journal_loads: loads ? Number(loads) : null,
      config: doc?.config ?? null,
    });
  }
  const live = procs.filter((p) => !p.killed);
  const agg = {
    calls_per_s: sum(procs.map((p) => p.calls_per_s)),
    workflows_per_s: sum(procs.map((p) => p.workflows_per_s)),
    p50_ms_worst: max(procs.map((p) => p.p50_ms)),
    p99_ms_worst: max(procs.map((p) => p.p99_ms)),
    p99_ms_worst_live: max(live.map((p) => p.p99_ms)),
    server_cpu_pct: sum(procs.map((p) => p.server_cpu_pct)),
    // Server CPU per call over all processes: less sensitive than calls/s
    // to other load on the machine.
    server_cpu_us_per_call: (() => {
      const cpu = sum(procs.map((p) => (p.server_cpu_pct == null ? null : (p.server_cpu_pct / 100) * p.window_s)));
      const calls = sum(procs.map((p) => (p.calls_per_s == null ? null : p.calls_per_s * p.window_s)));
      return calls > 0 && cpu > 0 ? (1e6 * cpu) / calls : null;
    })(),
    errors: sum(procs.map((p) => p.errors)),
    errors_live: sum(live.map((p) => p.errors)),
    lock_waits: sum(procs.map((p) => p.lock_waits)),
    lock_wait_ms: sum(procs.map((p) => p.lock_wait_ms)),
    clients: sum(procs.map((p) => p.clients)),
    journal_events: sum(procs.map((p) => p.journal_events)),
    journal_transactions: sum(procs.map((p) => p.journal_transactions)),
    journal_claims: procs.some((p) => p.journal_claims != null) ? sum(procs.map((p) => p.journal_claims)) : null,
    journal_loads: procs.some((p) => p.journal_loads != null) ? sum(procs.map((p) => p.journal_loads)) : null,
  };
  const cfg = procs.find((p) => p.config)?.config;
  const summary = {
    label: arg.label,
    processes: Number(arg.processes),
    scenario: cfg ? `${cfg.clients} clients per process, ${cfg.duration_s} s after ${cfg.warmup_s} s warm-up, ${cfg.era}` : null,
    per_process: procs.map(({ config, ...p }) => p),
    aggregate: agg,
  };
  fs.writeFileSync(arg.summary, JSON.stringify(summary, null, 2) + '\n');

  const rows = procs.map((p) => [
    `${p.index}${p.killed ? ' (killed)' : ''}`,
    fmt(p.clients),
    fmt(p.calls_per_s),
    fmt(p.workflows_per_s),
    fmt(p.p50_ms, 3),
    fmt(p.p99_ms, 3),
    fmt(p.max_ms, 1),
    p.server_cpu_pct == null ? '-' : `${fmt(p.server_cpu_pct)}%`,
    fmt(p.errors),
    `${fmt(p.lock_waits)} (${fmt(p.lock_wait_ms)} ms)`,
    perTxn(p.journal_events, p.journal_transactions),
    p.journal_claims == null ? '-' : `${p.journal_claims}/${p.journal_loads}`,
    `${p.bench_exit}/${p.server_exit ?? '-'}`,
  ]);
  rows.push([
    'all',
    fmt(agg.clients),
    fmt(agg.calls_per_s),
    fmt(agg.workflows_per_s),
    `${fmt(agg.p50_ms_worst, 3)}*`,
    `${fmt(agg.p99_ms_worst, 3)}*`,
    '',
    `${fmt(agg.server_cpu_pct)}%`,
    fmt(agg.errors),
    `${fmt(agg.lock_waits)} (${fmt(agg.lock_wait_ms)} ms)`,
    perTxn(agg.journal_events, agg.journal_transactions),
    agg.journal_claims == null ? '-' : `${agg.journal_claims}/${agg.journal_loads}`,
    '',
  ]);
  console.log(`${arg.label}: ${summary.scenario ?? 'no bench report'}`);
  console.log(
    table(
      ['process', 'clients', 'calls/s', 'workflows/s', 'p50 ms', 'p99 ms', 'max ms', 'server CPU', 'errors', 'lock waits', 'events/txn', 'claims/loads', 'exit bench/server'],
      rows,
    ),
  );
  console.log(
    '(* the worst of the processes; calls/s and workflows/s summed; CPU in % of one core; events/txn, claims/loads: from the server log at shutdown)',
  );
  for (const p of procs)
    for (const m of p.error_messages.slice(0, 3)) console.log(`  bench ${p.index} error: ${m}`);
}

function sideBySide() {
  const groups = new Map();
  for (const line of fs.readFileSync(arg.runs, 'utf8').split('\n')) {
    if (!line) continue;
    const [label, processes, round, file, exit] = line.split('\t');
    let s = null;
    try {
      s = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      s = null;
    }
    const key = `${label}\t${processes}`;
    if (!groups.has(key)) groups.set(key, { label, processes: Number(processes), runs: [] });
    groups.get(key).runs.push({ round: Number(round), exit: Number(exit), s });
  }
  const out = [];
  for (const g of groups.values()) {
    const a = (f) => g.runs.map((r) => (r.s ? f(r.s) : null));
    out.push({
      label: g.label,
      processes: g.processes,
      rounds: g.runs.length,
      clients_per_process: median(a((s) => s.per_process[0]?.clients)),
      calls_per_s: median(a((s) => s.aggregate.calls_per_s)),
      calls_per_s_by_round: a((s) => s.aggregate.calls_per_s),
      workflows_per_s: median(a((s) => s.aggregate.workflows_per_s)),
      p50_ms: median(a((s) => s.aggregate.p50_ms_worst)),
      p99_ms: median(a((s) => s.aggregate.p99_ms_worst)),
      p99_ms_by_round: a((s) => s.aggregate.p99_ms_worst),
      server_cpu_pct: median(a((s) => s.aggregate.server_cpu_pct)),
      server_cpu_us_per_call: median(a((s) => s.aggregate.server_cpu_us_per_call)),
      errors: sum(a((s) => s.aggregate.errors)),
      lock_waits: sum(a((s) => s.aggregate.lock_waits)),
      lock_wait_ms: sum(a((s) => s.aggregate.lock_wait_ms)),
      events_per_txn: median(
        a((s) => (s.aggregate.journal_transactions ? s.aggregate.journal_events / s.aggregate.journal_transactions : null)),
      ),
      failed_runs: g.runs.filter((r) => r.exit !== 0).length,
    });
  }
  if (arg.json) {
    console.log(JSON.stringify({ header: arg.header ?? null, rows: out }, null, 2));
    return;
  }
  const base = out.find((r) => r.processes === 1) ?? out[0];
  const many = out.some((r) => r.rounds > 1);
  if (arg.header) console.log(arg.header);
  console.log(
    table(
      [
        'server',
        'processes',
        'clients each',
        'calls/s',
        `vs ${base.label} x1`,
        ...(many ? ['calls/s by round'] : []),
        'workflows/s',
        'p50 ms',
        'p99 ms',
        ...(many ? ['p99 by round'] : []),
        'server CPU',
        'CPU us/call',
        'errors',
        'lock waits',
        'events/txn',
        'failed runs',
      ],
      out.map((r) => [
        r.label,
        r.processes,
        fmt(r.clients_per_process),
        fmt(r.calls_per_s),
        r.calls_per_s != null && base.calls_per_s ? `${(r.calls_per_s / base.calls_per_s).toFixed(2)}x` : '-',
        ...(many ? [r.calls_per_s_by_round.map((x) => fmt(x)).join(' / ')] : []),
        fmt(r.workflows_per_s),
        fmt(r.p50_ms, 2),
        fmt(r.p99_ms, 2),
        ...(many ? [r.p99_ms_by_round.map((x) => fmt(x, 2)).join(' / ')] : []),
        r.server_cpu_pct == null ? '-' : `${fmt(r.server_cpu_pct)}%`,
        fmt(r.server_cpu_us_per_call, 1),
        fmt(r.errors),
        `${fmt(r.lock_waits)} (${fmt(r.lock_wait_ms)} ms)`,
        fmt(r.events_per_txn, 1),
        `${r.failed_runs}/${r.rounds}`,
      ]),
    ),
  );
  console.log(
    'calls/s, workflows/s and server CPU (% of one core) summed over the processes; p50 and p99 of all calls, the worst process; CPU us/call: server CPU time per call, all processes; events/txn: journal events per transaction (group commit); medians over the rounds',
  );
}

if (cmd === 'summarize') summarize();
else if (cmd === 'table') sideBySide();
else {
  console.error('usage: multi_process_report.mjs summarize|table ...');
  process.exit(2);
}
