// Runs the MCP Inspector CLI (@modelcontextprotocol/inspector, pinned in
// package-lock.json) against `time-tracker-mcp stdio` as
//   inspector --cli --strict <binary> stdio --ephemeral --method tools/list
// and fails on any schema portability problem it reports. `--strict`
// prints each problem ("Warning: tool ..." / "Error: tool ...", with path,
// issue and suggested fix) on stderr but exits non-zero only for errors;
// this test fails on warnings too. The Inspector needs Node >= 22.19, which
// the pinned `node` package provides at node_modules/.bin/node.
//
// ctest runs it as `node run.mjs` with TTM_BINARY set. Exit code: 0 when
// tools/list lists every tool and the Inspector reports no problem, else 1.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serverBinary } from '../integration/lib/env.mjs';
import { TOOL_NAMES as EXPECTED_TOOLS } from '../integration/lib/tools_snapshot.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const NODE22 = here('./node_modules/.bin/node');
const INSPECTOR = here('./node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const TIMEOUT_MS = 60_000;

for (const file of [NODE22, INSPECTOR]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`npm ci\` in tests/inspector (scripts/test.sh does)`);
    process.exit(1);
  }
}

// The Inspector keeps a catalog of servers (by default in ~/.mcp-inspector):
// a throw-away one here, so a test never writes to the home directory.
const scratch = mkdtempSync(path.join(tmpdir(), 'ttm-inspector-'));
const argv = [INSPECTOR, '--cli', '--strict', '-e', 'TIME_TRACKER_MCP_LOG_LEVEL=warning', '-e', 'TIME_TRACKER_MCP_TOOLSETS=all',
  serverBinary(), 'stdio', '--ephemeral', '--method', 'tools/list'];
const child = spawn(NODE22, argv, {
  env: { ...process.env, HOME: scratch, MCP_CATALOG_PATH: path.join(scratch, 'mcp.json') },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stdout = '';
let stderr = '';
child.stdout.on('data', (c) => { stdout += c; });
child.stderr.on('data', (c) => { stderr += c; });
const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
clearTimeout(timer);
rmSync(scratch, { recursive: true, force: true });

const failures = [];
if (code !== 0) failures.push(`the Inspector exited with ${code ?? signal} (6: a schema problem of error severity)`);
const problems = stderr.split('\n').filter((line) => /^(Warning|Error): /.test(line));
if (problems.length) failures.push(`${problems.length} portability problem(s) reported by --strict`);
const summary = stderr.match(/(\d+) errors?, (\d+) warnings?/);
if (summary && (summary[1] !== '0' || summary[2] !== '0')) failures.push(`summary: ${summary[0]}`);
let names = [];
try {
  names = JSON.parse(stdout).tools.map((t) => t.name);
} catch (err) {
  failures.push(`tools/list output is not the expected JSON: ${err.message}`);
}
if (JSON.stringify([...names].sort()) !== JSON.stringify([...EXPECTED_TOOLS].sort())) {
  failures.push(`tools/list listed ${JSON.stringify(names)}, expected ${JSON.stringify(EXPECTED_TOOLS)}`);
}

if (failures.length) {
  console.error(`inspector --cli --strict tools/list: FAILED\n- ${failures.join('\n- ')}\n--- stderr ---\n${stderr}`);
  process.exit(1);
}
console.log(`inspector --cli --strict tools/list: ${names.length} tools, no portability problems`
  + (summary ? ` (${summary[0]})` : ''));
