// The test suite run through the official MCP SDK client, shared by every
// transport (sdk_stdio.test.mjs, sdk_http.test.mjs): the same calls and the
// same expectations whatever carries the messages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { TEST_TIMEOUT_MS } from './env.mjs';
import { LATEST_PROTOCOL_VERSION, McpError } from './sdk_client.mjs';
import { ALL_TOOLS, TOOL_NAMES } from './tools_snapshot.mjs';
import {
  assertFriendly, assertIso8601Now, assertTimeResult, assertToolError, assertUnixMsNow,
  assertUnixNow, FORMATS, intlUtcOffset, TOOL_NAME,
} from './time_assertions.mjs';

const T = { timeout: TEST_TIMEOUT_MS };

/** Every tool the server lists (--toolsets all), in order: the committed snapshot. */
export { TOOL_NAMES };

const SEMVER_RE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

export function call(conn, args) {
  return conn.client.callTool({ name: TOOL_NAME, arguments: args });
}

/**
 * Defines the shared suite. `connect({ env })` starts a server (with `env`
 * when given) and returns an initialized connection:
 * { client, negotiatedVersion(), errors(), close() }.
 */
export function defineSdkSuite(transportName, connect) {
  describe(`time-tracker-mcp through the official MCP SDK (${transportName})`, () => {
    let conn;
    let tools;

    before(async () => {
      conn = await connect();
      // Like real clients, list the tools first: the SDK then validates every
      // structuredContent against the tool's outputSchema.
      ({ tools } = await conn.client.listTools());
    }, T);

    after(async () => {
      await conn?.close();
    });

    test('negotiates the SDK\'s latest protocol revision, 2025-11-25', T, () => {
      assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
      assert.equal(conn.negotiatedVersion(), '2025-11-25');
    });

    test('reports serverInfo with name, title and a semver version', T, () => {
      const info = conn.client.getServerVersion();
      assert.equal(info.name, 'time-tracker-mcp');
      assert.equal(info.title, 'Time Tracker MCP');
      assert.match(info.version, SEMVER_RE);
    });

    test('declares the tools (listChanged false) and logging capabilities', T, () => {
      const caps = conn.client.getServerCapabilities();
      assert.deepEqual(caps.tools, { listChanged: false });
      assert.deepEqual(caps.logging, {});
    });

    test('gives non-empty instructions', T, () => {
      const instructions = conn.client.getInstructions();
      assert.equal(typeof instructions, 'string');
      assert.ok(instructions.trim().length > 0, 'instructions must not be empty');
    });

    /** The listed tool called `name`. */
    function tool(name) {
      const found = tools.find((t) => t.name === name);
      assert.ok(found, `tools/list must include ${name}`);
      return found;
    }

    test('lists every tool (--toolsets all), each with title, description, schemas and annotations', T, () => {
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
      for (const tool of tools) {
        assert.equal(typeof tool.title, 'string', `${tool.name} needs a title`);
        assert.ok(tool.title.length > 0, `${tool.name} needs a non-empty title`);
        assert.equal(typeof tool.description, 'string', `${tool.name} needs a description`);
        assert.ok(tool.description.length > 0, `${tool.name} needs a non-empty description`);
        assert.equal(tool.inputSchema?.type, 'object', `${tool.name} needs an object inputSchema`);
        assert.equal(tool.inputSchema.additionalProperties, false,
          `${tool.name}: inputSchema must refuse unknown arguments`);
        assert.equal(tool.outputSchema?.type, 'object', `${tool.name} needs an object outputSchema`);
        assert.ok(tool.outputSchema.properties && Object.keys(tool.outputSchema.properties).length > 0,
          `${tool.name}: outputSchema must declare its properties`);
        assert.ok(tool.annotations && typeof tool.annotations === 'object', `${tool.name} needs annotations`);
      }
    });

    test('each tool carries the annotations it declares (read-only, destructive, idempotent, open-world)', T, () => {
      // The four hints of every tool as the reviewed snapshot has them.
      const hints = ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint }) =>
        ({ readOnlyHint, destructiveHint, idempotentHint, openWorldHint });
      for (const expected of ALL_TOOLS) {
        for (const value of Object.values(hints(expected.annotations))) {
          assert.equal(typeof value, 'boolean', `${expected.name}: the snapshot declares every hint`);
        }
        assert.deepEqual(hints(tool(expected.name).annotations), hints(expected.annotations),
          `annotations of ${expected.name}`);
      }
      // What an MCP client relies on most: summary and get_current change
      // nothing, task_start may be repeated.
      assert.equal(tool('time_session_summary').annotations.readOnlyHint, true);
      assert.equal(tool('time_task_start').annotations.idempotentHint, true);
      assert.equal(tool('time_get_current').annotations.readOnlyHint, true);
    });

    test('time_get_current inputSchema: format enum, timezone default, no extra properties', T, () => {
      const schema = tool(TOOL_NAME).inputSchema;
      assert.deepEqual(schema.properties.format.enum, FORMATS);
      assert.equal(schema.properties.format.default, 'iso8601');
      assert.equal(schema.properties.timezone.default, 'local');
      assert.equal(schema.additionalProperties, false);
    });

    test('time_get_current outputSchema describes the result fields', T, () => {
      const { properties } = tool(TOOL_NAME).outputSchema;
      for (const field of ['timestamp', 'timezone', 'utc_offset', 'day_of_week', 'is_dst', 'abbreviation',
        'utc', 'iso_week', 'iso_week_year', 'day_of_year', 'quarter', 'days_in_month', 'is_weekend']) {
        assert.ok(properties?.[field], `outputSchema.properties must include ${field}`);
      }
    });

    test('time_get_current is annotated read-only, non-destructive, idempotent, closed-world', T, () => {
      const { annotations } = tool(TOOL_NAME);
      assert.equal(annotations.readOnlyHint, true);
      assert.equal(annotations.destructiveHint, false);
      assert.equal(annotations.idempotentHint, true);
      assert.equal(annotations.openWorldHint, false);
    });

    test('tools/list rejects an unknown cursor with -32602', T, async () => {
      await assert.rejects(conn.client.listTools({ cursor: 'abc' }),
        (err) => err instanceof McpError && err.code === -32602);
    });

    test('defaults to iso8601 in the local zone (an IANA name)', T, async () => {
      const sc = assertTimeResult(await call(conn, {}));
      assertIso8601Now(sc);
      // The SDK does not pass TZ on, so this is the host's zone: one the JS
      // runtime knows, with the same offset.
      assert.equal(sc.utc_offset, intlUtcOffset(sc.timezone),
        `utc_offset of local zone ${sc.timezone} must match ICU's`);
    });

    test('format iso8601 in UTC ends with +00:00', T, async () => {
      const sc = assertTimeResult(await call(conn, { format: 'iso8601', timezone: 'UTC' }));
      assertIso8601Now(sc);
      assert.ok(sc.timestamp.endsWith('+00:00'), `${sc.timestamp} must end with +00:00`);
      assert.equal(sc.utc_offset, '+00:00');
      assert.equal(sc.timezone, 'UTC');
      assert.equal(sc.is_dst, false);
    });

    test('format unix gives whole seconds near now', T, async () => {
      assertUnixNow(assertTimeResult(await call(conn, { format: 'unix' })));
    });

    test('format unix_ms gives milliseconds near now', T, async () => {
      assertUnixMsNow(assertTimeResult(await call(conn, { format: 'unix_ms' })));
    });

    test('format friendly reads like "December 14, 2025 9:45:32 AM EST"', T, async () => {
      assertFriendly(assertTimeResult(await call(conn, { format: 'friendly', timezone: 'UTC' })));
    });

    test('timezone Asia/Kathmandu is +05:45', T, async () => {
      const sc = assertTimeResult(await call(conn, { timezone: 'Asia/Kathmandu' }));
      assertIso8601Now(sc);
      assert.equal(sc.timezone, 'Asia/Kathmandu');
      assert.equal(sc.utc_offset, '+05:45');
      assert.equal(sc.is_dst, false);
    });

    test('a fixed offset "+05:30" is honoured', T, async () => {
      const sc = assertTimeResult(await call(conn, { timezone: '+05:30' }));
      assertIso8601Now(sc);
      assert.equal(sc.utc_offset, '+05:30');
    });

    test('a misspelt zone is a tool error INVALID_TIMEZONE suggesting the right name', T, async () => {
      const sc = assertToolError(await call(conn, { timezone: 'America/NewYork' }), 'INVALID_TIMEZONE');
      assert.match(sc.message, /America\/New_York/);
      assert.ok(Array.isArray(sc.suggestions), 'suggestions must be an array');
      assert.ok(sc.suggestions.includes('America/New_York'), `suggestions: ${JSON.stringify(sc.suggestions)}`);
    });

    test('an abbreviation such as EST is refused with INVALID_TIMEZONE and suggestions', T, async () => {
      const sc = assertToolError(await call(conn, { timezone: 'EST' }), 'INVALID_TIMEZONE');
      assert.ok(Array.isArray(sc.suggestions), 'suggestions must be an array');
      assert.ok(sc.suggestions.includes('America/New_York'), `suggestions: ${JSON.stringify(sc.suggestions)}`);
    });

    test('an unsupported format is a tool error VALIDATION_ERROR (2025-11-25)', T, async () => {
      assert.equal(conn.negotiatedVersion(), '2025-11-25', 'this behaviour is specific to 2025-11-25');
      const sc = assertToolError(await call(conn, { format: 'rfc2822' }), 'VALIDATION_ERROR');
      assert.match(sc.message, /format/);
      for (const format of FORMATS) assert.ok(sc.message.includes(format), `message must list ${format}: ${sc.message}`);
    });

    test('an unknown argument is a tool error VALIDATION_ERROR naming it', T, async () => {
      const sc = assertToolError(await call(conn, { timzone: 'UTC' }), 'VALIDATION_ERROR');
      assert.match(sc.message, /timzone/);
    });

    test('an unknown tool is rejected with McpError -32602', T, async () => {
      await assert.rejects(conn.client.callTool({ name: 'time_travel', arguments: {} }),
        (err) => err instanceof McpError && err.code === -32602);
    });

    test('the connection still works after the errors', T, async () => {
      assert.deepEqual(await conn.client.ping(), {});
      assertTimeResult(await call(conn, { timezone: 'UTC' }));
    });

    test('the SDK saw nothing but valid JSON-RPC for it', T, async () => {
      assert.deepEqual(await conn.client.ping(), {}); // a barrier: earlier output has been read
      assert.deepEqual(conn.errors(), []);
    });
  });

  describe(`the local zone comes from TZ (${transportName})`, () => {
    let conn;

    before(async () => {
      conn = await connect({ env: { ...process.env, TZ: 'Asia/Kathmandu' } });
      await conn.client.listTools();
    }, T);

    after(async () => {
      await conn?.close();
    });

    test('timezone omitted resolves to Asia/Kathmandu', T, async () => {
      const sc = assertTimeResult(await call(conn, {}));
      assert.equal(sc.timezone, 'Asia/Kathmandu');
      assert.equal(sc.utc_offset, '+05:45');
    });

    test('timezone "local" resolves to Asia/Kathmandu', T, async () => {
      const sc = assertTimeResult(await call(conn, { timezone: 'local' }));
      assert.equal(sc.timezone, 'Asia/Kathmandu');
      assert.equal(sc.utc_offset, '+05:45');
    });

    test('the SDK saw nothing but valid JSON-RPC for it', T, async () => {
      assert.deepEqual(await conn.client.ping(), {});
      assert.deepEqual(conn.errors(), []);
    });
  });
}
