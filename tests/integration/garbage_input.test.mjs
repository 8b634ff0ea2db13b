// Malformed and unusual input on the server's stdin: every protocol error
// path answers as JSON-RPC 2.0 says (or stays silent for notifications), the
// server keeps answering ping afterwards, and stdout carries nothing but
// JSON-RPC messages (checked on every line by lib/raw_client.mjs).
// Run: TTM_BINARY=/abs/path node --test garbage_input.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  assertErrorResponse, ErrorCode, isResponse, LATEST_PROTOCOL_VERSION, MCP_LOG_LEVELS,
  stopAllServers, withServer,
} from './lib/raw_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllServers);

/**
 * A test on a fresh server. `init` is the protocol revision to initialize
 * with first, or null to stay uninitialized; `args` are extra CLI arguments.
 */
function serverTest(name, { init = LATEST_PROTOCOL_VERSION, args = [] } = {}, body) {
  test(name, T, () => withServer({ binary: BINARY, args }, async (server) => {
    if (init) await server.initialize(init);
    await body(server);
  }));
}

/** Sends `line` as is and returns the next reply line, which must be an error with `code` and id null. */
async function expectNullIdError(server, line, code) {
  await server.sendLine(line);
  const { msg } = await server.nextResponse();
  assert.ok(!Array.isArray(msg), `expected a single error object, got ${JSON.stringify(msg)}`);
  return assertErrorResponse(msg, code, { id: null });
}

/** Sends `line` as is and returns the next reply line, which must be an error with `code` and `id`. */
async function expectError(server, line, code, id) {
  await server.sendLine(line);
  const { msg } = await server.nextResponse();
  return assertErrorResponse(msg, code, { id });
}

const ping = (id) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('parse errors', () => {
  serverTest('a line that is not JSON is answered with -32700, id null', {}, async (server) => {
    await expectNullIdError(server, 'not json', ErrorCode.ParseError);
    await server.assertPingWorks();
  });

  serverTest('invalid UTF-8 inside a JSON string is answered with -32700, id null', {}, async (server) => {
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    await expectNullIdError(server, line, ErrorCode.ParseError);
    await server.assertPingWorks();
  });
});

describe('invalid requests', () => {
  for (const line of ['42', '"str"', 'null', '[]']) {
    serverTest(`${line} is answered with -32600, id null`, {}, async (server) => {
      await expectNullIdError(server, line, ErrorCode.InvalidRequest);
      await server.assertPingWorks();
    });
  }

  serverTest('[] is answered with a single -32600 also under 2025-03-26 (batches allowed)',
    { init: '2025-03-26' }, async (server) => {
      await expectNullIdError(server, '[]', ErrorCode.InvalidRequest);
      await server.assertPingWorks();
    });

  serverTest('"jsonrpc":"1.0" is answered with -32600 echoing the id', {}, async (server) => {
    await expectError(server, '{"jsonrpc":"1.0","id":1,"method":"ping"}', ErrorCode.InvalidRequest, 1);
    await server.assertPingWorks();
  });

  serverTest('a message without "jsonrpc" is answered with -32600 echoing the id', {}, async (server) => {
    await expectError(server, '{"id":1,"method":"ping"}', ErrorCode.InvalidRequest, 1);
    await server.assertPingWorks();
  });

  for (const id of ['{"a":1}', '1.5', 'true', 'null']) {
    serverTest(`id ${id} is answered with -32600, id null`, {}, async (server) => {
      await expectNullIdError(server, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, ErrorCode.InvalidRequest);
      await server.assertPingWorks();
    });
  }

  serverTest('a non-string method is answered with -32600', {}, async (server) => {
    await server.sendLine('{"jsonrpc":"2.0","id":3,"method":7}');
    const { msg } = await server.nextResponse();
    assertErrorResponse(msg, ErrorCode.InvalidRequest);
    assert.ok(msg.id === 3 || msg.id === null, `id must be 3 or null, got ${JSON.stringify(msg.id)}`);
    await server.assertPingWorks();
  });
});

