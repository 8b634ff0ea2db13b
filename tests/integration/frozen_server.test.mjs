// A frozen server does not block the directory (issue 34 item 7). Three
// stdio servers share one data directory; one stops itself (SIGSTOP) inside
// a write transaction, holding SQLite's write lock, through the test-only
// hook TTM_TEST_STOP_IN_WRITE (a file it removes, then raises SIGSTOP right
// before COMMIT: deterministic, no timing). While it is stopped:
//
// - reads on the others (summary, list, report, stats, a session the
//   frozen one holds) answer within the busy timeout, from the WAL
//   snapshot: the frozen write is not visible;
// - writes answer STORAGE_UNAVAILABLE naming the frozen process's pid; after
//   the first, quickly;
// - a new server starts and serves reads;
// SIGCONT: the frozen write commits and is acknowledged, writes work again
// everywhere, nothing acknowledged is lost. Every process is stopped by its
// PID (the SDK client's close, SIGKILL after).
//
// Run: TTM_BINARY=/abs/path node --test frozen_server.test.mjs
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { pollUntil } from './lib/raw_client.mjs';
import { connect } from './lib/sdk_client.mjs';
import { assertToolError } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: 90_000 };
/** The store's busy timeout: a read must answer well within it. */
const BUSY_TIMEOUT_MS = 2_000;

const conns = [];
let stoppedPid = null;
after(async () => {
  // A stopped process cannot read its stdin EOF: resume it first.
  if (stoppedPid !== null) {
    try { process.kill(stoppedPid, 'SIGCONT'); } catch { /* gone */ }
  }
  await Promise.all(conns.map((c) => c.close().catch(() => {})));
});

async function server(dir, env) {
  const conn = await connect(BINARY, {
    args: ['--data-dir', dir, '--toolsets', 'all'],
    env: env ? { ...process.env, ...env } : undefined,
  });
  conns.push(conn);
  return conn;
}

const call = (conn, name, args) => conn.client.callTool({ name, arguments: args });

