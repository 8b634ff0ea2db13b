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
//
// Nothing here waits for time to pass: every wait ends on an event (a stdout
// line, the process's exit) or on a condition polled with a deadline
// (`pollUntil`); the time limits only bound how long a broken server can
// make a test hang.
import { withDataDir } from './data_dir.mjs';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/** True for a reply line: a response object or a batch response (array). */
function isReplyEntry(entry) {
  return Array.isArray(entry.msg) || isResponse(entry.msg);
}

/**
 * Resolves with `promise`'s value, or rejects with `makeError()` when
 * `timeoutMs` pass first.
 */
function withTimeout(promise, timeoutMs, makeError) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(makeError()), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Polls `condition()` every `intervalMs` until it returns a truthy value,
 * which is returned; rejects after `timeoutMs`. For conditions no event
 * announces (e.g. "the server stopped reading its stdin"): the interval only
 * paces the checks, the test never waits longer than the condition needs.
 * `describe()` (optional) adds the last observed state to the error.
 */
export async function pollUntil(condition, what, { timeoutMs = DEFAULT_WAIT_MS, intervalMs = 10,
  describe = () => '' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() >= deadline) {
      const state = describe();
      throw new Error(`no ${what} within ${timeoutMs} ms${state ? ` (${state})` : ''}`);
    }
    await new Promise((resolve) => { setTimeout(resolve, intervalMs); });
  }
}

/** Reads the numeric fields of /proc/<pid>/status ("VmRSS: 6772 kB" -> {VmRSS: 6772}). */
export function procStatus(pid) {
  const fields = {};
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) fields[m[1]] = Number(m[2]);
  }
  return fields;
}

/** Reads /proc/<pid>/io ({rchar, wchar, syscr, ...}): rchar counts the bytes the process read. */
export function procIo(pid) {
  const fields = {};
  for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) fields[m[1]] = Number(m[2]);
  }
  return fields;
}

/** `text`, cut to `max` characters for failure messages. */
export function preview(text, max = 300) {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

export class RawServer {
  /**
   * Spawns `binary stdio ...args` and resolves once the process is running.
   * @param {{binary: string, args?: string[], env?: NodeJS.ProcessEnv}} options
   */
  static async start({ binary, args = [], env = process.env }) {
    const server = new RawServer(binary, ['stdio', ...withDataDir(args, env)], env);
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
    /**
     * Set once the process has exited ('exit' event), even if its stdout is
     * still open or paused: {code, signal}.
     */
    this.exitInfo = null;
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
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
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
   * Asserts that the server did not answer the message(s) sent before, and
   * never will, without waiting for time: it sends a `ping` with a fresh id
   * and requires the very next stdout line the server writes to be that
   * ping's reply. The server answers stdio messages in order, so a reply to
   * an earlier message would arrive first. A reply already received and not
   * taken by a wait helper fails as well.
   */
  async expectNoReply(why = 'message that must not be answered') {
    if (this.problems.length > 0) throw this.problemError();
    const early = this.unread.filter(isReplyEntry);
    assert.deepEqual(early.map((e) => e.raw), [], `expected no reply to a ${why}`);
    const from = this.lines.length;
    const id = this.newId();
    await this.send({ jsonrpc: '2.0', id, method: 'ping' });
    const next = await this.waitFor((e) => e.index >= from,
      `reply to the ping (id ${id}) sent after a ${why}`);
    assert.deepEqual(next.msg, { jsonrpc: '2.0', id, result: {} },
      `expected no reply to a ${why}: the next line the server wrote must be the reply to ` +
      `ping id ${id}, got: ${preview(next.raw)}`);
  }

  /**
   * Stops taking data from the server's stdout: no line is read or checked
   * until `resumeReading()`. Node buffers up to the stream's high-water mark,
   * then the pipe fills and the server's writes block.
   */
  pauseReading() {
    this.child.stdout.pause();
    assert.equal(this.child.stdout.readableFlowing, false, 'stdout must be paused');
  }

  /** Reads stdout again (lines buffered meanwhile are checked and queued). */
  resumeReading() {
    this.child.stdout.resume();
  }

  /**
   * Queues `data` on the server's stdin without waiting for 'drain': Node
   * keeps whatever the pipe does not take and writes it as the server reads.
   */
  queueWrite(data) {
    this.child.stdin.write(data);
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

  /**
   * Waits for the process to end and its pipes to close (all its stdout has
   * been read); fails after `timeoutMs`. Returns {code, signal}. Needs stdout
   * to be read: with `pauseReading()` use `waitForProcessExit()`.
   */
  waitForExit(timeoutMs = DEFAULT_WAIT_MS) {
    return withTimeout(this.closed, timeoutMs, () => new Error(
      `server still running (or its stdout still open) ${timeoutMs} ms later${this.context()}`));
  }

  /**
   * Waits for the process itself to end (the child's 'exit' event), whether
   * or not its stdout is being read; fails after `timeoutMs`. Returns
   * {code, signal}.
   */
  waitForProcessExit(timeoutMs = DEFAULT_WAIT_MS) {
    return withTimeout(this.exited, timeoutMs, () => new Error(
      `server process still running ${timeoutMs} ms later${this.context()}`));
  }

  /** Asserts that every stdout line so far was a JSON-RPC 2.0 message. */
  assertStdoutClean() {
    if (this.problems.length > 0) throw this.problemError();
  }

  /** Kills the server (SIGKILL) unless it has ended, and waits for it. */
  async stop() {
    if (!this.closeInfo) {
      if (!this.exitInfo) {
        try {
          this.child.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
      // 'close' needs stdout read to its end, also after pauseReading().
      this.resumeReading();
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
