// The MCP side of the app tests: our real server (`time-tracker-mcp http` on
// a loopback port the kernel picks, tests/integration/lib/http_server.mjs)
// and the official SDK clients, v1 (`initialize`, 2025-11-25) and v2 pinned
// to the stateless 2026-07-28, each declaring the MCP Apps extension or not.
import { existsSync } from 'node:fs';

import { HttpServer, stopAllHttpServers } from '../../integration/lib/http_server.mjs';
import { serverBinary } from '../../integration/lib/env.mjs';

for (const pkg of ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/ext-apps']) {
  if (!existsSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url))) {
    throw new Error(`${pkg} is not installed: run \`npm ci\` in tests/app (scripts/test.sh does)`);
  }
}
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { Client: ClientV2, StreamableHTTPClientTransport: StreamableHTTPClientTransportV2 } =
  await import('@modelcontextprotocol/client');
const { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } = await import('@modelcontextprotocol/ext-apps/app-bridge');

export { HttpServer, stopAllHttpServers, serverBinary };

/** The extension's id, and what a client that renders MCP Apps declares under it. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const UI_MIME = RESOURCE_MIME_TYPE; // text/html;profile=mcp-app
export const UI_CAPABILITY = Object.freeze({ mimeTypes: [UI_MIME] });
/** The legacy flat `_meta` key the SDK also reads (`ui/resourceUri`); we use `_meta.ui.resourceUri`. */
export const LEGACY_URI_KEY = RESOURCE_URI_META_KEY;
export const TIMELINE_URI = 'ui://time-tracker/timeline.html';
/** The tools that link the app. */
export const APP_TOOLS = ['time_session_summary', 'time_session_report', 'time_stats'];
export const MODERN = '2026-07-28';

function capabilities(withUi) {
  return withUi ? { extensions: { [UI_EXTENSION]: UI_CAPABILITY } } : {};
}

/** A v1 client (initialize, 2025-11-25) over Streamable HTTP; `withUi` declares the extension. */
export async function connectV1(url, { withUi }) {
  const client = new Client({ name: 'ttm-app-test', version: '0.0.0' }, { capabilities: capabilities(withUi) });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A v2 client pinned to 2026-07-28 (capabilities in every request's `_meta`). */
export async function connectV2(url, { withUi }) {
  const client = new ClientV2({ name: 'ttm-app-test-v2', version: '0.0.0' },
    { capabilities: capabilities(withUi), versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransportV2(new URL(url)));
  return client;
}
