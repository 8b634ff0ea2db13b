#!/usr/bin/env bash
# Several nodes on one journal behind nginx (issue 32 item 6; docs/scaling.md):
# workflow calls/s, p50 and p99 with 1, 2 and 3 nodes behind nginx
# (round-robin), with 3 nodes hashed on Mcp-Param-Session-Id (stickiness),
# and one node on SQLite with and without nginx, in one run; the CPU time
# the nodes, nginx, PostgreSQL and the bench spend per call, and journal
# transactions and fences per call (the claims a moving session costs).
# The multi-node journal is PostgreSQL when the binary has --journal
# (a throw-away server, tests/scripts/pg_server.sh), else the nodes share
# one SQLite data directory. bench/scaleout.mjs does the work.
#
# Usage: bench/scaleout.sh [options]
#   --clients N       bench clients (32)
#   --duration D      measured time of one run (10s)
#   --nodes LIST      node counts of the round-robin runs (1,2,3)
#   --rounds R        rounds, each in a rotated order; medians shown (1)
#   --journal J       pg or sqlite for the multi-node runs (auto)
#   --no-hash         skip the 3 nodes hashed on Mcp-Param-Session-Id
#   --build DIR       build tree with time-tracker-mcp and time-tracker-bench (build)
#   --no-build        do not (re)build them
#   --json            one JSON document on stdout instead of the table
#   -h, --help
source "$(dirname "$0")/../scripts/common.sh"

build="$ROOT/build"
do_build=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$(cd "$2" 2>/dev/null && pwd || echo "$2")"; args+=(--build "$build"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,/^source /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ "$do_build" = 1 ]; then
  build_tree "${build#"$ROOT"/}" time-tracker-mcp time-tracker-bench -- \
    -DCMAKE_BUILD_TYPE=Release
fi
exec node "$ROOT/bench/scaleout.mjs" "${args[@]}"
