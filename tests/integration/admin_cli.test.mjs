// The admin CLI (issue 31 item 6) on the real binary, against a data
// directory that servers use at the same time:
//
// - `backup DEST` while a stdio server writes sessions (its steps small so
//   that the copy spans many of the server's commits): every session started
//   before the backup is in the copy, `check` passes on it, and a server
//   started on the copy (the restore) reads every session it holds;
// - `export` while a server runs, `import` into a new directory, `export`
//   again: the same bytes; `import` into a directory with sessions is
//   refused; a bad line is named by its number and nothing is written;
// - a 401 at the HTTP edge becomes an audit record (`audit --format json`),
//   one per client address per interval however many refusals come, and
//   never with the token; `sessions list` and `audit` see a session's `by`.
//
// Nothing waits for time: waits end on a reply, a child's exit, or (the
// audit write, which the journal batches) a poll with a bound.
//
// Run: TTM_BINARY=/abs/path node --test admin_cli.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { journalSchemaVersion, serverBinary } from './lib/env.mjs';
import { HttpServer, initializeBody, mcpHeaders, rawRequest, stopAllHttpServers } from './lib/http_server.mjs';
import { pollUntil } from './lib/raw_client.mjs';
import { stdioServers } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: 90_000 };
const servers = stdioServers(BINARY);
after(async () => {
  await servers.closeAll();
  await stopAllHttpServers();
});

/** Runs `time-tracker-mcp ...args`; resolves {code, stdout, stderr}. */
function admin(args, { input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(BINARY, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let stderr = '';
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr }));
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

async function call(conn, name, args) {
  const r = await conn.client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

/** A session with one task run to the end and a second started; ended unless it is one of the first three. */
async function oneSession(conn, n) {
  const s = await call(conn, 'time_session_start', { milestone_id: `m-${n}`, task_ids: ['a', 'b'], tags: ['admin'] });
  await call(conn, 'time_task_start', { session_id: s.session_id, task_id: 'a' });
  await call(conn, 'time_task_end', { session_id: s.session_id, task_id: 'a', status: 'completed' });
  await call(conn, 'time_task_start', { session_id: s.session_id, task_id: 'b' });
  if (n >= 3) await call(conn, 'time_session_end', { session_id: s.session_id }); // a few stay open
  return s.session_id;
}

async function listed(dir) {
  const r = await admin(['sessions', 'list', '--data-dir', dir, '--limit', '10000', '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('admin CLI: backup while a server writes', () => {
  test('the copy is consistent, checks clean, and a server on it reads every session', T, async () => {
    const dir = freshDataDir();
    const conn = await servers.server(['--data-dir', dir]);
    const before = [];
    for (let n = 0; n < 40; n += 1) before.push(await oneSession(conn, n));
    const dest = join(freshDataDir(), 'copy');
    // Writes go on while the backup runs; one page per step makes the copy
    // take many steps, with the server's commits in between.
    let backupDone = false;
    const backup = admin(['backup', dest, '--data-dir', dir, '--pages-per-step', '1'])
      .finally(() => { backupDone = true; });
    const during = [];
    while (!backupDone) during.push(await oneSession(conn, 1000 + during.length));
    const b = await backup;
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout.trim(), `${dest}/journal.sqlite3`);
    assert.match(b.stderr, /backup: \d+ pages in \d+ ms/);
    assert.ok(during.length > 0, 'the server wrote while the backup ran');

    const check = await admin(['check', '--data-dir', dest]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /ok {4}journal integrity: PRAGMA integrity_check: ok/);

    const copied = (await listed(dest)).map((row) => row.session_id);
    for (const id of before) assert.ok(copied.includes(id), `session ${id} (before the backup) is in the copy`);
    const all = new Set([...before, ...during]);
    for (const id of copied) assert.ok(all.has(id), `the copy holds only sessions the server wrote: ${id}`);

    // The restore: a server on the copy reads every session in it.
    const restored = await servers.server(['--data-dir', dest]);
    for (const id of copied) {
      const r = await restored.client.callTool({ name: 'time_session_report', arguments: { session_id: id, format: 'json' } });
      assert.ok(!r.isError, `session ${id} reads back: ${JSON.stringify(r.content)}`);
      assert.equal(JSON.parse(r.structuredContent.report).session.session_id, id);
    }
    // A journal is never overwritten.
    const again = await admin(['backup', dest, '--data-dir', dir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists: back up into a new or empty directory/);
  });
});

describe('admin CLI: export and import', () => {
  test('export -> import -> export gives the same bytes; import checks and refuses', T, async () => {
    const dir = freshDataDir();
    const conn = await servers.server(['--data-dir', dir]);
    for (let n = 0; n < 6; n += 1) await oneSession(conn, n);
    await call(conn, 'time_preferences_set', { timezone: 'Europe/Paris' });
    await call(conn, 'mark_session_start', { intent: 'write the admin docs' });

    const first = await admin(['export', '--data-dir', dir]);
    assert.equal(first.code, 0, first.stderr);
    const lines = first.stdout.trimEnd().split('\n');
    assert.deepEqual(JSON.parse(lines[0]), { format: 'time-tracker-mcp-journal', schema_version: journalSchemaVersion() });
    assert.ok(lines.slice(1).every((l) => JSON.parse(l)), 'every line is JSON');
    assert.equal(lines.filter((l) => JSON.parse(l).event === 'session_started').length, 6);
    assert.equal(lines.filter((l) => JSON.parse(l).preference === 'timezone').length, 1);
    assert.equal(lines.filter((l) => JSON.parse(l).focus).length, 1);

    const target = join(freshDataDir(), 'imported');
    const imp = await admin(['import', '--data-dir', target], { input: first.stdout });
    assert.equal(imp.code, 0, imp.stderr);
    const second = await admin(['export', '--data-dir', target]);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, first.stdout);

    // The imported sessions are sessions: the summaries agree.
    const id = JSON.parse(lines[1]).session_id;
    const a = JSON.parse((await admin(['sessions', 'show', id, '--data-dir', dir])).stdout);
    const b = JSON.parse((await admin(['sessions', 'show', id, '--data-dir', target])).stdout);
    for (const key of ['status', 'start_time', 'task_count', 'tasks_completed', 'milestone_id'])
      assert.deepEqual(b[key], a[key], key);

    // Not into a journal with sessions.
    const twice = await admin(['import', '--data-dir', target], { input: first.stdout });
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /holds a journal with sessions: import into a new, empty data directory/);

    // A bad line: named, and nothing written.
    const bad = [...lines];
    bad[3] = bad[3].replace('"wall_ns":', '"wall_ns":"soon","x":');
    const fresh = join(freshDataDir(), 'bad');
    const refused = await admin(['import', '--data-dir', fresh], { input: `${bad.join('\n')}\n` });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /line 4: 'wall_ns' must be an integer; nothing was imported/);
    assert.ok(!existsSync(join(fresh, 'journal.sqlite3')), 'no journal was written');
  });
});

