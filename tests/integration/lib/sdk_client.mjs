// The official MCP TypeScript SDK, shared by the sdk_* test files and
// lib/sdk_suite.mjs: the one place that loads the SDK (failing loudly when it
// is not installed), and the connection over stdio (StdioClientTransport).
// sdk_http.test.mjs connects over Streamable HTTP with the classes loaded here.
import { existsSync } from 'node:fs';

// The SDK is installed (pinned by package-lock.json) with `npm ci` in
// tests/integration by the README's test command. Missing, it fails every
// file that imports this module: a suite that silently skips would hide a
// broken set-up.
const SDK_PACKAGE = new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
if (!existsSync(SDK_PACKAGE)) {
  throw new Error('the MCP SDK is not installed: run `npm ci` in tests/integration');
}
export const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
export const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
export const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
export const {
  McpError, LATEST_PROTOCOL_VERSION, LoggingMessageNotificationSchema,
} = await import('@modelcontextprotocol/sdk/types.js');
/** The SDK's own JSON Schema validator (its public `validation/ajv` export). */
export const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');

/**
 * Spawns `binary stdio` through StdioClientTransport and runs the SDK's
 * initialize handshake. `env` replaces the SDK's default environment
 * (HOME, PATH, ... — not TZ) when given.
 */
export async function connect(binary, { env } = {}) {
  const transport = new StdioClientTransport({ command: binary, args: ['stdio'], env, stderr: 'pipe' });
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
    pid: () => pid,
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
