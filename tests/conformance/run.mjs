// Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package-lock.json) against ONE `time-tracker-mcp http` process on
// a free port, in two legs, one per protocol revision the server serves:
//   2025-11-25  `server --requirements 2025-11-25`, baseline expected-failures-2025-11-25.yaml
//   2026-07-28  `server --requirements 2026-07-28`, baseline expected-failures-2026-07-28.yaml
// ctest runs it as `node run.mjs` with TTM_BINARY set; the suite itself needs
// Node >= 22, which the pinned `node` package provides at node_modules/.bin/node.
// `node run.mjs 2026-07-28` runs only the named leg(s). With
// CONFORMANCE_OUTPUT_DIR set, each leg's checks.json files are kept in
// $CONFORMANCE_OUTPUT_DIR/<revision>/.
// Exit code: 0 when every leg exits 0 (only baselined checks fail, none of
// them passes); 1 when a leg fails, times out, or the server does not start
// or does not exit 0 on SIGTERM. See README.md.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serverBinary } from '../integration/lib/env.mjs';
import { HttpServer } from '../integration/lib/http_server.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const NODE22 = here('./node_modules/.bin/node');
const SUITE = here('./node_modules/@modelcontextprotocol/conformance/dist/index.js');
const LEGS = [
  { revision: '2025-11-25', baseline: here('./expected-failures-2025-11-25.yaml') },
  { revision: '2026-07-28', baseline: here('./expected-failures-2026-07-28.yaml') },
];
// Bounds a hung leg; each normally takes a few seconds (ctest allows 300 s).
const LEG_TIMEOUT_MS = 120_000;

const wanted = process.argv.slice(2);
const legs = wanted.length ? LEGS.filter((leg) => wanted.includes(leg.revision)) : LEGS;
if (legs.length !== (wanted.length || LEGS.length)) {
  console.error(`unknown leg in ${JSON.stringify(wanted)}; the legs are ${LEGS.map((l) => l.revision).join(', ')}`);
  process.exit(2);
}
for (const file of [NODE22, SUITE, ...legs.map((leg) => leg.baseline)]) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run \`npm ci\` in tests/conformance (scripts/test.sh does)`);
    process.exit(1);
  }
}

function runLeg(url, { revision, baseline }) {
  const args = [SUITE, 'server', '--url', url, '--requirements', revision, '--expected-failures', baseline];
  if (process.env.CONFORMANCE_OUTPUT_DIR) {
    args.push('-o', path.join(process.env.CONFORMANCE_OUTPUT_DIR, revision));
  }
  return new Promise((resolve) => {
    const child = spawn(NODE22, args, { stdio: 'inherit' });
    const timer = setTimeout(() => {
      console.error(`the ${revision} leg took over ${LEG_TIMEOUT_MS} ms; killed`);
      child.kill('SIGKILL');
    }, LEG_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      console.error(`could not run the ${revision} leg: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (c, signal) => {
      clearTimeout(timer);
      resolve(signal ? 1 : c);
    });
  });
}

const server = await HttpServer.start({ binary: serverBinary() });
const results = [];
let code = 1;
try {
  for (const leg of legs) {
    console.log(`\n##### conformance leg ${leg.revision} against ${server.url} #####`);
    results.push({ revision: leg.revision, code: await runLeg(server.url, leg) });
  }
  code = results.every((r) => r.code === 0) ? 0 : 1;
} finally {
  const exit = await server.stop();
  if (exit.code !== 0) {
    console.error(`the server did not exit 0 on SIGTERM: ${JSON.stringify(exit)}${server.context()}`);
    code = 1;
  }
}
console.log('\n##### conformance summary #####');
for (const r of results) {
  console.log(`  ${r.revision}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}`);
}
process.exit(code);
