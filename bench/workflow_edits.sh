#!/usr/bin/env bash
# Workflow throughput with issue 17's bulk edits mixed in, side by side with
# plain Pattern 1: `workflow` and `workflow-edits` alternate, each against a
# fresh journaled server (--toolsets all, --max-tracking-sessions and
# --max-tracking-sessions-per-principal 100000: 64 HTTP clients are one
# principal, "local", whose default share is 50 open sessions),
# over HTTP (64 clients) and stdio (1 client), ROUNDS times. Prints the
# bench's rows for all requests, the iteration, and both processes' CPU
# (the bench's own CPU shows whether the load generator is the limit).
# Figures are printed, never asserted.
#
# Usage: bench/workflow_edits.sh [BUILD_DIR=build] [ROUNDS=2] [DURATION=10s]
# Capacity from one address: no per-client rate limit (docs/operations.md);
# the environment, which builds without the option ignore.
export TIME_TRACKER_MCP_RATE_LIMIT=off
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-2}"
duration="${3:-10s}"
server_args=(--server-arg --toolsets --server-arg all
             --server-arg --max-tracking-sessions --server-arg 100000
             --server-arg --max-tracking-sessions-per-principal
             --server-arg 100000)
for round in $(seq 1 "$rounds"); do
  for transport in http stdio; do
    for scenario in workflow workflow-edits; do
      echo "== round $round, $transport, $scenario (load average $(cut -d' ' -f1 /proc/loadavg))"
      if [ "$transport" = http ]; then
        "$root/bench/smoke/run.sh" "${server_args[@]}" \
          "$build/time-tracker-mcp" "$build/time-tracker-bench" -- \
          --scenario "$scenario" --clients 64 --duration "$duration"
      else
        "$root/bench/smoke/run.sh" --stdio "${server_args[@]}" \
          "$build/time-tracker-mcp" "$build/time-tracker-bench" -- \
          --scenario "$scenario" --clients 1 --duration "$duration"
      fi 2>&1 | grep -E '^(all requests|\[workflow|tools/call time_tasks_edit|server pid|bench:)'
    done
  done
done
