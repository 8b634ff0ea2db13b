// The MCP lifecycle over raw stdio: protocol revision negotiation, what is
// allowed before initialize, and the parts of tools/list and tools/call that
// depend on the negotiated revision (which the SDK cannot choose).
// Run: TTM_BINARY=/abs/path node --test protocol_lifecycle.test.mjs
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

import { serverBinary, TEST_TIMEOUT_MS } from './lib/env.mjs';
import {
  assertErrorResponse, ErrorCode, LATEST_PROTOCOL_VERSION, stopAllServers,
  SUPPORTED_PROTOCOL_VERSIONS, withServer,
} from './lib/raw_client.mjs';
import {
  assertIso8601Now, assertTimeResult, assertToolError, FORMATS, TOOL_NAME,
} from './lib/time_assertions.mjs';

const BINARY = serverBinary();
const T = { timeout: TEST_TIMEOUT_MS };

after(stopAllServers);

function serverTest(name, body) {
  test(name, T, () => withServer({ binary: BINARY }, body));
}

describe('initialize', () => {
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    serverTest(`a supported revision (${version}) is echoed`, async (server) => {
      const result = await server.initialize(version);
      assert.equal(result.protocolVersion, version);
    });
  }

  serverTest('an unsupported revision is answered with 2025-11-25', async (server) => {
    const result = await server.initialize('1999-01-01');
    assert.equal(result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  serverTest('the result carries serverInfo, capabilities and instructions', async (server) => {
    const result = await server.initialize();
    assert.equal(result.serverInfo.name, 'time-tracker-mcp');
    assert.equal(result.serverInfo.title, 'Time Tracker MCP');
    assert.match(result.serverInfo.version, /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/);
    assert.deepEqual(result.capabilities.tools, { listChanged: false });
    assert.deepEqual(result.capabilities.logging, {});
    assert.equal(typeof result.instructions, 'string');
    assert.ok(result.instructions.trim().length > 0, 'instructions must not be empty');
  });

  serverTest('a second initialize is refused with -32600', async (server) => {
    await server.initialize();
    const again = await server.request('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'again', version: '0.0.0' },
    }, { id: 2 });
    assertErrorResponse(again, ErrorCode.InvalidRequest, { id: 2 });
    await server.assertPingWorks();
  });
});

describe('before initialize', () => {
  serverTest('ping is answered with {}', async (server) => {
    const response = await server.request('ping', undefined, { id: 1 });
    assert.deepEqual(response, { jsonrpc: '2.0', id: 1, result: {} });
  });

  serverTest('tools/list is refused with -32600 mentioning initialize', async (server) => {
    const response = await server.request('tools/list', {}, { id: 1 });
    const error = assertErrorResponse(response, ErrorCode.InvalidRequest, { id: 1 });
    assert.match(error.message, /initiali[sz]e/i);
    await server.assertPingWorks();
  });

  serverTest('a notification gets no reply', async (server) => {
    await server.notify('notifications/cancelled', { requestId: 1 });
    await server.expectNoReply('notification before initialize');
    await server.assertPingWorks();
  });
});

describe('tools over raw JSON-RPC', () => {
  serverTest('tools/list with an unknown cursor is refused with -32602', async (server) => {
    await server.initialize();
    const response = await server.request('tools/list', { cursor: 'abc' });
    assertErrorResponse(response, ErrorCode.InvalidParams);
  });

  serverTest('tools/call returns isError false explicitly', async (server) => {
    await server.initialize();
    const result = await server.call('tools/call', { name: TOOL_NAME, arguments: { timezone: 'UTC' } });
    assert.ok('isError' in result, 'isError must be present');
    assertIso8601Now(assertTimeResult(result));
  });

  serverTest('an unknown tool is refused with -32602', async (server) => {
    await server.initialize();
    const response = await server.callTool('time_travel', {});
    assertErrorResponse(response, ErrorCode.InvalidParams);
    // The message names the tool asked for and every tool there is.
    assert.match(response.error.message, /unknown tool 'time_travel'/);
    const { tools } = (await server.request('tools/list', {})).result;
    for (const { name } of tools) assert.ok(response.error.message.includes(name), `the message must list ${name}`);
  });

  serverTest('2025-11-25: an unsupported format is a tool error VALIDATION_ERROR', async (server) => {
    assert.equal((await server.initialize('2025-11-25')).protocolVersion, '2025-11-25');
    const response = await server.callTool(TOOL_NAME, { format: 'rfc2822' });
    assert.ok('result' in response, `expected a tool result, got ${JSON.stringify(response)}`);
    const sc = assertToolError(response.result, 'VALIDATION_ERROR');
    assert.match(sc.message, /format/);
    for (const format of FORMATS) assert.ok(sc.message.includes(format), `message must list ${format}`);
  });

  serverTest('2025-06-18: an unsupported format is a JSON-RPC error -32602', async (server) => {
    assert.equal((await server.initialize('2025-06-18')).protocolVersion, '2025-06-18');
    const response = await server.callTool(TOOL_NAME, { format: 'rfc2822' });
    const error = assertErrorResponse(response, ErrorCode.InvalidParams);
    assert.match(error.message, /format/);
    await server.assertPingWorks();
  });

  serverTest('2025-11-25: an unknown argument is a tool error VALIDATION_ERROR naming it', async (server) => {
    await server.initialize('2025-11-25');
    const response = await server.callTool(TOOL_NAME, { timzone: 'UTC' });
    assert.ok('result' in response, `expected a tool result, got ${JSON.stringify(response)}`);
    const sc = assertToolError(response.result, 'VALIDATION_ERROR');
    assert.match(sc.message, /timzone/);
  });
});
