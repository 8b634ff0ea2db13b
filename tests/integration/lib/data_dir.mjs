// Every server a test starts gets its own journal directory, removed when the
// test process exits, unless the test passes one (several servers may share
// a directory: multi_process.test.mjs).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory, removed at exit. */
export function freshDataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'ttm-journal-'));
  made.push(dir);
  return dir;
}

/**
 * `args` plus `--data-dir FRESH`, unless the arguments or `env` already
 * choose the storage (--data-dir, --ephemeral).
 */
export function withDataDir(args = [], env = process.env) {
  const chosen = args.some((a) => a.startsWith('--data-dir') || a.startsWith('--ephemeral'))
    || (env && (env.TIME_TRACKER_MCP_DATA_DIR || env.TIME_TRACKER_MCP_EPHEMERAL));
  return chosen ? args : [...args, '--data-dir', freshDataDir()];
}