describe('request ids are echoed exactly', () => {
  // Compared on the raw reply text: JS numbers cannot hold these integers.
  const ids = ['9223372036854775807', '-9223372036854775808', '18446744073709551615', '"abc"', '""', '0'];
  for (const id of ids) {
    serverTest(`id ${id}`, {}, async (server) => {
      await server.sendLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      const { raw, msg } = await server.nextResponse();
      assert.deepEqual(msg.result, {}, `ping must succeed, got ${raw}`);
      const escaped = id.replace(/[-"]/g, '\\$&');
      assert.match(raw, new RegExp(`"id"\\s*:\\s*${escaped}\\s*[,}]`), `the reply must echo id ${id} exactly`);
      await server.assertPingWorks();
    });
  }
});

describe('methods and notifications', () => {
  serverTest('an unknown method is answered with -32601 echoing the id', {}, async (server) => {
    const response = await server.request('time/travel', {}, { id: 21 });
    assertErrorResponse(response, ErrorCode.MethodNotFound, { id: 21 });
    await server.assertPingWorks();
  });

  serverTest('an unknown notification gets no reply', {}, async (server) => {
    await server.notify('notifications/time_travel', {});
    await server.expectNoReply('unknown notification');
    await server.assertPingWorks();
  });

  serverTest('a JSON-RPC response sent by the client gets no reply', {}, async (server) => {
    await server.send({ jsonrpc: '2.0', id: 5, result: {} });
    await server.expectNoReply('client-sent response');
    await server.assertPingWorks();
  });

  serverTest('notifications/cancelled for an unknown request gets no reply', {}, async (server) => {
    await server.notify('notifications/cancelled', { requestId: 999 });
    await server.expectNoReply('notifications/cancelled');
    await server.assertPingWorks();
  });
});

describe('batches', () => {
  const notification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } };

  serverTest('2025-03-26: a batch of two pings is answered by one array of two responses',
    { init: '2025-03-26' }, async (server) => {
      await server.send([ping(10), ping(11)]);
      const { msg } = await server.waitFor((e) => Array.isArray(e.msg), 'batch response');
      assert.equal(msg.length, 2);
      const byId = [...msg].sort((a, b) => a.id - b.id);
      assert.deepEqual(byId, [
        { jsonrpc: '2.0', id: 10, result: {} },
        { jsonrpc: '2.0', id: 11, result: {} },
      ]);
      await server.assertPingWorks();
    });

  serverTest('2025-03-26: a batch of a notification and a request gets an array of one response',
    { init: '2025-03-26' }, async (server) => {
      await server.send([notification, ping(12)]);
      const { msg } = await server.waitFor((e) => Array.isArray(e.msg), 'batch response');
      assert.deepEqual(msg, [{ jsonrpc: '2.0', id: 12, result: {} }]);
      await server.assertPingWorks();
    });

  serverTest('2025-03-26: a batch of only notifications gets no reply',
    { init: '2025-03-26' }, async (server) => {
      await server.send([notification, { jsonrpc: '2.0', method: 'notifications/time_travel' }]);
      await server.expectNoReply('batch of notifications');
      await server.assertPingWorks();
    });

  for (const version of ['2025-06-18', '2025-11-25']) {
    serverTest(`${version}: a batch is refused with a single -32600, id null`, { init: version }, async (server) => {
      await expectNullIdError(server, JSON.stringify([ping(10), ping(11)]), ErrorCode.InvalidRequest);
      await server.assertPingWorks();
    });
  }

  serverTest('before initialize: a batch is refused with -32600, id null', { init: null }, async (server) => {
    await expectNullIdError(server, JSON.stringify([ping(10), ping(11)]), ErrorCode.InvalidRequest);
    await server.assertPingWorks();
  });
});

