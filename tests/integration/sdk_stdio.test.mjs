// time-tracker-mcp driven by the official MCP TypeScript SDK over stdio, the
// way real MCP clients talk to it: the shared suite (lib/sdk_suite.mjs), then
// what only stdio has: the end of the process on stdin EOF.
// Run: TTM_BINARY=/abs/path node --test sdk_stdio.test.mjs
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { connect as connectSdk } from './lib/sdk_client.mjs';
import { call, defineSdkSuite } from './lib/sdk_suite.mjs';
import { assertTimeResult } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

/** Spawns the server through the SDK's StdioClientTransport (see lib/sdk_client.mjs). */
function connect(options) {
  return connectSdk(BINARY, options);
}

defineSdkSuite('stdio', connect);

describe('shutdown', () => {
  test('client.close() ends the server through stdin EOF, without SIGTERM', T, async () => {
    const conn = await connect();
    try {
      assertTimeResult(await call(conn, {}));
      const started = performance.now();
      await conn.client.close();
      const elapsed = performance.now() - started;
      assert.ok(conn.exited(), 'the server process must have ended');
      // StdioClientTransport.close() sends SIGTERM only after 2 s.
      assert.ok(elapsed < 1_900, `the server took ${Math.round(elapsed)} ms to exit after stdin EOF`);
      assert.deepEqual(conn.errors(), []);
    } finally {
      await conn.close();
    }
  });
});
