// Several `time-tracker-mcp http` nodes on one journal behind a real nginx,
// all on loopback, for the scale-out tests (issue 32) and bench/scaleout.sh.
//
// The journal: one SQLite data directory shared by the nodes (issue 15);
// PostgreSQL once the binary has `--journal` (wt/pgstore: the tests then
// start a throw-away server with its script). nginx runs unprivileged
// (`nginx -p DIR -c DIR/nginx.conf -g 'daemon off; pid ...;'`, as nobody
// when the tests run as root), every file in its temporary directory, and
// proxies with examples/deploy/nginx/mcp-proxy.conf itself: the settings
// shipped are the ones tested. Its access log records the node
// ($upstream_addr) of every request. Everything is stopped by PID.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { freshDataDir } from '../../integration/lib/data_dir.mjs';
import { HttpServer } from '../../integration/lib/http_server.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The proxy settings shipped for deployments (included verbatim). */
export const PROXY_SNIPPET = path.join(REPO, 'examples/deploy/nginx/mcp-proxy.conf');
const NGINX_START_MS = 10_000;
/** nobody/nogroup on Debian: nginx's user when the tests run as root. */
const NOBODY = 65534;

/**
 * Whether the build has wt/anynode's MCP sessions in the journal (any node
 * answers any Mcp-Session-Id): merged, so the 2025-era tests must pass.
 */
export const ANYNODE = true;

/** How nginx picks a node: round-robin, or a consistent hash on a header. */
export const BALANCE = Object.freeze({
  roundRobin: '',
  /** 2026-07-28: the tracking session (x-mcp-header on session_id). */
  paramSessionId: 'hash $http_mcp_param_session_id consistent;',
  /** 2025 eras: the MCP session. */
  mcpSessionId: 'hash $http_mcp_session_id consistent;',
});

