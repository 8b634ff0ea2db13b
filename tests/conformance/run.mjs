// Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package-lock.json) against `time-tracker-mcp http` on a free
// port, with expected-failures.yaml as the baseline. ctest runs it as
// `node run.mjs` with TTM_BINARY set; the suite itself needs Node >= 22,
// which the pinned `node` package provides at node_modules/.bin/node.
// Exit code: the suite's (0 when only listed scenarios fail), or 1 when the
// server does not start or does not exit 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { serverBinary } from '../integration/lib/env.mjs';
import { HttpServer } from '../integration/lib/http_server.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const NODE22 = here('./node_modules/.bin/node');
const SUITE = here('./node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = here('./expected-failures.yaml');
// Bounds a hung run; the suite normally takes a few seconds.
const SUITE_TIMEOUT_MS = 240_000;

for (const file of [NODE22, SUITE]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`npm ci\` in tests/conformance (scripts/test.sh does)`);
    process.exit(1);
  }
}

const server = await HttpServer.start({ binary: serverBinary() });
let code = 1;
try {
  console.log(`conformance suite against ${server.url}`);
  code = await new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', server.url, '--expected-failures', BASELINE],
      { stdio: 'inherit' });
    const timer = setTimeout(() => {
      console.error(`the conformance suite took over ${SUITE_TIMEOUT_MS} ms; killed`);
      child.kill('SIGKILL');
    }, SUITE_TIMEOUT_MS);
    child.once('exit', (c, signal) => {
      clearTimeout(timer);
      resolve(signal ? 1 : c);
    });
  });
} finally {
  const exit = await server.stop();
  if (exit.code !== 0) {
    console.error(`the server did not exit 0 on SIGTERM: ${JSON.stringify(exit)}${server.context()}`);
    code = 1;
  }
}
process.exit(code);
