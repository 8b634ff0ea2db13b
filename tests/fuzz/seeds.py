#!/usr/bin/env python3
"""Writes the seed corpora (tests/fuzz/corpus/<target>/). Run again after a
change here; the files are committed, small, one input each."""
import hashlib, json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
HOSTILE = ["a|b", "a:b", "#x", "%%{init}%%", "<script>alert(1)</script>",
           "\u202eevil\u202c", "zero\u200bwidth", "\ufeffbom", "section x",
           "\vsection y", "\u00a0title z", "a\\|b", "&amp;", "line\nbreak",
           "tab\there", "'\"quotes\"'", "</td></tr>", "`code`", "]]>",
           "\u2028sep", "click x call y()", "日本語", "emoji 😀", ";", ">"]


def j(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def write(target, items):
    d = os.path.join(HERE, "corpus", target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for item in items:
        data = item if isinstance(item, bytes) else item.encode("utf-8")
        name = hashlib.sha1(data).hexdigest()[:16]
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def rpc(method, params=None, id=1):
    m = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        m["id"] = id
    if params is not None:
        m["params"] = params
    return j(m)


# --- json_rpc: 'a' = stdio lines, 'b' = an HTTP body
init = rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "c", "version": "1"}}, 0)
call = rpc("tools/call", {"name": "time_get_current",
                          "arguments": {"timezone": "Europe/Berlin"}}, 2)
modern = rpc("tools/call", {"name": "time_session_start", "arguments": {
    "milestone_id": "m", "task_ids": ["a"], "session_id": "s",
    "idempotency_key": "k"}, "_meta": META}, "x")
frames = [init, call, modern,
          rpc("notifications/initialized", None, None),
          rpc("notifications/cancelled", {"requestId": 2, "reason": "r"}, None),
          rpc("resources/read", {"uri": "time-tracker://sessions/abc/report.md"}, 3),
          rpc("prompts/get", {"name": "p", "arguments": {}}, 9007199254740993),
          rpc("server/discover", {"_meta": META}, 4),
          rpc("tools/list", {"_meta": dict(META, **{
              "io.modelcontextprotocol/logLevel": "debug",
              "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"})}, 5),
          "[" + init + "," + call + "]", "[]", "{", '{"jsonrpc":"2.0","id":null,"result":{}}',
          '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"id":{},"method":1}',
          '"\\ud800"', '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,2]}',
          rpc("tools/call", {"name": "x", "_meta": {"io.modelcontextprotocol/protocolVersion": 7}}, 6)]
write("json_rpc", ["a" + f for f in frames] + ["b" + f for f in frames]
      + ["a" + init + "\n" + call + "\n\n" + modern])

# --- http_rules: option byte, "METHOD TARGET", headers, blank line, body
def req(opts, method, target, headers, body=""):
    return chr(opts) + method + " " + target + "\n" + "".join(
        h + "\n" for h in headers) + "\n" + body

base = ["Host: 127.0.0.1:8787", "Content-Type: application/json",
        "Accept: application/json, text/event-stream"]
mod = base + ["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call",
              "Mcp-Name: time_get_current"]
mcall = rpc("tools/call", {"name": "time_get_current", "arguments": {},
                           "_meta": META}, 1)
write("http_rules", [
    req(0, "POST", "/mcp", base, init),
    req(0, "POST", "/mcp", base + ["Mcp-Session-Id: 0123456789abcdef0123456789abcdef",
                                   "MCP-Protocol-Version: 2025-06-18"], call),
    req(0, "POST", "/mcp", mod, mcall),
    req(0, "POST", "/mcp", mod[:-1] + ["Mcp-Name: =?base64?dGltZV9nZXRfY3VycmVudA==?="], mcall),
    req(0, "POST", "/mcp", mod[:-1] + ["Mcp-Name: other"], mcall),
    req(0, "POST", "/mcp", base + ["MCP-Protocol-Version: 2026-07-28",
                                   "Mcp-Method: notifications/cancelled"],
        rpc("notifications/cancelled", {"requestId": 1, "_meta": META}, None)),
    req(0, "DELETE", "/mcp", base + ["Mcp-Session-Id: 0123456789abcdef0123456789abcdef"]),
    req(4, "POST", "/mcp", base + ["Authorization: Bearer s3cret"], init),
    req(4, "POST", "/mcp", base + ["Authorization: Bearer wrong"], init),
    req(0, "POST", "/mcp", base + ["Origin: https://evil.example"], init),
    req(0, "POST", "/mcp", ["Host: evil.example"] + base[1:], init),
    req(0, "GET", "/mcp", base),
    req(16, "GET", "/metrics", base),
    req(1, "GET", "/readyz", []), req(2, "GET", "/healthz", []),
    req(0, "POST", "/mcp", base + ["Expect: 100-continue", "Content-Length: 10"], "{}"),
    req(32, "POST", "/mcp", mod, mcall + " " * 100),
    req(8, "POST", "/mcp?x=1", base + ["Content-Type: text/plain"], init),
    req(0, "POST", "/mcp", base, "[" + init + "]"),
    req(0, "POST", "/mcp", mod[:-2] + ["Mcp-Method: tools/list"],
        rpc("tools/list", {"_meta": META}, 1)),
])

