// The MCP App (issue 35) in a real host: headless Chromium (Debian's
// chromium) loads a host page with the official ext-apps host bridge
// (AppBridge, PostMessageTransport); the bridge mounts our server's
// ui://time-tracker/timeline.html, read through resources/read, in a
// sandboxed iframe under the CSP a host derives from its empty `_meta.ui.csp`,
// and relays the app's tools/call to our real server (`time-tracker-mcp http`)
// through the official MCP SDK client, which declares the extension.
//
// Checked: the app initializes (the bridge's initialized event); a session
// with a pause and a parallel run is drawn as one bar per run with the pause
// as a gap; with the session active, a task ended by the client shows up at
// the app's next poll (time_session_summary through the host, every 10 s);
// the time_stats result is drawn as a bar chart; dark theme from the host
// context changes the app's colours; Tab reaches the bars; nothing is
// requested from the network. A screenshot of a second session, whose runs
// took minutes (time_tasks_edit `correct`), light, 600 px wide, is written to
// $TTM_APP_OUT/app-timeline.png; TTM_UPDATE_DOC_IMAGE=1 also copies it to
// docs/img/app-timeline.png (the README's picture, checked: at most 80 KB).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { hostPage, launch } from './lib/browser.mjs';
import {
  connectV1, HttpServer, serverBinary, stopAllHttpServers, TIMELINE_URI, UI_MIME,
} from './lib/mcp.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BINARY = serverBinary();
const OUT = path.resolve(process.env.TTM_APP_OUT || path.join(tmpdir(), 'ttm-app-test'));
const DOC_IMAGE = path.join(here, '..', '..', 'docs', 'img', 'app-timeline.png');
const DOC_IMAGE_MAX_BYTES = 80 * 1024;
/** The app polls every 10 s (docs/app.md): a condition that needs a poll gets three polls' time. */
const POLL_WAIT_MS = 35_000;
/** Conditions that need no poll (rendering, a theme change): generous under load. */
const WAIT_MS = 20_000;
const WIDTH = 600;
const T = { timeout: 120_000 };

/**
 * What the app draws (the shared SVG renderers, src/reports/svg_*.cpp): one
 * rect.bar per run, a pause as a rect.pause over its run's bar (the legend's
 * keys are rect.key), one rect.bar per group in the stats chart.
 */
const SEL = Object.freeze({
  timelineBars: 'svg.timeline rect.bar',
  pauses: 'svg.timeline rect.pause:not(.key)',
  statsBars: 'svg.bars rect.bar',
});

let server;
let client;
let browser;
let page;
const relayed = []; // the tools/call requests the bridge relayed: {app, name, at}
const offline = []; // any request the page or the app made to the network
const scriptErrors = []; // uncaught errors in the host page or the app
let html;
let sessionId;
let picture; // the screenshot's session: {args, summary}
const hostContext = {
  theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web',
  locale: 'en-US', timeZone: 'Europe/Paris', containerDimensions: { width: WIDTH, maxHeight: 2000 },
};

/** A tools/call through the SDK client; a tool error fails the test with its text. */
async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name} failed: ${JSON.stringify(r.content)}`);
  return r;
}

/** Resolves with `cond()` once it is truthy (checked every 100 ms); fails after `timeout` ms naming `what()`. */
async function until(cond, timeout, what) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeout} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The app iframe `id`'s frame (puppeteer). */
async function frameOf(id) {
  const el = await page.$(`iframe#${id}`);
  assert.ok(el, `no iframe #${id}`);
  const frame = await el.contentFrame();
  assert.ok(frame, `iframe #${id} has no frame`);
  return frame;
}

/** Waits (up to `timeout` ms) until `fn(arg)` in the app's frame is truthy; returns its value. */
async function waitInApp(id, fn, arg, timeout = WAIT_MS) {
  const frame = await frameOf(id);
  const handle = await frame.waitForFunction(fn, { timeout, polling: 100 }, arg);
  return handle.jsonValue();
}

