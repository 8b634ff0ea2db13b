// Journal faults at run time that SQLite cannot turn into an error code
// (issue 21 item 5): the journal's WAL index (journal.sqlite3-shm) is a
// shared memory mapping; made immutable under a running server, the next
// write to it is a SIGBUS. The process still dies of it, but explains itself
// on stderr first, and what was acknowledged before survives a restart.
//
// Needs root and a filesystem under the temp directory where `chattr +i`
// works and makes stores to the file's mapping fault (ext4 does; tmpfs
// does not); otherwise the test is skipped, saying why. The
// immutable flag is always removed again (else the directory could not be
// deleted).
// Run: TTM_BINARY=/abs/path node --test journal_faults.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary } from './lib/env.mjs';
import { RawServer, stopAllServers } from './lib/raw_client.mjs';

const BINARY = serverBinary();

after(stopAllServers);

function chattr(flag, file) {
  return spawnSync('chattr', [flag, file], { encoding: 'utf8' });
}

/** Why `chattr +i` cannot be used in `dir`, or null if it can. */
function immutableUnsupported(dir) {
  if (process.getuid?.() !== 0) return 'not root: chattr +i needs CAP_LINUX_IMMUTABLE';
  const probe = path.join(dir, 'chattr-probe');
  writeFileSync(probe, '');
  const set = chattr('+i', probe);
  if (set.error) return `chattr is not available (${set.error.message})`;
  if (set.status !== 0) return `chattr +i fails in ${dir}: ${set.stderr.trim()}`;
  chattr('-i', probe);
  return null;
}

async function toolResult(server, name, args) {
  const response = await server.callTool(name, args);
  assert.ok(!('error' in response), `${name}: ${JSON.stringify(response)}${server.context()}`);
  assert.notEqual(response.result.isError, true, `${name}: ${JSON.stringify(response.result)}`);
  return response.result.structuredContent;
}

test('an immutable -shm file: the server dies of SIGBUS, explains it on stderr, acknowledged data survives',
  { timeout: 30_000 }, async (t) => {
    const dataDir = freshDataDir();
    const why = immutableUnsupported(dataDir);
    if (why) {
      console.log(`skipped: ${why}`);
      t.skip(why);
      return;
    }
    const shm = path.join(dataDir, 'journal.sqlite3-shm');
    const one = await RawServer.start({ binary: BINARY, args: ['--data-dir', dataDir] });
    let id;
    try {
      await one.initialize();
      ({ session_id: id } = await toolResult(one, 'time_session_start',
        { milestone_id: 'M-shm', task_ids: ['A', 'B'] }));
      const set = chattr('+i', shm);
      assert.equal(set.status, 0, `chattr +i ${shm}: ${set.stderr}`);
      // The write that needs the WAL index: no reply, the process dies.
      await one.send({ jsonrpc: '2.0', id: 'doomed', method: 'tools/call',
        params: { name: 'time_task_start', arguments: { session_id: id, task_id: 'A' } } });
      // A reply instead means this filesystem does not fault stores to the
      // mapping of an immutable file (tmpfs, for one): nothing to test here.
      const reply = await one.waitForResponse('doomed', 10_000).catch(() => null);
      if (reply) {
        const why = `the server answered: writes to an immutable -shm do not fault on this filesystem (${dataDir})`;
        console.log(`skipped: ${why}`);
        t.skip(why);
        return;
      }
      const exit = await one.waitForExit(10_000);
      assert.deepEqual(exit, { code: null, signal: 'SIGBUS' }, `the process dies of SIGBUS${one.context()}`);
      const log = one.stderrTail;
      assert.match(log, /error \[main\] fatal: SIGBUS, a memory-mapped file failed/, log);
      assert.ok(log.includes(`WAL index ${shm} became unwritable`), `stderr names ${shm}:\n${log}`);
      assert.match(log, /Changes acknowledged before are safe in the journal/, log);
      assert.match(log, /then restart the server/, log);
      assert.ok(!one.lines.some((l) => l.msg?.id === 'doomed'), 'the doomed call got no reply');
      one.assertStdoutClean();
    } finally {
      chattr('-i', shm);
      await one.stop();
    }

    // Fixed (chattr -i) and restarted: the acknowledged session is back.
    const two = await RawServer.start({ binary: BINARY, args: ['--data-dir', dataDir] });
    try {
      await two.initialize();
      const summary = await toolResult(two, 'time_session_summary', { session_id: id });
      assert.equal(summary.session_id, id);
      assert.equal(summary.status, 'active');
    } finally {
      await two.stop();
    }
  });