async function ok(conn, name, args) {
  const r = await call(conn, name, args);
  assert.equal(r.isError, false, `${name}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

/** Runs `fn`, returns [its value, elapsed ms]. */
async function timed(fn) {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

/** The state letter of /proc/<pid>/stat ('T': stopped). */
function procState(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2)[0];
}

function taskStatus(summary, taskId) {
  return summary.tasks.find((t) => t.task_id === taskId)?.status;
}

describe('a server stopped inside a write transaction', () => {
  test('peers read, writes name its pid, a new server serves reads; SIGCONT resumes everything', T, async () => {
    const dir = freshDataDir();
    const trigger = join(dir, 'stop-in-write');
    const frozen = await server(dir, { TTM_TEST_STOP_IN_WRITE: trigger });
    const peer = await server(dir);
    const other = await server(dir);
    const pid = frozen.pid();

    // Acknowledged before the freeze, on both sides.
    const s1 = (await ok(frozen, 'time_session_start', { milestone_id: 'F1', task_ids: ['a', 'b'] })).session_id;
    const s2 = (await ok(peer, 'time_session_start', { milestone_id: 'P1', task_ids: ['x', 'y'] })).session_id;
    await ok(peer, 'time_task_start', { session_id: s2, task_id: 'x' });
    await ok(other, 'time_stats', {}); // its journal is open (a new one: below)

    // The frozen server's next write stops it right before its COMMIT.
    writeFileSync(trigger, '');
    const inFlight = call(frozen, 'time_task_start', { session_id: s1, task_id: 'a' });
    stoppedPid = pid;
    await pollUntil(() => !existsSync(trigger) && procState(pid) === 'T',
      'the server stopped inside its write', { timeoutMs: 10_000 });

    // Reads on the peers: quick, from the snapshot.
    const reads = {};
    let summary;
    [summary, reads.summary] = await timed(() => ok(peer, 'time_session_summary', { session_id: s2 }));
    assert.equal(taskStatus(summary, 'x'), 'in_progress');
    [, reads.list] = await timed(() => ok(peer, 'time_session_list', {}));
    [, reads.report] = await timed(() => ok(peer, 'time_session_report', { session_id: s2 }));
    [, reads.stats] = await timed(() => ok(other, 'time_stats', {}));
    // The frozen server's session, through another process: its in-flight
    // write is not visible.
    let held;
    [held, reads.held_by_frozen] = await timed(() => ok(other, 'time_session_summary', { session_id: s1 }));
    assert.notEqual(taskStatus(held, 'a'), 'in_progress');
    for (const [what, ms] of Object.entries(reads)) {
      assert.ok(ms < BUSY_TIMEOUT_MS, `a ${what} read took ${ms.toFixed(0)} ms while a server is frozen`);
    }

    // Writes: STORAGE_UNAVAILABLE naming the frozen pid; the first waits
    // the busy timeout, the next ones do not.
    const [w1, firstWriteMs] = await timed(() => call(peer, 'time_task_end', { session_id: s2, task_id: 'x' }));
    assert.match(assertToolError(w1, 'STORAGE_UNAVAILABLE').message, new RegExp(`process ${pid} holds its write lock`));
    const [w2, nextWriteMs] = await timed(() => call(peer, 'time_task_end', { session_id: s2, task_id: 'x' }));
    assert.match(assertToolError(w2, 'STORAGE_UNAVAILABLE').message, new RegExp(`process ${pid} holds its write lock`));
    assert.ok(nextWriteMs < 1_000, `a write after the first refused one took ${nextWriteMs.toFixed(0)} ms`);
    // Reads right after refused writes stay quick.
    const [, readAfterWrites] = await timed(() => ok(peer, 'time_session_summary', { session_id: s2 }));
    assert.ok(readAfterWrites < BUSY_TIMEOUT_MS);

    // A new server starts (its registration needs the write lock: deferred)
    // and serves reads.
    const [late, startMs] = await timed(() => server(dir));
    const [lateSummary, lateReadMs] = await timed(() => ok(late, 'time_session_summary', { session_id: s2 }));
    assert.equal(taskStatus(lateSummary, 'x'), 'in_progress');
    assert.match(late.stderr(), new RegExp(`opened for reading only for now: process ${pid} holds its write lock`));
    const lateWrite = await call(late, 'time_session_start', { milestone_id: 'L0', task_ids: ['t'] });
    assert.match(assertToolError(lateWrite, 'STORAGE_UNAVAILABLE').message, new RegExp(`process ${pid}`));

    console.log(`# frozen: reads ${JSON.stringify(Object.fromEntries(Object.entries(reads).map(([k, v]) => [k, Math.round(v)])))} ms;`
      + ` first write ${Math.round(firstWriteMs)} ms, next ${Math.round(nextWriteMs)} ms;`
      + ` new server up in ${Math.round(startMs)} ms, its first read ${Math.round(lateReadMs)} ms`);

    // Resume: the frozen write commits and is acknowledged.
    process.kill(pid, 'SIGCONT');
    stoppedPid = null;
    const resumed = await inFlight;
    assert.equal(resumed.isError, false, JSON.stringify(resumed.structuredContent));
    // Writes work everywhere again.
    await ok(peer, 'time_task_end', { session_id: s2, task_id: 'x' });
    const s4 = (await ok(late, 'time_session_start', { milestone_id: 'L1', task_ids: ['t'] })).session_id;
    await ok(other, 'time_task_start', { session_id: s1, task_id: 'b' });
    // Nothing acknowledged is lost, nothing refused is present.
    const final1 = await ok(peer, 'time_session_summary', { session_id: s1 });
    assert.equal(taskStatus(final1, 'a'), 'in_progress');
    assert.equal(taskStatus(final1, 'b'), 'in_progress');
    const final2 = await ok(late, 'time_session_summary', { session_id: s2 });
    assert.equal(taskStatus(final2, 'x'), 'completed');
    const list = await ok(other, 'time_session_list', {});
    const milestones = list.sessions.map((s) => s.milestone_id).sort();
    assert.deepEqual(milestones, ['F1', 'L1', 'P1']);
    assert.ok(list.sessions.some((s) => s.session_id === s4));
  });
});
