// Starts `time-tracker-mcp http` on a port the kernel picks (--listen
// 127.0.0.1:0) and finds its URL in the start-up log line on stderr. Every
// wait ends on an event (a stderr line, the process's exit); time limits only
// bound how long a broken server can hang a test.
import { withDataDir } from './data_dir.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const STDERR_TAIL_BYTES = 16_384;

/** Every server started here and not yet stopped. */
const running = new Set();
process.on('exit', () => {
  for (const server of running) {
    try { server.child.kill('SIGKILL'); } catch { /* already gone */ }
  }
});

export class HttpServer {
  constructor(child) {
    this.child = child;
    this.stderrText = '';
    this.exitInfo = null;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        running.delete(this);
        resolve(this.exitInfo);
      });
    });
  }

  /**
   * Starts the server with `args` after `http --listen 127.0.0.1:0` (or
   * `listen`: a port chosen before, e.g. for a resource URI); resolves
   * once it logged its URL (this.url, this.origin, this.port).
   */
  static async start({ binary, args = [], env = process.env, listen = '127.0.0.1:0' }) {
    const child = spawn(binary, ['http', '--listen', listen, ...withDataDir(args, env)],
      { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new HttpServer(child);
    running.add(server);
    child.stdout.on('data', () => {}); // nothing is expected there
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`the server did not log its URL within ${START_TIMEOUT_MS} ms${server.context()}`));
      }, START_TIMEOUT_MS);
      child.stderr.on('data', (chunk) => {
        server.stderrText = (server.stderrText + chunk).slice(-STDERR_TAIL_BYTES);
        const m = /serving MCP over HTTP at (http:\/\/[^\s;]+)/.exec(server.stderrText);
        if (m && !server.url) {
          clearTimeout(timer);
          server.url = m[1];
          const u = new URL(server.url);
          server.port = Number(u.port);
          server.origin = u.origin;
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (code ${code}, signal ${signal}) before serving${server.context()}`));
      });
    });
    return server;
  }

  /**
   * Starts the server with `--auth-token-file` naming a file (mode 0600, in
   * a fresh temporary directory) whose text is `tokens`, then `args`;
   * stop() also removes the directory.
   */
  static async startWithTokens({ binary, tokens, args = [], env }) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-tokens-'));
    const file = path.join(dir, 'tokens');
    writeFileSync(file, tokens, { mode: 0o600 });
    try {
      const server = await HttpServer.start({ binary, args: ['--auth-token-file', file, ...args], env });
      server.tempDir = dir;
      return server;
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Resolves when stderr (so far or later) matches `re`; rejects after `timeoutMs`. */
  waitForStderr(re, timeoutMs = START_TIMEOUT_MS) {
    if (re.test(this.stderrText)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onData = () => {
        if (re.test(this.stderrText)) {
          cleanup();
          resolve();
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`stderr did not match ${re} within ${timeoutMs} ms${this.context()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.child.stderr.off('data', onData);
      };
      // Registered after the collector in start(), so stderrText is current.
      this.child.stderr.on('data', onData);
    });
  }

  context() {
    return `\n--- server stderr (tail) ---\n${this.stderrText}`;
  }

  /** Sends `signal` and waits for the exit; returns {code, signal}. */
  async terminate(signal = 'SIGTERM', timeoutMs = STOP_TIMEOUT_MS) {
    if (!this.exitInfo) this.child.kill(signal);
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(
        `the server did not exit within ${timeoutMs} ms of ${signal}${this.context()}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * SIGKILL (a crash: no shutdown code runs), waits for the exit and removes
   * the token directory, if any. Returns {code, signal}.
   */
  async kill() {
    if (!this.exitInfo) this.child.kill('SIGKILL');
    try {
      return await this.exited;
    } finally {
      if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
    }
  }

  /**
   * Ends the server whatever its state (SIGKILL if SIGTERM is not enough)
   * and removes its token directory, if any.
   */
  async stop() {
    try {
      if (this.exitInfo) return this.exitInfo;
      try {
        return await this.terminate('SIGTERM');
      } catch {
        this.child.kill('SIGKILL');
        return await this.exited;
      }
    } finally {
      if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
    }
  }
}

/** Stops every server still running (for `after` hooks). */
export async function stopAllHttpServers() {
  await Promise.all([...running].map((server) => server.stop()));
}

/**
 * One raw HTTP request with node:http, which (unlike fetch) lets a test set
 * Host and Origin freely. Resolves {status, headers, body, json}; `json` is
 * the parsed body when it is JSON. A fresh connection unless `agent` is given.
 */
export function rawRequest(url, { method = 'POST', headers = {}, body, agent = false, timeoutMs = 10_000 } = {}) {
  // Like real clients, send Content-Length unless the test chose chunked
  // (Node would otherwise send every body chunked).
  const named = Object.keys(headers).map((k) => k.toLowerCase());
  if (body !== undefined && !named.includes('content-length') && !named.includes('transfer-encoding')) {
    headers = { ...headers, 'Content-Length': Buffer.byteLength(body) };
  }
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        if (/json/.test(res.headers['content-type'] ?? '')) {
          try { json = JSON.parse(text); } catch { /* left undefined */ }
        }
        resolve({ status: res.statusCode, headers: res.headers, body: text, json });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const JSON_AND_SSE = 'application/json, text/event-stream';

/** Headers of a well-formed MCP POST. */
export function mcpHeaders({ session, version, accept = JSON_AND_SSE, extra = {} } = {}) {
  const h = { 'Content-Type': 'application/json', Accept: accept, ...extra };
  if (session) h['Mcp-Session-Id'] = session;
  if (version) h['MCP-Protocol-Version'] = version;
  return h;
}

export function initializeBody(protocolVersion = '2025-11-25', id = 1) {
  return JSON.stringify({
    jsonrpc: '2.0', id, method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'ttm-http-raw-test', version: '0.0.0' } },
  });
}

/** Parses an SSE body into the `data` of its events, as JSON. */
export function sseMessages(text) {
  return text.split('\n\n').filter((e) => e.trim() !== '').map((event) => {
    const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
    return JSON.parse(data);
  });
}

/**
 * Parses the HTTP/1.1 responses at the start of `buf` (bodies framed by
 * Content-Length or chunked). Returns {responses, rest}: each response
 * {status, headers (lower-case names), body, json}, and the unparsed bytes.
 */
export function parseHttpResponses(buf) {
  const responses = [];
  let rest = buf;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
    assert.ok(Number.isInteger(status), `not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
    const headers = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body;
    let next;
    const start = end + 4;
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts = [];
      let at = start;
      let done = false;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
        if (rest.length < lineEnd + 2 + size + 2) break;
        if (size === 0) { at = lineEnd + 4; done = true; break; }
        parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      if (!done) break;
      body = Buffer.concat(parts);
      next = at;
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (rest.length < start + length) break;
      body = rest.subarray(start, start + length);
      next = start + length;
    }
    const text = body.toString('utf8');
    let json;
    if (/json/.test(headers['content-type'] ?? '')) {
      try { json = JSON.parse(text); } catch { /* left undefined */ }
    }
    responses.push({ status, headers, body: text, json });
    rest = rest.subarray(next);
  }
  return { responses, rest };
}

/**
 * One raw HTTP/1.1 request (a string) with Host and Content-Length set for
 * `port` and `path`: for writing several on one connection (pipelining).
 */
export function rawHttpRequest(port, path, { method = 'POST', headers = {}, body = '' } = {}) {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body !== '' || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Writes `data` on a fresh TCP connection to 127.0.0.1:`port` and collects
 * the responses. Resolves {responses, bytes (everything received), closed}
 * once `count` responses have arrived (the socket is then destroyed) or the
 * server closed the connection. `end`: half-close (FIN) right after `data`.
 */
export function socketExchange(port, data, { count = Infinity, end = false, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (closed) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      try {
        const { responses } = parseHttpResponses(received);
        resolve({ responses, bytes: received, closed });
      } catch (err) {
        reject(err);
      }
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`socketExchange: ${count} response(s) not received within ${timeoutMs} ms; got ` +
        `${JSON.stringify(received.toString('latin1').slice(0, 500))}`));
    }, timeoutMs);
    socket.on('connect', () => {
      if (end) socket.end(data);
      else socket.write(data);
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (Number.isFinite(count) && parseHttpResponses(received).responses.length >= count) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => { /* 'close' follows and reports */ });
  });
}
