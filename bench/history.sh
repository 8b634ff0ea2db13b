#!/usr/bin/env bash
# The history bench (issue 16): fills a fresh data directory with 10,000
# ended sessions x 50 tasks (build/history_fill, through the storage
# library), then times time_session_list through the real server over
# stdio (bench/history.mjs). Figures are printed, never asserted.
#
# Usage: bench/history.sh [--journal postgresql://...] [BUILD_DIR=build]
#                         [SESSIONS=10000] [TASKS=50]
# --journal: the sessions and the server in that PostgreSQL journal (an
# empty database or schema; filled by COPY from a SQLite fill,
# bench/history_copy_pg.py) instead of SQLite in the data directory.
set -euo pipefail
journal=
if [[ ${1:-} == --journal ]]; then
  journal=$2
  shift 2
fi
# Capacity from one address: no per-client rate limit (docs/operations.md);
# the environment, which builds without the option ignore.
export TIME_TRACKER_MCP_RATE_LIMIT=off
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
sessions=${2:-10000}
tasks=${3:-50}
dir=$(mktemp -d "${TMPDIR:-/tmp}/ttm-history-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [[ -z $journal ]]; then
  "$build/history_fill" --data-dir "$dir" --sessions "$sessions" --tasks "$tasks" --days 60
else
  # PostgreSQL: filled in SQLite, then copied with COPY (history_fill
  # --journal writes per round trip: ~20 min for 10,000 sessions). The
  # one-session fill makes the journal's schema.
  "$build/history_fill" --data-dir "$dir/sqlite" --sessions "$sessions" --tasks "$tasks" --days 60
  "$build/history_fill" --data-dir "$dir" --journal "$journal" --sessions 1 --tasks 1 --days 1 >/dev/null
  python3 "$root/bench/history_copy_pg.py" "$dir/sqlite/journal.sqlite3" "$journal"
fi
# The server reads --journal from its environment (history.mjs sets no option).
TIME_TRACKER_MCP_JOURNAL=${journal:-sqlite} node "$root/bench/history.mjs" "$build/time-tracker-mcp" "$dir"
