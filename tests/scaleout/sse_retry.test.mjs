// An SSE stream open on a dying node (issue 32 item 2): the stream is lost,
// the client's retry on another node succeeds, nothing acknowledged is lost.
//
// This server opens no standalone SSE stream (a GET is refused with 405:
// it sends nothing outside a request's own response), and it writes each
// SSE-answered POST whole once the call is done. So the stream a client
// can hold open on a node is a POST answered as SSE (here: Accept
// text/event-stream alone) while the node works on it. The test makes
// that moment last: the node that holds the client's MCP session (nginx
// hashes on Mcp-Session-Id) is stopped (SIGSTOP), the client's POST is
// sent through nginx and waits in that node's socket, and the node is
// killed (kill -9). The client's stream ends (nginx: 502, never re-sent to
// another node: a POST may have changed something); the client sends the
// same request again with the same Mcp-Session-Id, nginx takes it to
// another node, which knows the MCP session and claims the tracking
// session through the journal; the answer comes as SSE. Twice (a task
// start, then its end), then the session ends on the others. The ack-log
// check over the journal of the stopped nodes: every change the client saw
// acknowledged is there exactly once.
//
// Run: TTM_BINARY=/abs/path node --test sse_retry.test.mjs
// (TTM_SCALEOUT_JOURNAL=postgresql: on PostgreSQL, nodes with a 2 s lease.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { serverBinary } from '../integration/lib/env.mjs';
import { initializeBody, mcpHeaders, rawRequest, sseMessages } from '../integration/lib/http_server.mjs';
import { pollUntil } from '../integration/lib/raw_client.mjs';
import { AckLog } from './lib/acks.mjs';
import { BALANCE, Cluster, sharedJournal } from './lib/cluster.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };
const VERSION = '2025-11-25';
const PG = process.env.TTM_SCALEOUT_JOURNAL === 'postgresql';
/** PostgreSQL: a dead node's sessions are claimable once its lease ran out (2 s is the least). */
const NODE_ARGS = ['--rate-limit', 'off', ...(PG ? ['--lease', '2s'] : [])];

/** The process's state letter from /proc (T: stopped). */
function procState(pid) {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
}

/** Bytes waiting unread in sockets whose local port is `port` (/proc/net/tcp: rx_queue). */
function unreadOnPort(port) {
  let total = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 5) continue;
      const localPort = parseInt(f[1].split(':')[1], 16);
      if (localPort !== port) continue;
      total += parseInt(f[4].split(':')[1], 16);
    }
  }
  return total;
}

