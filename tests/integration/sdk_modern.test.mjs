// MCP 2026-07-28 (the stateless revision) through the official TypeScript
// SDK v2 client (`@modelcontextprotocol/client`, lib/sdk_client.mjs): pinned
// and `auto` over Streamable HTTP and stdio, the spec's Pattern 1 end to end
// (every structuredContent checked against the listed outputSchema), the v1
// client on the same server at the same time, and who may use a tracking
// session: the principal (same principal: shared; another principal, or the
// other era: SESSION_NOT_FOUND exactly as for an id never issued).
// Run: TTM_BINARY=/abs/path node --test sdk_modern.test.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import { HttpServer, stopAllHttpServers } from './lib/http_server.mjs';
import { ALL_REVISIONS, withoutRequestIds } from './lib/modern.mjs';
import {
  AjvJsonSchemaValidator, AUTO_ERA, connectHttp, connectV2Http, connectV2Stdio, MODERN_PROTOCOL_VERSION,
  ProtocolErrorV2,
} from './lib/sdk_client.mjs';
import { TOOL_NAMES } from './lib/sdk_suite.mjs';
import { SessionDriver } from './lib/session_assertions.mjs';
import { definePattern1, driverFor, specSession, TASK_IDS } from './lib/session_patterns.mjs';
import { assertTimeResult, TOOL_NAME } from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

after(stopAllHttpServers);

/** A v1 (2025-11-25, initialize) client over HTTP, as in sdk_http.test.mjs. */
function connectV1Http(server, { token, name = 'ttm-sdk-v1-test' } = {}) {
  return connectHttp(server.url, { token, name, label: 'SDK v1', context: () => server.context() });
}

/** Asserts a v2 connection speaks 2026-07-28. */
function assertModern(conn) {
  assert.equal(conn.client.getNegotiatedProtocolVersion(), MODERN_PROTOCOL_VERSION);
  assert.equal(conn.client.getProtocolEra(), 'modern');
}

/**
 * A SessionDriver whose calls go through whichever connection `via.conn`
 * names at the time: one model of a tracking session used by several clients.
 */
function switchingDriver(tools, localZone, first) {
  const via = { conn: first };
  const client = { callTool: (params, options) => via.conn.client.callTool(params, options) };
  const driver = new SessionDriver(client, tools, { ajv: new AjvJsonSchemaValidator(), localZone });
  return { driver, via };
}

/**
 * Asserts `foreign` (a call naming someone else's session `id`) got exactly
 * what `unknown` (the same call naming `never`, an id never issued) got.
 */
function assertLooksNeverIssued(foreign, id, unknown, never, label) {
  assert.ok(foreign.message.includes(id), `${label}: the message names the id: ${foreign.message}`);
  // Alike but for the request's own id (request_id).
  const mask = (sc, x) => withoutRequestIds(JSON.stringify(sc).replaceAll(x, '<session_id>'));
  assert.equal(mask(foreign, id), mask(unknown, never), `${label}: the session must look like one never issued`);
}

/** The four calls naming a session, with the arguments each needs besides session_id. */
const SESSION_CALLS = [
  ['time_session_summary', {}], ['time_task_start', { task_id: 'M2-002' }],
  ['time_task_end', { task_id: 'M2-001' }], ['time_session_end', {}],
];

/** Asserts `driver` gets SESSION_NOT_FOUND for session `id`, byte for byte as for an id never issued. */
async function assertCannotSee(driver, id, label) {
  const never = randomUUID();
  for (const [name, args] of SESSION_CALLS) {
    const foreign = await driver.fail(name, { session_id: id, ...args }, 'SESSION_NOT_FOUND');
    const unknown = await driver.fail(name, { session_id: never, ...args }, 'SESSION_NOT_FOUND');
    assertLooksNeverIssued(foreign, id, unknown, never, `${label}, ${name}`);
  }
}

/**
 * The tests of a v2 client pinned to 2026-07-28 on one transport:
 * `connect()` returns the connection, `close(conn)` ends it.
 */
