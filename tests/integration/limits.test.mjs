// Rate limits, request timeouts, health and shutdown (issue 31 items 4-5):
// --rate-limit answers 429 with Retry-After over HTTP in both eras, per
// principal (per client address without auth), and -32050 over stdio;
// --max-in-flight answers 429 while a principal's request is in flight;
// --request-timeout answers -32051 and changes nothing; /readyz says when
// the journal is not open or the server drains; SIGTERM answers the request
// in flight, refuses new ones, and exits 0 within --drain-timeout.
// Slow requests are real: a second process (the sqlite3 shell) holds the
// journal's write lock, for a bounded time, released by the test.
// Run: TTM_BINARY=/abs/path node --test limits.test.mjs
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { freshDataDir } from './lib/data_dir.mjs';
import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, rawRequest, stopAllHttpServers,
} from './lib/http_server.mjs';
import { assertModernError, MODERN, modernHeaders, modernRequest } from './lib/modern.mjs';
import { pollUntil, RawServer, stopAllServers } from './lib/raw_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const HAVE_SQLITE3 = spawnSync('sqlite3', ['-version']).status === 0;
const LOCK = { ...T, skip: HAVE_SQLITE3 ? false : 'the sqlite3 shell is not installed (Debian: sqlite3)' };

after(stopAllHttpServers);
after(stopAllServers);

function rpc(id, method, params) {
  const m = { jsonrpc: '2.0', id, method };
  if (params !== undefined) m.params = params;
  return JSON.stringify(m);
}

const startCall = (id, milestone) => rpc(id, 'tools/call', {
  name: 'time_session_start', arguments: { milestone_id: milestone, task_ids: ['a'] },
});

/** initialize + notifications/initialized (2 requests); returns the session id. */
async function openSession(server, { token, localAddress } = {}) {
  const auth = token ? { Authorization: `Bearer ${token}` } : {};
  const agent = localAddress ? new (await import('node:http')).Agent({ localAddress }) : false;
  const res = await rawRequest(server.url, { headers: mcpHeaders({ extra: auth }), body: initializeBody(), agent });
  assert.equal(res.status, 200, res.body);
  const session = res.headers['mcp-session-id'];
  const note = await rawRequest(server.url, {
    headers: mcpHeaders({ session, extra: auth }),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    agent,
  });
  assert.equal(note.status, 202, note.body);
  return { session, auth, agent };
}

function call(server, { session, auth, agent }, body) {
  return rawRequest(server.url, { headers: mcpHeaders({ session, extra: auth }), body, agent });
}

