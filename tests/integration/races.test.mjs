// Two processes racing on one tracking session (issue 34 item 4), each race
// repeated ROUNDS times so that both orders of arrival get their turn: a
// stdio server (SDK v1 client) and an HTTP server (SDK v1 client) on one data
// directory, principal `local`, era 2025-11-25 (both may name the session).
//
// - the same task ended through both at once: exactly one reply ends it
//   (already_ended false), the other says already_ended with the winner's
//   outcome; the task has one run with the winner's status, as both see it;
// - time_undo through one against a time_tasks_edit through the other: the
//   two are serialized, and the undo's reply says which order: it reverted
//   the task start made before the race (the edit then applies: the added
//   task is there, the start is gone) or the edit (the added task is gone,
//   the start stands). Both processes read that one state;
// - one idempotency_key sent through both at the same instant, and through
//   two MCP sessions of one HTTP server: one session per key; exactly one
//   reply started it (already_started false), every other names the same
//   session with already_started true, so a client can tell; the journal
//   lists one session for the key's milestone.
//
// Nothing waits for time: every wait ends on a reply. Run: TTM_BINARY=/abs/path
// node --test races.test.mjs (RACE_ROUNDS=N for more rounds).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { connect, connectHttp } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 25);
const T = { timeout: 120_000 };

const conns = [];
after(async () => {
  await Promise.all(conns.map((conn) => conn.close().catch(() => {})));
  await stopAllHttpServers();
});

/** tools/call through `c`; the structuredContent of a success (fails the test on an error). */
async function ok(c, name, args) {
  const r = await c.conn.client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${c.name}: ${name} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent;
}

