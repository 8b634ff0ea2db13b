#!/usr/bin/env bash
# scripts/run.sh (the README's command 1) prints its "MCP endpoint / register
# it" banner only once the server listens, and exits with the server's status:
#  1. on a port another process holds: no banner, exit 1, the server's reason;
#  2. on a free port (0): the banner names the URL the server logged, and
#     SIGTERM to the script stops the server, exit 0.
# TTM_RUN_BINARY makes run.sh use the built binary without installing or
# building anything.
# Usage: run_sh.sh NODE BINARY RUN_SH
set -u
node=$1 bin=$2 run=$3
tmp="$(mktemp -d)"
holder=
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Waits (up to 30 s, polling) until FILE contains PATTERN.
await() {
  for _ in $(seq 300); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# 1. A busy port: a listener of our own holds it.
"$node" -e 'const s = require("net").createServer().listen(0, "127.0.0.1",
  () => console.log(s.address().port))' >"$tmp/port" &
holder=$!
await "$tmp/port" '[0-9]' || fail "the port holder did not start"
port=$(cat "$tmp/port")
TTM_RUN_BINARY="$bin" "$run" --listen "127.0.0.1:$port" --ephemeral \
  </dev/null >"$tmp/busy.out" 2>&1
rc=$?
cat "$tmp/busy.out"
[ "$rc" -eq 1 ] || fail "busy port: exit $rc, want the server's 1"
grep -q "MCP endpoint" "$tmp/busy.out" && fail "busy port: banner printed"
grep -qi "in use" "$tmp/busy.out" || fail "busy port: no reason given"

# 2. A free port: the banner follows the server's ready line, with its URL.
TTM_RUN_BINARY="$bin" "$run" --listen 127.0.0.1:0 --ephemeral \
  </dev/null >"$tmp/free.out" 2>&1 &
script=$!
await "$tmp/free.out" "MCP endpoint" || { cat "$tmp/free.out"; fail "no banner"; }
kill -TERM "$script"
wait "$script"
rc=$?
cat "$tmp/free.out"
[ "$rc" -eq 0 ] || fail "free port: exit $rc after SIGTERM, want 0"
url=$(sed -n 's/.*serving MCP over HTTP at \(http:[^ ;]*\).*/\1/p' "$tmp/free.out")
[ -n "$url" ] || fail "no server start-up line"
case "$url" in http://127.0.0.1:0/*) fail "the logged URL has port 0" ;; esac
ready=$(grep -n "serving MCP over HTTP" "$tmp/free.out" | cut -d: -f1)
banner=$(grep -n "MCP endpoint: $url " "$tmp/free.out" | cut -d: -f1)
[ -n "$banner" ] || fail "the banner does not name $url"
[ "$banner" -gt "$ready" ] || fail "the banner came before the server listened"
echo "PASS"