describe('logging/setLevel', () => {
  serverTest('an unknown level is refused with -32602', {}, async (server) => {
    const response = await server.request('logging/setLevel', { level: 'verbose' });
    assertErrorResponse(response, ErrorCode.InvalidParams);
    await server.assertPingWorks();
  });

  serverTest('level debug makes a tools/call log notifications/message before its response', {}, async (server) => {
    const setLevel = await server.request('logging/setLevel', { level: 'debug' });
    assert.deepEqual(setLevel.result, {}, `setLevel failed: ${JSON.stringify(setLevel)}`);
    const from = server.lines.length;
    await server.send({
      jsonrpc: '2.0', id: 50, method: 'tools/call',
      params: { name: 'time_get_current', arguments: { timezone: 'UTC' } },
    });
    const reply = await server.waitFor((e) => isResponse(e.msg) && e.msg.id === 50, 'tools/call response');
    assert.ok('result' in reply.msg, `tools/call failed: ${reply.raw}`);
    const logs = server.lines.slice(from, reply.index).filter((e) => e.msg.method === 'notifications/message');
    assert.ok(logs.length >= 1, 'expected at least one notifications/message before the tools/call response');
    for (const { msg } of logs) {
      assert.ok(!('id' in msg), 'a log message is a notification: no id');
      assert.ok(MCP_LOG_LEVELS.includes(msg.params?.level), `bad level in ${JSON.stringify(msg)}`);
      assert.equal(typeof msg.params.logger, 'string', `logger missing in ${JSON.stringify(msg)}`);
      assert.ok('data' in msg.params, `data missing in ${JSON.stringify(msg)}`);
    }
    await server.assertPingWorks();
  });
});

describe('oversized lines', () => {
  const LIMIT_MESSAGE_RE = /limit|max|exceed|too (long|large|big)|\d+ ?(bytes|B|KiB|MiB)/i;

  /** A valid ping request padded to exactly `bytes` bytes (newline excluded). */
  function paddedPing(id, bytes) {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"pad":"`;
    const tail = '"}}';
    return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
  }

  serverTest('--max-line-bytes 1024: a 5000-byte line is refused with -32600, id null',
    { args: ['--max-line-bytes', '1024'] }, async (server) => {
      const line = paddedPing(77, 5000);
      assert.equal(Buffer.byteLength(line), 5000);
      const error = await expectNullIdError(server, line, ErrorCode.InvalidRequest);
      assert.match(error.message, LIMIT_MESSAGE_RE, `the message must mention the limit: ${error.message}`);
      await server.assertPingWorks();
    });

  serverTest('default limit (4 MiB): a 5 MiB line is refused with -32600, id null', {}, async (server) => {
    const line = paddedPing(78, 5 * 1024 * 1024);
    await server.writeChunked(`${line}\n`);
    const { msg } = await server.nextResponse(15_000);
    assert.ok(!Array.isArray(msg));
    const error = assertErrorResponse(msg, ErrorCode.InvalidRequest, { id: null });
    assert.match(error.message, LIMIT_MESSAGE_RE, `the message must mention the limit: ${error.message}`);
    await server.assertPingWorks();
  });
});

describe('shutdown', () => {
  serverTest('EOF on stdin: pending replies are written, then exit code 0', {}, async (server) => {
    await server.send(ping(31));
    server.endInput();
    const exit = await server.waitForExit(5_000);
    assert.deepEqual(exit, { code: 0, signal: null });
    const reply = await server.waitForResponse(31, 100);
    assert.deepEqual(reply, { jsonrpc: '2.0', id: 31, result: {} });
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    serverTest(`${signal} while idle: exit code 0`, {}, async (server) => {
      await server.assertPingWorks(); // running and idle
      server.child.kill(signal);
      const exit = await server.waitForExit(5_000);
      assert.deepEqual(exit, { code: 0, signal: null });
    });
  }
});
