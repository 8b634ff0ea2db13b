// The well-behaved client of the abuse harness: the official MCP SDK client
// (tests/integration/lib) over Streamable HTTP, running the spec's Pattern 1
// (time_session_start with five tasks, each task started and ended,
// time_session_end) in a loop and timing each tools/call. In its own process
// so that no abuser shares its event loop.
//
//   node good_client.mjs URL [TOKEN] [RATE]
//
// RATE (calls a second; 0 or none: flat out, each call as soon as the last
// is answered): the calls are due at a fixed rate, as an agent's are, and
// each one's latency counts from when it was due, not from when it was
// sent: a call sent late because the one before it was slow counts that
// wait too (no coordinated omission), and so does this process's own timer
// firing late (`lag`, also reported apart).
//
// Prints "ready TOOLS" once connected (TOOLS: a JSON array of the tools it
// calls, for the harness's count of them in the server's own timing); on
// "stop" (a line on stdin) it prints one
// JSON line: {calls, failures, latencies ([at, ms, lag] per call: Date.now()
// when it was due (flat out: sent), its latency, how late it was sent),
// errors (first 5)} for the calls due after "mark" (a line on stdin; before
// it: warm-up).
import { createInterface } from 'node:readline';

import { connectHttp } from '../integration/lib/sdk_client.mjs';
import { PATTERN_1_TASKS, specSession } from '../integration/lib/session_patterns.mjs';

const [url, token, rateArg] = process.argv.slice(2);
/** The tools Pattern 1 calls, each named here only. */
const TOOL = Object.freeze({
  sessionStart: 'time_session_start', taskStart: 'time_task_start',
  taskEnd: 'time_task_end', sessionEnd: 'time_session_end',
});
const rate = Number(rateArg ?? 0);
const intervalNs = rate > 0 ? BigInt(Math.round(1e9 / rate)) : 0n;
let due = 0n; // hrtime ns when the next call is due (paced)
const conn = await connectHttp(url, { token, name: 'ttm-abuse-good-client' });
let stopping = false;
let marked = false;
const latencies = [];
const errors = [];
let failures = 0;

/** Waits until the next call is due; returns [when it was due (hrtime ns), Date.now() then]. */
async function nextDue() {
  const now = process.hrtime.bigint();
  if (intervalNs === 0n) return [now, Date.now()];
  if (due === 0n) due = now;
  const mine = due;
  due += intervalNs;
  const wait = Number(mine - now) / 1e6;
  if (wait >= 1) await new Promise((r) => setTimeout(r, Math.floor(wait)));
  // A timer may fire up to 1 ms early: then the call counts from its send.
  const sent = process.hrtime.bigint();
  const from = sent < mine ? sent : mine;
  return [from, Date.now() - Number(sent - from) / 1e6];
}

async function timed(name, args) {
  const [t0, at] = await nextDue();
  const lag = Number(process.hrtime.bigint() - t0) / 1e6;
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
      latencies.push([at, Number(process.hrtime.bigint() - t0) / 1e6, lag]);
      if (!ok) failures++;
    }
  }
}

async function loop() {
  let round = 0;
  while (!stopping) {
    const started = await timed(TOOL.sessionStart, specSession({ milestone_id: `M2-${round++}` }));
    const sid = started?.session_id;
    if (!sid) continue;
    for (const task of PATTERN_1_TASKS) {
      if (stopping) break;
      await timed(TOOL.taskStart, { session_id: sid, ...task.start });
      await timed(TOOL.taskEnd, { session_id: sid, ...task.end });
    }
    await timed(TOOL.sessionEnd, { session_id: sid });
  }
}

const done = loop();
console.log(`ready ${JSON.stringify(Object.values(TOOL))}`);
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
