#!/usr/bin/env python3
"""The abusers of the abuse harness (tests/abuse/abuse.mjs), each a raw
asyncio client that misbehaves against `time-tracker-mcp http` for a while:

  abusers.py NAME --port P --seconds S [--token T] [--source 127.0.0.2]
             [--scale ci|long]

Prints one JSON line: {"abuser", "statuses": {"413": n, "closed": n, ...},
"requests", "notes"}. "closed": the server closed the connection without a
status line; "reset": it reset it; "timeout": no answer in 30 s. Every
connection comes from --source (another loopback address than the good
client's 127.0.0.1), so the per-address limits (token lockout, rate limit
without tokens) are the abuser's own.
"""
import argparse
import asyncio
import collections
import json
import os
import random
import resource
import time

HOST = "127.0.0.1"


class Run:
    def __init__(self, args):
        self.args = args
        self.port = args.port
        self.statuses = collections.Counter()
        self.notes = {}
        self.deadline = time.monotonic() + args.seconds
        self.long = args.scale == "long"

    def alive(self):
        return time.monotonic() < self.deadline

    def host(self):
        return f"{HOST}:{self.port}"

    async def connect(self):
        return await asyncio.open_connection(HOST, self.port, local_addr=(self.args.source, 0))

    def auth(self):
        return f"Authorization: Bearer {self.args.token}\r\n" if self.args.token else ""


