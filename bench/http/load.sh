#!/usr/bin/env bash
# A cross-check of time-tracker-bench with wrk (see bench/README.md; the
# bench is the primary tool). Load figures for `time-tracker-mcp http`,
# printed, never asserted:
#  1. requests/s and latency percentiles of tools/call time_get_current with
#     SESSIONS concurrent MCP sessions over as many keep-alive connections;
#  2. the server's RSS with IDLE idle MCP sessions.
# Traffic goes to 127.0.0.1 only, bounded by DURATION. Needs wrk and curl
# (Debian packages). Usage: bench/http/load.sh [BINARY]
set -euo pipefail
# Capacity from one address: no per-client rate limit (docs/operations.md);
# the environment, which builds without the option ignore.
export TIME_TRACKER_MCP_RATE_LIMIT=off
here="$(cd "$(dirname "$0")" && pwd)"
binary="${1:-$here/../../build/time-tracker-mcp}"
SESSIONS="${SESSIONS:-64}"
IDLE="${IDLE:-1000}"
DURATION="${DURATION:-10s}"
THREADS="${THREADS:-2}"
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 1; }

work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$binary" http --listen 127.0.0.1:0 --log-level warning --max-mcp-sessions $((IDLE + SESSIONS + 16)) \
  2>"$work/stderr" &
pid=$!
# The URL is logged at info; ask /proc for the port instead.
for _ in $(seq 100); do
  port="$(ss -ltnpH 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {split($4, a, ":"); print a[length(a)]}' | head -1)"
  [ -n "$port" ] && break
  sleep 0.05
done
url="http://127.0.0.1:$port/mcp"

open_sessions() { # N FILE
  local i
  : >"$2"
  for i in $(seq "$1"); do
    curl -s -D - -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}' \
      | awk 'tolower($1) == "mcp-session-id:" {print $2}' | tr -d '\r' >>"$2"
  done
}

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }

echo "server: $binary ($url), $(nproc) cores"
echo "RSS at start: $(rss_kib) KiB"
open_sessions "$SESSIONS" "$work/active"
echo "== tools/call time_get_current, $SESSIONS sessions, $SESSIONS connections, $DURATION"
SESSIONS="$work/active" wrk -t"$THREADS" -c"$SESSIONS" -d"$DURATION" --latency \
  -s "$here/sessions.lua" "$url"
echo "RSS after the load: $(rss_kib) KiB"
before="$(rss_kib)"
open_sessions "$IDLE" "$work/idle"
after="$(rss_kib)"
echo "== $IDLE more idle MCP sessions: RSS $before -> $after KiB" \
     "($(( (after - before) * 1024 / IDLE )) bytes per session)"
