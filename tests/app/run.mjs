// Runs one test file of tests/app under the Node 22 pinned in this folder's
// package.json (node_modules/.bin/node: puppeteer-core needs Node >= 22.12),
// as `node --test FILE`; any node on PATH can start it (ctest does).
//   node run.mjs gate.test.mjs   the capability gate, SDK clients only
//   node run.mjs host.test.mjs   the app in headless Chromium through AppBridge
// Missing tooling fails with what to run: a test that silently skips would
// hide a broken set-up.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const NODE22 = path.join(here, 'node_modules', '.bin', 'node');
const file = process.argv[2];
if (!file || !existsSync(path.join(here, file))) {
  console.error('usage: node run.mjs gate.test.mjs|host.test.mjs');
  process.exit(2);
}
for (const p of [NODE22, path.join(here, 'node_modules', 'puppeteer-core', 'package.json')]) {
  if (!existsSync(p)) {
    console.error(`${p} is missing: run \`npm ci\` in tests/app (scripts/test.sh does)`);
    process.exit(1);
  }
}
const child = spawn(NODE22, ['--test', '--test-concurrency=1', file], { cwd: here, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
