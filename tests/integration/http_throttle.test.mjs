// Bearer-token guessing is throttled per client address: each 401 closes
// the connection, the 10th wrong token within 60 s locks the address out
// (429 with Retry-After), and while locked out a correct token is refused
// too; other addresses are not affected. Bounded: a few dozen requests.
// Run: TTM_BINARY=/abs/path node --test http_throttle.test.mjs
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  HttpServer, initializeBody, parseHttpResponses, rawHttpRequest, rawRequest, stopAllHttpServers,
} from './lib/http_server.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllHttpServers);

/**
 * Writes `data` on a fresh connection from `localAddress` and collects what
 * comes back until the server closes it or `count` responses arrived.
 */
function exchange(port, data, { count, localAddress = '127.0.0.1', timeoutMs = 10_000 }) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close or ${count} responses within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (closed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseHttpResponses(received).responses, bytes: received, closed });
    };
    socket.on('connect', () => socket.write(data));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (parseHttpResponses(received).responses.length >= count) finish(false);
    });
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
  });
}

function post(port, token, { localAddress } = {}) {
  const body = initializeBody();
  const text = rawHttpRequest(port, '/mcp', {
    headers: {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
    },
    body,
  });
  // Two requests on one keep-alive connection: after a refusal the server
  // must close it, so at most one answer comes back.
  return exchange(port, text + text, { count: 2, localAddress });
}

describe('token guessing', () => {
  test('10 wrong tokens lock the address out with 429 and Retry-After; each refusal closes', T, async () => {
    const server = await HttpServer.startWithTokens({ binary: BINARY, tokens: 'alice right-token\n' });
    try {
      const statuses = [];
      for (let i = 0; i < 12; i++) {
        const { responses, closed } = await post(server.port, `guess-${i}`);
        assert.equal(responses.length, 1, 'one answer, then the connection closes');
        assert.ok(closed, 'closed by the server');
        assert.equal(responses[0].headers.connection, 'close');
        statuses.push(responses[0].status);
        if (responses[0].status === 429) {
          assert.match(responses[0].headers['retry-after'], /^\d+$/);
          const after = Number(responses[0].headers['retry-after']);
          assert.ok(after >= 1 && after <= 30, `Retry-After ${after}`);
          assert.match(responses[0].json.error.message, /Too Many Requests/);
        }
      }
      console.log(`statuses: ${statuses.join(' ')}`);
      assert.deepEqual(statuses, [...Array(9).fill(401), 429, 429, 429]);
      // Locked out: the right token is refused too (else guessing goes on).
      const right = await post(server.port, 'right-token');
      assert.equal(right.responses[0].status, 429);
      // Health checks need no token and are not throttled.
      const health = await rawRequest(new URL('/healthz', server.url), { method: 'GET' });
      assert.equal(health.status, 200);
      // Another client address is not locked out.
      const other = await post(server.port, 'right-token', { localAddress: '127.0.0.2' });
      assert.equal(other.responses[0].status, 200, other.bytes.toString());
      assert.match(server.stderrText, /too many wrong bearer tokens from 127\.0\.0\.1: locked out for 30 s/);
      assert.doesNotMatch(server.stderrText, /guess-/, 'tokens are never logged');
    } finally {
      await server.stop();
    }
  });
});
