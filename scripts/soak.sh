#!/usr/bin/env bash
# The long soak (docs/reliability.md, "Soak"): three `time-tracker-mcp http`
# servers on one data directory under mixed load for SOAK_MINUTES (default
# 60), sampled each minute; fails when RSS varies more than 10% after the
# warm-up, descriptors creep, or the journal grows past its retention's
# bound. Extra arguments go to tests/abuse/soak.mjs (--json FILE keeps the
# curve). Needs a build (scripts/test.sh or the README's build command) and
# tests/integration/node_modules.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${TTM_BINARY:-$root/build/time-tracker-mcp}"
minutes="${SOAK_MINUTES:-60}"
exec nice node "$root/tests/abuse/soak.mjs" --binary "$binary" \
  --seconds "$((minutes * 60))" --sample 60 --retention 10m \
  --warmup 0.5 --rss-tolerance 0.10 "$@"