function definePinnedSuite(transportName, connect) {
  describe(`SDK v2 pinned to 2026-07-28 (${transportName})`, () => {
    let conn;
    let tools;
    let driver;

    before(async () => {
      conn = await connect();
      ({ tools, driver } = await driverFor(conn));
    }, T);
    after(async () => { await conn?.close(); });

    test('negotiates 2026-07-28: getNegotiatedProtocolVersion(), the modern era', T, () => {
      assertModern(conn);
    });

    test('server/discover: every revision, capabilities, instructions, serverInfo', T, () => {
      const discover = conn.client.getDiscoverResult();
      assert.ok(discover, 'the client kept its server/discover result');
      assert.deepEqual(discover.supportedVersions, ALL_REVISIONS);
      assert.deepEqual(conn.client.getServerCapabilities(),
        { completions: {}, logging: {}, prompts: { listChanged: false }, resources: { listChanged: false },
          tools: { listChanged: false } });
      const info = conn.client.getServerVersion();
      assert.equal(info?.name, 'time-tracker-mcp');
      assert.equal(info?.title, 'Time Tracker MCP');
      assert.ok((conn.client.getInstructions() ?? '').length > 0, 'instructions');
    });

    test('tools/list: the twelve tools in a fixed order, cache hints', T, async () => {
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
      const again = await conn.client.listTools(undefined, { cacheMode: 'bypass' });
      assert.equal(again.ttlMs, 3_600_000);
      assert.equal(again.cacheScope, 'public');
      assert.deepEqual(again.tools, tools, 'the same list every time');
    });

    test('time_get_current: structuredContent matches its outputSchema', T, async () => {
      const result = await conn.client.callTool({ name: TOOL_NAME, arguments: { timezone: 'UTC' } });
      const sc = assertTimeResult(result);
      driver.assertMatchesSchema(TOOL_NAME, sc);
      assert.equal(sc.timezone, 'UTC');
    });

    definePattern1(() => driver);

    test('every session tool\'s reply was checked against its listed outputSchema', T, () => {
      for (const name of ['time_session_start', 'time_task_start', 'time_task_end', 'time_session_end',
        'time_session_summary']) {
        assert.ok((driver.checked.get(name)?.ok ?? 0) > 0, `no ${name} reply was checked`);
      }
    });

    test('an unknown tool is a ProtocolError -32602', T, async () => {
      await assert.rejects(conn.client.callTool({ name: 'time_travel', arguments: {} }),
        (err) => err instanceof ProtocolErrorV2 && err.code === -32602);
    });

    test('a per-request logLevel in _meta brings notifications/message for that call only', T, async () => {
      const logs = [];
      conn.client.setNotificationHandler('notifications/message', (n) => { logs.push(n.params); });
      try {
        assertTimeResult(await conn.client.callTool({ name: TOOL_NAME, arguments: {}, _meta: { [LOG_LEVEL_KEY]: 'debug' } }));
        assert.ok(logs.length >= 1, 'a debug notification for the call');
        assert.ok(logs.every((p) => p.level === 'debug'), JSON.stringify(logs));
        const seen = logs.length;
        assertTimeResult(await conn.client.callTool({ name: TOOL_NAME, arguments: {} }));
        assert.equal(logs.length, seen, 'none for a call without logLevel');
      } finally {
        conn.client.removeNotificationHandler?.('notifications/message');
      }
    });

    test('the SDK saw nothing but valid JSON-RPC', T, async () => {
      await conn.client.listTools(undefined, { cacheMode: 'bypass' }); // a barrier
      assert.deepEqual(conn.errors(), []);
    });
  });
}

describe('over Streamable HTTP', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  definePinnedSuite('Streamable HTTP', async () => {
    const conn = await connectV2Http(server.url, { context: () => server.context() });
    assert.equal(conn.transport.sessionId, undefined, 'no MCP session in 2026-07-28');
    return conn;
  });
});

definePinnedSuite('stdio', () => connectV2Stdio(BINARY));

describe('SDK v2 over stdio: the end of the process', () => {
  test('close() ends the server through stdin EOF, at once', T, async () => {
    const conn = await connectV2Stdio(BINARY);
    try {
      assertModern(conn);
      await driverFor(conn);
      const started = performance.now();
      await conn.client.close();
      const elapsed = performance.now() - started;
      assert.ok(conn.exited(), 'the server process must have ended');
      assert.ok(elapsed < 1_900, `the server took ${Math.round(elapsed)} ms to exit after stdin EOF`);
    } finally {
      await conn.close();
    }
  });
});

describe('SDK v2 in auto mode picks 2026-07-28', () => {
  let server;
  before(async () => { server = await HttpServer.start({ binary: BINARY }); });
  after(() => server?.stop());

  for (const [transportName, connect] of [
    ['Streamable HTTP', () => connectV2Http(server.url, { versionNegotiation: AUTO_ERA, context: () => server.context() })],
    ['stdio', () => connectV2Stdio(BINARY, { versionNegotiation: AUTO_ERA })],
  ]) {
    test(`over ${transportName}`, T, async () => {
      const conn = await connect();
      try {
        assertModern(conn);
        assert.deepEqual(conn.client.getDiscoverResult()?.supportedVersions, ALL_REVISIONS);
        const { driver } = await driverFor(conn);
        const s = await driver.startSession(specSession({ task_ids: ['A'] }));
        await s.startTask({ task_id: 'A' });
        await s.endTask({ task_id: 'A' });
        assert.equal((await s.end()).tasks_completed, 1);
        assert.deepEqual(conn.errors(), []);
      } finally {
        await conn.close();
      }
    });
  }
});

