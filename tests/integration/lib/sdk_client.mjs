// The official MCP TypeScript SDK, shared by the sdk_* test files and
// lib/sdk_suite.mjs: the one place that loads the SDK (failing loudly when it
// is not installed), and the connection over stdio (StdioClientTransport).
// Also the v2 client (`@modelcontextprotocol/client`) for 2026-07-28, with
// its connections over HTTP and stdio.
// sdk_http.test.mjs connects over Streamable HTTP with the classes loaded here.
import { withDataDir } from './data_dir.mjs';
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

// The v2 client (`@modelcontextprotocol/client`, pinned beside v1 in
// package-lock.json), which speaks 2026-07-28 when asked to
// (`versionNegotiation`); used by sdk_modern.test.mjs. Its names end in V2.
const SDK_V2_PACKAGE = new URL('../node_modules/@modelcontextprotocol/client/package.json', import.meta.url);
if (!existsSync(SDK_V2_PACKAGE)) {
  throw new Error('the MCP SDK v2 client (@modelcontextprotocol/client) is not installed: ' +
    'run `npm ci` in tests/integration');
}
export const {
  Client: ClientV2, StreamableHTTPClientTransport: StreamableHTTPClientTransportV2,
  ProtocolError: ProtocolErrorV2, SdkError: SdkErrorV2,
} = await import('@modelcontextprotocol/client');
export const { StdioClientTransport: StdioClientTransportV2 } = await import('@modelcontextprotocol/client/stdio');

/** The stateless revision the v2 client is pinned to. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** `versionNegotiation` of a v2 client pinned to 2026-07-28 (`{ pin }` alone would mean legacy). */
export const PINNED_MODERN = Object.freeze({ mode: Object.freeze({ pin: MODERN_PROTOCOL_VERSION }) });
/** `versionNegotiation` of a v2 client that probes with server/discover and picks an era. */
export const AUTO_ERA = Object.freeze({ mode: 'auto' });

/**
 * Connects `client` (v1 or v2) over `transport`, keeping what it reports
 * through onerror. A failed connect closes the client and throws
 * `<label> connect failed: ...` plus `context()`. Returns errors(): the
 * messages reported so far.
 */
async function connectClient(client, transport, { label, context = () => '' }) {
  const errors = [];
  client.onerror = (err) => { errors.push(err); };
  try {
    await client.connect(transport);
  } catch (err) {
    await client.close().catch(() => {});
    throw new Error(`${label} connect failed: ${err.message}${context()}`);
  }
  return () => errors.map((err) => err.message);
}

/** `requestInit` sending `Authorization: Bearer <token>` (none without a token). */
function bearer(token) {
  return token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
}

/**
 * A v1 client (2025-11-25, initialize) over Streamable HTTP to `url`.
 * `token`: sent as `Authorization: Bearer <token>`; `label` starts the
 * message of a failed connect, `context()` ends it. Returns {client,
 * transport, negotiatedVersion(), errors(), close()}.
 */
export async function connectHttp(url, { token, name = 'ttm-sdk-http-test', label = 'SDK', context } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: bearer(token) });
  let negotiatedVersion;
  const setVersion = transport.setProtocolVersion.bind(transport);
  transport.setProtocolVersion = (version) => { negotiatedVersion = version; setVersion(version); };
  const client = new Client({ name, version: '0.0.0' });
  const errors = await connectClient(client, transport, { label, context });
  return { client, transport, negotiatedVersion: () => negotiatedVersion, errors, close: () => client.close() };
}

/**
 * Connects a v2 client over `transport` with `versionNegotiation`. Returns
 * {client, transport, errors(), close()}; `context()` adds to failure messages.
 */
async function connectV2(transport, { versionNegotiation, name, context }) {
  const client = new ClientV2({ name, version: '0.0.0' }, { versionNegotiation });
  const errors = await connectClient(client, transport, { label: 'SDK v2', context });
  return {
    client,
    transport,
    negotiatedVersion: () => client.getNegotiatedProtocolVersion(),
    errors,
    close: () => client.close(),
  };
}

/**
 * A v2 client over Streamable HTTP to `url` (default: pinned to 2026-07-28).
 * `token`: sent as `Authorization: Bearer <token>`.
 */
export function connectV2Http(url, { versionNegotiation = PINNED_MODERN, token, name = 'ttm-sdk-v2-test', context } = {}) {
  const transport = new StreamableHTTPClientTransportV2(new URL(url), { requestInit: bearer(token) });
  return connectV2(transport, { versionNegotiation, name, context });
}

/**
 * A v2 client over stdio (`binary stdio ...args`; default: pinned to
 * 2026-07-28). The v2 transport sends its server/discover probe to a
 * throw-away process of its own; the one it keeps gets the real requests.
 * Also returns pid(), exited(), stderr().
 */
export async function connectV2Stdio(binary, { versionNegotiation = PINNED_MODERN, env, args = [], name = 'ttm-sdk-v2-test' } = {}) {
  const transport = new StdioClientTransportV2({ command: binary, args: ['stdio', ...withDataDir(args, env)], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => { stderr = (stderr + chunk).slice(-8_192); });
  const conn = await connectV2(transport, {
    versionNegotiation, name, context: () => `\n--- server stderr ---\n${stderr}`,
  });
  let exited = false;
  const previous = conn.client.onclose;
  conn.client.onclose = () => { exited = true; previous?.(); };
  const pid = transport.pid;
  return {
    ...conn,
    pid: () => pid,
    exited: () => exited,
    stderr: () => stderr,
    /** Closes the client (stdin EOF) and makes sure the process is gone. */
    async close() {
      await conn.client.close();
      if (!exited && pid !== null) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      }
    },
  };
}

/**
 * Spawns `binary stdio ...args` through StdioClientTransport and runs the
 * SDK's initialize handshake. `env` replaces the SDK's default environment
 * (HOME, PATH, ... — not TZ) when given. `args` may choose the journal
 * (`--data-dir DIR`, e.g. the same one across restarts); else a fresh one.
 */
export async function connect(binary, { env, args = [] } = {}) {
  const transport = new StdioClientTransport({ command: binary, args: ['stdio', ...withDataDir(args, env)], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-8_192); });
  // The SDK tells the negotiated revision only to transports that want it.
  let negotiatedVersion;
  transport.setProtocolVersion = (version) => { negotiatedVersion = version; };

  const client = new Client({ name: 'ttm-sdk-integration-test', version: '0.0.0' });
  let exited = false;
  client.onclose = () => { exited = true; };
  // Lines on stdout that are not JSON-RPC, replies to unknown ids, ...
  const errors = await connectClient(client, transport, {
    label: 'SDK', context: () => `\n--- server stderr ---\n${stderr}`,
  });
  const pid = transport.pid;
  return {
    client,
    pid: () => pid,
    negotiatedVersion: () => negotiatedVersion,
    exited: () => exited,
    errors,
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

/// Stdio servers a test file starts with `connect` and closes once at its
/// end (node:test's `after`): `server(args)` connects and keeps the
/// connection for `closeAll`.
export function stdioServers(binary) {
  const open = [];
  return {
    async server(args = []) {
      const conn = await connect(binary, { args });
      open.push(conn);
      return conn;
    },
    async closeAll() {
      for (const c of open) await c.close().catch(() => {});
    },
  };
}