/** A TCP port free on 127.0.0.1 right now (the kernel's pick). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once 127.0.0.1:port accepts a connection; rejects after `timeoutMs`. */
async function waitForListener(port, timeoutMs, context) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms${context()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The nginx configuration: one upstream of `ports`, the shipped proxy snippet. */
export function nginxConf({ dir, port, nodePorts, balance = BALANCE.roundRobin, workers = 1 }) {
  const servers = nodePorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n');
  return `# Written by tests/scaleout/lib/cluster.mjs.
worker_processes ${workers};
error_log ${dir}/error.log info;
events { worker_connections 1024; }
http {
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  log_format nodes '$upstream_addr $status $request_method "$http_mcp_session_id" "$http_mcp_param_session_id"';
  access_log ${dir}/access.log nodes;
  upstream time_tracker_mcp {
    ${balance}
${servers}
    keepalive 32;
    keepalive_timeout 50s;
  }
  server {
    listen 127.0.0.1:${port};
    location = /mcp {
      include ${PROXY_SNIPPET};
    }
    location / { return 404; }
  }
}
`;
}

/** A real nginx, unprivileged, in its own temporary directory. */
export class Nginx {
  /** Starts nginx on a free port in front of `nodePorts`; resolves once it accepts connections. */
  static async start({ nodePorts, balance, workers, port }) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-nginx-'));
    for (const d of ['tmp', 'tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) {
      mkdirSync(path.join(dir, d), { recursive: true });
    }
    const listen = port ?? await freePort();
    const conf = path.join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConf({ dir, port: listen, nodePorts, balance, workers }));
    const args = ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log'),
      '-g', `daemon off; pid ${dir}/nginx.pid;`];
    let command = 'nginx';
    let argv = args;
    if (process.getuid?.() === 0) {
      // Root: run nginx itself as nobody (its master too), in a directory it owns.
      for (const d of ['', 'tmp', 'tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi']) {
        chownSync(path.join(dir, d), NOBODY, NOBODY);
      }
      command = 'setpriv';
      argv = ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', 'nginx', ...args];
    }
    const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    const nginx = new Nginx(child, dir, listen);
    await Promise.race([
      waitForListener(listen, NGINX_START_MS, () => nginx.context()),
      nginx.exited.then((info) => { throw new Error(`nginx exited (${JSON.stringify(info)}) before listening${nginx.context()}`); }),
    ]);
    return nginx;
  }

  constructor(child, dir, port) {
    this.child = child;
    this.dir = dir;
    this.port = port;
    this.url = `http://127.0.0.1:${port}/mcp`;
    this.stderrText = '';
    this.exitInfo = null;
    child.stderr.on('data', (c) => { this.stderrText = (this.stderrText + c).slice(-8192); });
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      resolve(this.exitInfo);
    }));
  }

  /**
   * The access log: one {node, status, method, sessionId, paramSessionId} per request so far.
   * Complete lines only: read while requests are served, the file can end inside the line
   * nginx is writing (a cold CI run read `... 200 POST "-" "db61` once).
   */
  accessLog() {
    let text = '';
    try { text = readFileSync(path.join(this.dir, 'access.log'), 'utf8'); } catch { /* none yet */ }
    return text.split('\n').slice(0, -1).filter(Boolean).map((line) => {
      const m = /^(\S+(?:, \S+)*) (\d+) (\S+) "([^"]*)" "([^"]*)"$/.exec(line);
      assert.ok(m, `an access log line of the format nginxConf() sets: ${line}`);
      const header = (v) => (v === '-' ? '' : v); // nginx logs an absent header as -
      return { node: m[1], status: Number(m[2]), method: m[3], sessionId: header(m[4]), paramSessionId: header(m[5]) };
    });
  }

  context() {
    let log = '';
    try { log = readFileSync(path.join(this.dir, 'error.log'), 'utf8').slice(-4096); } catch { /* none */ }
    return `\n--- nginx stderr ---\n${this.stderrText}\n--- nginx error.log (tail) ---\n${log}`;
  }

  /** SIGQUIT (graceful), SIGKILL after 5 s; removes its directory. */
  async stop() {
    if (!this.exitInfo) {
      this.child.kill('SIGQUIT');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
    if (process.env.KEEP_WORK !== '1') rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Does the binary have `--journal` (the PostgreSQL backend, wt/pgstore)? */
export function hasPostgresBackend(binary) {
  const help = spawnSync(binary, ['--help'], { encoding: 'utf8' });
  return /^\s*--journal[ =]/m.test(help.stdout ?? ''); // not --journal-sync
}

/** The throw-away PostgreSQL server script (wt/pgstore). */
export const PG_SCRIPT = path.join(REPO, 'tests/scripts/pg_server.sh');

/**
 * A throw-away PostgreSQL 15 (tests/scripts/pg_server.sh: initdb in a
 * temporary directory, started unprivileged on a free loopback port).
 */
export class Postgres {
  static start() {
    const dir = mkdtempSync(path.join(tmpdir(), 'ttm-pg-'));
    const pg = new Postgres(dir);
    pg.url = pg.run('start').trim();
    assert.match(pg.url, /^postgresql:\/\//, 'pg_server.sh start prints the connection URI');
    return pg;
  }

  constructor(dir) {
    this.dir = dir;
  }

  /** Runs `pg_server.sh CMD DIR`; returns its stdout, throws with its stderr. */
  run(cmd) {
    const r = spawnSync('bash', [PG_SCRIPT, cmd, this.dir], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`pg_server.sh ${cmd} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  }

  /** Stops the server (fast shutdown); the nodes see their connections cut. */
  stop() { this.run('stop'); }

  /** Starts it again on the same port and data. */
  restartAfterStop() { this.url = this.run('start').trim(); }

  /** Stops it and removes its directory. */
  remove() {
    try { this.stop(); } finally {
      if (process.env.KEEP_WORK !== '1') rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * The journal the round-robin and node-death tests share: PostgreSQL when
 * TTM_SCALEOUT_JOURNAL=postgresql (their `*_pg` ctest entries), else one
 * SQLite data directory. `journal` goes to Cluster.start, `checkArgs()`
 * to journal_check, `remove()` after the cluster stopped.
 */
export function sharedJournal() {
  if (process.env.TTM_SCALEOUT_JOURNAL !== 'postgresql') {
    const dataDir = freshDataDir();
    return { journal: { dataDir }, checkArgs: () => ['--data-dir', dataDir], remove() {} };
  }
  const pg = Postgres.start();
  return { journal: { url: pg.url }, checkArgs: () => ['--journal', pg.url], remove: () => pg.remove() };
}

/**
 * N nodes on one journal and nginx in front. `journal`: {dataDir} (SQLite,
 * default a fresh directory) or {url} (PostgreSQL). `nodeArgs` go to every
 * node. The nodes accept Host 127.0.0.1 (what nginx's $host is here).
 */
export class Cluster {
  static async start({ binary, nodes = 3, balance = BALANCE.roundRobin, journal = {}, nodeArgs = [], workers }) {
    const storage = journal.url ? ['--journal', journal.url] : ['--data-dir', journal.dataDir ?? freshDataDir()];
    const args = [...storage, '--allowed-hosts', '127.0.0.1', ...nodeArgs];
    const started = await Promise.allSettled(Array.from({ length: nodes }, () => HttpServer.start({ binary, args })));
    const servers = started.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) {
      await Promise.all(servers.map((s) => s.stop()));
      throw failed.reason;
    }
    let nginx;
    try {
      nginx = await Nginx.start({ nodePorts: servers.map((s) => s.port), balance, workers });
    } catch (err) {
      await Promise.all(servers.map((s) => s.stop()));
      throw err;
    }
    return new Cluster(servers, nginx, { binary, args, journal: { ...journal, dataDir: journal.url ? undefined : args[1] } });
  }

  constructor(nodes, nginx, { binary, args, journal }) {
    this.nodes = nodes;
    this.nginx = nginx;
    this.url = nginx.url;
    this.binary = binary;
    this.args = args;
    this.journal = journal;
  }

  /** The node listening on `addr` ("127.0.0.1:PORT", nginx's $upstream_addr). */
  nodeAt(addr) {
    return this.nodes.find((n) => `127.0.0.1:${n.port}` === addr);
  }

  /** The node that served the last request nginx logged (after retries, the one that answered). */
  lastNode() {
    const log = this.nginx.accessLog();
    assert.ok(log.length > 0, 'nginx logged no request');
    const addrs = log.at(-1).node.split(', ');
    return this.nodeAt(addrs.at(-1));
  }

  /** The nodes' logs and nginx's, for failure messages. */
  context() {
    return this.nodes.map((n, i) => `\n=== node ${i} (pid ${n.child.pid}, port ${n.port})${n.context()}`).join('')
      + this.nginx.context();
  }

  /** Stops nginx and every node still running (SIGTERM, SIGKILL if need be), by PID. */
  async stop() {
    await this.nginx.stop();
    await Promise.all(this.nodes.map((n) => n.stop()));
  }
}