describe('admin CLI: the audit trail', () => {
  test('a 401 at the edge is recorded once per address, without the token; `by` records too', T, async () => {
    const dir = freshDataDir();
    const server = await HttpServer.startWithTokens({
      binary: BINARY, tokens: 'alice alice-secret-4f1e9a\n', args: ['--data-dir', dir],
    });
    const wrong = 'wrong-secret-77aa01';
    for (let i = 0; i < 3; i += 1) {
      const r = await rawRequest(server.url, {
        headers: mcpHeaders({ extra: { Authorization: `Bearer ${wrong}` } }), body: initializeBody(),
      });
      assert.ok([401, 429].includes(r.status), `refused: ${r.status}`);
    }
    let out = '';
    await pollUntil(async () => {
      const r = await admin(['audit', '--since', '1 hour ago', '--data-dir', dir, '--format', 'json']);
      out = r.stdout;
      return /"event":"refused"/.test(out);
    }, 'the refusal in the audit trail', { timeoutMs: 10_000, intervalMs: 100 });
    const refused = out.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.event === 'refused');
    assert.equal(refused.length, 1, 'one record per address per interval');
    assert.equal(refused[0].status, 401);
    assert.equal(refused[0].client_address, '127.0.0.1');
    assert.match(refused[0].reason, /bearer token is not valid/);
    assert.ok(!out.includes(wrong) && !out.includes('alice-secret'), 'no token in the audit');

    // A session's changes carry who made them.
    const conn = await servers.server(['--data-dir', dir]);
    const id = await oneSession(conn, 1);
    const trail = await admin(['audit', '--since', '1 hour ago', '--data-dir', dir]);
    assert.equal(trail.code, 0, trail.stderr);
    assert.match(trail.stdout, new RegExp(`session_started  local  ${id}  time_session_start`));
    assert.match(trail.stdout, new RegExp(`task_ended  local  ${id}  time_task_end`));
    const mine = await admin(['audit', '--since', '1 hour ago', '--principal', 'nobody', '--data-dir', dir]);
    assert.equal(mine.stdout, '');
    await server.stop();
  });
});

describe('admin CLI: usage', () => {
  test('unknown commands, subcommands and flags exit 2 with a clear error; --help exits 0', T, async () => {
    for (const [args, message] of [
      [['sessions', 'frob'], /unknown subcommand 'frob' \(available: list, show, report\)/],
      [['sessions', 'list', '--frob'], /sessions list: unknown option '--frob'/],
      [['audit', '--since', 'yesterday', '--bogus', '1'], /audit: unknown option '--bogus'/],
      [['audit'], /--since is required/],
      [['backup'], /missing DEST/],
      [['sessions', 'list', '--status', 'sleeping', '--data-dir', freshDataDir()], /'sleeping' is not a session status/],
    ]) {
      const r = await admin(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    }
    for (const cmd of [['sessions', 'list'], ['sessions', 'show'], ['sessions', 'report'], ['audit'], ['check'],
      ['backup'], ['export'], ['import']]) {
      const r = await admin([...cmd, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`^Usage: time-tracker-mcp ${cmd.join(' ')}`));
    }
    const missing = await admin(['sessions', 'list', '--data-dir', join(freshDataDir(), 'none')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read the journal/);
  });
});

