// The MCP Apps capability gate (issue 35), with the official SDK clients,
// no browser: a client that declares the extension
// (capabilities.extensions["io.modelcontextprotocol/ui"]) sees the three
// tools link ui://time-tracker/timeline.html through `_meta.ui.resourceUri`,
// the resource in resources/list and readable, and the rendered SVG in the
// three tools' results' `_meta`; a client that does not sees exactly today's
// tools/list (the committed snapshot tests/golden/tools_list.all.json, not a
// list kept here), resources/list and results. Both protocol eras: the v1
// client (initialize, 2025-11-25) and the v2 client pinned to the stateless
// 2026-07-28 (capabilities in every request's `_meta`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import {
  APP_TOOLS, connectV1, connectV2, HttpServer, LEGACY_URI_KEY, MODERN, serverBinary, stopAllHttpServers,
  TIMELINE_URI, UI_MIME,
} from './lib/mcp.mjs';

const { getToolUiResourceUri } = await import('@modelcontextprotocol/ext-apps/app-bridge');

const BINARY = serverBinary();
const T = { timeout: 60_000 };
/** The namespaced `_meta` key of the rendered SVG in the three tools' results (docs/app.md). */
const SVG_META_KEY = 'time-tracker-mcp/svg';
/** tools/list as the server had it before the app: the reviewed snapshot (--toolsets all, as the tests start it). */
const SNAPSHOT = JSON.parse(readFileSync(new URL('../golden/tools_list.all.json', import.meta.url), 'utf8'));

/**
 * What today's tools/list is in `era`: the snapshot; for 2026-07-28 less the
 * outputSchemas, which that revision's encoder rewrites (protocol/modern.cpp:
 * a nullable result) whatever the client declares. With and without the
 * extension, 2026-07-28 lists are also compared whole with each other.
 */
function today(tools, era) {
  return era === MODERN ? tools.map(({ outputSchema, ...rest }) => rest) : tools;
}

/** `tool` without `_meta.ui` (and without `_meta` if that was all of it). */
function withoutUi(tool) {
  if (!tool._meta?.ui) return tool;
  const { ui, ...meta } = tool._meta;
  const copy = { ...tool, _meta: meta };
  if (Object.keys(meta).length === 0) delete copy._meta;
  return copy;
}

let server;
before(async () => {
  server = await HttpServer.start({ binary: BINARY });
});
after(async () => {
  await stopAllHttpServers();
});

for (const era of ['2025-11-25', MODERN]) {
  const connect = era === MODERN ? connectV2 : connectV1;
  describe(`the capability gate, ${era}`, () => {
    let plain;
    let apps;
    let sessionId;
    before(async () => {
      plain = await connect(server.url, { withUi: false });
      apps = await connect(server.url, { withUi: true });
      // A session of this era's own, so that the results below have something to show.
      const r = await apps.callTool({ name: 'time_session_start', arguments: { milestone_id: `gate-${era}`, task_ids: ['a'] } });
      sessionId = r.structuredContent.session_id;
      await apps.callTool({ name: 'time_task_start', arguments: { session_id: sessionId, task_id: 'a' } });
    });
    after(async () => {
      await plain?.close().catch(() => {});
      await apps?.close().catch(() => {});
    });

    test('without the extension: tools/list is the committed snapshot, unchanged', T, async () => {
      const { tools } = await plain.listTools();
      assert.deepEqual(today(tools, era), today(SNAPSHOT.tools, era));
      assert.ok(tools.every((t) => getToolUiResourceUri(t) === undefined), 'no tool links a view');
    });

    test('with the extension: the three tools link the view, the rest is the snapshot', T, async () => {
      const { tools } = await apps.listTools();
      const linked = tools.filter((t) => getToolUiResourceUri(t) !== undefined);
      assert.deepEqual(linked.map((t) => t.name).sort(), [...APP_TOOLS].sort());
      for (const t of linked) {
        assert.equal(t._meta.ui.resourceUri, TIMELINE_URI, `${t.name}: _meta.ui.resourceUri`);
        assert.equal(t._meta[LEGACY_URI_KEY], undefined, `${t.name}: the nested form only`);
      }
      assert.deepEqual(today(tools.map(withoutUi), era), today(SNAPSHOT.tools, era), 'apart from _meta.ui, the snapshot');
      assert.deepEqual(tools.map(withoutUi), (await plain.listTools()).tools, 'apart from _meta.ui, the list without');
    });

    test('resources/list: the ui:// resource for the extension only, the rest the same', T, async () => {
      const withUi = (await apps.listResources()).resources;
      const without = (await plain.listResources()).resources;
      const view = withUi.filter((r) => r.uri.startsWith('ui://'));
      assert.equal(view.length, 1, JSON.stringify(withUi));
      assert.equal(view[0].uri, TIMELINE_URI);
      assert.equal(view[0].mimeType, UI_MIME);
      assert.deepEqual(without, withUi.filter((r) => !r.uri.startsWith('ui://')));
    });

    test('resources/read: the view for the extension (empty CSP), not found without it', T, async () => {
      const { contents } = await apps.readResource({ uri: TIMELINE_URI });
      assert.equal(contents.length, 1);
      assert.equal(contents[0].uri, TIMELINE_URI);
      assert.equal(contents[0].mimeType, UI_MIME);
      assert.match(contents[0].text, /^<!DOCTYPE html>/i);
      const csp = contents[0]._meta?.ui?.csp;
      assert.ok(csp && typeof csp === 'object', `_meta.ui.csp: ${JSON.stringify(contents[0]._meta)}`);
      for (const [key, domains] of Object.entries(csp)) {
        assert.ok(Array.isArray(domains) && domains.length === 0, `csp.${key} names no domain: ${JSON.stringify(csp)}`);
      }
      await assert.rejects(plain.readResource({ uri: TIMELINE_URI }), /not found|-32002|unknown/i);
    });

    test('results: the SVG in _meta for the extension only, the same content', T, async () => {
      for (const [name, args] of [
        ['time_session_summary', { session_id: sessionId }],
        ['time_session_report', { session_id: sessionId, format: 'json' }],
        ['time_stats', { group_by: 'task' }],
      ]) {
        const a = await apps.callTool({ name, arguments: args });
        const p = await plain.callTool({ name, arguments: args });
        assert.ok(!a.isError && !p.isError, `${name}: ${JSON.stringify(a.content)} ${JSON.stringify(p.content)}`);
        const svg = a._meta?.[SVG_META_KEY];
        assert.ok(typeof svg === 'string' && /^<svg[\s>]/.test(svg), `${name}: the SVG under _meta["${SVG_META_KEY}"]`);
        assert.equal(p._meta?.[SVG_META_KEY], undefined, `${name}: no SVG without the extension`);
        if (era !== MODERN) assert.equal(p._meta, undefined, `${name}: no _meta at all, as today`);
        assert.deepEqual(Object.keys(a).filter((k) => k !== '_meta').sort(), Object.keys(p).filter((k) => k !== '_meta').sort());
        assert.equal(a.content.length, p.content.length, `${name}: the same content blocks`);
      }
    });
  });
}
