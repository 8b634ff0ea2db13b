#!/usr/bin/env bash
# The README's command 1: install what is missing, build Release, start the
# server on its defaults (stdio: one MCP client on stdin/stdout).
source "$(dirname "$0")/common.sh"

ensure_packages "${BUILD_PACKAGES[@]}"
TTM_BUILD_TARGETS=(time-tracker-mcp)
build_tree build -DCMAKE_BUILD_TYPE=Release

say "starting $ROOT/build/time-tracker-mcp stdio"
say "it speaks MCP on stdin/stdout: register it in your MCP client (README,"
say "examples/); to stop it here press Ctrl-D or Ctrl-C"
exec "$ROOT/build/time-tracker-mcp" stdio "$@"
