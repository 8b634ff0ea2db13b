// A minimal MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk
// v1, pinned in package-lock.json): the peer a user would write in an
// afternoon. Streamable HTTP with stateful sessions, like ours (one
// StreamableHTTPServerTransport + McpServer per Mcp-Session-Id, as in the
// SDK's stateful example), and one tool, time_get_current, with an
// outputSchema and structuredContent shaped like ours.
//
// Usage: node ts-sdk-server.mjs [--port N] [--host H] [--json-response]
//   --port 0 (default) lets the kernel pick; the URL is printed to stderr as
//   "serving MCP over HTTP at http://HOST:PORT/mcp".
//   --json-response: answer POSTs with application/json instead of the SDK's
//   default SSE stream.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

let port = 0;
let host = '127.0.0.1';
let jsonResponse = false;
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  if (a === '--port') port = Number(process.argv[++i]);
  else if (a === '--host') host = process.argv[++i];
  else if (a === '--json-response') jsonResponse = true;
  else {
    console.error(`ts-sdk-server: unknown argument ${a}`);
    process.exit(2);
  }
}

// -- the tool -----------------------------------------------------------------

const formatters = new Map();
function formatter(zone) {
  let f = formatters.get(zone);
  if (!f) {
    f = {
      parts: new Intl.DateTimeFormat('en-US', {
        timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit',
        day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
        weekday: 'long', timeZoneName: 'longOffset',
      }),
      abbr: new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }),
    };
    formatters.set(zone, f);
  }
  return f;
}

function offsetOf(f, date) {
  const name = f.parts.formatToParts(date).find((p) => p.type === 'timeZoneName').value;
  return name === 'GMT' ? '+00:00' : name.slice(3); // "GMT-05:00"
}

function currentTime(zone) {
  const now = new Date();
  const f = formatter(zone);
  const p = Object.fromEntries(f.parts.formatToParts(now).map((x) => [x.type, x.value]));
  const offset = p.timeZoneName === 'GMT' ? '+00:00' : p.timeZoneName.slice(3);
  const ms = String(now.getUTCMilliseconds()).padStart(3, '0');
  const year = now.getUTCFullYear();
  const jan = offsetOf(f, new Date(Date.UTC(year, 0, 1)));
  const jul = offsetOf(f, new Date(Date.UTC(year, 6, 1)));
  const minutes = (o) => (o[0] === '-' ? -1 : 1) * (Number(o.slice(1, 3)) * 60 + Number(o.slice(4, 6)));
  return {
    timestamp: `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${ms}${offset}`,
    timezone: zone,
    utc_offset: offset,
    day_of_week: p.weekday,
    is_dst: jan !== jul && minutes(offset) === Math.max(minutes(jan), minutes(jul)),
    abbreviation: f.abbr.formatToParts(now).find((x) => x.type === 'timeZoneName').value,
  };
}

function newServer() {
  const server = new McpServer({ name: 'ts-sdk-time', version: '1.0.0' });
  server.registerTool(
    'time_get_current',
    {
      title: 'Current time',
      description: 'Returns the current date and time in an IANA time zone.',
      inputSchema: { timezone: z.string().max(128).optional() },
      outputSchema: {
        timestamp: z.string(),
        timezone: z.string(),
        utc_offset: z.string(),
        day_of_week: z.string(),
        is_dst: z.boolean(),
        abbreviation: z.string(),
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ timezone }) => {
      let result;
      try {
        result = currentTime(timezone ?? 'UTC');
      } catch (e) {
        return { isError: true, content: [{ type: 'text', text: `invalid timezone: ${timezone}` }] };
      }
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    },
  );
  return server;
}

// -- Streamable HTTP, one transport per session ---------------------------------

const transports = new Map();

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function fail(res, status, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const httpServer = http.createServer(async (req, res) => {
  try {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') return fail(res, 404, 'Not found');
    const sid = req.headers['mcp-session-id'];
    let body;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        return fail(res, 400, 'Parse error');
      }
    }
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid) return fail(res, 404, 'Session not found');
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return fail(res, 400, 'Bad Request: no valid session ID');
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: jsonResponse,
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    console.error('ts-sdk-server:', e);
    if (!res.headersSent) fail(res, 500, 'Internal error');
  }
});
httpServer.keepAliveTimeout = 60_000;

httpServer.listen(port, host, () => {
  const a = httpServer.address();
  const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  console.error(`serving MCP over HTTP at http://${h}:${a.port}/mcp`);
});

const stop = () => {
  for (const t of transports.values()) t.close().catch(() => {});
  httpServer.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
