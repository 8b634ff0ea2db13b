// A raw newline-delimited JSON-RPC client for `time-tracker-mcp stdio`.
//
// It spawns the server, writes whatever bytes a test wants on its stdin, and
// splits stdout into lines. EVERY stdout line is checked as it arrives: it
// must be UTF-8, parse as JSON, and be a JSON-RPC 2.0 message (or a batch
// response: a non-empty array of responses). A line that is not makes every
// later wait fail at once, and `assertStdoutClean()` fail.
//
// Lines are kept in arrival order (`lines`) and in an "unread" queue from
// which the wait helpers take the first matching line, so a test can wait for
// a reply by id while notifications sent meanwhile stay queued.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sleep } from './env.mjs';

export const DEFAULT_WAIT_MS = 5_000;
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'];
export const MCP_LOG_LEVELS = [
  'debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency',
];

/** JSON-RPC error codes used by the server. */
export const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
});

const STDERR_TAIL_BYTES = 8_192;

/** Every server started by this module that has not been stopped yet. */
const running = new Set();

// Last resort: never leave a server behind, even if a test forgot to stop it.
process.on('exit', () => {
  for (const server of running) {
    try {
      server.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** True for a parsed JSON-RPC response object (has result or error). */
export function isResponse(msg) {
  return msg !== null && typeof msg === 'object' && !Array.isArray(msg) &&
    ('result' in msg || 'error' in msg);
}

function isId(id) {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** Returns why `msg` is not a JSON-RPC 2.0 message, or null if it is one. */
function messageProblem(msg) {
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'not a JSON object';
  if (msg.jsonrpc !== '2.0') return '"jsonrpc" is not "2.0"';
  const response = 'result' in msg || 'error' in msg;
  if ('method' in msg) {
    if (typeof msg.method !== 'string') return '"method" is not a string';
    if (response) return 'has both "method" and "result"/"error"';
    if ('id' in msg && !isId(msg.id)) return 'request id is neither a string nor a number';
    if ('params' in msg && (msg.params === null || typeof msg.params !== 'object')) {
      return '"params" is not an object or array';
    }
    return null;
  }
  if (!response) return 'neither a request/notification nor a response';
  if ('result' in msg && 'error' in msg) return 'has both "result" and "error"';
  if (!('id' in msg)) return 'response without "id"';
  if (msg.id !== null && !isId(msg.id)) return 'response id is not a string, number or null';
  if ('error' in msg) {
    const { error } = msg;
    if (error === null || typeof error !== 'object') return '"error" is not an object';
    if (!Number.isInteger(error.code)) return '"error.code" is not an integer';
    if (typeof error.message !== 'string') return '"error.message" is not a string';
  }
  return null;
}

/** Returns why a raw stdout line is not JSON-RPC 2.0, or null if it is. */
export function lineProblem(raw) {
  let msg;
  try {
    msg = JSON.parse(raw);
  } catch (err) {
    return `not JSON (${err.message})`;
  }
  if (Array.isArray(msg)) {
    if (msg.length === 0) return 'empty array';
    for (const element of msg) {
      const problem = messageProblem(element);
      if (problem) return `batch element: ${problem}`;
      if (!isResponse(element)) return 'batch element is not a response';
    }
    return null;
  }
  return messageProblem(msg);
}

function describeExit({ code, signal }) {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

function preview(text, max = 300) {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export class RawServer {
  /**
   * Spawns `binary stdio ...args` and resolves once the process is running.
   * @param {{binary: string, args?: string[], env?: NodeJS.ProcessEnv}} options
   */
  static async start({ binary, args = [], env = process.env }) {
    const server = new RawServer(binary, ['stdio', ...args], env);
    await server.spawned;
    return server;
  }

  constructor(binary, argv, env) {
    this.argv = [binary, ...argv];
    /** Every stdout line in arrival order: {raw, msg, index}. */
    this.lines = [];
    /** Lines not yet taken by a wait helper. */
    this.unread = [];
    /** Stdout lines that are not JSON-RPC 2.0: {raw, problem}. */
    this.problems = [];
    /** Set once the process has exited and its pipes are closed: {code, signal}. */
    this.closeInfo = null;
    this.stdinError = null;
    this.stderrTail = '';
    this.waiters = new Set();
    this.nextIdValue = 1000;
    this.pendingStdout = Buffer.alloc(0);
    this.decoder = new TextDecoder('utf-8', { fatal: true });

    this.child = spawn(binary, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(this);
    this.spawned = new Promise((resolve, reject) => {
      this.child.once('spawn', resolve);
      this.child.once('error', (err) => {
        running.delete(this);
        reject(new Error(`cannot start ${this.argv.join(' ')}: ${err.message}`));
      });
    });
    this.closed = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        running.delete(this);
        this.closeInfo = { code, signal };
        this.wakeWaiters();
        resolve(this.closeInfo);
      });
    });
    this.child.stdout.on('data', (chunk) => this.onStdout(chunk));
    this.child.stderr.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    // EPIPE and friends when the server is gone; the waits report the exit.
    this.child.stdin.on('error', (err) => {
      this.stdinError = err;
    });
  }

  onStdout(chunk) {
    this.pendingStdout = Buffer.concat([this.pendingStdout, chunk]);
    let newline;
    while ((newline = this.pendingStdout.indexOf(0x0a)) !== -1) {
      const bytes = this.pendingStdout.subarray(0, newline);
      this.pendingStdout = this.pendingStdout.subarray(newline + 1);
      this.onLine(bytes);
    }
    this.wakeWaiters();
  }

  onLine(bytes) {
    let raw;
    try {
      raw = this.decoder.decode(bytes);
    } catch {
      this.problems.push({ raw: bytes.toString('latin1'), problem: 'not valid UTF-8' });
      return;
    }
    const problem = lineProblem(raw);
    if (problem) {
      this.problems.push({ raw, problem });
      return;
    }
    const entry = { raw, msg: JSON.parse(raw), index: this.lines.length };
    this.lines.push(entry);
    this.unread.push(entry);
  }

  wakeWaiters() {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Some context for failure messages: the last stderr output. */
  context() {
    const stderr = this.stderrTail.trim();
    return stderr ? `\n--- server stderr (tail) ---\n${stderr}` : '\n(server stderr empty)';
  }

  problemError() {
    const { raw, problem } = this.problems[0];
    return new Error(`server wrote a stdout line that is not JSON-RPC 2.0 (${problem}): ` +
      `${JSON.stringify(preview(raw))}${this.context()}`);
  }

  /**
   * Waits for the first unread stdout line for which `predicate(entry)` is
   * true, removes it from the unread queue and returns it ({raw, msg, index}).
   * Fails fast if a non-JSON-RPC line arrived or the server exited.
   */
  waitFor(predicate, what, timeoutMs = DEFAULT_WAIT_MS) {
    return new Promise((resolve, reject) => {
      let timer;
      const finish = (fn, value) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        fn(value);
      };
      const check = () => {
        if (this.problems.length > 0) return finish(reject, this.problemError());
        const i = this.unread.findIndex(predicate);
        if (i !== -1) return finish(resolve, this.unread.splice(i, 1)[0]);
        if (this.closeInfo) {
          return finish(reject, new Error(`server ended (${describeExit(this.closeInfo)}) ` +
            `while the test waited for ${what}${this.context()}`));
        }
        return undefined;
      };
      timer = setTimeout(() => {
        const unread = this.unread.map((e) => preview(e.raw, 200)).join('\n  ');
        finish(reject, new Error(`no ${what} within ${timeoutMs} ms` +
          (unread ? `; unread stdout lines:\n  ${unread}` : '; no unread stdout lines') +
          this.context()));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for the (non-batch) response whose parsed id === `id`; returns the message. */
  async waitForResponse(id, timeoutMs = DEFAULT_WAIT_MS) {
    const entry = await this.waitFor(
      (e) => isResponse(e.msg) && e.msg.id === id,
      `response with id ${JSON.stringify(id)}`, timeoutMs);
    return entry.msg;
  }

  /**
   * Waits for the next response line of any id, or batch response (array).
   * Use it for replies with id null, and for ids JSON.parse cannot represent
   * exactly (compare `entry.raw` then). Returns {raw, msg, index}.
   */
  nextResponse(timeoutMs = DEFAULT_WAIT_MS) {
    return this.waitFor((e) => Array.isArray(e.msg) || isResponse(e.msg),
      'response line', timeoutMs);
  }

  /**
   * Asserts that no response (nor batch response) arrives within `ms`.
   * Server-initiated notifications (e.g. log messages) are allowed: they are
   * not replies.
   */
  async expectNoReply(ms = 300, why = 'message that must not be answered') {
    await sleep(ms);
    if (this.problems.length > 0) throw this.problemError();
    const replies = this.unread.filter((e) => Array.isArray(e.msg) || isResponse(e.msg));
    assert.equal(replies.length, 0,
      `expected no reply to a ${why}, got: ${replies.map((e) => e.raw).join('\n')}`);
    if (this.closeInfo) {
      throw new Error(`server ended (${describeExit(this.closeInfo)}) after a ${why}${this.context()}`);
    }
  }

  /** Writes `data` (string or Buffer), waiting for 'drain' when the pipe is full. */
  async write(data) {
    if (this.closeInfo || this.stdinError) {
      throw new Error(`cannot write: server ${this.closeInfo ? `ended (${describeExit(this.closeInfo)})` :
        `stdin failed (${this.stdinError.message})`}${this.context()}`);
    }
    if (this.child.stdin.write(data)) return;
    await new Promise((resolve, reject) => {
      const onDrain = () => { cleanup(); resolve(); };
      const onClose = () => {
        cleanup();
        reject(new Error(`server ended while the test was writing to it${this.context()}`));
      };
      const cleanup = () => {
        this.child.stdin.off('drain', onDrain);
        this.child.off('close', onClose);
      };
      this.child.stdin.on('drain', onDrain);
      this.child.once('close', onClose);
    });
  }

  /** Writes `data` in chunks of `chunkBytes`, respecting backpressure. */
  async writeChunked(data, chunkBytes = 64 * 1024) {
    const buffer = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
    for (let offset = 0; offset < buffer.length; offset += chunkBytes) {
      await this.write(buffer.subarray(offset, offset + chunkBytes));
    }
  }

  /** Writes one line: `text` (string or Buffer) followed by "\n". */
  async sendLine(text) {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
    await this.write(Buffer.concat([bytes, Buffer.from('\n')]));
  }

  /** Writes one JSON value as a line. */
  send(message) {
    return this.sendLine(JSON.stringify(message));
  }

  newId() {
    return this.nextIdValue++;
  }

  /** Sends a request and returns its response message (result or error). */
  async request(method, params, { id = this.newId(), timeoutMs } = {}) {
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    await this.send(message);
    return this.waitForResponse(id, timeoutMs);
  }

  /** Sends a notification (no id). */
  notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    return this.send(message);
  }

  /** Sends a request and asserts it succeeded; returns `result`. */
  async call(method, params) {
    const response = await this.request(method, params);
    assert.ok(!('error' in response),
      `${method} failed: ${JSON.stringify(response.error)}${this.context()}`);
    return response.result;
  }

  /**
   * Asserts that `ping` is answered with an empty result, and that no other
   * reply is pending unread before it (a stray reply to earlier input, e.g.
   * a second error for one bad line, fails the test).
   */
  async assertPingWorks() {
    const id = this.newId();
    await this.send({ jsonrpc: '2.0', id, method: 'ping' });
    const entry = await this.waitFor((e) => isResponse(e.msg) && e.msg.id === id,
      `reply to ping id ${id}`);
    assert.deepEqual(entry.msg, { jsonrpc: '2.0', id, result: {} },
      'the server must keep answering ping');
    const stray = this.unread.filter((e) => e.index < entry.index &&
      (Array.isArray(e.msg) || isResponse(e.msg)));
    assert.deepEqual(stray.map((e) => e.raw), [], 'unexpected replies before the ping reply');
  }

  /**
   * Runs the initialize handshake asking for `protocolVersion`, then sends
   * notifications/initialized. Returns the initialize result.
   */
  async initialize(protocolVersion = LATEST_PROTOCOL_VERSION) {
    const result = await this.call('initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'ttm-raw-integration-test', version: '0.0.0' },
    });
    await this.notify('notifications/initialized');
    return result;
  }

  /** tools/call; returns the whole response message (result or error). */
  callTool(name, args) {
    return this.request('tools/call', { name, arguments: args });
  }

  /** Closes stdin (EOF for the server). */
  endInput() {
    this.child.stdin.end();
  }

  /** Waits for the process to end; fails after `timeoutMs`. Returns {code, signal}. */
  async waitForExit(timeoutMs = DEFAULT_WAIT_MS) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(
        `server still running ${timeoutMs} ms later${this.context()}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Asserts that every stdout line so far was a JSON-RPC 2.0 message. */
  assertStdoutClean() {
    if (this.problems.length > 0) throw this.problemError();
  }

  /** Kills the server (SIGKILL) unless it has ended, and waits for it. */
  async stop() {
    if (!this.closeInfo) {
      try {
        this.child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    await this.closed;
  }
}

/**
 * Starts a server, runs `body(server)`, asserts that stdout carried nothing
 * but JSON-RPC (and no unread reply is left over), and always kills the
 * server.
 */
export async function withServer(options, body) {
  const server = await RawServer.start(options);
  try {
    await body(server);
    // A ping round trip as a barrier: whatever the server wrote before its
    // reply has been read and checked by then.
    if (!server.closeInfo) await server.assertPingWorks();
    server.assertStdoutClean();
  } finally {
    await server.stop();
  }
}

/** Kills every server still running (for `after` hooks). */
export async function stopAllServers() {
  await Promise.all([...running].map((server) => server.stop()));
}

/** Asserts that `response` is a JSON-RPC error with `code`; returns the error object. */
export function assertErrorResponse(response, code, { id } = {}) {
  assert.ok('error' in response, `expected error ${code}, got ${JSON.stringify(response)}`);
  assert.equal(response.error.code, code,
    `expected error code ${code}, got ${JSON.stringify(response.error)}`);
  assert.equal(typeof response.error.message, 'string');
  if (id !== undefined) assert.equal(response.id, id, 'error reply must carry the request id');
  return response.error;
}
