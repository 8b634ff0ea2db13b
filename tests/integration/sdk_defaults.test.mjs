// Issue 29 item 8 with the official SDK client (v1) over stdio: what a bare
// `stdio` offers (the report and the history, within the context budget;
// instructions without a command-line flag), and the warning of
// `--toolsets edit` alone.
// Run: TTM_BINARY=/abs/path node --test sdk_defaults.test.mjs
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { serverBinary } from './lib/env.mjs';
import { pollUntil, stopAllServers } from './lib/raw_client.mjs';
import { stdioServers } from './lib/sdk_client.mjs';

const BINARY = serverBinary();
const T = { timeout: 60_000 };
const { server, closeAll } = stdioServers(BINARY);

after(async () => {
  await closeAll();
  await stopAllServers();
});

test('a bare stdio offers the report and the history; its instructions name no flag', T, async () => {
  const conn = await server(['--toolsets', 'default']);
  const { tools } = await conn.client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ['time_session_report', 'time_session_list', 'time_stats', 'time_session_start',
    'time_get_current', 'get_time_context']) {
    assert.ok(names.includes(name), `${name} is offered by default`);
  }
  assert.ok(!names.includes('time_tasks_edit'));
  const instructions = conn.client.getInstructions();
  assert.ok(instructions.startsWith('Trusted time for agents.'));
  assert.doesNotMatch(instructions, /--/);
  // The model-facing part of tools/list within its budget.
  const modelFacing = tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify({
    name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema,
  })), 0);
  // 14,100 since issue 32's "x-mcp-header" (+140 bytes), as tools_budget_test.
  assert.ok(modelFacing <= 14_100, `model-facing tools/list is ${modelFacing} bytes`);
});

test('--toolsets edit alone warns on stderr at start-up', T, async () => {
  const conn = await server(['--toolsets', 'edit']);
  await pollUntil(() => conn.stderr().includes("'edit' without 'tracking'"), 'the warning',
    { describe: () => conn.stderr() });
  const { tools } = await conn.client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['time_tasks_edit', 'time_undo']);
});