describe('an SSE stream open on a dying node: lost, the retry succeeds on another node, nothing acknowledged lost', () => {
  const acks = new AckLog();
  let cluster;
  let shared;
  let session; // Mcp-Session-Id
  let lastServed; // the node that answered the last POST
  let nextId = 1;

  before(async () => {
    shared = sharedJournal();
    cluster = await Cluster.start({
      binary: BINARY, nodes: 3, balance: BALANCE.mcpSessionId, nodeArgs: NODE_ARGS, journal: shared.journal,
    });
  }, T);
  after(async () => {
    await cluster?.stop();
    shared?.remove();
    acks.remove();
  });

  /** One POST through nginx, answered as SSE (Accept: text/event-stream alone); {status, message, node}. */
  async function post(method, params, { id = nextId++ } = {}) {
    const from = cluster.nginx.accessLog().length;
    const res = await rawRequest(cluster.url, {
      headers: mcpHeaders({ session, version: VERSION, accept: 'text/event-stream' }),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      timeoutMs: 30_000,
    });
    let message;
    if (res.status === 200) {
      assert.match(res.headers['content-type'] ?? '', /^text\/event-stream/, 'answered as SSE');
      message = sseMessages(res.body).find((m) => m.id === id);
      assert.ok(message, `the stream carries the answer to request ${id}: ${res.body}`);
    }
    // nginx logs a request once its response is sent: the line may come
    // after the client has the response (an event, bounded).
    let entry;
    await pollUntil(() => {
      entry = cluster.nginx.accessLog().slice(from).find((e) => e.method === 'POST' && e.status === res.status);
      return entry !== undefined;
    }, `nginx's access log line of a POST answered ${res.status}`);
    lastServed = cluster.nodeAt(entry.node.split(', ').at(-1));
    return { status: res.status, body: res.body, message, node: entry.node.split(', ').at(-1) };
  }

  /** A tools/call that must succeed; records an acknowledged change in the ack log. */
  async function call(name, args) {
    const r = await post('tools/call', { name, arguments: args });
    assert.equal(r.status, 200, `${name}: ${r.body}${cluster.context()}`);
    const result = r.message.result;
    assert.ok(result && !result.isError, `${name} succeeded: ${JSON.stringify(r.message)}`);
    acks.record(name, args, result);
    return { ...r, sc: result.structuredContent };
  }

  /**
   * `name(args)` sent while the node holding the MCP session is stopped;
   * the node is killed with the call in its socket; the stream ends; the
   * same request again goes to another node and succeeds.
   */
  async function dyingStream(name, args) {
    const holder = lastServed;
    holder.child.kill('SIGSTOP');
    await pollUntil(() => procState(holder.child.pid) === 'T', 'the node stopped (state T)');
    const unreadBefore = unreadOnPort(holder.port);
    const id = nextId++;
    const lost = post('tools/call', { name, arguments: args }, { id });
    // nginx passed the request on: its bytes wait in the stopped node's socket.
    await pollUntil(() => unreadOnPort(holder.port) > unreadBefore, 'the POST waits in the stopped node\'s socket',
      { timeoutMs: 10_000 });
    const { signal } = await holder.kill();
    assert.equal(signal, 'SIGKILL');
    const first = await lost;
    assert.equal(first.status, 502, `the stream on the killed node ends with nginx's 502: ${first.body}`);
    assert.equal(first.node, `127.0.0.1:${holder.port}`, 'nginx sent it to the stopped node, and nowhere else');
    // The client's retry: the same request, the same Mcp-Session-Id.
    const retry = await post('tools/call', { name, arguments: args }, { id });
    assert.equal(retry.status, 200, `the retry succeeds: ${retry.body}${cluster.context()}`);
    assert.notEqual(retry.node, `127.0.0.1:${holder.port}`, 'the retry lands on another node');
    const result = retry.message.result;
    assert.ok(result && !result.isError, `${name} on another node: ${JSON.stringify(retry.message)}`);
    acks.record(name, args, result);
    return { killed: holder, retry, sc: result.structuredContent };
  }

  test('a standalone GET stream: none to lose (405 through nginx, nothing opened)', T, async () => {
    const init = await rawRequest(cluster.url, { headers: mcpHeaders(), body: initializeBody(VERSION) });
    assert.equal(init.status, 200, init.body);
    session = init.headers['mcp-session-id'];
    assert.ok(session, 'initialize issued an Mcp-Session-Id');
    const note = await rawRequest(cluster.url, {
      headers: mcpHeaders({ session, version: VERSION }),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(note.status, 202);
    const get = await rawRequest(cluster.url, {
      method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session, 'MCP-Protocol-Version': VERSION },
    });
    assert.equal(get.status, 405, get.body);
  });

  test('kill -9 of the node while a task start and then a task end are answered as SSE on it: ' +
    'each retry succeeds on another node', T, async () => {
    const started = await call('time_session_start', {
      milestone_id: 'M9', milestone_name: 'SSE retry', task_ids: ['T1', 'T2'], timezone: 'UTC',
    });
    const sid = started.sc.session_id;
    const t1 = await dyingStream('time_task_start', { session_id: sid, task_id: 'T1', task_name: 'first' });
    assert.equal(t1.sc.already_running ?? false, false, 'the killed node never ran it: the retry starts T1');
    const t1end = await dyingStream('time_task_end', { session_id: sid, task_id: 'T1', status: 'completed' });
    assert.equal(t1end.sc.already_ended ?? false, false, 'the retry ends T1, once');
    assert.notEqual(t1end.killed.port, t1.killed.port, 'two nodes killed, one each time');
    await call('time_task_start', { session_id: sid, task_id: 'T2' });
    await call('time_task_end', { session_id: sid, task_id: 'T2', status: 'completed' });
    const ended = await call('time_session_end', { session_id: sid });
    const tasks = Object.fromEntries((ended.sc.tasks ?? []).map((t) => [t.task_id, t.status]));
    assert.deepEqual(tasks, { T1: 'completed', T2: 'completed' }, `every acknowledged change in the summary: ${JSON.stringify(ended.sc)}`);
    const log = cluster.nginx.accessLog();
    assert.deepEqual([...new Set(log.filter((e) => e.sessionId).map((e) => e.sessionId))], [session],
      'one Mcp-Session-Id throughout: no re-initialize');
    assert.equal(log.filter((e) => e.status === 502).length, 2, 'only the two streams on the killed nodes failed');
  });

  test('every change the client saw acknowledged is in the journal exactly once (journal_check)', T, async () => {
    await cluster.stop();
    console.log(`${acks.check(shared.checkArgs()).trim().split('\n').at(-1)}`);
  });
});
