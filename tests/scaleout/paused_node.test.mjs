// A node paused (SIGSTOP) while it holds a tracking session writes nothing
// stale when it resumes (issue 32 item 3): the journal's epochs fence it.
//
// Node A holds a session half-way through Pattern 1 (SDK v2, 2026-07-28)
// and is stopped. A call to end M2-003 as completed waits in A's socket.
// Meanwhile node B claims the session, ends M2-003 as skipped and starts
// M2-004. A resumes (SIGCONT): its waiting call answers already_ended with
// B's outcome (its copy was stale: it reloaded, it did not write), and A
// sees B's changes and finishes the session. The ack-log check then finds
// every acknowledged change exactly once, M2-003 ended once.
//
// On one SQLite data directory, liveness is the kernel's: a paused process
// holds no lock between transactions, so B claims at once. On PostgreSQL
// (wt/pgstore), B claims once A's lease has expired; A, resumed past its
// lease, finds itself fenced. The calls go to the nodes directly: through
// nginx, a call sent to a paused node waits for proxy_read_timeout (the
// kernel still accepts its connections; docs/scaling.md).
//
// Run: TTM_BINARY=/abs/path node --test paused_node.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';

import { serverBinary } from '../integration/lib/env.mjs';
import { pattern1FirstHalf, Route } from '../integration/lib/pattern1_halves.mjs';
import { pollUntil } from '../integration/lib/raw_client.mjs';
import { connectV2Http } from '../integration/lib/sdk_client.mjs';
import { driverFor, PATTERN_1_TASKS } from '../integration/lib/session_patterns.mjs';
import { AckLog } from './lib/acks.mjs';
import { Cluster, hasPostgresBackend, Postgres } from './lib/cluster.mjs';

const BINARY = serverBinary();
const T = { timeout: 30_000 };
const PG = hasPostgresBackend(BINARY);
/** PostgreSQL: the nodes' lease (wt/pgstore's --lease, default 10 s; 2 s is its least). */
const PG_LEASE_MS = 2_000;
const PG_LEASE_ARGS = ['--lease', `${PG_LEASE_MS / 1000}s`];

/** The process's state letter from /proc (T: stopped). */
function procState(pid) {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
}

async function pausedNodeScenario({ journal, nodeArgs = [] }) {
  const acks = new AckLog();
  const cluster = await Cluster.start({ binary: BINARY, nodes: 2, journal, nodeArgs });
  const conns = [];
  try {
    const [nodeA, nodeB] = cluster.nodes;
    const open = async (name, node) => {
      const conn = acks.wrap(await connectV2Http(node.url, { name, context: () => cluster.context() }));
      conns.push(conn);
      const { tools, driver } = await driverFor(conn);
      return { name, conn, tools, driver };
    };
    const a = await open('via-A', nodeA);
    const b = await open('via-B', nodeB);
    const route = new Route(a);
    const run = await pattern1FirstHalf(route.driver, { window: 'paused node' });
    const [, , m3, m4, m5] = PATTERN_1_TASKS;

    nodeA.child.kill('SIGSTOP');
    // The signal is delivered asynchronously: wait for the state (bounded).
    await pollUntil(() => procState(nodeA.child.pid) === 'T', 'node A stopped (state T)');
    // Sent to A while it is stopped: waits in its socket (A's copy: M2-003 running).
    const waiting = run.s.endTask({ ...m3.end, status: 'completed' });
    route.use(b);
    const won = await run.s.endTask({ ...m3.end, status: 'skipped' });
    assert.equal(won.already_ended, false, 'B claims the session and ends M2-003 while A is stopped');
    assert.equal(won.status, 'skipped');
    await run.s.startTask(m4.start);
    if (journal.url) {
      // Past its lease: A's lease runs out on the database's clock while A
      // is stopped (the server's own timer; bounded by the lease).
      await new Promise((r) => { setTimeout(r, PG_LEASE_MS + 1_000); });
    }

    nodeA.child.kill('SIGCONT');
    const late = await waiting;
    assert.equal(late.already_ended, true, 'A, resumed, does not end M2-003 again: it answers with B\'s end');
    assert.equal(late.status, 'skipped');
    assert.equal(late.end_time, won.end_time);

    route.use(a);
    const seen = await run.s.summary();
    assert.deepEqual(seen.tasks.map((t) => [t.task_id, t.status]), [
      ['M2-001', 'completed'], ['M2-002', 'completed'], ['M2-003', 'skipped'], ['M2-004', 'in_progress'],
      ['M2-005', 'not_started'],
    ], 'A sees every change B made while it was stopped');
    await run.s.endTask(m4.end);
    await run.s.startTask(m5.start);
    await run.s.endTask(m5.end);
    const report = await run.s.end();
    assert.equal(report.tasks_completed, 4);
    assert.equal(report.tasks_skipped, 1);
  } catch (err) {
    err.message += cluster.context();
    throw err;
  } finally {
    await Promise.all(conns.map((c) => c.close().catch(() => {})));
    for (const n of cluster.nodes) if (!n.exitInfo) n.child.kill('SIGCONT');
    await cluster.stop();
  }
  try {
    acks.check(journal.url ? ['--journal', journal.url] : ['--data-dir', cluster.journal.dataDir]);
  } finally {
    acks.remove();
  }
}

describe('a node paused (SIGSTOP) while it holds a session: fenced when it resumes, nothing stale written', () => {
  test('two nodes on one SQLite data directory', T, async () => {
    await pausedNodeScenario({ journal: {} });
  });

  describe('two nodes on PostgreSQL, paused past the lease', () => {
    let pg;
    after(() => pg?.remove());
    test('fenced on SIGCONT', { ...T, todo: PG ? false : 'needs the PostgreSQL backend (wt/pgstore)' }, async () => {
      pg = Postgres.start();
      await pausedNodeScenario({ journal: { url: pg.url }, nodeArgs: PG_LEASE_ARGS });
    });
  });
});
