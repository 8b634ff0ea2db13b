// Where the server binary under test is: ctest passes it as TTM_BINARY.
import { accessSync, constants, statSync } from 'node:fs';
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

