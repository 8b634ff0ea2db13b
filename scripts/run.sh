#!/usr/bin/env bash
# The README's command 1: install what is missing, build Release, start the
# server on its defaults: Streamable HTTP at http://127.0.0.1:8787/mcp.
# `scripts/run.sh stdio [options]` starts the stdio server instead; other
# arguments are passed on (e.g. `scripts/run.sh --listen 127.0.0.1:9000`).
# In http mode the URL and how to register it are printed once the server
# listens (from its own start-up log line), and the script exits with the
# server's status: 1 and no banner when, say, the port is in use.
# TTM_RUN_BINARY=PATH runs that binary and skips installing and building
# (for tests of this script; command 1 never needs it).
source "$(dirname "$0")/common.sh"

if [ -n "${TTM_RUN_BINARY:-}" ]; then
  bin="$TTM_RUN_BINARY"
else
  ensure_packages "${BUILD_PACKAGES[@]}"
  build_tree build time-tracker-mcp -- -DCMAKE_BUILD_TYPE=Release \
    -DTTM_BUILD_TESTS=OFF -DTTM_BUILD_BENCH=OFF
  bin="$ROOT/build/time-tracker-mcp"
fi

mode=http
if [ "${1:-}" = stdio ] || [ "${1:-}" = http ]; then
  mode="$1"; shift
fi

if [ "$mode" = stdio ]; then
  say "starting $bin stdio"
  say "it speaks MCP on stdin/stdout: register it in your MCP client (README,"
  say "examples/); to stop it here press Ctrl-D or Ctrl-C"
  exec "$bin" stdio "$@"
fi

# The banner waits for the server's own start-up line ("serving MCP over HTTP
# at URL; ..."), which comes only once it listens, and takes the URL from it,
# so it is right for --listen, --path, port 0, the environment and config
# files alike. (With --log-level above info that line, and so the banner, is
# not printed.) The server's stderr passes through unchanged.
banner() {
  local url="$1" base="${1%"${1#http://*/}"}"
  say "MCP endpoint: $url   (health: ${base}healthz)"
  say "register it:"
  say "  Claude Code: claude mcp add --transport http time-tracker $url"
  say "  VS Code:     .vscode/mcp.json → {\"servers\":{\"time-tracker\":{\"type\":\"http\",\"url\":\"$url\"}}}"
  say "  (more in the README and examples/http/); stop it with Ctrl-C"
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/stderr"
(
  # Ctrl-C reaches the whole process group: this reader must outlive it to
  # pass on the server's shutdown lines.
  trap '' INT TERM HUP
  shown=
  while IFS= read -r line; do
    printf '%s\n' "$line" >&2
    if [ -z "$shown" ] \
       && [[ $line =~ serving\ MCP\ over\ HTTP\ at\ (http://[^\ \;]+) ]]; then
      shown=1
      banner "${BASH_REMATCH[1]}"
    fi
  done
) <"$tmp/stderr" &
reader=$!

say "starting $bin http $*"
"$bin" http "$@" 2>"$tmp/stderr" &
server=$!
# Signals sent to this script alone (e.g. by a service manager) go on to the
# server, which drains and exits; its status is this script's.
trap 'kill -TERM "$server" 2>/dev/null || true' TERM INT HUP
status=0
while :; do
  wait "$server" && status=0 || status=$?
  kill -0 "$server" 2>/dev/null || break
done
wait "$reader" || true
exit "$status"
