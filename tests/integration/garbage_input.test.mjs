// Malformed and unusual input on the server's stdin: every protocol error
// path answers as JSON-RPC 2.0 says (or stays silent for notifications), the
// server keeps answering ping afterwards, and stdout carries nothing but
// JSON-RPC messages (checked on every line by lib/raw_client.mjs).
// Run: TTM_BINARY=/abs/path node --test garbage_input.test.mjs
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  assertErrorResponse, ErrorCode, isResponse, LATEST_PROTOCOL_VERSION, MCP_LOG_LEVELS,
  pollUntil, preview, procIo, procStatus, RawServer, stopAllServers, withServer,
} from './lib/raw_client.mjs';
import { assertToolError, TOOL_NAME } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllServers);

/**
 * A test on a fresh server. `init` is the protocol revision to initialize
 * with first, or null to stay uninitialized; `args` are extra CLI arguments.
 */
function serverTest(name, { init = LATEST_PROTOCOL_VERSION, args = [], timeout = TEST_TIMEOUT_MS } = {},
  body) {
  test(name, { timeout }, () => withServer({ binary: BINARY, args }, async (server) => {
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

describe('the raw client itself', () => {
  // A stand-in "server" (node -e) that writes one reply whose string holds a
  // truncated UTF-8 sequence (0xC3 without its continuation byte).
  const BAD_UTF8_SERVER = `process.stdout.write(Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"s":"a'), Buffer.from([0xc3]),
    Buffer.from('"}}\\n')])); process.stdin.resume();`;

  test('a reply line that is not valid UTF-8 fails the wait for it and assertStdoutClean', T, async () => {
    const fake = new RawServer(process.execPath, ['-e', BAD_UTF8_SERVER], process.env);
    try {
      await fake.spawned;
      await assert.rejects(fake.waitForResponse(1), /not JSON-RPC 2\.0 \(not valid UTF-8\)/);
      assert.throws(() => fake.assertStdoutClean(), /not valid UTF-8/);
    } finally {
      await fake.stop();
    }
  });
});

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

  // JSON text holding \uXXXX escapes that name a UTF-16 surrogate without its
  // partner: no Unicode scalar value, so no UTF-8 text to decode them to.
  const loneSurrogates = {
    'a lone low surrogate in the id': String.raw`{"jsonrpc":"2.0","id":"\udc00x","method":"ping"}`,
    'a lone high surrogate in the id': String.raw`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
    'a high surrogate followed by a non-low escape in the id':
      String.raw`{"jsonrpc":"2.0","id":"\ud800\u0041","method":"ping"}`,
    'a lone low surrogate in a params string':
      String.raw`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"\udfff"}}`,
  };
  for (const [what, line] of Object.entries(loneSurrogates)) {
    serverTest(`${what} is answered with -32700, id null`, {}, async (server) => {
      assert.match(line, /\\u[dD][89a-fA-F]/, 'the line must carry the escape as text');
      await expectNullIdError(server, line, ErrorCode.ParseError);
      await server.assertPingWorks();
    });
  }

  serverTest('a valid surrogate pair escape in the id is accepted and echoed', {}, async (server) => {
    await server.sendLine(String.raw`{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"}`);
    const { raw, msg } = await server.nextResponse();
    assert.equal(JSON.parse(raw).id, '\u{1F600}', `the reply must echo the id 😀, got ${raw}`);
    assert.deepEqual(msg, { jsonrpc: '2.0', id: '😀', result: {} });
    await server.assertPingWorks();
  });

  // A raw NUL byte is not JSON whitespace nor allowed unescaped in a string.
  const nulLines = {
    'after the message, followed by garbage': Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"nul","method":"ping"}'), Buffer.from('\x00garbage', 'latin1')]),
    'right after the message': Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"nul","method":"ping"}'), Buffer.from([0x00])]),
    'inside a string value': Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"nul","method":"ping","params":{"s":"a'),
      Buffer.from([0x00]), Buffer.from('b"}}')]),
    'inside the id': Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"nu'), Buffer.from([0x00]), Buffer.from('l","method":"ping"}')]),
  };
  for (const [where, line] of Object.entries(nulLines)) {
    serverTest(`a NUL byte ${where} is answered with -32700, id null`, {}, async (server) => {
      assert.ok(line.includes(0x00));
      await expectNullIdError(server, line, ErrorCode.ParseError);
      await server.assertPingWorks();
    });
  }
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

  serverTest('a non-string method is answered with -32600 echoing the id', {}, async (server) => {
    await expectError(server, '{"jsonrpc":"2.0","id":3,"method":7}', ErrorCode.InvalidRequest, 3);
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

  // Nested deeper than the 128 levels the server parses: still never
  // answered when the top level says notification or response.
  const deep = (n) => '{"a":'.repeat(n) + '{}' + '}'.repeat(n);
  serverTest('a notification nested deeper than 128 levels gets no reply', {}, async (server) => {
    await server.sendLine(`{"jsonrpc":"2.0","method":"notifications/x","params":${deep(200)}}`);
    await server.expectNoReply('deep notification');
    await server.assertPingWorks();
  });

  serverTest('a response nested deeper than 128 levels gets no reply', {}, async (server) => {
    await server.sendLine(`{"jsonrpc":"2.0","id":5,"result":${deep(200)}}`);
    await server.expectNoReply('deep response');
    await server.assertPingWorks();
  });

  serverTest('a request nested deeper than 128 levels is still -32600 with id null', {}, async (server) => {
    await expectNullIdError(server, `{"jsonrpc":"2.0","id":9,"method":"ping","params":${deep(200)}}`,
      ErrorCode.InvalidRequest);
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

  serverTest('a JSON-RPC error response sent by the client with id null gets no reply', {}, async (server) => {
    await server.sendLine('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}');
    await server.expectNoReply('client-sent error response with id null');
    await server.assertPingWorks();
  });

  // Without an "id" member a message is a notification, even a malformed one:
  // it is never answered (with an id, such a message gets -32600).
  const malformedNotifications = {
    'notifications/cancelled with non-object params': '{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}',
    '"jsonrpc":"1.0"': '{"jsonrpc":"1.0","method":"notifications/initialized"}',
    'a non-string method': '{"jsonrpc":"2.0","method":7}',
  };
  for (const [what, line] of Object.entries(malformedNotifications)) {
    serverTest(`a malformed notification (${what}) gets no reply`, {}, async (server) => {
      await server.sendLine(line);
      await server.expectNoReply(`malformed notification ${line}`);
      await server.assertPingWorks();
    });
  }
});

describe('tool arguments', () => {
  serverTest('a 201-byte non-ASCII time zone is INVALID_TIMEZONE in a valid UTF-8 reply', {}, async (server) => {
    // The raw client fails this wait if the reply line is not valid UTF-8
    // (e.g. the zone name cut inside a two-byte "é").
    const timezone = `a${'é'.repeat(100)}`;
    const response = await server.callTool(TOOL_NAME, { timezone });
    assert.ok('result' in response, `expected a tool result, got ${JSON.stringify(response)}`);
    assertToolError(response.result, 'INVALID_TIMEZONE');
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

  /** A ping of exactly `bytes` bytes, padded with spaces inside the object. */
  function spacePaddedPing(id, bytes) {
    const head = `{"jsonrpc":"2.0","id":${id},"method":"ping"`;
    return `${head}${' '.repeat(bytes - head.length - 1)}}`;
  }

  for (const [name, eol] of [['CRLF', '\r\n'], ['LF', '\n']]) {
    serverTest(`--max-line-bytes 256: a line of exactly 256 bytes + ${name} is answered`,
      { args: ['--max-line-bytes', '256'] }, async (server) => {
        const line = spacePaddedPing(90, 256);
        assert.equal(Buffer.byteLength(line), 256);
        await server.write(`${line}${eol}`);
        const { msg } = await server.nextResponse();
        assert.deepEqual(msg, { jsonrpc: '2.0', id: 90, result: {} });
        await server.assertPingWorks();
      });

    serverTest(`--max-line-bytes 256: a line of 257 bytes + ${name} is refused with -32600, id null`,
      { args: ['--max-line-bytes', '256'] }, async (server) => {
        const line = spacePaddedPing(91, 257);
        assert.equal(Buffer.byteLength(line), 257);
        await server.write(`${line}${eol}`);
        const { msg } = await server.nextResponse();
        assert.ok(!Array.isArray(msg));
        const error = assertErrorResponse(msg, ErrorCode.InvalidRequest, { id: null });
        assert.match(error.message, LIMIT_MESSAGE_RE, `the message must mention the limit: ${error.message}`);
        await server.assertPingWorks();
      });
  }

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

  serverTest('SIGUSR1 is harmless: ping is still answered and SIGTERM still exits 0', {}, async (server) => {
    await server.assertPingWorks();
    server.child.kill('SIGUSR1');
    await server.assertPingWorks();
    server.child.kill('SIGTERM');
    const exit = await server.waitForExit(5_000);
    assert.deepEqual(exit, { code: 0, signal: null });
  });

  /** `count` tools/list requests with ids 1..count, one per line. */
  function toolsListLines(count) {
    const lines = [];
    for (let id = 1; id <= count; id++) lines.push(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}\n`);
    return lines;
  }

  serverTest('a client that stops reading: SIGTERM still ends the server within 8 s, exit code 0',
    { timeout: 30_000 }, async (server) => {
      server.pauseReading();
      server.queueWrite(toolsListLines(400).join(''));
      // The replies (~23 KB each) fill Node's stdout buffer, then the pipe.
      const stdout = server.child.stdout;
      await pollUntil(() => stdout.readableLength >= stdout.readableHighWaterMark,
        'stdout filled with unread replies', {
          timeoutMs: 10_000,
          describe: () => `${stdout.readableLength} bytes buffered unread${server.context()}`,
        });
      server.child.kill('SIGTERM');
      const exit = await server.waitForProcessExit(8_000);
      assert.deepEqual(exit, { code: 0, signal: null });
      // Read what it wrote (checked line by line) to the end.
      server.resumeReading();
      await server.waitForExit(5_000);
    });

  // The default toolsets: replies the size a default server sends (~70 KB).
  serverTest('backpressure: unread replies stop the server reading; memory stays bounded; all replies come',
    { timeout: 120_000, args: ['--toolsets', 'default'] }, async (server) => {
      const COUNT = 10_000;
      const pid = server.child.pid;
      // What the server holds before the flood: the sanitizer build alone
      // takes ~95 MB (its metadata grows with the code), so the bound is on
      // the growth, not on the total.
      const { VmRSS: baseKiB } = procStatus(pid);
      server.pauseReading();
      // Queue everything in Node at once: Node hands the pipe what it takes.
      for (const line of toolsListLines(COUNT)) server.queueWrite(line);
      const stdin = server.child.stdin;

      // Wait until the server stops reading stdin: the bytes it has read
      // (rchar) no longer grow over several checks.
      const STABLE_CHECKS = 10;
      let last = -1;
      let stable = 0;
      await pollUntil(() => {
        const { rchar } = procIo(pid);
        stable = rchar === last ? stable + 1 : 0;
        last = rchar;
        return stable >= STABLE_CHECKS;
      }, 'stop in the bytes the server reads from stdin', {
        timeoutMs: 10_000,
        intervalMs: 25,
        describe: () => `rchar ${last}, ${stdin.writableLength} bytes still queued in Node${server.context()}`,
      });
      const { VmRSS: rssKiB } = procStatus(pid);
      const queued = stdin.writableLength;
      // 10,000 tools/list replies (~70 KB each) would take ~700 MB if the
      // server queued them; with at most 256 frames in flight it holds ~18
      // MB of replies, plus the sanitizer build's overhead. (10,000, not
      // more: all of them must still be read within the minute below on a
      // loaded 2-core machine.)
      assert.ok(rssKiB - baseKiB < 64 * 1024,
        `server VmRSS grew from ${baseKiB} kB to ${rssKiB} kB: it must grow by less than 64 MB while ` +
        `${queued} bytes of requests wait in Node and no reply is read${server.context()}`);

      server.resumeReading();
      const deadline = performance.now() + 60_000;
      for (let id = 1; id <= COUNT; id++) {
        const left = Math.max(1, Math.round(deadline - performance.now()));
        const { raw, msg } = await server.nextResponse(left);
        assert.equal(msg.id, id, `replies must come in request order: expected id ${id}, got ${preview(raw)}`);
        assert.ok(Array.isArray(msg.result?.tools), `tools/list id ${id} failed: ${preview(raw)}`);
      }
    });
});