describe('SDK v1 and v2 at once on one HTTP server (no auth: the local principal)', () => {
  let server;
  let v1;
  let v2;
  let other;
  before(async () => {
    server = await HttpServer.start({ binary: BINARY });
    v1 = await connectV1Http(server, { name: 'legacy-client' });
    v2 = await connectV2Http(server.url, { name: 'modern-client', context: () => server.context() });
    other = await connectV2Http(server.url, { name: 'modern-client-b', context: () => server.context() });
  }, T);
  after(async () => {
    await v1?.close();
    await v2?.close();
    await other?.close();
    await server?.stop();
  });

  test('each speaks its revision: v1 2025-11-25 with an MCP session, v2 2026-07-28 without', T, () => {
    assert.equal(v1.negotiatedVersion(), '2025-11-25');
    assert.match(v1.transport.sessionId ?? '', /^[0-9a-f]{32}$/);
    assertModern(v2);
    assert.equal(v2.transport.sessionId, undefined);
  });

  test('interleaved calls and tracking sessions of both clients all work', T, async () => {
    const { driver: d1 } = await driverFor(v1);
    const { driver: d2 } = await driverFor(v2);
    const [s1, s2] = await Promise.all([d1.startSession(specSession()), d2.startSession(specSession())]);
    assert.notEqual(s1.id, s2.id);
    for (const id of TASK_IDS) {
      // One request of each in flight at the same time, then the other way round.
      await Promise.all([s1.startTask({ task_id: id }), s2.startTask({ task_id: id })]);
      await Promise.all([s2.endTask({ task_id: id }), s1.endTask({ task_id: id })]);
    }
    const calls = [];
    for (let i = 0; i < 10; i += 1) {
      calls.push(v1.client.callTool({ name: TOOL_NAME, arguments: { timezone: 'UTC' } }));
      calls.push(v2.client.callTool({ name: TOOL_NAME, arguments: { timezone: 'Asia/Tokyo' } }));
    }
    (await Promise.all(calls)).forEach((r, i) => {
      assert.equal(assertTimeResult(r).timezone, i % 2 === 0 ? 'UTC' : 'Asia/Tokyo');
    });
    const [e1, e2] = await Promise.all([s1.end(), s2.end()]);
    assert.equal(e1.tasks_completed, 5);
    assert.equal(e2.tasks_completed, 5);
    assert.deepEqual(v1.errors(), []);
    assert.deepEqual(v2.errors(), []);
  });

  test('a legacy client cannot see a 2026-07-28 session, nor the other way round', T, async () => {
    const { driver: d1 } = await driverFor(v1);
    const { driver: d2 } = await driverFor(v2);
    const modernSession = await d2.startSession(specSession());
    await modernSession.startTask({ task_id: 'M2-001' });
    const legacySession = await d1.startSession(specSession());
    await legacySession.startTask({ task_id: 'M2-001' });
    await assertCannotSee(d1, modernSession.id, 'legacy client, modern session');
    await assertCannotSee(d2, legacySession.id, 'modern client, legacy session');
    // Nothing changed for their owners.
    for (const s of [modernSession, legacySession]) {
      const sc = await s.summary();
      assert.equal(sc.status, 'active');
      assert.equal(sc.tasks_in_progress, 1);
      assert.equal((await s.end()).tasks_interrupted, 1);
    }
  });

  test('two v2 clients of the same principal share a tracking session: B ends A\'s', T, async () => {
    const { tools } = await driverFor(v2);
    const { driver: probe } = await driverFor(other);
    const { driver, via } = switchingDriver(tools, probe.localZone, v2);
    const s = await driver.startSession(specSession());
    via.conn = other;
    await s.startTask({ task_id: 'M2-001' });
    via.conn = v2;
    await s.endTask({ task_id: 'M2-001' });
    via.conn = other;
    await s.startTask({ task_id: 'M2-002' });
    assert.equal((await s.summary()).tasks_in_progress, 1);
    const ended = await s.end();
    assert.equal(ended.status, 'ended');
    assert.equal(ended.tasks_completed, 1);
    assert.equal(ended.tasks_interrupted, 1);
    via.conn = v2;
    const again = await s.end(); // A sees B's end: already_ended, the same report
    assert.equal(again.already_ended, true);
  });

  test('tools/list: the same tools for every caller, in a fixed order', T, async () => {
    const a = await v2.client.listTools(undefined, { cacheMode: 'bypass' });
    const b = await other.client.listTools(undefined, { cacheMode: 'bypass' });
    assert.deepEqual(a.tools.map((t) => t.name), TOOL_NAMES);
    assert.deepEqual(b, a);
    const legacyList = await v1.client.listTools();
    assert.deepEqual(legacyList.tools.map((t) => t.name), TOOL_NAMES);
  });
});

