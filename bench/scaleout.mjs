// Workflow calls/s and p99 with 1, 2 and 3 nodes behind nginx, against one
// node on SQLite, in one run, and the CPU each part spends per call
// (issue 32 item 6). bench/scaleout.sh builds and runs this; the options are
// there. Plain Node, no packages: it reuses the scale-out tests' cluster
// (tests/scaleout/lib/cluster.mjs: nodes, a real unprivileged nginx with
// examples/deploy/nginx/mcp-proxy.conf, PostgreSQL through
// tests/scripts/pg_server.sh).
//
// Configurations (each a fresh journal; the load is time-tracker-bench's
// workflow, the spec's Pattern 1, in the 2026-07-28 era):
//   sqlite-1          one node on SQLite, the bench straight at it
//   sqlite-1+nginx    the same behind nginx (nginx's own cost)
//   J-N rr            N nodes on journal J behind nginx, round-robin: every
//                     call may land on another node and claim the session
//   J-3 hash          3 nodes, `hash $http_mcp_param_session_id consistent`
//                     (the bench sends the header, x-mcp-header): stickiness
// J is pg (PostgreSQL, when the binary has --journal) else sqlite-shared
// (the nodes on one SQLite data directory: one host only).
//
// Per call: the CPU time (user + system, from /proc) of the nodes, of nginx
// (master and workers), of PostgreSQL (the postmaster and its backends) and
// of the bench, over the run, divided by the calls answered; from the
// nodes' /metrics, journal transactions, fences and busy waits per call;
// from the nodes' shutdown log lines (they stop with SIGTERM), claims (a
// call's check of its session against the journal) and loads (a claim that
// read the session's events: it had moved) per call, and the lease
// renewals' cost; on PostgreSQL, from pg_stat_statements (preloaded: the
// throw-away server restarts once), the statements the nodes ran per call,
// COMMITs per call and the busiest statements. A statement is at most one
// round trip (libpq's pipeline mode sends several in one), so statements per
// call bound the round trips from above. The bench's own CPU over the
// window per core it had (one I/O thread): >= 90 % is marked SATURATED,
// as its calls/s is then the bench's limit.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { BALANCE, Cluster, hasPostgresBackend, Postgres } from '../tests/scaleout/lib/cluster.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const opts = {
  build: path.join(here, '..', 'build'), clients: 32, duration: '10s', nodes: [1, 2, 3], rounds: 1, json: false,
  journal: 'auto', hash: true,
};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 1) {
  const a = argv[i];
  const next = () => argv[++i];
  if (a === '--build') opts.build = path.resolve(next());
  else if (a === '--clients') opts.clients = Number(next());
  else if (a === '--duration') opts.duration = next();
  else if (a === '--nodes') opts.nodes = next().split(',').map(Number);
  else if (a === '--rounds') opts.rounds = Number(next());
  else if (a === '--journal') opts.journal = next();
  else if (a === '--json') opts.json = true;
  else if (a === '--no-hash') opts.hash = false;
  else { console.error(`scaleout.mjs: unknown option ${a}`); process.exit(2); }
}
const SERVER = path.join(opts.build, 'time-tracker-mcp');
const BENCH = path.join(opts.build, 'time-tracker-bench');
const PG = opts.journal === 'pg' || (opts.journal === 'auto' && hasPostgresBackend(SERVER));
const J = PG ? 'pg' : 'sqlite-shared';
const TICK = 100; // USER_HZ: /proc's clock ticks per second on Linux
const SATURATED_SHARE = 0.9;
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
// Capacity from one address (nginx): no per-client rate limit (docs/operations.md).
const NODE_ARGS = ['--rate-limit', 'off'];

/** CPU seconds (user + system) of `pid`, reaped children included; 0 if it is gone. */
function cpuOf(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // Fields 14-17 (utime stime cutime cstime), here from index 11 (state is 3).
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
  } catch {
    return 0;
  }
}

