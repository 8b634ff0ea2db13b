#!/usr/bin/env bash
# Installs the peers of bench/compare.sh, each only when missing, so that a
# machine that has them touches no network:
#   mcp-time  the Go mcp-time binary, npm package mcp-time-linux-x64
#   ts-sdk    the official TypeScript SDK (@modelcontextprotocol/sdk v1) for
#             ts-sdk-server.mjs
#             (both pinned in package-lock.json, installed with `npm ci` into
#             the git-ignored bench/peers/node_modules; needs node and npm,
#             installed from Debian when missing)
#   nginx     Debian package nginx (the loopback ceiling), via apt-get
#   echo      echo_stdio.c compiled with cc into bench/peers/.build/
#
# Usage: install.sh [PEER...]   (default: all four)
# Prints one line per peer to stderr; exits 0 when every named peer is
# ready, 1 otherwise (the others are still installed).
source "$(dirname "$0")/../../scripts/common.sh"
set +e # each peer on its own: one failure must not stop the others

PEERS_DIR="$ROOT/bench/peers"
BUILD_DIR="$PEERS_DIR/.build"

# `npm ci` from the lock file, skipped while node_modules matches it.
npm_peers() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    ensure_packages nodejs npm || return 1
  fi
  local stamp="$PEERS_DIR/node_modules/.ttm-lock-sha256"
  local want
  want="$(sha256sum "$PEERS_DIR/package-lock.json" | cut -d' ' -f1)"
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  say "installing the pinned npm peers in bench/peers (npm ci)"
  # mcp-time-linux-x64 is an optional dependency: on another platform npm
  # skips it, and mcp-time is reported missing below.
  (cd "$PEERS_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2) \
    || return 1
  echo "$want" >"$stamp"
}

install_one() {
  case "$1" in
    mcp-time)
      npm_peers || return 1
      local bin="$PEERS_DIR/node_modules/mcp-time-linux-x64/bin/mcp-time"
      if ! { [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; }; then
        echo "mcp-time: $bin does not run here (linux x64 only)" >&2
        return 1
      fi
      ;;
    ts-sdk)
      npm_peers || return 1
      [ -f "$PEERS_DIR/node_modules/@modelcontextprotocol/sdk/package.json" ]
      ;;
    nginx)
      command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] \
        || ensure_packages nginx
      ;;
    echo)
      local out="$BUILD_DIR/echo_stdio" src="$PEERS_DIR/echo_stdio.c"
      [ -x "$out" ] && [ "$out" -nt "$src" ] && return 0
      command -v cc >/dev/null || ensure_packages gcc || return 1
      mkdir -p "$BUILD_DIR" && cc -O2 -Wall -o "$out" "$src"
      ;;
    *)
      echo "install.sh: unknown peer '$1' (mcp-time, ts-sdk, nginx, echo)" >&2
      return 2
      ;;
  esac
}

[ $# -gt 0 ] || set -- mcp-time ts-sdk nginx echo
status=0
for peer in "$@"; do
  if install_one "$peer"; then
    say "peer $peer: ready"
  else
    say "peer $peer: NOT available"
    status=1
  fi
done
exit $status
