#!/usr/bin/env bash
# Issue 33's targets (item 4), side by side in one run: bench/compare.sh
# with every stage on, ours against nginx and mcp-time over HTTP (closed
# loop), ours in OPEN loop at half the req/s its closed-loop run reached
# in the same round, stdio against the C echo floor, cold start (spawn to
# the initialize reply, and the whole short-lived process) against
# mcp-time, the journal (--journal-sync full) against --ephemeral on the
# workflow, and memory per idle MCP session. Every stage's duration or
# size is a parameter; the table at the end reads: figure, ours, peer,
# ratio (within one round, median over the rounds), target, met?.
# Nothing is asserted. See bench/README.md, "Targets in one run".
#
# Usage: bench/targets.sh [--short] [compare.sh options]
#   --short   a validation run (each stage 2-3 s, 2 rounds, 3,000 idle
#             sessions: about 1.5 minutes): checks the tooling, not the
#             figures
#   The full run's defaults (about 12 minutes): --rounds 3, --duration 10s,
#   --open-duration 10s, --stdio-duration 5s, --cold-duration 3s,
#   --journal-duration 10s, --idle-sessions 100000,
#   --systems ours,mcp-time,nginx. Any compare.sh option given after these
#   overrides them (e.g. --threads 2, --base DIR, --no-build, --json).
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-}" in
  -h|--help) sed -n '2,/^here=/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
stages=(--systems ours,mcp-time,nginx --rounds 3 --duration 10s --open-duration 10s
        --stdio-duration 5s --cold-duration 3s --journal-duration 10s
        --idle-sessions 100000)
if [ "${1:-}" = --short ]; then
  shift
  stages=(--systems ours,mcp-time,nginx --rounds 2 --duration 3s --warmup 1s
          --open-duration 3s --stdio-duration 2s --cold-duration 2s
          --journal-duration 3s --idle-sessions 3000)
fi
exec "$here/compare.sh" "${stages[@]}" "$@"
