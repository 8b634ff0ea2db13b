// Browser checks of the session reports (issue 16), in headless Chromium
// from Debian's `chromium` package (no browser download), offline: every
// host name resolves to nothing.
//
//   node run.mjs mermaid OUT_DIR  the gantt block of tests/golden/report.md,
//       parsed and rendered by Mermaid itself (pinned in package-lock.json,
//       loaded from node_modules over file://): one bar per run; and a
//       block that is not a diagram is refused (the check can fail).
//   node run.mjs html OUT_DIR     tests/golden/report.html opened as a page:
//       one visible SVG bar per run, coloured by status, nothing loaded
//       from elsewhere; then a 1200x800 screenshot, OUT_DIR/report.png.
//
// The golden files are the renderers' exact output for the fixed session
// (tests/unit/report_test.cpp compares them byte for byte). CHROMIUM names
// the browser (default: chromium on PATH).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.join(here, '..', 'golden');
const MERMAID = path.join(here, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const CHROMIUM = process.env.CHROMIUM || 'chromium';
const [mode, outArg] = process.argv.slice(2);
if (!['mermaid', 'html'].includes(mode) || !outArg) {
  console.error('usage: node run.mjs mermaid|html OUT_DIR');
  process.exit(2);
}
const out = path.resolve(outArg);
mkdirSync(out, { recursive: true });

/** The runs of the fixed session, from its JSON report. */
const runs = JSON.parse(readFileSync(path.join(golden, 'report.json'), 'utf8')).runs;

/** Runs headless Chromium on `url` with `extra` flags; returns stdout. */
function chromium(url, extra) {
  const profile = mkdtempSync(path.join(tmpdir(), 'ttm-chromium-'));
  try {
    const res = spawnSync(CHROMIUM, [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-extensions', '--disable-background-networking', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND', // offline: nothing resolves
      `--user-data-dir=${profile}`, ...extra, url,
    ], { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 * 1024 * 1024 });
    if (res.error) throw new Error(`${CHROMIUM}: ${res.error.message}`);
    assert.equal(res.status, 0, `${CHROMIUM} exited ${res.status}:\n${res.stderr}`);
    return res.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Loads `file` and returns the JSON its page wrote into #ttm-result. */
function pageResult(file) {
  const dom = chromium(pathToFileURL(file).href, ['--virtual-time-budget=15000', '--dump-dom']);
  const m = /<pre id="ttm-result">([^<]*)<\/pre>/.exec(dom);
  assert.ok(m, `no result in the page's DOM:\n${dom.slice(0, 2000)}`);
  const text = m[1].replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
  return JSON.parse(text);
}

function mermaidCheck() {
  assert.ok(existsSync(MERMAID), `${MERMAID} is missing: run \`npm ci\` in tests/browser (scripts/test.sh does)`);
  const md = readFileSync(path.join(golden, 'report.md'), 'utf8');
  const block = /```mermaid\n([\s\S]*?)```/.exec(md);
  assert.ok(block, 'report.md has a mermaid block');
  const page = (source) => `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<pre id="ttm-result">pending</pre><div id="out"></div>
<script src="${pathToFileURL(MERMAID).href}"></script>
<script>
(async () => {
  const result = document.getElementById('ttm-result');
  try {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    const source = ${JSON.stringify(source)};
    const parsed = await mermaid.parse(source);
    const { svg } = await mermaid.render('gantt', source);
    document.getElementById('out').innerHTML = svg;
    const bars = [...document.querySelectorAll('#out rect.task')];
    result.textContent = JSON.stringify({
      ok: true, type: parsed.diagramType, bars: bars.length,
      classes: bars.map((b) => b.getAttribute('class')),
      labels: [...document.querySelectorAll('#out text.taskText, #out text.taskTextOutsideRight, #out text.taskTextOutsideLeft')].map((t) => t.textContent),
    });
  } catch (e) {
    result.textContent = JSON.stringify({ ok: false, error: String(e && e.message || e) });
  }
})();
</script></body></html>`;
  const good = path.join(out, 'gantt.html');
  writeFileSync(good, page(block[1]));
  const r = pageResult(good);
  assert.equal(r.ok, true, `Mermaid refused the gantt block: ${r.error}`);
  assert.equal(r.type, 'gantt');
  assert.equal(r.bars, runs.length, 'one bar per run');
  // Statuses reach Mermaid's tags, which it draws as classes done<N>,
  // crit<N> (failed) and doneCrit<N> (interrupted).
  assert.equal(r.classes.filter((c) => /\b(crit|doneCrit)\d/.test(c)).length,
    runs.filter((x) => x.status === 'failed' || x.status === 'interrupted').length);
  assert.equal(r.classes.filter((c) => /\bdone(Crit)?\d/.test(c)).length,
    runs.filter((x) => ['completed', 'skipped', 'interrupted'].includes(x.status)).length);
  // The label with ':', '#', ';' and '%' arrived whole, as a label.
  // (its look-alikes: U+A789 for ':', U+FF03 for '#', U+037E for ';',
  // U+FF05 for '%'), and one label per run.
  assert.equal(r.labels.length, runs.length, JSON.stringify(r.labels));
  assert.ok(r.labels.some((l) => l.trim() === '\u2023 section\ua789 \uff031\u037e 50\uff05 done (interrupted)'),
    JSON.stringify(r.labels));

  // A paused run (report_edited.md: task a, paused 3 of its 6 minutes) is
  // drawn as its active spans, "a" and "a (resumed)", the last ending
  // where the run ends (issue 29).
  const edited = /```mermaid\n([\s\S]*?)```/.exec(readFileSync(path.join(golden, 'report_edited.md'), 'utf8'));
  assert.ok(edited, 'report_edited.md has a mermaid block');
  const spans = edited[1].split('\n').filter((l) => /:\w.*, \d{4}-/.test(l)).length;
  const editedRuns = JSON.parse(readFileSync(path.join(golden, 'report_edited.json'), 'utf8')).runs;
  const paused = path.join(out, 'gantt_paused.html');
  writeFileSync(paused, page(edited[1]));
  const p = pageResult(paused);
  assert.equal(p.ok, true, `Mermaid refused the paused gantt block: ${p.error}`);
  assert.equal(p.bars, spans, 'one bar per active span');
  assert.equal(p.bars, editedRuns.length + 1, 'the paused run in two bars');
  assert.ok(p.labels.some((l) => l.trim() === 'a (resumed)'), JSON.stringify(p.labels));

  const bad = path.join(out, 'gantt_bad.html');
  writeFileSync(bad, page('this is not a diagram'));
  const refused = pageResult(bad);
  assert.equal(refused.ok, false, 'Mermaid must refuse a block that is not a diagram');
  console.log(`mermaid: gantt parsed and rendered, ${r.bars} bars for ${runs.length} runs; a paused run in 2 of ${p.bars} bars; a non-diagram refused (${refused.error.slice(0, 60)})`);
}

function htmlCheck() {
  const report = readFileSync(path.join(golden, 'report.html'), 'utf8');
  const plain = path.join(out, 'report.html');
  writeFileSync(plain, report);
  // A copy with a probe before </body>: what the page shows, measured.
  const probe = `<pre id="ttm-result">pending</pre><script>
(() => {
  const bars = [...document.querySelectorAll('svg.timeline rect.bar')];
  const visible = bars.filter((b) => { const r = b.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const fill = (s) => { const b = bars.find((x) => x.dataset.status === s); return b ? getComputedStyle(b).fill : null; };
  document.getElementById('ttm-result').textContent = JSON.stringify({
    bars: bars.length, visible: visible.length,
    runs: visible.map((b) => [b.dataset.task, Number(b.dataset.run), b.dataset.status]),
    fills: { completed: fill('completed'), failed: fill('failed'), skipped: fill('skipped'), interrupted: fill('interrupted') },
    scripts: document.scripts.length, linked: document.querySelectorAll('[src], [href], link, iframe, img').length,
  });
})();
</script>`;
  const checked = path.join(out, 'report_check.html');
  writeFileSync(checked, report.replace('</body>', `${probe}</body>`));
  const r = pageResult(checked);
  assert.equal(r.visible, runs.length, `one visible bar per run: ${JSON.stringify(r)}`);
  assert.equal(r.bars, runs.length);
  assert.deepEqual(r.runs, runs.map((x) => [x.task_id, x.run, x.status]));
  const fills = Object.values(r.fills);
  assert.ok(fills.every((f) => f && f !== 'none' && f !== 'rgb(0, 0, 0)'), JSON.stringify(r.fills));
  assert.equal(new Set(fills).size, fills.length, `each status its own colour: ${JSON.stringify(r.fills)}`);
  assert.equal(r.scripts, 1, 'the report itself has no script (only the probe)');
  assert.equal(r.linked, 0, 'nothing is loaded from elsewhere');

  const png = path.join(out, 'report.png');
  rmSync(png, { force: true });
  chromium(pathToFileURL(plain).href, ['--hide-scrollbars', '--window-size=1200,800', `--screenshot=${png}`]);
  assert.ok(existsSync(png), `no screenshot at ${png}`);
  const bytes = readFileSync(png);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  assert.deepEqual([width, height], [1200, 800]);
  assert.ok(statSync(png).size > 20_000, `a screenshot with something on it (${statSync(png).size} bytes)`);
  console.log(`html: ${r.visible} visible bars for ${runs.length} runs, fills ${JSON.stringify(r.fills)}; `
    + `screenshot ${png} (${width}x${height}, ${statSync(png).size} bytes)`);
}

if (mode === 'mermaid') mermaidCheck();
else htmlCheck();
