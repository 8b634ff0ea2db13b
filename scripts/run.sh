#!/usr/bin/env bash
# The README's command 1: install what is missing, build Release, start the
# server on its defaults: Streamable HTTP at http://127.0.0.1:8787/mcp.
# `scripts/run.sh stdio [options]` starts the stdio server instead; other
# arguments are passed on (e.g. `scripts/run.sh --listen 127.0.0.1:9000`).
source "$(dirname "$0")/common.sh"

ensure_packages "${BUILD_PACKAGES[@]}"
build_tree build time-tracker-mcp -- -DCMAKE_BUILD_TYPE=Release \
  -DTTM_BUILD_TESTS=OFF -DTTM_BUILD_BENCH=OFF

mode=http
if [ "${1:-}" = stdio ] || [ "${1:-}" = http ]; then
  mode="$1"; shift
fi

if [ "$mode" = stdio ]; then
  say "starting $ROOT/build/time-tracker-mcp stdio"
  say "it speaks MCP on stdin/stdout: register it in your MCP client (README,"
  say "examples/); to stop it here press Ctrl-D or Ctrl-C"
  exec "$ROOT/build/time-tracker-mcp" stdio "$@"
fi

# The URL for the default --listen; the server logs the one it really uses.
# The URL printed below follows --listen and --path given here; set through
# the environment or a config file, the server's own start-up log line
# ("serving MCP over HTTP at ...") is the one to trust.
listen="${TIME_TRACKER_MCP_LISTEN:-127.0.0.1:8787}"
path="${TIME_TRACKER_MCP_HTTP_PATH:-/mcp}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --listen) listen="${args[i + 1]:-$listen}" ;;
    --listen=*) listen="${args[i]#--listen=}" ;;
    --path) path="${args[i + 1]:-$path}" ;;
    --path=*) path="${args[i]#--path=}" ;;
  esac
done
url="http://$listen$path"
say "starting $ROOT/build/time-tracker-mcp http --listen $listen"
say "MCP endpoint: $url   (health: http://$listen/healthz)"
say "register it:"
say "  Claude Code: claude mcp add --transport http time-tracker $url"
say "  VS Code:     .vscode/mcp.json → {\"servers\":{\"time-tracker\":{\"type\":\"http\",\"url\":\"$url\"}}}"
say "  (more in the README and examples/http/); stop it with Ctrl-C"
exec "$ROOT/build/time-tracker-mcp" http "$@"