describe('two processes racing on one session (stdio and HTTP, one data directory)', () => {
  const dataDir = freshDataDir();
  const args = ['--data-dir', dataDir, '--toolsets', 'all'];
  let a; // the stdio server's client
  let b; // the HTTP server's client
  let b2; // a second MCP session on the HTTP server
  let server;

  before(async () => {
    // One after the other: a server holds the directory alone while it
    // checks the WAL, which a slow (ThreadSanitizer) build may stretch past
    // the 2 s after which another takes it for a pre-sharing version.
    const stdio = await connect(BINARY, { args });
    server = await HttpServer.start({ binary: BINARY, args });
    conns.push(stdio);
    a = { name: 'stdio', conn: stdio };
    const [h1, h2] = await Promise.all([connectHttp(server.url), connectHttp(server.url)]);
    conns.push(h1, h2);
    b = { name: 'http', conn: h1 };
    b2 = { name: 'http-2', conn: h2 };
  }, T);

  test(`the same task ended through both at once, ${ROUNDS} times: one end, the loser reports the winner's`, T,
    async () => {
      const tasks = Array.from({ length: ROUNDS }, (_, i) => `E-${i + 1}`);
      const s = await ok(a, 'time_session_start', { milestone_id: 'RACE-END', task_ids: tasks });
      const wins = { stdio: 0, http: 0 };
      for (const [k, task_id] of tasks.entries()) {
        await ok(k % 2 === 0 ? a : b, 'time_task_start', { session_id: s.session_id, task_id });
        const replies = await Promise.all([
          ok(a, 'time_task_end', { session_id: s.session_id, task_id, status: 'completed' }),
          ok(b, 'time_task_end', { session_id: s.session_id, task_id, status: 'skipped' }),
        ]);
        const label = `${task_id}`;
        assert.deepEqual(replies.map((r) => r.already_ended).sort(), [false, true],
          `${label}: exactly one reply ends the task: ${JSON.stringify(replies)}`);
        const w = replies.findIndex((r) => !r.already_ended);
        wins[w === 0 ? 'stdio' : 'http'] += 1;
        const [winner, loser] = [replies[w], replies[1 - w]];
        assert.equal(winner.status, w === 0 ? 'completed' : 'skipped', `${label}: the winner's own status`);
        for (const key of ['run', 'status', 'start_time', 'end_time', 'duration_ms']) {
          assert.deepEqual(loser[key], winner[key], `${label}: the loser reports the winner's ${key}`);
        }
      }
      // Both processes read one run per task, each with its winner's status.
      const [sa, sb] = [await ok(a, 'time_session_summary', { session_id: s.session_id }),
        await ok(b, 'time_session_summary', { session_id: s.session_id })];
      assert.deepEqual(sa.tasks, sb.tasks, 'both processes read the same tasks');
      for (const t of sa.tasks) assert.equal(t.run, 1, `${t.task_id}: one run`);
      await ok(b, 'time_session_end', { session_id: s.session_id });
      console.log(`task end races: ${ROUNDS}, won by stdio ${wins.stdio}, by http ${wins.http}`);
    });

  test(`time_undo through one process against time_tasks_edit through the other, ${ROUNDS} times: serialized`, T,
    async () => {
      const orders = { undo_first: 0, edit_first: 0 };
      for (let k = 0; k < ROUNDS; k += 1) {
        const s = await ok(b, 'time_session_start', { milestone_id: `RACE-UNDO-${k}`, task_ids: ['X'] });
        const id = s.session_id;
        await ok(a, 'time_task_start', { session_id: id, task_id: 'X' });
        const added = `N-${k}`;
        const [undo, edit] = await Promise.all([
          ok(k % 2 === 0 ? a : b, 'time_undo', { session_id: id }),
          ok(k % 2 === 0 ? b : a, 'time_tasks_edit', { session_id: id, operations: [{ op: 'add', task_id: added }] }),
        ]);
        assert.equal(edit.operations.length, 1);
        const label = `round ${k}: undo ${JSON.stringify(undo.undone)}`;
        const [sa, sb] = [await ok(a, 'time_session_summary', { session_id: id }),
          await ok(b, 'time_session_summary', { session_id: id })];
        // (A running task's duration grows between the two reads.)
        const shape = (sc) => sc.tasks.map((t) => [t.task_id, t.status, t.run, t.start_time, t.end_time]);
        assert.deepEqual(shape(sa), shape(sb), `${label}: both processes read the same tasks`);
        const byId = Object.fromEntries(sa.tasks.map((t) => [t.task_id, t]));
        if (undo.undone.change === 'task_started') {
          // The undo came first: the start is reverted, the edit applied after it.
          orders.undo_first += 1;
          assert.equal(undo.undone.task_id, 'X', label);
          assert.equal(byId.X.status, 'not_started', `${label}: X's start is undone`);
          assert.ok(byId[added], `${label}: the edit (after the undo) added ${added}`);
        } else {
          // The edit came first: the undo reverted it, the start stands.
          orders.edit_first += 1;
          assert.equal(undo.undone.change, 'tasks_edited', label);
          assert.equal(byId.X.status, 'in_progress', `${label}: X still runs`);
          assert.equal(byId[added], undefined, `${label}: the undone edit's ${added} is gone`);
        }
        await ok(a, 'time_session_end', { session_id: id });
      }
      console.log(`undo/edit races: ${ROUNDS}, undo first ${orders.undo_first}, edit first ${orders.edit_first}`);
    });

  /** `ROUNDS` keys, each sent through `clients` at once; the rule checked per key. */
  async function keyRaces(clients, tag) {
    let firstBy = {};
    for (let k = 0; k < ROUNDS; k += 1) {
      const milestone = `KEY-${tag}-${k}`;
      const key = `${tag}-${k}-${randomUUID()}`;
      const replies = await Promise.all(clients.map((c) => ok(c, 'time_session_start',
        { milestone_id: milestone, task_ids: ['T1'], idempotency_key: key })));
      const ids = new Set(replies.map((r) => r.session_id));
      assert.equal(ids.size, 1, `${milestone}: one session for the key, got ${[...ids]}`);
      const first = replies.filter((r) => r.already_started === false);
      assert.equal(first.length, 1, `${milestone}: exactly one reply started it: ${JSON.stringify(replies.map((r) => r.already_started))}`);
      assert.equal(replies.filter((r) => r.already_started === true).length, clients.length - 1,
        `${milestone}: every other reply says already_started`);
      const w = clients[replies.indexOf(first[0])].name;
      firstBy[w] = (firstBy[w] ?? 0) + 1;
      const listed = await ok(clients[k % clients.length], 'time_session_list', { milestone_id: milestone });
      assert.equal(listed.sessions.length, 1, `${milestone}: the journal lists one session: ${JSON.stringify(listed)}`);
      await ok(clients[0], 'time_session_end', { session_id: [...ids][0] });
    }
    console.log(`idempotency_key races (${tag}): ${ROUNDS}, started by ${JSON.stringify(firstBy)}`);
    firstBy = null;
  }

  test(`one idempotency_key through the stdio and the HTTP server at the same instant, ${ROUNDS} keys`, T,
    () => keyRaces([a, b], 'procs'));

  test(`one idempotency_key through two MCP sessions of one HTTP server at once, ${ROUNDS} keys`, T,
    () => keyRaces([b, b2], 'http'));

  test('no client saw anything but valid JSON-RPC; both servers still run', T, async () => {
    assert.equal(server.exitInfo, null, server.context());
    for (const c of [a, b, b2]) assert.deepEqual(c.conn.errors(), [], c.name);
  });
});
