// time-tracker-mcp driven by the official MCP TypeScript SDK over stdio, the
// way real MCP clients talk to it. Run: TTM_BINARY=/abs/path node --test sdk_stdio.test.mjs
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { call, Client, defineSdkSuite } from './lib/sdk_suite.mjs';
import { assertTimeResult } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

/**
 * Spawns the server through StdioClientTransport and runs the SDK's
 * initialize handshake. `env` replaces the SDK's default environment
 * (HOME, PATH, ... — not TZ) when given.
 */
async function connect({ env } = {}) {
  const transport = new StdioClientTransport({ command: BINARY, args: ['stdio'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-8_192); });
  // The SDK tells the negotiated revision only to transports that want it.
  let negotiatedVersion;
  transport.setProtocolVersion = (version) => { negotiatedVersion = version; };

  const client = new Client({ name: 'ttm-sdk-integration-test', version: '0.0.0' });
  let exited = false;
  client.onclose = () => { exited = true; };
  // Lines on stdout that are not JSON-RPC, replies to unknown ids, ...
  const errors = [];
  client.onerror = (err) => { errors.push(err); };
  let pid = null;
  try {
    await client.connect(transport);
    pid = transport.pid;
  } catch (err) {
    await client.close().catch(() => {});
    throw new Error(`SDK connect failed: ${err.message}\n--- server stderr ---\n${stderr}`);
  }
  return {
    client,
    negotiatedVersion: () => negotiatedVersion,
    exited: () => exited,
    errors: () => errors.map((err) => err.message),
    stderr: () => stderr,
    /** Closes the SDK client (stdin EOF, then SIGTERM after 2 s) and makes sure the process is gone. */
    async close() {
      await client.close();
      if (!exited && pid !== null) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      }
    },
  };
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