/** `pid` and its children (nginx workers, PostgreSQL backends). */
function family(pid) {
  const out = [pid];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch { /* gone */ }
  }
  return out;
}

/** CPU of each part now: {nodes, nginx, pg} in seconds, per pid so that exits and new backends count right. */
function sample(cluster, pg) {
  const pids = {
    nodes: cluster.nodes.map((n) => n.child.pid),
    nginx: family(cluster.nginx.child.pid),
    pg: pg ? family(Number(readFileSync(path.join(pg.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0])) : [],
  };
  const out = {};
  for (const [part, list] of Object.entries(pids)) out[part] = new Map(list.map((p) => [p, cpuOf(p)]));
  return out;
}

/** CPU seconds each part spent between two samples (a process born meanwhile counts from 0). */
function spent(before, after) {
  const out = {};
  for (const part of Object.keys(after)) {
    let s = 0;
    for (const [pid, cpu] of after[part]) s += cpu - (before[part].get(pid) ?? 0);
    out[part] = s;
  }
  return out;
}

/** Sums a counter over the nodes' /metrics pages. */
async function metric(cluster, name) {
  let sum = 0;
  for (const n of cluster.nodes) {
    const text = await fetch(`http://127.0.0.1:${n.port}/metrics`).then((r) => r.text());
    for (const line of text.split('\n')) {
      if (line.startsWith(name)) sum += Number(line.split(' ').at(-1));
    }
  }
  return sum;
}

/** Runs SQL on the throw-away server as its superuser; returns the rows (tab-separated fields). */
function psql(pg, sql) {
  const psqlBin = path.join(PG_BIN, 'psql');
  const u = new URL(pg.url);
  const args = ['-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), '-d', u.pathname.slice(1), '-AtqF', '\t', '-c', sql];
  // pg_server.sh runs the server as nobody when we are root; trust auth on loopback lets anyone connect.
  const r = spawnSync(psqlBin, args, { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`psql: ${r.stderr || r.error}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t'));
}

/** pg_stat_statements needs preloading: set it, restart the server, create the extension. */
function enableStatements(pg) {
  psql(pg, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
  pg.stop();
  pg.restartAfterStop();
  psql(pg, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
}

/** The statements run in the journal's database since the last reset: calls by query. */
function statements(pg) {
  return psql(pg, "SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements"
    + ' WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())'
    + " AND query NOT LIKE '%pg_stat_statements%' ORDER BY calls DESC")
    .map(([calls, query]) => ({ calls: Number(calls), query: query ?? '' }));
}

/** Stops the nodes with SIGTERM (a clean shutdown logs the journal's counts) and reads their logs. */
async function stopNodes(cluster) {
  const out = { claims: 0, loads: 0, renewals: 0, renew_us: [] };
  await Promise.all(cluster.nodes.map(async (n) => {
    if (!n.exitInfo) {
      n.child.kill('SIGTERM');
      const timer = setTimeout(() => n.child.kill('SIGKILL'), 10_000);
      await n.exited;
      clearTimeout(timer);
    }
    const text = n.stderrText ?? '';
    const m = /(\d+) claims, (\d+) loads;/.exec(text);
    if (m) { out.claims += Number(m[1]); out.loads += Number(m[2]); }
    const l = /(\d+) lease renewals, (\d+) us each/.exec(text);
    if (l) { out.renewals += Number(l[1]); out.renew_us.push(Number(l[2])); }
  }));
  return out;
}

function runBench(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(BENCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One configuration: its cluster (or a lone node), the bench, the figures. */
async function measure({ label, nodes, journal, nginx = true, balance = BALANCE.roundRobin }) {
  let pg;
  if (journal === 'pg') {
    pg = Postgres.start();
    enableStatements(pg);
  }
  const cluster = await Cluster.start({
    binary: SERVER, nodes, balance, nodeArgs: NODE_ARGS, journal: pg ? { url: pg.url } : {},
  });
  try {
    const url = nginx ? cluster.url : cluster.nodes[0].url;
    const args = ['--url', url, '--protocol-version', '2026-07-28', '--scenario', 'workflow',
      '--clients', String(opts.clients), '--duration', opts.duration, '--warmup', '0', '--json', '--show-errors', '3'];
    const tx0 = await metric(cluster, 'time_tracker_journal_transactions_total');
    const fence0 = await metric(cluster, 'time_tracker_journal_fences_total');
    const busy0 = await metric(cluster, 'time_tracker_journal_busy_waits_total');
    if (pg) psql(pg, 'SELECT pg_stat_statements_reset()');
    const before = sample(cluster, pg);
    const b = await runBench(args);
    const cpu = spent(before, sample(cluster, pg));
    const stmts = pg ? statements(pg) : [];
    if (b.code !== 0) throw new Error(`${label}: bench exit ${b.code}\n${b.stderr}`);
    const r = JSON.parse(b.stdout);
    const calls = r.total.count;
    const tx = await metric(cluster, 'time_tracker_journal_transactions_total') - tx0;
    const fences = await metric(cluster, 'time_tracker_journal_fences_total') - fence0;
    const busy = await metric(cluster, 'time_tracker_journal_busy_waits_total') - busy0;
    const per = (s) => (1e6 * s) / calls;
    const logs = await stopNodes(cluster);
    const pgCalls = stmts.reduce((n, x) => n + x.calls, 0);
    const commits = stmts.filter((x) => /^COMMIT/i.test(x.query)).reduce((n, x) => n + x.calls, 0);
    const benchShare = r.window_s > 0 && r.bench_cpu_s != null ? r.bench_cpu_s / r.window_s : null;
    return {
      label, nodes, calls, errors: r.total.errors, calls_per_s: r.total.throughput_rps,
      p50_ms: r.total.latency_us.p50 / 1000, p99_ms: r.total.latency_us.p99 / 1000,
      cpu_us_per_call: {
        nodes: per(cpu.nodes), nginx: nginx ? per(cpu.nginx) : 0, postgres: per(cpu.pg),
        bench: per(r.bench_cpu_s ?? 0),
      },
      journal_tx_per_call: tx / calls, fences_per_call: fences / calls, busy_waits_per_call: busy / calls,
      claims_per_call: logs.claims / calls, loads_per_call: logs.loads / calls,
      lease_renewals: logs.renewals, lease_renewal_us: logs.renew_us.length ? Math.max(...logs.renew_us) : null,
      pg_statements_per_call: pg ? pgCalls / calls : null, pg_commits_per_call: pg ? commits / calls : null,
      pg_top_statements: stmts.slice(0, 6).map((x) => ({ per_call: x.calls / calls, query: x.query.slice(0, 120) })),
      bench_cpu_pct: benchShare == null ? null : 100 * benchShare, saturated: benchShare != null && benchShare >= SATURATED_SHARE,
      uptime: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
  } finally {
    await cluster.stop();
    pg?.remove();
  }
}

const configs = [
  { label: 'sqlite-1 direct', nodes: 1, journal: 'sqlite', nginx: false },
  { label: 'sqlite-1 +nginx', nodes: 1, journal: 'sqlite' },
  // (sqlite-shared-1 would be sqlite-1 +nginx again.)
  ...opts.nodes.filter((n) => PG || n > 1)
    .map((n) => ({ label: `${J}-${n} rr`, nodes: n, journal: J === 'pg' ? 'pg' : 'sqlite' })),
  ...(opts.hash ? [{ label: `${J}-3 hash`, nodes: 3, journal: J === 'pg' ? 'pg' : 'sqlite', balance: BALANCE.paramSessionId }] : []),
];

const results = [];
for (let round = 0; round < opts.rounds; round += 1) {
  // Rotated order per round: a shared machine's drift hits all alike.
  const order = configs.map((_, i) => configs[(i + round) % configs.length]);
  for (const c of order) {
    const r = await measure(c);
    r.round = round;
    results.push(r);
    if (!opts.json) console.error(`done: ${r.label} (round ${round + 1}): ${r.calls_per_s.toFixed(0)} calls/s`);
  }
}

/** The median of each figure over the rounds, per configuration. */
function medians() {
  const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
  return configs.map((c) => {
    const rs = results.filter((r) => r.label === c.label);
    const pick = (f) => med(rs.map(f));
    return {
      label: c.label, rounds: rs.length, calls_per_s: pick((r) => r.calls_per_s), p50_ms: pick((r) => r.p50_ms),
      p99_ms: pick((r) => r.p99_ms), errors: pick((r) => r.errors),
      cpu_us_per_call: Object.fromEntries(Object.keys(rs[0].cpu_us_per_call)
        .map((k) => [k, pick((r) => r.cpu_us_per_call[k])])),
      journal_tx_per_call: pick((r) => r.journal_tx_per_call), fences_per_call: pick((r) => r.fences_per_call),
      busy_waits_per_call: pick((r) => r.busy_waits_per_call),
      claims_per_call: pick((r) => r.claims_per_call), loads_per_call: pick((r) => r.loads_per_call),
      pg_statements_per_call: pick((r) => r.pg_statements_per_call), pg_commits_per_call: pick((r) => r.pg_commits_per_call),
      lease_renewal_us: pick((r) => r.lease_renewal_us),
      saturated_runs: rs.filter((r) => r.saturated).length, loadavg: rs.map((r) => r.uptime),
    };
  });
}

const table = medians();
if (opts.json) {
  console.log(JSON.stringify({ journal: J, clients: opts.clients, duration: opts.duration, runs: results, medians: table }, null, 2));
} else {
  console.log(`workflow (2026-07-28), ${opts.clients} clients, ${opts.duration} per run, median of ${opts.rounds} round(s); ` +
    `journal of the multi-node runs: ${J}`);
  const n = (x, d) => (x == null ? '–' : x.toFixed(d));
  console.log('| configuration | calls/s | p50 ms | p99 ms | errors | CPU µs/call: nodes | nginx | PostgreSQL | bench | journal tx/call | claims/call | loads/call | fences/call | PG statements/call | PG COMMITs/call | load avg |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of table) {
    const c = r.cpu_us_per_call;
    console.log(`| ${r.label} | ${r.calls_per_s.toFixed(0)} | ${r.p50_ms.toFixed(2)} | ${r.p99_ms.toFixed(2)} | ${r.errors} | ` +
      `${c.nodes.toFixed(0)} | ${c.nginx.toFixed(0)} | ${c.postgres.toFixed(0)} | ${c.bench.toFixed(0)}${r.saturated_runs ? ' SATURATED' : ''} | ` +
      `${r.journal_tx_per_call.toFixed(2)} | ${n(r.claims_per_call, 2)} | ${n(r.loads_per_call, 3)} | ${r.fences_per_call.toFixed(3)} | ` +
      `${n(r.pg_statements_per_call, 2)} | ${n(r.pg_commits_per_call, 2)} | ${r.loadavg.map((l) => l.split(' ')[0]).join(', ')} |`);
  }
  const renew = table.map((r) => r.lease_renewal_us).filter((x) => x != null);
  if (renew.length) console.log(`lease renewal: at most ${Math.max(...renew)} µs each on average (the nodes' logs)`);
  for (const r of results.filter((x) => x.pg_top_statements.length && x.round === 0)) {
    console.log(`${r.label}: busiest PostgreSQL statements per call: ` +
      r.pg_top_statements.map((x) => `${x.per_call.toFixed(2)} × ${x.query.slice(0, 60)}`).join('; '));
  }
}
