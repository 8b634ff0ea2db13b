// What the abuse harness and the soak measure from outside the server: its
// resident memory and open descriptors (/proc/<pid>), the journal's bytes on
// disk, latency percentiles, and a raw JSON-RPC client over keep-alive HTTP
// (node:http, JSON replies) for load that the SDK client would slow down.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/** {rssKb, fds} of a live process, or null once it is gone. */
export function sampleProc(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+) kB/.exec(status);
    return { rssKb: rss ? Number(rss[1]) : 0, fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null;
  }
}

/**
 * CPU a process has had and waited for: {cpuS, waitS} summed over its
 * threads (/proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns runnable but
 * waiting in a run queue), and each thread's by tid (`threads`: {comm,
 * cpuS, waitS}, which schedDelta sums by name); null once the process is
 * gone.
 */
export function schedOf(pid) {
  try {
    let cpuS = 0;
    let waitS = 0;
    const threads = {};
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        cpuS += run / 1e9;
        waitS += wait / 1e9;
        threads[tid] = { comm, cpuS: run / 1e9, waitS: wait / 1e9 };
      } catch { /* the thread ended */ }
    }
    return { cpuS, waitS, threads };
  } catch {
    return null;
  }
}

/** What `b` adds to `a` (two schedOf samples): totals and per thread (by name, summed). */
export function schedDelta(a, b) {
  if (!a || !b) return null;
  const byName = {};
  for (const [tid, t] of Object.entries(b.threads)) {
    const before = a.threads[tid] ?? { cpuS: 0, waitS: 0 };
    const n = (byName[t.comm] ??= { threads: 0, cpuS: 0, waitS: 0 });
    n.threads++;
    n.cpuS += t.cpuS - before.cpuS;
    n.waitS += t.waitS - before.waitS;
  }
  return { cpuS: b.cpuS - a.cpuS, waitS: b.waitS - a.waitS, byName };
}

/** Bytes of the journal in `dir`: {db, wal, shm, total} (0 for a missing file). */
export function journalBytes(dir) {
  const size = (name) => {
    try { return statSync(path.join(dir, name)).size; } catch { return 0; }
  };
  const db = size('journal.sqlite3');
  const wal = size('journal.sqlite3-wal');
  const shm = size('journal.sqlite3-shm');
  return { db, wal, shm, total: db + wal + shm };
}

/** The q-quantile (0..1) of `values` (nearest rank), NaN when empty. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** Samples `pid` every `everyMs` until stop(); stop() returns {maxRssKb, maxFds, samples}. */
export function procSampler(pid, everyMs = 200) {
  const samples = [];
  const take = () => {
    const s = sampleProc(pid);
    if (s) samples.push({ t: Date.now(), ...s });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return {
        maxRssKb: Math.max(0, ...samples.map((s) => s.rssKb)),
        maxFds: Math.max(0, ...samples.map((s) => s.fds)),
        firstRssKb: samples[0]?.rssKb ?? 0,
        firstFds: samples[0]?.fds ?? 0,
        samples,
      };
    },
  };
}

/**
 * A JSON-RPC client of one MCP session (2025-11-25) over its own keep-alive
 * connection, with JSON replies. `token`: a bearer token; `localAddress`:
 * the source address (127.0.0.x: another client address for the per-address
 * limits).
 */
export class RawMcpClient {
  constructor(url, { token, localAddress } = {}) {
    this.url = new URL(url);
    this.token = token;
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress });
    this.session = undefined;
    this.nextId = 1;
  }

  headers(extra = {}) {
    const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...extra };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    if (this.session) {
      h['Mcp-Session-Id'] = this.session;
      h['MCP-Protocol-Version'] = '2025-11-25';
    }
    return h;
  }

  /** One HTTP exchange: resolves {status, headers, body} (body text). */
  send(method, body, extraHeaders = {}) {
    return new Promise((resolve, reject) => {
      const headers = this.headers(extraHeaders);
      if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body);
      const req = http.request(this.url, { method, headers, agent: this.agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.setTimeout(60_000, () => req.destroy(new Error('no response within 60 s')));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** initialize + notifications/initialized; returns the HTTP status of initialize. */
  async initialize() {
    this.session = undefined;
    const res = await this.send('POST', JSON.stringify({
      jsonrpc: '2.0', id: this.nextId++, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ttm-abuse', version: '0.0.0' } },
    }));
    if (res.status !== 200) return res.status;
    this.session = res.headers['mcp-session-id'];
    await this.send('POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return 200;
  }

  /** DELETE of the MCP session; returns the status. */
  async close() {
    if (!this.session) return 0;
    const res = await this.send('DELETE');
    this.session = undefined;
    return res.status;
  }

  /**
   * tools/call: resolves {status, result} where result is structuredContent
   * (or the JSON-RPC error as {error}); throws nothing on HTTP errors.
   */
  async call(name, args) {
    const res = await this.send('POST', JSON.stringify({
      jsonrpc: '2.0', id: this.nextId++, method: 'tools/call', params: { name, arguments: args },
    }));
    let result;
    if (res.status === 200) {
      let text = res.body;
      if (/event-stream/.test(res.headers['content-type'] ?? '')) {
        text = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('\n');
      }
      const msg = JSON.parse(text);
      result = msg.error ? { error: msg.error } : (msg.result.structuredContent ?? msg.result);
    }
    return { status: res.status, result };
  }

  destroy() {
    this.agent.destroy();
  }
}
