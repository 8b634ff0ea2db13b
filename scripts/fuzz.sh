#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz) long: scripts/fuzz.sh TARGET|all
# SECONDS [LIBFUZZER_FLAG...]. Builds the fuzz tree (build-fuzz, clang) if
# needed; each target starts from its committed seeds and regression inputs
# and grows its corpus in a scratch folder outside the repository
# (TTM_FUZZ_DIR, default build-fuzz/long/<target>), where a crash's input is
# kept too (crash-*, with the command to replay it). A found crash: fix it,
# then copy its input to tests/fuzz/regressions/<target>/ (.ci/run replays
# them). Prints each target's executions, exec/s and crashes.
source "$(dirname "$0")/common.sh"

if [ $# -lt 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS [LIBFUZZER_FLAG...]" >&2
  echo "targets: $(ls "$ROOT/tests/fuzz"/*.cpp | xargs -n1 basename | sed 's/\.cpp$//' | tr '\n' ' ')" >&2
  exit 2
fi
target="$1" seconds="$2"; shift 2

ensure_packages clang libclang-rt-14-dev
build_tree build-fuzz fuzz -- -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Release -DTTM_FUZZ=ON -DTTM_BUILD_TESTS=OFF \
  -DTTM_BUILD_BENCH=OFF

if [ "$target" = all ]; then
  targets=$(ls "$ROOT/tests/fuzz"/*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
else
  targets="$target"
fi
# malloc_context_size=1: ASan records one frame, not 30, of each allocation's
# and free's stack (hashing them into its stack depot was 7 % of the reports
# target; 6-17 % more executions per CPU-second with it, three paired runs).
# It detects the same errors; only a report's "allocated by"/"freed by"
# stacks (and a leak's) are short: replay the kept crash-* input with the
# default options for them (build-fuzz/tests/fuzz/fuzz_<target> crash-..., with
# ASAN_OPTIONS unset).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_context_size=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fuzz_dir="${TTM_FUZZ_DIR:-$ROOT/build-fuzz/long}"
status=0
for t in $targets; do
  bin="$ROOT/build-fuzz/tests/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "no fuzz target '$t'" >&2; exit 2; }
  mkdir -p "$fuzz_dir/$t"
  say "fuzz_$t for ${seconds}s (corpus: $fuzz_dir/$t)"
  log="$fuzz_dir/$t.log"
  if nice "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
       -print_final_stats=1 -dict="$ROOT/build-fuzz/tests/fuzz/fuzz.dict" \
       -artifact_prefix="$fuzz_dir/$t/" "$@" "$fuzz_dir/$t" \
       "$ROOT/tests/fuzz/corpus/$t" "$ROOT/tests/fuzz/regressions/$t" \
       >"$log" 2>&1; then
    result="0 crashes"
  else
    result="CRASH (see $log and $fuzz_dir/$t/crash-*)"
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{s+=$2} END {print s+0}')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
  printf '%-14s %12s executions %8s exec/s  %s\n' "$t" "$runs" "${rate:-?}" "$result"
done
exit $status
