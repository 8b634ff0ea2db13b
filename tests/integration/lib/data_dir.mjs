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
 * choose the storage (--data-dir, --ephemeral), and plus `--toolsets all`
 * (every tool, as the suites expect), unless they choose the toolsets;
 * `--toolsets default` stands for none given (the server's default set).
 */
export function withDataDir(args = [], env = process.env) {
  const chosen = args.some((a) => a.startsWith('--data-dir') || a.startsWith('--ephemeral'))
    || (env && (env.TIME_TRACKER_MCP_DATA_DIR || env.TIME_TRACKER_MCP_EPHEMERAL));
  let out = chosen ? args : [...args, '--data-dir', freshDataDir()];
  const i = out.indexOf('--toolsets');
  if (i >= 0 && out[i + 1] === 'default') return [...out.slice(0, i), ...out.slice(i + 2)];
  const sets = out.some((a) => a.startsWith('--toolsets')) || (env && env.TIME_TRACKER_MCP_TOOLSETS);
  if (!sets) out = [...out, '--toolsets', 'all'];
  return out;
}
