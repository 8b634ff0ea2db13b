// Session reports as MCP resources (issue 16 items 2 and 6) through the
// official SDK clients: v1 (2025-11-25) and v2 (2026-07-28) over stdio and
// Streamable HTTP list, read and complete; over HTTP with bearer tokens a
// principal sees only its own sessions, and another's URI is not found
// exactly like one never issued.
// Run: TTM_BINARY=/abs/path node --test sdk_resources.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { connect, connectHttp, connectV2Http, connectV2Stdio } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const ALICE = 'alice-token-resources-7a1f';
const BOB = 'bob-token-resources-52c3';
const NEVER = '0f0e0d0c-0b0a-4908-8706-050403020100';
const FORMATS = [['md', 'text/markdown'], ['csv', 'text/csv'], ['json', 'application/json'], ['html', 'text/html']];

after(stopAllHttpServers);

const uriOf = (sid, ext = 'md') => `time-tracker://sessions/${sid}/report.${ext}`;

/** Starts a session with one finished task; returns its id. */
async function startSession(conn, milestone) {
  const start = await conn.client.callTool({
    name: 'time_session_start', arguments: { milestone_id: milestone, milestone_name: 'Resources', task_ids: ['a', 'b'] },
  });
  assert.equal(start.isError, false, JSON.stringify(start.structuredContent));
  const sid = start.structuredContent.session_id;
  for (const name of ['time_task_start', 'time_task_end']) {
    const r = await conn.client.callTool({ name, arguments: { session_id: sid, task_id: 'a' } });
    assert.equal(r.isError, false, JSON.stringify(r.structuredContent));
  }
  return sid;
}

/** The error code a read of `uri` gets (it must fail). */
async function readError(conn, uri) {
  try {
    await conn.client.readResource({ uri });
  } catch (e) {
    return { code: e.code, message: e.message, data: e.data };
  }
  assert.fail(`reading ${uri} must fail`);
}

function defineResourceSuite(label, open, notFound) {
  describe(`resources over ${label}`, () => {
    let conn;
    let server;
    let sid;

    before(async () => {
      ({ conn, server } = await open());
      sid = await startSession(conn, 'R1');
    });
    after(async () => {
      if (conn) {
        assert.deepEqual(conn.errors(), []);
        await conn.close();
      }
      await server?.stop();
    });

    test('declares resources; four templates', T, async () => {
      assert.deepEqual(conn.client.getServerCapabilities().resources, { listChanged: false });
      const { resourceTemplates } = await conn.client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]),
        FORMATS.map(([ext, mime]) => [uriOf('{session_id}', ext), mime]));
    });

    test('lists the session; reads it in every format as the tool gives it', T, async () => {
      const { resources } = await conn.client.listResources();
      const mine = resources.find((r) => r.uri === uriOf(sid));
      assert.ok(mine, JSON.stringify(resources));
      assert.equal(mine.mimeType, 'text/markdown');
      assert.match(mine.title, /^R1 Resources: execution report$/);
      assert.match(mine.description, /^active session started .*, 1\/2 tasks completed/);
      for (const [ext, mime] of FORMATS) {
        const read = await conn.client.readResource({ uri: uriOf(sid, ext) });
        assert.equal(read.contents.length, 1);
        assert.equal(read.contents[0].uri, uriOf(sid, ext));
        assert.equal(read.contents[0].mimeType, mime);
        assert.ok(read.contents[0].text.length > 0);
      }
      const md = await conn.client.readResource({ uri: uriOf(sid) });
      assert.match(md.contents[0].text, /^# Milestone R1 Execution Report: Resources\n/);
    });

    test('unknown URIs are not found, with the URI', T, async () => {
      for (const uri of [uriOf(NEVER), uriOf(sid, 'pdf'), 'file:///etc/passwd']) {
        const e = await readError(conn, uri);
        assert.equal(e.code, notFound, e.message);
        assert.equal(e.data?.uri, uri);
      }
    });

    test('completion/complete offers the session id', T, async () => {
      const done = await conn.client.complete({
        ref: { type: 'ref/resource', uri: uriOf('{session_id}', 'csv') },
        argument: { name: 'session_id', value: sid.slice(0, 6) },
      });
      assert.ok(done.completion.values.includes(sid), JSON.stringify(done.completion));
      const prompt = await conn.client.complete({
        ref: { type: 'ref/prompt', name: 'execution_report' }, argument: { name: 'session_id', value: '' },
      });
      assert.ok(prompt.completion.values.includes(sid));
    });
  });
}

defineResourceSuite('stdio (2025-11-25)', async () => ({ conn: await connect(BINARY) }), -32002);
defineResourceSuite('stdio (2026-07-28)', async () => ({ conn: await connectV2Stdio(BINARY) }), -32602);
defineResourceSuite('Streamable HTTP (2025-11-25)', async () => {
  const server = await HttpServer.start({ binary: BINARY });
  return { conn: await connectHttp(server.url, { context: () => server.context() }), server };
}, -32002);
defineResourceSuite('Streamable HTTP (2026-07-28)', async () => {
  const server = await HttpServer.start({ binary: BINARY });
  return { conn: await connectV2Http(server.url, { context: () => server.context() }), server };
}, -32602);

describe('resources over Streamable HTTP, principals apart', () => {
  let server;
  before(async () => {
    server = await HttpServer.startWithTokens({ binary: BINARY, tokens: `alice ${ALICE}\nbob ${BOB}\n` });
  });
  after(async () => { await server?.stop(); });

  const eras = [
    ['2025-11-25 (SDK v1)', (token) => connectHttp(server.url, { token, context: () => server.context() }), -32002],
    ['2026-07-28 (SDK v2)', (token) => connectV2Http(server.url, { token, context: () => server.context() }), -32602],
  ];
  for (const [era, open, notFound] of eras) {
    test(`${era}: Bob neither lists nor reads Alice's report`, T, async () => {
      const alice = await open(ALICE);
      const bob = await open(BOB);
      try {
        const sid = await startSession(alice, 'A1');
        const listed = await alice.client.listResources();
        assert.ok(listed.resources.some((r) => r.uri === uriOf(sid)));
        const bobs = await bob.client.listResources();
        assert.ok(!bobs.resources.some((r) => r.uri.includes(sid)), 'Bob does not see it');
        const foreign = await readError(bob, uriOf(sid));
        const never = await readError(bob, uriOf(NEVER));
        assert.equal(foreign.code, notFound);
        assert.equal(foreign.message.replaceAll(sid, '<id>'), never.message.replaceAll(NEVER, '<id>'));
        const done = await bob.client.complete({
          ref: { type: 'ref/resource', uri: uriOf('{session_id}') },
          argument: { name: 'session_id', value: sid.slice(0, 8) },
        });
        assert.deepEqual(done.completion.values, []);
        assert.deepEqual(alice.errors(), []);
        assert.deepEqual(bob.errors(), []);
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }
});
