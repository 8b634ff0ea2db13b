#!/usr/bin/env bash
# The README's command 1: install what is missing, build Release, start the
# server on its defaults (stdio: one MCP client on stdin/stdout).
source "$(dirname "$0")/common.sh"

ensure_packages "${BUILD_PACKAGES[@]}"
build_tree build time-tracker-mcp -- -DCMAKE_BUILD_TYPE=Release \
  -DTTM_BUILD_TESTS=OFF -DTTM_BUILD_BENCH=OFF

say "starting $ROOT/build/time-tracker-mcp stdio"
say "it speaks MCP on stdin/stdout: register it in your MCP client (README,"
say "examples/); to stop it here press Ctrl-D or Ctrl-C"
exec "$ROOT/build/time-tracker-mcp" stdio "$@"