# --- tools: each line a call, its first byte picking a tool
calls = [
    '{}', '{"timezone":"Asia/Tokyo","format":"friendly"}',
    '{"session_id":"$SID","task_id":"a"}', '{"session_id":"$SID","task_id":"a","status":"completed","metadata":{"k":"v"}}',
    '{"session_id":"$SID","format":"md","include_gantt":true}',
    '{"session_id":"$SID","format":"html"}', '{"session_id":"$SID"}',
    '{"session_id":"$SID","operations":[{"op":"add_note","task_id":"a","text":"n"}]}',
    '{"milestone_id":"m2","task_ids":["x","y"],"estimates":{"x":"PT1H"},"tags":["t"]}',
    '{"time":"next friday at 9am","timezone":"local"}',
    '{"from":"2026-03-29T01:30","to":"2026-10-25T02:30","from_timezone":"Europe/Berlin"}',
    '{"start":"today","duration":"P1M","disambiguation":"later"}',
    '{"time":"2026-03-29 02:30","from_timezone":"Europe/Berlin","to_timezones":["UTC","local"]}',
    '{"started_after":"last week","limit":5}', '{"group_by":"day"}',
    '{"locale":"de-DE","week_start":"sunday"}', '{"intent":"focus"}',
    '{"key":"locale","value":"fr-FR"}', '[]', 'null', '{"timezone":7}',
]
tool_lines = []
for i, c in enumerate(calls):
    tool_lines.append(chr(65 + i) + c)
seqs = ["\n".join(chr(b) + c for b, c in zip(range(65, 86), calls[k:k + 4]))
        for k in range(0, len(calls), 4)]
write("tools", tool_lines + seqs)

# --- time_grammar: zone/locale byte, now/week/rule byte, text
times = ["2026-03-29T02:30", "2026-03-29T02:30+02:00", "2026-10-25 02:30",
         "unix:1700000000", "unix_ms:-1", "now", "today", "tomorrow at noon",
         "next friday", "last monday at 9:15pm", "in 3 hours", "2 days ago",
         "start of week", "end of month", "this saturday", "3. März 2026",
         "15 mars 2026 à 14h", "2026年3月29日", "1799-12-31", "2200-12-31T23:59:59.999Z",
         "midnight", "noon tomorrow", "12/31/2025", "31.12.2025 23:59",
         "Dec 14 2025 9:45 AM", "P1D", ""]
write("time_grammar", [chr(a) + chr(b) + t for t, a, b in
                       zip(times, range(0, 255, 9), range(0, 255, 11))])

# --- zones: mode byte (0 zone, 1 completion, 2 locale, 3 Windows), text
names = ["Europe/Berlin", "america/newyork", "EST", "+05:30", "UTC-3", "GMT+14",
         "local", "Asia/Calcutta", "Eastern Standard Time", "Eastern Standart Time",
         "Etc/GMT+12", "../etc/passwd", "", "a" * 200]
locales = ["de-DE", "ja-JP", "zh-Hant-TW", "ar-EG-u-nu-latn", "es-419", "xx-YY",
           "en", "sr-Latn-RS", "und", "de_DE@calendar=japanese"]
write("zones", ["\x00" + n for n in names] + ["\x01" + p for p in
      ["ame", "new_y", "", "Eur", "pacific/"]] + ["\x02" + l for l in locales]
      + ["\x03" + n for n in ["Pacific Standard Time", "pacific standart time",
                             "Tokyo Standard Time", "UTC-02"]])

# --- duration: ISO 8601 durations
write("duration", ["P1D", "PT1H30M", "-P1Y2M3DT4H5M6.5S", "P2W", "PT0S", "PT0.001S",
                   "P999999999Y", "pt90m", "P", "PT", "P1.5D", "-PT0S", "P1DT",
                   "PT1.123456789S", "P0D", "P1M", "P1Y1M1W1DT1H1M1S"])

# --- journal_codec: option byte; lines: kind byte, bits byte, payload
start = j({"request": {"milestone_id": "m1", "task_ids": ["a", "b", "c"],
                       "metadata": {"k": "v"}, "tags": ["t"],
                       "estimates": {"a": 3600000}},
           "zone": "Europe/Berlin", "era": "legacy",
           "by": {"principal": "local", "client": "c1", "tool": "time_session_start"}})
task = j({"task_name": "A", "metadata": {"x": "y"}})
end = j({"status": "completed", "metadata": {"r": "ok"}})
edit = j({"ops": [{"op": "add_note", "task_id": "a", "text": "n"},
                  {"op": "set_start", "task_id": "a", "start_time": 1}]})
