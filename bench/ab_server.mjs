// One server build over stdio for the side-by-side history scripts
// (bench/history_ab.mjs, bench/stats_same.mjs): `rpc(method, params)`
// sends a request and resolves with its reply (one client, in order).
//
// Build B may run on a store of its own (B_DATA_DIR, B_JOURNAL): a build
// whose schema is newer than A's cannot share A's store (fill both alike:
// history_fill with the same --seed and --end-ns).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export function abServer(binary, dir, b = false) {
  const env = { ...process.env };
  if (b && process.env.B_JOURNAL) env.TIME_TRACKER_MCP_JOURNAL = process.env.B_JOURNAL;
  const d = b && process.env.B_DATA_DIR ? process.env.B_DATA_DIR : dir;
  const child = spawn(binary, ['stdio', '--data-dir', d, '--log-level', 'warning', '--toolsets', 'all'],
    { stdio: ['pipe', 'pipe', 'inherit'], env });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  let nextId = 1;
  const rpc = (method, params) => new Promise((resolve) => {
    waiting.push((line) => resolve(JSON.parse(line)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params })}\n`);
  });
  return { child, rpc };
}