async def read_status(reader, timeout=30.0):
    """The status of the next response, its headers and its body (by
    Content-Length), or 'closed'/'reset'/'timeout'."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except asyncio.IncompleteReadError as e:
        return ("closed" if not e.partial else "partial"), {}, b""
    except OSError:  # reset, broken pipe
        return "reset", {}, b""
    except asyncio.TimeoutError:
        return "timeout", {}, b""
    except asyncio.LimitOverrunError:
        return "huge-head", {}, b""
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")[1] if " " in lines[0] else "bad-status"
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    body = b""
    n = int(headers.get("content-length", "0") or 0)
    if n:
        try:
            body = await asyncio.wait_for(reader.readexactly(n), timeout)
        except (asyncio.IncompleteReadError, OSError, asyncio.TimeoutError):
            pass  # the status is what counts
    return status, headers, body


async def close(writer):
    try:
        writer.close()
        await writer.wait_closed()
    except Exception:  # the server may have reset it
        pass


# -- slowloris: many sockets dribbling header bytes -----------------------------

async def slowloris(run):
    n = 4000 if run.long else 1000
    opened = 0

    async def one():
        nonlocal opened
        while run.alive():
            try:
                reader, writer = await run.connect()
            except OSError as e:
                run.statuses[f"connect-{e.errno}"] += 1
                await asyncio.sleep(0.5)
                continue
            opened += 1
            writer.write(f"POST /mcp HTTP/1.1\r\nHost: {run.host()}\r\nX-Slow: ".encode())
            read = asyncio.ensure_future(read_status(reader, timeout=3600))
            while run.alive() and not read.done():
                try:
                    writer.write(b"a")  # one byte a second, never the end
                    await writer.drain()
                except (ConnectionResetError, BrokenPipeError):
                    break
                await asyncio.wait([read], timeout=1.0)
            if read.done():
                run.statuses[read.result()[0]] += 1
            else:
                read.cancel()
                if run.alive():  # the write failed: the server reset it
                    run.statuses["reset"] += 1
            await close(writer)

    await asyncio.gather(*(one() for _ in range(n)))
    run.notes["sockets"] = n
    run.notes["opened"] = opened


# -- header floods: one huge header, many headers --------------------------------

async def header_flood(run):
    big = "X-Big: " + "b" * 65536 + "\r\n"
    many = "".join(f"X-H{i}: {'v' * 30}\r\n" for i in range(2000))
    fits = "".join(f"X-F{i}: v\r\n" for i in range(300))  # ~3 KiB: allowed
    kinds = [("huge-header", big), ("many-headers", many), ("many-small-ok", fits)]
    seen = collections.defaultdict(collections.Counter)

    async def one(k):
        i = k
        while run.alive():
            name, extra = kinds[i % len(kinds)]
            i += 1
            try:
                reader, writer = await run.connect()
                writer.write(f"GET /healthz HTTP/1.1\r\nHost: {run.host()}\r\n{extra}Connection: close\r\n\r\n".encode())
                await writer.drain()
                status = (await read_status(reader, timeout=10))[0]
            except (ConnectionResetError, BrokenPipeError):
                status = "reset"
            except OSError as e:
                status = f"connect-{e.errno}"
            run.statuses[status] += 1
            seen[name][status] += 1
            await close(writer)

    await asyncio.gather(*(one(k) for k in range(8)))
    run.notes["by_kind"] = {k: dict(v) for k, v in seen.items()}


def mcp_head(run, length=None, chunked=False, extra=""):
    h = (f"POST /mcp HTTP/1.1\r\nHost: {run.host()}\r\nContent-Type: application/json\r\n"
         f"Accept: application/json, text/event-stream\r\n{run.auth()}{extra}")
    if chunked:
        h += "Transfer-Encoding: chunked\r\n"
    elif length is not None:
        h += f"Content-Length: {length}\r\n"
    return (h + "\r\n").encode()


# -- endless chunked bodies -------------------------------------------------------

async def chunked_endless(run):
    chunk = b"%x\r\n" % 65536 + b" " * 65536 + b"\r\n"
    sent_before_answer = []

    async def fast():
        while run.alive():
            reader, writer = await run.connect()
            writer.write(mcp_head(run, chunked=True) + b"1\r\n[\r\n")  # a JSON array that never ends
            read = asyncio.ensure_future(read_status(reader))
            sent = 0
            try:
                while not read.done() and run.alive():
                    writer.write(chunk)
                    await writer.drain()
                    sent += len(chunk)
                status = (await read)[0] if run.alive() or read.done() else "cut"
            except (ConnectionResetError, BrokenPipeError):
                status = (await read)[0] if read.done() else "reset"
                if status == "reset" and not read.done():
                    read.cancel()
            run.statuses[status] += 1
            sent_before_answer.append(sent)
            await close(writer)

    async def slow():  # a 1-byte chunk each second: the read timeout ends it
        while run.alive():
            reader, writer = await run.connect()
            writer.write(mcp_head(run, chunked=True))
            read = asyncio.ensure_future(read_status(reader, timeout=3600))
            while not read.done() and run.alive():
                try:
                    writer.write(b"1\r\n \r\n")
                    await writer.drain()
                except (ConnectionResetError, BrokenPipeError):
                    break
                await asyncio.wait([read], timeout=1.0)
            if read.done():
                run.statuses["slow:" + read.result()[0]] += 1
            else:
                read.cancel()
            await close(writer)

    await asyncio.gather(*([fast() for _ in range(4)] + [slow() for _ in range(4)]))
    if sent_before_answer:
        run.notes["max_bytes_sent_before_answer"] = max(sent_before_answer)


# -- pipelined garbage --------------------------------------------------------------

async def pipelined_garbage(run):
    rnd = random.Random(34)
    good = f"GET /healthz HTTP/1.1\r\nHost: {run.host()}\r\n\r\n".encode()
    garbage = [
        lambda: bytes(rnd.getrandbits(8) for _ in range(512)),
        lambda: b"GARBAGE / HTTP/9.9\r\n\r\n",
        lambda: f"POST /mcp HTTP/1.1\r\nHost: {run.host()}\r\nno colon here\r\n\r\n".encode(),
        lambda: f"POST /mcp HTTP/1.1\r\nHost: {run.host()}\r\nContent-Length: -5\r\n\r\n".encode(),
        lambda: f"POST /mcp HTTP/1.1\r\nHost: {run.host()}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".encode(),
        lambda: mcp_head(run, length=9) + b"{not json",
    ]
    by_garbage = collections.defaultdict(collections.Counter)

    async def one(k):
        i = k
        while run.alive():
            g = i % len(garbage)
            i += 1
            try:
                reader, writer = await run.connect()
                writer.write(good + good + garbage[g]() + good)
                await writer.drain()
            except (ConnectionResetError, BrokenPipeError, OSError):
                run.statuses["reset"] += 1
                continue
            answers = []
            for _ in range(4):
                status = (await read_status(reader, timeout=10))[0]
                answers.append(status)
                if not status.isdigit():
                    break
            for s in answers:
                run.statuses[s] += 1
            by_garbage[g]["/".join(answers)] += 1
            await close(writer)

    await asyncio.gather(*(one(k) for k in range(8)))
    run.notes["answers_by_garbage"] = {str(k): dict(v) for k, v in by_garbage.items()}


# -- 100 MB bodies ---------------------------------------------------------------

async def big_body(run):
    """100 MB bodies, announced by Content-Length or sent chunked, in 1 MiB
    writes as fast as the server takes them."""
    size = 100 * 1024 * 1024
    block = b" " * (1024 * 1024)
    sent_max = 0

    async def one(announce):
        nonlocal sent_max
        kind = "content-length:" if announce else "chunked:"
        piece = block if announce else b"%x\r\n" % len(block) + block + b"\r\n"
        while run.alive():
            reader, writer = await run.connect()
            writer.write(mcp_head(run, length=size) if announce else mcp_head(run, chunked=True))
            read = asyncio.ensure_future(read_status(reader))
            sent = 0
            try:
                while not read.done() and sent < size and run.alive():
                    writer.write(piece)
                    await writer.drain()
                    sent += len(block)
            except OSError:
                pass  # the server stopped reading: its status is waiting
            if read.done() or run.alive():
                status = (await read)[0]
            else:
                read.cancel()
                status = "cut"
            run.statuses[kind + status] += 1
            sent_max = max(sent_max, sent)
            await close(writer)

    await asyncio.gather(one(True), one(True), one(False))
    run.notes["max_bytes_sent_before_answer"] = sent_max


# -- keep-alive JSON-RPC (initialize flood, summaries, edits) ------------------------

class Conn:
    """One keep-alive connection of one MCP session, JSON replies."""

    def __init__(self, run):
        self.run = run
        self.session = None
        self.reader = self.writer = None
        self.ids = 0

    async def post(self, method, params=None, notification=False):
        if self.writer is None:
            self.reader, self.writer = await self.run.connect()
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notification:
            self.ids += 1
            msg["id"] = self.ids
        body = json.dumps(msg).encode()
        extra = ""
        if self.session:
            extra = f"Mcp-Session-Id: {self.session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        self.writer.write(mcp_head(self.run, length=len(body), extra=extra) + body)
        await self.writer.drain()
        status, headers, payload = await read_status(self.reader)
        if not status.isdigit() or headers.get("connection", "").lower() == "close":
            await close(self.writer)
            self.writer = None
        return status, headers, payload

    async def initialize(self):
        self.session = None
        status, headers, _ = await self.post("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "ttm-abuser", "version": "0"}})
        if status == "200":
            self.session = headers.get("mcp-session-id")
            await self.post("notifications/initialized", notification=True)
        return status

    async def call(self, name, args):
        status, _, payload = await self.post("tools/call", {"name": name, "arguments": args})
        result = None
        if status == "200" and payload:
            doc = json.loads(payload)
            result = doc.get("result", {}).get("structuredContent") or doc.get("error")
        return status, result


async def init_flood(run):
    """`total` initialize calls that the rate limit does not refuse (a 429
    waits its retry_after_ms, as a client should, and is counted apart),
    never a DELETE: the sessions pile up to --max-mcp-sessions."""
    total = 20000 if run.long else run.args.count
    done = 0

    async def one():
        nonlocal done
        c = Conn(run)
        while done < total and run.alive():
            try:
                status = await c.initialize()
            except OSError:
                status, c.writer = "reset", None
            run.statuses[status] += 1
            if status == "429":
                await asyncio.sleep(0.05)
            else:
                done += 1
        if c.writer:
            await close(c.writer)

    await asyncio.gather(*(one() for _ in range(16)))
    run.notes["initialize_calls"] = sum(run.statuses.values())


async def session_with_tasks(c, n, start=True, end=False):
    """A tracking session of `n` tasks, each started (and ended) through
    100-operation edits; returns its id."""
    tasks = [f"T{i:03d}" for i in range(n)]
    status, res = await c.call("time_session_start", {
        "milestone_id": f"abuse-{os.getpid()}-{random.random()}", "task_ids": tasks, "timezone": "UTC"})
    if status != "200" or not res or "session_id" not in res:
        raise RuntimeError(f"time_session_start: {status} {str(res)[:300]}")
    sid = res["session_id"]
    for op, on in (("start", start), ("end", end)):
        if not on:
            continue
        for k in range(0, n, 100):
            status, res = await c.call("time_tasks_edit", {
                "session_id": sid, "operations": [{"op": op, "task_id": t} for t in tasks[k:k + 100]]})
            if status != "200" or (isinstance(res, dict) and res.get("error") is True):
                raise RuntimeError(f"time_tasks_edit {op}: {status} {str(res)[:300]}")
    return sid, tasks


async def summaries_500(run):
    setup = Conn(run)
    assert await setup.initialize() == "200"
    sid, _ = await session_with_tasks(setup, 500, start=True, end=True)
    sizes = []

    async def one(k):
        c = Conn(run)
        await c.initialize()
        i = k
        while run.alive():
            i += 1
            if i % 3 == 0:
                status, res = await c.call("time_session_report", {"session_id": sid, "format": "html"})
            else:
                status, res = await c.call("time_session_summary", {"session_id": sid, "include_task_details": True})
            run.statuses[status] += 1
            if status == "429":
                await asyncio.sleep(0.05)
            if res is not None and len(sizes) < 10:
                sizes.append(len(json.dumps(res)))

    await asyncio.gather(*(one(k) for k in range(4)))
    run.notes["reply_bytes"] = max(sizes) if sizes else 0


async def edits_100(run):
    async def one(k):
        c = Conn(run)
        assert await c.initialize() == "200"
        sid, tasks = await session_with_tasks(c, 100, start=True)
        i = 0
        while run.alive():
            op = "pause" if i % 2 == 0 else "resume"
            status, res = await c.call("time_tasks_edit", {
                "session_id": sid, "operations": [{"op": op, "task_id": t} for t in tasks]})
            if status == "200" and isinstance(res, dict) and res.get("error") is True:
                status = "200:" + str(res.get("error_code"))
            else:
                i += 1
            run.statuses[status] += 1
            if status == "429":
                await asyncio.sleep(0.05)

    await asyncio.gather(*(one(k) for k in range(4)))


# -- token guessing -----------------------------------------------------------------

async def token_guess(run):
    rnd = random.Random(34)

    async def one():
        while run.alive():
            guess = "%032x" % rnd.getrandbits(128)
            try:
                reader, writer = await run.connect()
                body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
                writer.write(mcp_head(run, length=len(body), extra=f"Authorization: Bearer {guess}\r\n") + body)
                await writer.drain()
                status, headers, _ = await read_status(reader, timeout=10)
                if status == "429" and "retry-after" in headers:
                    run.notes["retry_after_max"] = max(run.notes.get("retry_after_max", 0), int(headers["retry-after"]))
            except (ConnectionResetError, BrokenPipeError):
                status = "reset"
            run.statuses[status] += 1
            await close(writer)

    await asyncio.gather(*(one() for _ in range(4)))


ABUSERS = {
    "slowloris": slowloris, "header_flood": header_flood, "chunked_endless": chunked_endless,
    "pipelined_garbage": pipelined_garbage, "big_body": big_body, "init_flood": init_flood,
    "summaries_500": summaries_500, "edits_100": edits_100, "token_guess": token_guess,
}


def own_sched():
    """CPU this process had and waited for (s), over its threads:
    /proc/self/task/*/schedstat (ns on a CPU, ns runnable in a run queue)."""
    cpu = wait = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                run, waited, _ = (int(x) for x in f.read().split())
            cpu += run
            wait += waited
        except OSError:
            pass
    return {"cpuS": cpu / 1e9, "waitS": wait / 1e9}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name", choices=sorted(ABUSERS))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--token", default="")
    p.add_argument("--source", default="127.0.0.2")
    p.add_argument("--scale", choices=["ci", "long"], default="ci")
    p.add_argument("--count", type=int, default=20000, help="init_flood: initialize calls")
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    run = Run(args)
    started = time.monotonic()
    sched_before = own_sched()
    try:
        asyncio.run(ABUSERS[args.name](run))
    except Exception as e:  # the report says so; the harness fails on it
        run.notes["abuser_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps({"abuser": args.name, "statuses": dict(run.statuses),
                      "requests": sum(run.statuses.values()),
                      "seconds": round(time.monotonic() - started, 1), "notes": run.notes,
                      "sched": {k: v - sched_before[k] for k, v in own_sched().items()}}))


if __name__ == "__main__":
    main()