undo = j({"undid": {"kind": "task_ended", "wall_ns": 1, "task_id": "a"}})
exp = j({"reason": "idle"})
lines = ["\x00\x00" + start, "\x01\x00" + task, "\x02\x00" + end,
         "\x05\x00" + edit, "\x06\x00" + undo, "\x03\x00{}", "\x04\x00" + exp]
write("journal_codec", ["\x00" + "\n".join(lines[:k]) for k in range(1, 8)] + [
    "\x01" + "\n".join(lines), "\x02" + lines[0] + "\n\x01\x21" + task,
    "\x00" + lines[0] + "\n\x01\x40" + task + "\n\x02\x40" + end,
    "\x00" + lines[0] + "\n\x01\x80" + task, "\x00\x00\x00{", "\x00\x01\x00[]",
    "\x00\x00\x00" + j({"request": {"milestone_id": 1}})])

# --- reports: option byte, then fields one per line
fields = "\n".join(HOSTILE)
write("reports", [chr(o) + fields for o in (0, 0x13, 0x27, 0x5b, 0xff, 0x40)]
      + [chr(i * 7) + h + "\n" + HOSTILE[(i + 3) % len(HOSTILE)]
         for i, h in enumerate(HOSTILE)])

# --- config: mode byte: even = argv lines, odd = the config file's text
argvs = [["stdio"], ["http", "--listen", "127.0.0.1:8787"], ["stdio", "--ephemeral"],
         ["http", "--max-body-bytes=1024", "--session-max-age", "4h"],
         ["stdio", "--toolsets", "all"], ["stdio", "--toolsets=time,nope"],
         ["--help"], ["--version"], ["stdio", "--session-max-idle", "90s"],
         ["http", "--listen", "[::1]:0", "--allowed-hosts", "a,b"],
         ["stdio", "--max-tracking-sessions", "3",
          "--max-tracking-sessions-per-principal", "5"],
         ["stdio", "--log-level", "debug", "--log-format", "json"], ["bogus"], []]
configs = [{}, {"toolsets": ["time", "history"]}, {"ephemeral": True},
           {"preferences": {"timezone": "Europe/Berlin", "locale": "de-DE"}},
           {"session_max_age": "1d", "max_body_bytes": 4096},
           {"nope": 1}, {"toolsets": 5}, {"preferences": []}]
write("config", ["\x00" + "\n".join(a) for a in argvs]
      + ["\x01" + j(c) for c in configs] + ["\x03" + j(configs[4]), "\x01{", "\x01[]"])


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(v):
    return varint((v << 1) if v >= 0 else ((-v) << 1) - 1)


T0 = 1_734_185_132_123_000_000


def pack_v1(runs):  # (task, start, status, end, active): older builds' closed
    out, prev = b"\x01" + varint(len(runs)), 0
    for task, start, status, end, active in runs:
        out += varint(len(task)) + task + zz(start - prev) + bytes([status])
        out += zz(end - start) + varint(active)
        prev = start
    return out


def pack_v4(runs):  # the closed packing written now
    out, prev = b"\x04" + varint(len(runs)), 0
    for task, start, status, end, active in runs:
        out += varint(len(task)) + task + bytes([status]) + zz(start - prev)
        out += zz(end - start) + zz((end - start) - active)
        prev = end
    return out


def pack_v2(epoch, runs):  # an open session's: (task, start, as_of, active, running)
    out, prev = b"\x02" + varint(epoch) + varint(len(runs)), 0
    for task, start, as_of, active, running in runs:
        out += varint(len(task)) + task + zz(start - prev) + b"\x00"
        out += zz(as_of - start) + varint(active) + bytes([running])
        prev = start
    return out


def digest(ended, tasks, busy, counts):
    out = b"\x03" + varint(len(ended)) + varint(tasks) + zz(sum(ended)) + zz(busy)
    out += b"".join(varint(c) for c in counts)
    prev = None
    for v in sorted(ended):
        out += zz(v) if prev is None else varint(v - prev)
        prev = v
    return out


back_to_back = [(b"t%d" % i, T0 + i * 60_000_000_000, 1 + i % 4,
                 T0 + (i + 1) * 60_000_000_000, 60_000_000_000 - 40)
                for i in range(6)]
overlapping = [(b"a", T0, 1, T0 + 500, 123), (b"a", T0 + 300, 4, T0 + 200, 7),
               (b"\xc3\xbc\"\\", T0 - 10_000, 3, T0 + 9, 0)]
write("packed_runs", [
    b"", b"\x01\x00", b"\x04\x00", b"\x02\x07\x00", b"\x03\x00\x00\x00\x00\x00\x00\x00\x00",
    pack_v1(back_to_back), pack_v4(back_to_back), pack_v1(overlapping),
    pack_v4(overlapping), pack_v4(back_to_back)[:-1],
    pack_v2(3, [(b"a", T0, T0 + 6_000_000_000, 5_000_000_000, 0),
                (b"b", T0 + 30, T0 + 40, 10, 1)]),
    digest([60_000, 60_000, 61_000, 2], 3, 181_002, [2, 1, 1, 0]),
])
