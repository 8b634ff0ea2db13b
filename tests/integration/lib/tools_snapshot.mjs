// The committed tools/list snapshots (tests/golden/tools_list.<set>.json,
// pinned to the server's registry by the unit test tools_snapshot_test.cpp):
// the one list of tools every Node test compares with, instead of its own copy.
import { readFileSync } from 'node:fs';

/** The tools/list result of snapshot `set`: 'default' (no --toolsets) or 'all'. */
export function toolsSnapshot(set) {
  return JSON.parse(readFileSync(new URL(`../../golden/tools_list.${set}.json`, import.meta.url), 'utf8'));
}

/** Every tool (--toolsets all), in tools/list order. */
export const ALL_TOOLS = toolsSnapshot('all').tools;

/** Their names, in tools/list order. */
export const TOOL_NAMES = ALL_TOOLS.map((t) => t.name);

/** The default toolsets' tools (time, tracking, chronometric), in tools/list order. */
export const DEFAULT_TOOLS = toolsSnapshot('default').tools.map((t) => t.name);
