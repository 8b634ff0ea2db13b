// A flood of silent connections must not lock out a client that sends
// requests: at --max-connections the connection idle longest is closed to
// admit a new one, and a new connection that sends no request header within
// --header-timeout is closed. Bounded: 200 sockets, 40 requests, a few
// seconds. Run: TTM_BINARY=/abs/path node --test http_flood.test.mjs
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, initializeBody, mcpHeaders, rawRequest, stopAllHttpServers } from './lib/http_server.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllHttpServers);

/** A connected socket that sends nothing; `serverClosed` resolves when the server closes it. */
async function silentSocket(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.serverClosed = new Promise((resolve) => socket.once('close', resolve));
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
  return socket;
}

describe('silent connections', () => {
  test('200 silent sockets at --max-connections 64: every request of a good client is served', T, async () => {
    // A header timeout far beyond the test: only the eviction can make room.
    const server = await HttpServer.start({
      binary: BINARY, args: ['--max-connections', '64', '--header-timeout', '120', '--keep-alive-timeout', '120'],
    });
    const silent = [];
    try {
      const ROUNDS = 40;
      const PER_ROUND = 5;
      let served = 0;
      const failures = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < PER_ROUND; i++) silent.push(await silentSocket(server.port));
        const good = round % 2 === 0
          ? await rawRequest(new URL('/healthz', server.url), { method: 'GET' }).catch((e) => ({ status: 0, body: e.message }))
          : await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() })
            .catch((e) => ({ status: 0, body: e.message }));
        if (good.status === 200) served++;
        else failures.push(`${good.status} ${good.body}`);
      }
      console.log(`good client: ${served}/${ROUNDS} served during a flood of ${silent.length} silent sockets`);
      assert.equal(served, ROUNDS, failures.join('\n'));
      // The server closed silent sockets to make room: all but the 64 newest
      // at most.
      await Promise.all(silent.slice(0, silent.length - 64).map((s) => s.serverClosed));
    } finally {
      for (const s of silent) s.destroy();
      await server.stop();
    }
  });

  test('a new connection that sends no request header within --header-timeout is closed', T, async () => {
    const server = await HttpServer.start({ binary: BINARY, args: ['--header-timeout', '1'] });
    try {
      const started = Date.now();
      const mute = await silentSocket(server.port);
      // Begun but never finished: the header timeout counts from the accept.
      const slow = await silentSocket(server.port);
      slow.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
      await Promise.all([mute.serverClosed, slow.serverClosed]);
      const took = Date.now() - started;
      assert.ok(took < 30_000, `closed after ${took} ms, before the 30 s read timeout`);
      // A keep-alive connection that was served waits the keep-alive timeout
      // instead: still usable after its first request.
      const res = await rawRequest(new URL('/healthz', server.url), { method: 'GET' });
      assert.equal(res.status, 200);
    } finally {
      await server.stop();
    }
  });
});
