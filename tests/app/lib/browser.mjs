// Headless Chromium (Debian's `chromium`, no browser download) driven by
// puppeteer-core over a pipe, offline, and the host page: host/host.js with
// the official AppBridge, bundled by esbuild into one inline module script.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || 'chromium';

/** The host page: an empty body and the bundled bridge (a few hundred KB, built in well under a second). */
export async function hostPage() {
  const out = await build({
    entryPoints: [path.join(here, '..', 'host', 'host.js')],
    bundle: true, format: 'esm', platform: 'browser', target: 'chrome120', write: false, logLevel: 'silent',
    minify: true, legalComments: 'none',
  });
  // An inline script must not contain "</script": the bundle's strings are escaped as \x3c/script.
  const js = out.outputFiles[0].text.replaceAll('</script', '\\x3c/script');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>ttm app test host</title>
<style>body{margin:0;padding:0;background:#fff}</style></head><body>
<script type="module">${js}</script></body></html>`;
}

/** The chromium binary's path (puppeteer needs one, not a name on PATH). */
function chromiumPath() {
  if (CHROMIUM.includes('/')) return CHROMIUM;
  const r = spawnSync('sh', ['-c', `command -v ${CHROMIUM}`], { encoding: 'utf8' });
  const found = r.stdout.trim();
  if (!found) throw new Error(`${CHROMIUM} is not on PATH: install Debian's chromium (scripts/common.sh TEST_PACKAGES)`);
  return found;
}

/**
 * Launches headless Chromium; every host name resolves to nothing (the app
 * loads nothing from anywhere, and the host page is set from memory).
 * Returns the browser and its process id (closed by the caller; killed by
 * pid at exit if it is still there).
 */
export async function launch() {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    pipe: true,
    timeout: 90_000, // a loaded machine starts chromium slowly
    protocolTimeout: 120_000,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
      '--disable-background-networking', '--disable-sync', '--host-resolver-rules=MAP * ~NOTFOUND',
      '--hide-scrollbars', '--font-render-hinting=none'],
  });
  const pid = browser.process()?.pid;
  process.on('exit', () => {
    if (pid) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  });
  return { browser, pid };
}