/** The bars the timeline in app `id` shows: [task, run, status]. */
async function bars(id) {
  return (await frameOf(id)).evaluate((sel) => [...document.querySelectorAll(sel)]
    .map((b) => [b.dataset.task, Number(b.dataset.run), b.dataset.status]), SEL.timelineBars);
}

async function mount(id, context = hostContext) {
  await page.evaluate((a) => window.ttmHost.mount(a), { id, html, hostContext: context, width: WIDTH });
}

/** Shows a tool call's arguments `args` and its `result` in app `id`, as a host does after the call. */
async function show(id, args, result) {
  await page.evaluate((i, a, r) => window.ttmHost.toolCall(i, a, r), id, args, result);
}

describe('the timeline app in a host (AppBridge, headless Chromium)', () => {
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    server = await HttpServer.start({ binary: BINARY });
    client = await connectV1(server.url, { withUi: true });
    const read = await client.readResource({ uri: TIMELINE_URI });
    assert.equal(read.contents.length, 1);
    assert.equal(read.contents[0].mimeType, UI_MIME);
    html = read.contents[0].text;
    assert.ok(typeof html === 'string' && html.length > 0, 'the resource is text');

    ({ browser } = await launch());
    page = await browser.newPage();
    await page.setViewport({ width: WIDTH + 40, height: 900, deviceScaleFactor: 1 });
    page.on('request', (r) => { if (!r.url().startsWith('about:') && !r.url().startsWith('data:')) offline.push(r.url()); });
    page.on('pageerror', (e) => { scriptErrors.push(e.message); });
    await page.exposeFunction('ttmRelay', async (app, method, params) => {
      assert.equal(method, 'tools/call');
      const entry = { app, name: params.name, at: Date.now() };
      relayed.push(entry);
      const result = await client.callTool(params);
      entry.status = result.structuredContent?.status;
      entry.answeredAt = Date.now();
      return result;
    });
    await page.setContent(await hostPage(), { waitUntil: 'load' });
    await page.waitForFunction(() => window.ttmHost !== undefined, { timeout: WAIT_MS });
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await client?.close().catch(() => {});
    await stopAllHttpServers();
  });

  test('a session with a parallel run and a pause, started through real tool calls', T, async () => {
    const start = await call('time_session_start', {
      milestone_id: 'M35', milestone_name: 'The timeline as an MCP App',
      task_ids: ['plan', 'build', 'check'], timezone: 'Europe/Paris',
      estimates: { plan: '1', build: '2', check: '1' },
    });
    sessionId = start.structuredContent.session_id;
    await call('time_task_start', { session_id: sessionId, task_id: 'plan', task_name: 'Plan the view' });
    await call('time_task_start', { session_id: sessionId, task_id: 'build', task_name: 'Build the view' });
    // plan pauses while the app is mounted (real work, no sleep), resumes after.
    await call('time_tasks_edit', { session_id: sessionId, operations: [{ op: 'pause', task_id: 'plan' }] });
  });

  test('the app initializes through the bridge (ui/initialize, then initialized)', T, async () => {
    await mount('timeline');
    await page.waitForFunction(() => window.ttmHost.events('timeline').initialized === 1, { timeout: WAIT_MS });
    const info = await page.evaluate(() => window.ttmHost.appInfo('timeline'));
    assert.ok(info.version?.name, `the app names itself: ${JSON.stringify(info)}`);
  });

  test('one bar per run, the parallel runs on their own rows, the pause as a gap', T, async () => {
    await call('time_tasks_edit', { session_id: sessionId, operations: [{ op: 'resume', task_id: 'plan' }] });
    await call('time_task_end', { session_id: sessionId, task_id: 'plan' });
    await call('time_task_end', { session_id: sessionId, task_id: 'build', status: 'failed' });
    await call('time_task_start', { session_id: sessionId, task_id: 'check', task_name: 'Check it in a host' });
    const args = { session_id: sessionId };
    const summary = await call('time_session_summary', args);
    assert.equal(summary.structuredContent.status, 'active');
    await show('timeline', args, summary);
    await waitInApp('timeline', (sel) => document.querySelectorAll(sel).length >= 3, SEL.timelineBars);
    const drawn = await bars('timeline');
    assert.deepEqual(drawn.sort(), [['build', 1, 'failed'], ['check', 1, 'running'], ['plan', 1, 'completed']],
      'one bar per run');
    const geometry = await (await frameOf('timeline')).evaluate((s) => {
      const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
      const bar = (task) => box(document.querySelector(`${s.timelineBars}[data-task="${task}"]`));
      return { plan: bar('plan'), build: bar('build'), pauses: [...document.querySelectorAll(s.pauses)].map(box) };
    }, SEL);
    assert.ok(geometry.plan.y !== geometry.build.y, `parallel runs on separate rows: ${JSON.stringify(geometry)}`);
    assert.ok(geometry.build.x < geometry.plan.x + geometry.plan.w, 'build started while plan ran');
    assert.equal(geometry.pauses.length, 1, `plan's pause drawn once: ${JSON.stringify(geometry)}`);
    const gap = geometry.pauses[0];
    assert.ok(gap.w > 0 && gap.x >= geometry.plan.x && gap.x + gap.w <= geometry.plan.x + geometry.plan.w + 0.5,
      `the gap lies within plan's bar: ${JSON.stringify(geometry)}`);
  });

  test('the bars are reached with Tab, and a focused bar tells its task, times and duration', T, async () => {
    const frame = await frameOf('timeline');
    await frame.evaluate(() => { document.activeElement?.blur(); window.focus(); });
    const focused = [];
    for (let i = 0; i < 10 && !focused.includes('build'); i += 1) {
      await page.keyboard.press('Tab');
      focused.push(await frame.evaluate(() => document.activeElement?.dataset?.task ?? document.activeElement?.tagName));
    }
    assert.ok(focused.includes('build'), `Tab reaches the bars: ${JSON.stringify(focused)}`);
    const details = await waitInApp('timeline', () => {
      const text = document.getElementById('details')?.textContent ?? '';
      return /Build the view/.test(text) && text;
    });
    assert.match(details, /\d/, `times and a duration: ${details}`);
    await frame.evaluate(() => document.activeElement?.blur());
  });

  test('live: a task the client ends shows at the app\'s next poll', T, async () => {
    const before = relayed.length;
    const t0 = Date.now();
    await call('time_task_end', { session_id: sessionId, task_id: 'check' });
    await waitInApp('timeline', (sel) => document.querySelector(`${sel}[data-task="check"]`)?.dataset.status === 'completed',
      SEL.timelineBars, POLL_WAIT_MS);
    const ms = Date.now() - t0;
    const calls = relayed.slice(before);
    assert.ok(calls.length >= 1, 'the update came through a relayed tools/call');
    assert.ok(calls.every((c) => c.app === 'timeline' && c.name === 'time_session_summary'),
      `the app polls time_session_summary only: ${JSON.stringify(calls)}`);
    const events = await page.evaluate(() => window.ttmHost.events('timeline'));
    assert.equal(events.calls, relayed.filter((c) => c.app === 'timeline').length);
    console.log(`live update after ${ms} ms; tools/call relayed by the bridge so far: ${relayed.length} `
      + `(${calls.length} while waiting), all time_session_summary`);
  });

  test('dark theme from the host context changes the app\'s colours', T, async () => {
    const colours = () => waitInApp('timeline', (sel) => {
      const bar = document.querySelector(`${sel}[data-task="plan"]`);
      return bar && JSON.stringify([getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color,
        getComputedStyle(bar).fill]);
    }, SEL.timelineBars);
    const light = JSON.parse(await colours());
    await page.evaluate((c) => window.ttmHost.setHostContext('timeline', c), { ...hostContext, theme: 'dark' });
    const dark = JSON.parse(await waitInApp('timeline', ([sel, was]) => {
      const bar = document.querySelector(`${sel}[data-task="plan"]`);
      const now = JSON.stringify([getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color,
        getComputedStyle(bar).fill]);
      return now !== was && now;
    }, [SEL.timelineBars, JSON.stringify(light)]));
    assert.notEqual(dark[0], light[0], `the background changes: ${light} -> ${dark}`);
    assert.notEqual(dark[1], light[1], `the text colour changes: ${light} -> ${dark}`);
    console.log(`colours (background, text, a completed bar): light ${light.join(' ')}; dark ${dark.join(' ')}`);
  });

  test('a screenshot: a working morning, light, 600 px wide', T, async () => {
    // A session whose runs took minutes: started now through the tools,
    // then put in their true places with time_tasks_edit's `correct` (as an
    // agent that forgot to start the clock does), still active.
    const start = await call('time_session_start', {
      milestone_id: 'M36', milestone_name: 'Ship the timeline view', timezone: 'Europe/Paris',
      task_ids: ['design', 'implement', 'review', 'docs'],
      estimates: { design: '30', implement: '45', review: '15', docs: '20' },
    });
    const id = start.structuredContent.session_id;
    const ago = (min) => new Date(Date.now() - min * 60_000).toISOString();
    const ops = [
      { op: 'start', task_id: 'design', task_name: 'Design the view' },
      { op: 'start', task_id: 'implement', task_name: 'Implement the renderer' },
      { op: 'end', task_id: 'design' },
      { op: 'end', task_id: 'implement' },
      { op: 'start', task_id: 'review', task_name: 'Review' },
      { op: 'end', task_id: 'review', status: 'failed' },
      { op: 'start', task_id: 'docs', task_name: 'Write the docs' },
      { op: 'correct', task_id: 'design', start_time: ago(100), end_time: ago(68), reason: 'started before the session' },
      { op: 'correct', task_id: 'implement', start_time: ago(75), end_time: ago(22), reason: 'forgot the clock' },
      { op: 'correct', task_id: 'review', start_time: ago(24), end_time: ago(12), reason: 'forgot the clock' },
      { op: 'correct', task_id: 'docs', start_time: ago(10), reason: 'forgot the clock' },
    ];
    await call('time_tasks_edit', { session_id: id, operations: ops });
    const args = { session_id: id };
    const summary = await call('time_session_summary', args);
    picture = { args, summary };
    await mount('picture');
    await page.waitForFunction(() => window.ttmHost.events('picture').initialized === 1, { timeout: WAIT_MS });
    await show('picture', args, summary);
    await waitInApp('picture', (sel) => document.querySelectorAll(sel).length === 4, SEL.timelineBars);
    // The size the app reported is the iframe's height (the host follows size-changed).
    await page.waitForFunction(() => {
      const f = document.getElementById('picture');
      const sizes = window.ttmHost.events('picture').sizes;
      return sizes.length > 0 && f.style.height === `${Math.ceil(sizes.at(-1).height)}px`;
    }, { timeout: WAIT_MS });
    const png = path.join(OUT, 'app-timeline.png');
    await (await page.$('iframe#picture')).screenshot({ path: png });
    await page.evaluate(() => window.ttmHost.teardown('picture'));
    const bytes = readFileSync(png);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    assert.equal(width, WIDTH);
    assert.ok(height > 150, `the app is taller than a few lines (${height} px): it reported its size`);
    console.log(`screenshot ${png}: ${width}x${height}, ${bytes.length} bytes`);
    if (process.env.TTM_UPDATE_DOC_IMAGE === '1') {
      mkdirSync(path.dirname(DOC_IMAGE), { recursive: true });
      copyFileSync(png, DOC_IMAGE);
    }
    // The README's copy: a PNG as wide, small.
    const doc = readFileSync(DOC_IMAGE);
    assert.equal(doc.readUInt32BE(16), WIDTH, 'docs/img/app-timeline.png is 600 px wide');
    assert.ok(doc.length <= DOC_IMAGE_MAX_BYTES,
      `docs/img/app-timeline.png is ${doc.length} bytes (at most ${DOC_IMAGE_MAX_BYTES})`);
  });

  test('readable at 400 px wide: no sideways scrolling, labels at least 9 px', T, async () => {
    await page.evaluate((a) => window.ttmHost.mount(a), { id: 'narrow', html, hostContext: { ...hostContext,
      containerDimensions: { width: 400, maxHeight: 2000 } }, width: 400 });
    await page.waitForFunction(() => window.ttmHost.events('narrow').initialized === 1, { timeout: WAIT_MS });
    await show('narrow', picture.args, picture.summary);
    const fit = await waitInApp('narrow', (sel) => {
      if (document.querySelectorAll(sel).length !== 4) return false;
      const labels = [...document.querySelectorAll('svg.timeline text')].map((t) => t.getBoundingClientRect());
      return { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
        svg: document.querySelector('svg.timeline').getBoundingClientRect().width,
        smallest: Math.min(...labels.map((r) => r.height)), labels: labels.length };
    }, SEL.timelineBars);
    await page.evaluate(() => window.ttmHost.teardown('narrow'));
    assert.ok(fit.scroll <= 400 && fit.svg <= 400, `fits 400 px: ${JSON.stringify(fit)}`);
    assert.ok(fit.smallest >= 9, `the smallest label is ${fit.smallest} px high: ${JSON.stringify(fit)}`);
    console.log(`at 400 px: svg ${fit.svg} px wide, page ${fit.scroll} px, smallest of ${fit.labels} labels ${fit.smallest.toFixed(1)} px high`);
  });

  test('time_stats: the bar chart by the chosen grouping', T, async () => {
    await mount('stats');
    await page.waitForFunction(() => window.ttmHost.events('stats').initialized === 1, { timeout: WAIT_MS });
    const args = { group_by: 'task', timezone: 'Europe/Paris' };
    const stats = await call('time_stats', args);
    const groups = stats.structuredContent.groups;
    // plan, build, check, and the four tasks of the screenshot's session.
    assert.ok(Array.isArray(groups) && groups.length === 7, `seven tasks: ${JSON.stringify(stats.structuredContent)}`);
    await show('stats', args, stats);
    const n = await waitInApp('stats', (sel) => document.querySelectorAll(sel).length || false, SEL.statsBars);
    assert.equal(n, groups.length, 'one bar per group');
  });

  test('the live updates stop when the session ends', T, async () => {
    await call('time_session_end', { session_id: sessionId });
    const ended = () => relayed.find((c) => c.app === 'timeline' && c.status && c.status !== 'active' && c.answeredAt);
    const last = await until(ended, POLL_WAIT_MS, () => `a poll seeing the session ended: ${JSON.stringify(relayed)}`);
    await waitInApp('timeline', (sel) => document.querySelector(`${sel}[data-task="check"]`) !== null, SEL.timelineBars);
    // The absence of a poll is the condition: one interval and 2 s more after the ended answer.
    const window = last.answeredAt + 12_000 - Date.now();
    if (window > 0) await new Promise((r) => setTimeout(r, window));
    const after = relayed.filter((c) => c.app === 'timeline' && c.at > last.at);
    assert.deepEqual(after, [], 'no poll after the session ended');
    const polls = relayed.filter((c) => c.app === 'timeline').length;
    console.log(`tools/call relayed by the bridge in all: ${relayed.length} (timeline ${polls}, all time_session_summary; `
      + `the last saw '${last.status}', none after it in 12 s)`);
  });

  test('nothing was requested from the network, and no script failed', T, () => {
    assert.deepEqual(offline, []);
    assert.deepEqual(scriptErrors, []);
  });
});