describe('principals from the token file (NAME TOKEN lines)', () => {
  let server;
  const conns = [];
  const TOKENS = { alice1: 'tok-alice-one', alice2: 'tok-alice-two', bob: 'tok-bob', anon: 'tok-anonymous' };

  before(async () => {
    server = await HttpServer.startWithTokens({
      binary: BINARY,
      tokens: `# two names, one token without a name\nalice ${TOKENS.alice1}\nalice ${TOKENS.alice2}\n` +
        `bob ${TOKENS.bob}\n${TOKENS.anon}\n`,
    });
  });
  after(async () => {
    for (const conn of conns) await conn.close().catch(() => {});
    await server?.stop();
  });

  async function v2As(who) {
    const conn = await connectV2Http(server.url, { token: TOKENS[who], name: `client-${who}`, context: () => server.context() });
    conns.push(conn);
    assertModern(conn);
    return conn;
  }

  test('another principal gets SESSION_NOT_FOUND for alice\'s session, exactly as for an id never issued', T, async () => {
    const alice = await v2As('alice1');
    const { driver: da } = await driverFor(alice);
    const s = await da.startSession(specSession());
    await s.startTask({ task_id: 'M2-001' });
    for (const who of ['bob', 'anon']) {
      const { driver } = await driverFor(await v2As(who));
      await assertCannotSee(driver, s.id, who);
    }
    // Bob's attempts changed nothing; bob's own session is bob's alone.
    const sc = await s.summary();
    assert.equal(sc.status, 'active');
    assert.equal(sc.tasks_in_progress, 1);
    assert.equal(sc.tasks_not_started, 4);
    const { driver: db } = await driverFor(await v2As('bob'));
    const bobs = await db.startSession(specSession({ milestone_id: 'B1' }));
    await assertCannotSee(da, bobs.id, 'alice, bob\'s session');
    await bobs.end();
    await s.end();
  });

  test('two tokens of one name are one principal: the second client ends the first one\'s session', T, async () => {
    const a = await v2As('alice1');
    const b = await v2As('alice2');
    const { tools, driver: probe } = await driverFor(a);
    const { driver, via } = switchingDriver(tools, probe.localZone, a);
    const s = await driver.startSession(specSession({ task_ids: ['X-1', 'X-2'] }));
    via.conn = b;
    await s.startTask({ task_id: 'X-1' });
    via.conn = a;
    await s.endTask({ task_id: 'X-1' });
    via.conn = b;
    const ended = await s.end();
    assert.equal(ended.tasks_completed, 1);
    assert.equal(ended.tasks_not_started, 1);
  });

  test('a legacy (v1) client with alice\'s token cannot see her 2026-07-28 session, nor she its', T, async () => {
    const alice = await v2As('alice1');
    const legacyConn = await connectV1Http(server, { token: TOKENS.alice1 });
    conns.push(legacyConn);
    const { driver: dm } = await driverFor(alice);
    const { driver: dl } = await driverFor(legacyConn);
    const m = await dm.startSession(specSession());
    const l = await dl.startSession(specSession());
    await assertCannotSee(dl, m.id, 'alice over 2025-11-25, her modern session');
    await assertCannotSee(dm, l.id, 'alice over 2026-07-28, her legacy session');
    await m.end();
    await l.end();
  });

  test('tools/list is the same for every principal, in a fixed order', T, async () => {
    const lists = [];
    for (const who of ['alice1', 'bob', 'anon']) {
      lists.push(await (await v2As(who)).client.listTools(undefined, { cacheMode: 'bypass' }));
    }
    assert.deepEqual(lists[0].tools.map((t) => t.name), TOOL_NAMES);
    assert.deepEqual(lists[1], lists[0]);
    assert.deepEqual(lists[2], lists[0]);
  });

  test('no client saw anything but valid JSON-RPC', T, () => {
    for (const conn of conns) assert.deepEqual(conn.errors(), []);
  });
});