/** A 429 from --rate-limit: Retry-After in whole seconds, the same wait in data.retry_after_ms. */
function assertRateLimited(res, { id, maxSeconds }) {
  assert.equal(res.status, 429, res.body);
  assert.match(res.headers['retry-after'] ?? '', /^[1-9]\d*$/);
  const seconds = Number(res.headers['retry-after']);
  assert.ok(seconds <= maxSeconds, `Retry-After ${seconds} <= ${maxSeconds}`);
  assert.equal(res.json?.error?.code, -32050, res.body);
  assert.deepEqual(res.json.id, id);
  const ms = res.json.error.data?.retry_after_ms;
  assert.ok(Number.isInteger(ms) && ms > 0, res.body);
  // Whole seconds rounded up: never earlier than the bucket allows.
  assert.equal(seconds, Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * Sends `body` (a write that waits for the held lock) and returns once it is
 * in flight: once a ping is refused 429 beside it. Until the write is
 * admitted a ping may pass, and a ping admitted first makes the write the
 * one refused (each request has its own connection, read in parallel), so
 * a write refused that way is sent again. Returns { slow, refused }.
 */
async function writeInFlight(server, client, body, pingId) {
  let lost = false;
  let sent = 0;
  let last = 'pending';
  const send = () => {
    sent += 1;
    last = 'pending';
    return call(server, client, body).then((res) => {
      last = `answered ${res.status}: ${res.body.slice(0, 200)}`;
      if (res.status === 429) lost = true;
      return res;
    });
  };
  let slow = send();
  let refused;
  await pollUntil(async () => {
    if (lost) {
      lost = false;
      slow = send();
      return false;
    }
    const res = await call(server, client, rpc(pingId, 'ping'));
    if (res.status === 429) refused = res;
    return refused !== undefined;
  }, 'a 429 while the write is in flight', {
    timeoutMs: 1500, describe: () => `the write sent ${sent} time(s), the last ${last}`,
  });
  return { slow, refused };
}

/** The sqlite3 shell holding the journal's write lock until `release()`. */
async function holdWriteLock(dataDir) {
  const shell = spawn('sqlite3', [path.join(dataDir, 'journal.sqlite3')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  shell.stdout.on('data', (c) => { out += c; });
  shell.stderr.on('data', (c) => { out += c; });
  const exited = new Promise((resolve) => shell.once('exit', resolve));
  shell.stdin.write('.timeout 5000\nBEGIN IMMEDIATE;\nSELECT \'locked\';\n');
  await pollUntil(() => out.includes('locked'), 'the sqlite3 shell to take the write lock');
  return {
    async release() {
      shell.stdin.end('COMMIT;\n.quit\n');
      await exited;
    },
    kill() { shell.kill('SIGKILL'); },
  };
}

/** Waits until /readyz answers 200: the journal is open (its file exists). */
async function journalOpen(server) {
  await pollUntil(async () => (await rawRequest(new URL('/readyz', server.url), { method: 'GET' })).status === 200,
    '/readyz to answer 200');
}

describe('--rate-limit over HTTP', () => {
  test('2025 era, per principal: 429 with Retry-After and -32050; another principal is not affected', T, async () => {
    const server = await HttpServer.startWithTokens({
      binary: BINARY, tokens: 'alice alice-token\nbob bob-token\n', args: ['--rate-limit', '2/h,burst=4'],
    });
    try {
      const alice = await openSession(server, { token: 'alice-token' }); // 2 of 4
      const ok = await call(server, alice, rpc(3, 'ping'));
      assert.equal(ok.status, 200, ok.body);
      assert.equal((await call(server, alice, rpc(4, 'ping'))).status, 200);
      const refused = await call(server, alice, rpc(5, 'ping'));
      // 2 per hour: the next token in 30 minutes.
      assertRateLimited(refused, { id: 5, maxSeconds: 1800 });
      assert.ok(Number(refused.headers['retry-after']) > 1700);
      // Bob, from the same address, has his own bucket.
      const bob = await openSession(server, { token: 'bob-token' });
      assert.equal((await call(server, bob, rpc(3, 'ping'))).status, 200);
      // Probes are never limited.
      assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
    } finally {
      await server.stop();
    }
  });

  test('2026-07-28 era: 429 with Retry-After and -32050, per principal', T, async () => {
    const server = await HttpServer.startWithTokens({
      binary: BINARY, tokens: 'alice alice-token\nbob bob-token\n', args: ['--rate-limit', '60/m,burst=2'],
    });
    try {
      const send = (token, id) => rawRequest(server.url, {
        headers: modernHeaders('tools/call', { name: 'time_get_current', extra: { Authorization: `Bearer ${token}` } }),
        body: JSON.stringify(modernRequest(id, 'tools/call', { name: 'time_get_current', arguments: { timezone: 'UTC' } })),
      });
      assert.equal((await send('alice-token', 1)).status, 200);
      assert.equal((await send('alice-token', 2)).status, 200);
      const refused = await send('alice-token', 3);
      assertRateLimited(refused, { id: 3, maxSeconds: 1 });
      assertModernError(refused.json, -32050, 3);
      assert.equal((await send('bob-token', 4)).status, 200);
      console.log(`2026-07-28 refusal: Retry-After ${refused.headers['retry-after']}, ${JSON.stringify(refused.json.error)}`);
    } finally {
      await server.stop();
    }
    assert.equal(MODERN, '2026-07-28');
  });

  test('without auth, keyed by client address: 127.0.0.2 is not limited by 127.0.0.1', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--rate-limit', '1/h,burst=3'] });
    try {
      const first = await openSession(server, { localAddress: '127.0.0.1' });
      assert.equal((await call(server, first, rpc(3, 'ping'))).status, 200);
      assertRateLimited(await call(server, first, rpc(4, 'ping')), { id: 4, maxSeconds: 3600 });
      const other = await openSession(server, { localAddress: '127.0.0.2' });
      assert.equal((await call(server, other, rpc(3, 'ping'))).status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('--max-in-flight and --request-timeout (a journal held by another process)', () => {
  test('--max-in-flight 1: a second request while one waits for the journal gets 429', LOCK, async () => {
    const dataDir = freshDataDir();
    const server = await HttpServer.start({ binary: BINARY, args: ['--data-dir', dataDir, '--max-in-flight', '1'] });
    let lock;
    try {
      const client = await openSession(server);
      await journalOpen(server);
      lock = await holdWriteLock(dataDir);
      const { slow, refused } = await writeInFlight(server, client, startCall(3, 'M-slow'), 4);
      assert.equal(refused.json.error.code, -32050);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(refused.json.error.message, /--max-in-flight/);
      await lock.release();
      lock = undefined;
      const done = await slow;
      assert.equal(done.status, 200, done.body);
      assert.equal((await call(server, client, rpc(5, 'ping'))).status, 200);
    } finally {
      lock?.kill();
      await server.stop();
    }
  });

  test('--request-timeout 1: a write waiting for the lock answers -32051 and changes nothing', LOCK, async () => {
    const dataDir = freshDataDir();
    const server = await HttpServer.start({ binary: BINARY, args: ['--data-dir', dataDir, '--request-timeout', '1'] });
    let lock;
    try {
      const client = await openSession(server);
      await journalOpen(server);
      lock = await holdWriteLock(dataDir);
      const t0 = Date.now();
      const res = await call(server, client, startCall(3, 'M-timeout'));
      const waited = Date.now() - t0;
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json.error?.code, -32051, res.body);
      assert.equal(res.json.id, 3);
      assert.match(res.json.error.message, /nothing was changed/);
      // At its deadline (1 s), not the journal's 2 s busy timeout.
      assert.ok(waited >= 900 && waited < 1900, `answered after ${waited} ms`);
      await lock.release();
      lock = undefined;
      const list = await call(server, client, rpc(4, 'tools/call', { name: 'time_session_list', arguments: {} }));
      const sessions = list.json.result.structuredContent.sessions;
      assert.ok(!sessions.some((s) => s.milestone_id === 'M-timeout'), JSON.stringify(sessions));
      // The same call again, lock free: it runs.
      const again = await call(server, client, startCall(5, 'M-timeout'));
      assert.equal(again.json.result?.isError, false, again.body);
    } finally {
      lock?.kill();
      await server.stop();
    }
  });
});

describe('health and shutdown', () => {
  test('/readyz: 503 with a reason while the journal cannot open; /healthz 200', T, async () => {
    // A data directory under a regular file cannot be created: the journal
    // stays unavailable (retrying), the server still serves.
    const dataDir = path.join(freshDataDir(), 'file');
    spawnSync('touch', [dataDir]);
    const server = await HttpServer.start({ binary: BINARY, args: ['--data-dir', path.join(dataDir, 'sub')] });
    try {
      const ready = await rawRequest(new URL('/readyz', server.url), { method: 'GET' });
      assert.equal(ready.status, 503, ready.body);
      assert.deepEqual(ready.json, { status: 'unavailable', reason: 'the session journal is not open' });
      assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
    } finally {
      await server.stop();
    }
  });

  test('SIGTERM: the slow request in flight is answered, /readyz 503, new requests 503, exit 0 in time', LOCK, async () => {
    const dataDir = freshDataDir();
    const server = await HttpServer.start({
      binary: BINARY, args: ['--data-dir', dataDir, '--drain-timeout', '10', '--max-in-flight', '1'],
    });
    let lock;
    try {
      const client = await openSession(server);
      await journalOpen(server);
      lock = await holdWriteLock(dataDir);
      const { slow } = await writeInFlight(server, client, startCall(3, 'M-drain'), 4);
      const t0 = Date.now();
      server.child.kill('SIGTERM');
      await server.waitForStderr(/finishing requests in flight/);
      const ready = await rawRequest(new URL('/readyz', server.url), { method: 'GET' });
      assert.equal(ready.status, 503, ready.body);
      assert.deepEqual(ready.json, { status: 'draining' });
      assert.equal(ready.headers.connection, 'close');
      assert.equal((await rawRequest(new URL('/healthz', server.url), { method: 'GET' })).status, 200);
      const fresh = await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() });
      assert.equal(fresh.status, 503, fresh.body);
      assert.match(fresh.json.error.message, /shutting down/);
      assert.equal(fresh.headers.connection, 'close');
      assert.equal(server.exitInfo, null, 'still draining while the request waits');
      await lock.release();
      lock = undefined;
      const done = await slow;
      assert.equal(done.status, 200, done.body);
      assert.equal(done.headers.connection, 'close');
      // Stored, or (if the lock outlasted the journal's 2 s busy wait)
      // refused as a tool error: answered either way, never dropped.
      assert.equal(done.json.id, 3);
      assert.ok(done.json.result, done.body);
      console.log(`in-flight answer after SIGTERM: isError=${done.json.result.isError}`);
      const { code, signal } = await server.terminate('SIGTERM', 10_000);
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, server.context());
      assert.ok(Date.now() - t0 < 10_000, 'exited within --drain-timeout');
      assert.match(server.stderrText, /drained: every request in flight answered/);
      await assert.rejects(new Promise((resolve, reject) => {
        const s = net.connect(server.port, '127.0.0.1', () => { s.destroy(); resolve(); });
        s.on('error', reject);
      }), 'no listener after the exit');
    } finally {
      lock?.kill();
      await server.stop();
    }
  });
});

describe('--rate-limit over stdio', () => {
  test('a request over the limit is answered -32050 with retry_after_ms; notifications pass', T, async () => {
    const server = await RawServer.start({ binary: BINARY, args: ['--rate-limit', '1/h,burst=3'] });
    try {
      await server.initialize(); // 1
      assert.ok((await server.request('ping')).result); // 2
      assert.ok((await server.request('ping')).result); // 3
      const refused = await server.request('ping', undefined, { id: 'over' });
      assert.equal(refused.id, 'over');
      assert.equal(refused.error?.code, -32050, JSON.stringify(refused));
      assert.match(refused.error.message, /--rate-limit/);
      const ms = refused.error.data?.retry_after_ms;
      assert.ok(ms > 3_500_000 && ms <= 3_600_000, `retry_after_ms ${ms}`);
      // A notification costs nothing and is never answered: the next line
      // is the (refused) reply to the next request.
      const before = server.lines.length;
      server.notify('notifications/cancelled', { requestId: 'none' });
      const next = await server.request('ping', undefined, { id: 'next' });
      assert.equal(next.error?.code, -32050);
      assert.equal(server.lines.length, before + 1, 'one line: the reply to "next"');
      server.assertStdoutClean();
    } finally {
      await server.stop();
    }
  });

  test('SIGTERM: the request in flight is answered, then the server exits 0', LOCK, async () => {
    const dataDir = freshDataDir();
    const server = await RawServer.start({ binary: BINARY, args: ['--data-dir', dataDir] });
    let lock;
    try {
      await server.initialize();
      // A first write creates the journal's tables.
      const first = await server.callTool('time_session_start', { milestone_id: 'M-1', task_ids: ['a'] });
      assert.equal(first.result?.isError, false, JSON.stringify(first));
      lock = await holdWriteLock(dataDir);
      const id = server.newId();
      server.send({ jsonrpc: '2.0', id, method: 'tools/call',
        params: { name: 'time_session_start', arguments: { milestone_id: 'M-2', task_ids: ['a'] } } });
      // Bounded real time for the server to read the line (it reads at
      // once; there is no event to wait for over stdio).
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      await lock.release();
      lock = undefined;
      const done = await server.waitForResponse(id);
      assert.ok(done.result, JSON.stringify(done));
      const exit = await server.waitForExit(10_000);
      assert.equal(exit.code, 0);
    } finally {
      lock?.kill();
      await server.stop();
    }
  });
});
