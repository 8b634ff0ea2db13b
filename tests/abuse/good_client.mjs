// The well-behaved client of the abuse harness: the official MCP SDK client
// (tests/integration/lib) over Streamable HTTP, running the spec's Pattern 1
// (time_session_start with five tasks, each task started and ended,
// time_session_end) in a loop and timing each tools/call. In its own process
// so that no abuser shares its event loop.
//
//   node good_client.mjs URL [TOKEN]
//
// Prints "ready" once connected; on "stop" (a line on stdin) it prints one
// JSON line: {calls, failures, latencies ([start, ms] per call: Date.now() at
// its start, its duration), errors (first 5)}
// for the calls begun after "mark" (a line on stdin; before it: warm-up).
import { createInterface } from 'node:readline';

import { connectHttp } from '../integration/lib/sdk_client.mjs';
import { PATTERN_1_TASKS, specSession } from '../integration/lib/session_patterns.mjs';

const [url, token] = process.argv.slice(2);
const conn = await connectHttp(url, { token, name: 'ttm-abuse-good-client' });
let stopping = false;
let marked = false;
const latencies = [];
const errors = [];
let failures = 0;

async function timed(name, args) {
  const t0 = process.hrtime.bigint();
  const at = Date.now();
  let ok = true;
  try {
    const res = await conn.client.callTool({ name, arguments: args });
    if (res.isError) {
      ok = false;
      if (errors.length < 5) errors.push(`${name}: ${JSON.stringify(res.structuredContent ?? res.content).slice(0, 300)}`);
    }
    return res.structuredContent;
  } catch (err) {
    ok = false;
    if (errors.length < 5) errors.push(`${name}: ${err.message}`);
    return undefined;
  } finally {
    if (marked) {
      latencies.push([at, Number(process.hrtime.bigint() - t0) / 1e6]);
      if (!ok) failures++;
    }
  }
}

async function loop() {
  let round = 0;
  while (!stopping) {
    const started = await timed('time_session_start', specSession({ milestone_id: `M2-${round++}` }));
    const sid = started?.session_id;
    if (!sid) continue;
    for (const task of PATTERN_1_TASKS) {
      if (stopping) break;
      await timed('time_task_start', { session_id: sid, ...task.start });
      await timed('time_task_end', { session_id: sid, ...task.end });
    }
    await timed('time_session_end', { session_id: sid });
  }
}

const done = loop();
console.log('ready');
const input = createInterface({ input: process.stdin });
input.on('close', () => { if (!stopping) process.exit(1); }); // the harness is gone
input.on('line', async (line) => {
  if (line === 'mark') marked = true;
  if (line !== 'stop') return;
  stopping = true;
  await done;
  const report = JSON.stringify({ calls: latencies.length, failures, latencies, errors });
  await conn.close().catch(() => {});
  // A pipe's writes are asynchronous in Node: exit only once the report
  // (hundreds of KB after a quiet run's ~20,000 calls) is flushed, or the
  // harness reads it cut off.
  process.stdout.write(report + '\n', () => process.exit(0));
});
