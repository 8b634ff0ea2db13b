// Where the server binary under test is: ctest passes it as TTM_BINARY.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Returns the absolute path of the server binary named by TTM_BINARY, or
 * throws an Error that says what to do when it is unset or not executable.
 * Test files call this at load time, so a missing binary fails the whole
 * file with this message instead of a cryptic spawn error.
 */
export function serverBinary() {
  const value = process.env.TTM_BINARY;
  if (!value) {
    throw new Error(
      'TTM_BINARY is not set. It must name the time-tracker-mcp binary ' +
        '(ctest sets it). Run e.g.: ' +
        'TTM_BINARY=/work/main/build/time-tracker-mcp node --test sdk_stdio.test.mjs',
    );
  }
  const binary = path.resolve(value);
  try {
    if (!statSync(binary).isFile()) throw new Error('not a regular file');
    accessSync(binary, constants.X_OK);
  } catch (err) {
    throw new Error(`TTM_BINARY=${value} is not an executable file: ${err.message}`);
  }
  return binary;
}

/** Per-test time limit for node:test, in milliseconds. */
export const TEST_TIMEOUT_MS = 20_000;


/**
 * The journal schema version this source tree's server writes, read from
 * its one definition (src/storage/sqlite_store.hpp), so that no test keeps
 * a copy of the number.
 */
export function journalSchemaVersion() {
  const header = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../src/storage/sqlite_store.hpp');
  const m = /constexpr int journal_schema_version = (\d+);/.exec(readFileSync(header, 'utf8'));
  if (!m) throw new Error(`no journal_schema_version in ${header}`);
  return Number(m[1]);
}
