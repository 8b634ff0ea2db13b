// Whether two server builds give byte-identical `time_stats` answers on one
// history store (bench/history.sh fills it): 45 calls, 3 zones (UTC, New
// York's and Kolkata's) x 5 groupings x 3 variants (a month; a tag over 45
// days; 60 days with weeks from Sunday), with a fixed `to`, so both builds
// count the same range. Prints each call's verdict and exits 1 on any
// difference. The journal comes from the environment
// (TIME_TRACKER_MCP_JOURNAL), as with bench/history_ab.mjs.
//
// Usage: node bench/stats_same.mjs BINARY_A BINARY_B DATA_DIR
import { abServer } from './ab_server.mjs';

const [binA, binB, dir] = process.argv.slice(2);
if (!binA || !binB || !dir) {
  console.error('usage: node bench/stats_same.mjs BINARY_A BINARY_B DATA_DIR');
  process.exit(2);
}

const server = (binary, b = false) => abServer(binary, dir, b);

const servers = [server(binA), server(binB, true)];
for (const s of servers) {
  const init = await s.rpc('initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stats-same', version: '1' },
  });
  if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
  s.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

// A fixed end (the minute now began): both builds count the same sessions.
const to = new Date(Math.floor(Date.now() / 60000) * 60000);
const daysBefore = (n) => new Date(to.getTime() - n * 86400000).toISOString();
const variants = [
  ['a month', { from: daysBefore(30) }],
  ['a tag, 45 days', { from: daysBefore(45), tags: ['area:2'] }],
  ['60 days, weeks from Sunday', { from: daysBefore(60), week_start: 'sunday' }],
];
let same = 0;
let differ = 0;
for (const timezone of ['UTC', 'America/New_York', 'Asia/Kolkata'])
  for (const group_by of ['day', 'week', 'milestone', 'tag', 'task'])
    for (const [name, extra] of variants) {
      const args = { group_by, timezone, to: to.toISOString(), ...extra };
      const texts = [];
      for (const s of servers) {
        const r = await s.rpc('tools/call', { name: 'time_stats', arguments: args });
        if (!r.result || r.result.isError) throw new Error(`time_stats failed: ${JSON.stringify(r)}`);
        texts.push(JSON.stringify(r.result));
      }
      const ok = texts[0] === texts[1];
      if (ok) same++;
      else differ++;
      const sessions = JSON.parse(texts[0]).structuredContent?.totals?.session_count;
      console.log(`${ok ? 'same' : 'DIFFERENT'}: ${timezone}, by ${group_by}, ${name}`
        + ` (${sessions} sessions, ${texts[0].length} bytes)`);
    }
for (const s of servers) s.child.stdin.end();
console.log(`${same} identical, ${differ} different`);
process.exit(differ ? 1 : 0);
