// A flood of silent connections must not lock out a client that sends
// requests: at --max-connections a stalled, unserved or idle connection is
// closed to admit a new one, and a new connection that sends no request
// header within --header-timeout is closed; sockets stuck inside a request
// header go before any established client. Bounded: 200 silent sockets, 40 slow-header
// sockets (at most 3,000 opened), 40 requests, a few seconds.
// Run: TTM_BINARY=/abs/path node --test http_flood.test.mjs
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, mcpHeaders, parseHttpResponses, rawHttpRequest, rawRequest, stopAllHttpServers,
} from './lib/http_server.mjs';

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
      // The server closed silent sockets to make room: all but 64 at most
      // (which ones stay depends on when each was accepted: one accepted
      // while only fresh ones were open waits aside for its request, then
      // takes its place as the newest).
      const keep = 64;
      await new Promise((resolve) => {
        let closed = 0;
        const one = () => { if (++closed === silent.length - keep) resolve(); };
        if (silent.length <= keep) resolve();
        for (const s of silent) s.serverClosed.then(one);
      });
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

/**
 * A keep-alive connection that has been served: `request(path)` sends one
 * GET and resolves its response; `closedByServer` tells whether the server
 * has closed it.
 */
async function establishedClient(port) {
  const socket = net.connect(port, '127.0.0.1');
  let received = Buffer.alloc(0);
  let waiting = null;
  const client = { closedByServer: false };
  socket.on('error', () => {});
  socket.on('close', () => {
    client.closedByServer = true;
    waiting?.reject(new Error('the server closed the established connection'));
  });
  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
    const { responses, rest } = parseHttpResponses(received);
    if (responses.length > 0 && waiting) {
      received = rest;
      waiting.resolve(responses[0]);
      waiting = null;
    }
  });
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  client.request = (path) => new Promise((resolve, reject) => {
    if (client.closedByServer) {
      reject(new Error('the server closed the established connection'));
      return;
    }
    waiting = { resolve, reject };
    socket.write(rawHttpRequest(port, path, { method: 'GET' }));
  });
  client.destroy = () => socket.destroy();
  return client;
}

describe('slow-header flood', () => {
  test('40 sockets stuck inside a request header, reopened as the server closes them, at --max-connections 16: ' +
    'an established keep-alive client and every new client are served', T, async () => {
    const server = await HttpServer.start({
      binary: BINARY, args: ['--max-connections', '16', '--header-timeout', '120', '--keep-alive-timeout', '120'],
    });
    const SLOW = 40;
    const MAX_OPENED = 3000;
    const sockets = new Set();
    let opened = 0;
    let flooding = true;
    // As in the probe: a request line and the first bytes of a header, then
    // nothing; a socket the server closes comes back (after 50 ms: bounded).
    const openSlow = () => {
      if (!flooding || opened >= MAX_OPENED) return;
      opened += 1;
      const socket = net.connect(server.port, '127.0.0.1');
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('data', () => {});
      socket.on('connect', () => socket.write('POST /mcp HTTP/1.1\r\nHo'));
      socket.on('close', () => {
        sockets.delete(socket);
        if (flooding) setTimeout(openSlow, 50);
      });
    };
    let established;
    try {
      established = await establishedClient(server.port);
      assert.equal((await established.request('/healthz')).status, 200);
      for (let i = 0; i < SLOW; i += 1) openSlow();
      // The flood fills the cap, and its first sockets stall past the short
      // header deadline.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const ROUNDS = 20;
      let served = 0;
      const failures = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const good = round % 2 === 0
          ? await rawRequest(new URL('/healthz', server.url), { method: 'GET' }).catch((e) => ({ status: 0, body: e.message }))
          : await rawRequest(server.url, { headers: mcpHeaders(), body: initializeBody() })
            .catch((e) => ({ status: 0, body: e.message }));
        if (good.status === 200) served += 1;
        else failures.push(`${good.status} ${good.body}`);
      }
      const again = await established.request('/healthz').catch((e) => ({ status: 0, body: e.message }));
      console.log(`new clients: ${served}/${ROUNDS} served; established client: ${again.status}; ` +
        `${opened} slow-header sockets opened`);
      assert.equal(served, ROUNDS, failures.join('\n'));
      assert.equal(again.status, 200, `the established keep-alive client: ${again.body}`);
      assert.equal(established.closedByServer, false);
    } finally {
      flooding = false;
      for (const s of sockets) s.destroy();
      established?.destroy();
      await server.stop();
    }
  });
});
