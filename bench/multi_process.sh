#!/usr/bin/env bash
# Several server processes on one data directory, side by side (issue 15):
# the workflow scenario (Pattern 1) over HTTP with 1, 2, 4 … processes
# sharing one journal, a bench against each, and optionally a build of an
# older commit with one process (before several processes could share a
# directory). See bench/README.md, "Several processes on one data
# directory".
#
# Each run is bench/smoke/multi_process.sh (a fresh data directory, the
# servers started at once, the benches at once, then the ack-log check:
# every acknowledged change in the journal exactly once). Every
# configuration runs once per round, each round in a rotated order, so
# that drift of a shared machine hits all alike; the table shows medians
# over the rounds.
#
# Usage: bench/multi_process.sh [options]
#   --processes LIST     process counts, comma-separated (1,2,4)
#   --clients N          bench clients in all, split evenly over the
#                        processes (64: 64, 32 + 32, 4 x 16)
#   --clients-per-process N   instead: N clients against every process
#   --duration D         measured time of one run (10s)
#   --warmup D           warm-up of one run (2s)
#   --rounds R           rounds (1)
#   --tasks K            tasks per workflow (5)
#   --protocol-version V the bench's MCP revision (its default)
#   --baseline REV       also run a build of REV (e.g. 784f4d6, main before
#                        issue 15) with one process: its source is exported
#                        with `git archive` to build-baseline/REV-src and
#                        its time-tracker-mcp and journal_check (which reads
#                        REV's journal schema) built in build-baseline/REV
#   --baseline-server PATH  instead: that binary as the baseline (checked
#                        with the journal_check beside it, if there is one)
#   --baseline-processes LIST  process counts of the baseline (1; a build
#                        before issue 15 cannot run more on one directory)
#   --server-arg ARG     extra server argument, repeatable (e.g.
#                        --journal-sync=normal)
#   --build DIR          build tree with time-tracker-mcp,
#                        time-tracker-bench and journal_check (build)
#   --no-build           do not (re)build them
#   --json               one JSON document on stdout instead of the table
#   --keep               keep the work dir (every run's files)
#   -h, --help
source "$(dirname "$0")/../scripts/common.sh"
# Capacity from one address: no per-client rate limit.
source "$ROOT/bench/smoke/common.sh"
set +e

usage() {
  sed -n '2,/^source /p' "$0" | sed '$d; s/^# \{0,1\}//'
}

processes=1,2,4
clients=64
clients_per_process=
duration=10s
warmup=2s
rounds=1
tasks=5
protocol=()
baseline=
baseline_server=
baseline_processes=1
server_args=()
build_dir=build
do_build=1
json=0
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --clients-per-process) clients_per_process="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --tasks) tasks="$2"; shift 2 ;;
    --protocol-version) protocol=(--protocol-version "$2"); shift 2 ;;
    --baseline) baseline="$2"; shift 2 ;;
    --baseline-server) baseline_server="$2"; shift 2 ;;
    --baseline-processes) baseline_processes="$2"; shift 2 ;;
    --server-arg) server_args+=(--server-arg "$2"); shift 2 ;;
    --build) build_dir="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --json) json=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "multi_process.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "multi_process.sh: --rounds N >= 1" >&2; exit 2; }
[[ "$processes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] \
  || { echo "multi_process.sh: --processes 1,2,4 (a list of counts)" >&2; exit 2; }
[[ "$baseline_processes" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] \
  || { echo "multi_process.sh: --baseline-processes 1 (a list of counts)" >&2; exit 2; }
command -v node >/dev/null || { echo "multi_process.sh: needs node (Debian nodejs) for its report" >&2; exit 1; }

[[ "$build_dir" = /* ]] || build_dir="$ROOT/$build_dir"
SERVER="$build_dir/time-tracker-mcp"
BENCH="$build_dir/time-tracker-bench"
CHECK="$build_dir/journal_check"
if [ "$do_build" = 1 ]; then
  say "building time-tracker-mcp, time-tracker-bench and journal_check in ${build_dir#"$ROOT"/}"
  build_tree "${build_dir#"$ROOT"/}" time-tracker-mcp time-tracker-bench journal_check \
    -- -DCMAKE_BUILD_TYPE=Release -DTTM_BUILD_BENCH=ON || exit 1
fi
for b in "$SERVER" "$BENCH" "$CHECK"; do
  [ -x "$b" ] || { echo "multi_process.sh: $b is missing (drop --no-build)" >&2; exit 1; }
done
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" 2>/dev/null)"
[ "$build_type" = Release ] \
  || say "warning: ${build_dir#"$ROOT"/} is a '${build_type:-?}' build, not Release"
this_rev="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ] && this_rev="$this_rev+changes"
this_label="${this_rev:-this build}"

base_label=
if [ -n "$baseline" ]; then
  rev="$(git -C "$ROOT" rev-parse --short "$baseline^{commit}" 2>/dev/null)" \
    || { echo "multi_process.sh: no commit '$baseline'" >&2; exit 2; }
  src="$ROOT/build-baseline/$rev-src"
  bdir="$ROOT/build-baseline/$rev"
  if [ ! -x "$bdir/time-tracker-mcp" ] || [ ! -x "$bdir/journal_check" ]; then
    say "building time-tracker-mcp and journal_check of $rev in ${bdir#"$ROOT"/}"
    rm -rf "$src" && mkdir -p "$src" \
      && git -C "$ROOT" archive "$rev" | tar -x -C "$src" || exit 1
    # ccache hits across the two trees when paths are relative to each.
    CCACHE_BASEDIR="$src" cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release \
      -DTTM_BUILD_TESTS=OFF -DTTM_BUILD_BENCH=ON >&2 \
      && CCACHE_BASEDIR="$src" cmake --build "$bdir" -j"$(nproc)" \
           --target time-tracker-mcp journal_check >&2 || exit 1
  fi
  baseline_server="$bdir/time-tracker-mcp"
  base_label="$rev (baseline)"
elif [ -n "$baseline_server" ]; then
  [ -x "$baseline_server" ] || { echo "multi_process.sh: $baseline_server is not executable" >&2; exit 2; }
  base_label="$(basename "$(dirname "$(readlink -f "$baseline_server")")") (baseline)"
fi
# The baseline's journal is read by its own journal_check (its schema).
base_check="$(dirname "$baseline_server")/journal_check"
[ -x "$base_check" ] || base_check="$CHECK"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ttm-multi.XXXXXX")"
RUNS="$WORK/runs.tsv"
: >"$RUNS"
cleanup() {
  if [ "$keep" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The configurations: label, processes, server binary, journal_check.
configs=()
if [ -n "$baseline_server" ]; then
  for p in ${baseline_processes//,/ }; do
    configs+=("$base_label	$p	$baseline_server	$base_check")
  done
fi
for p in ${processes//,/ }; do
  configs+=("$this_label	$p	$SERVER	$CHECK")
done

started_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
loadavg_before="$(cut -d' ' -f1-3 /proc/loadavg)"
n=${#configs[@]}
for round in $(seq "$rounds"); do
  for k in $(seq 0 $((n - 1))); do
    IFS=$'\t' read -r label p server check <<<"${configs[$(((k + round - 1) % n))]}"
    if [ -n "$clients_per_process" ]; then
      c="$clients_per_process"
    else
      c=$((clients / p))
      [ "$c" -ge 1 ] || c=1
    fi
    dir="$WORK/${label//[^A-Za-z0-9.+-]/_}-x$p-r$round"
    say "round $round/$rounds: $label, $p process(es), $c clients each, $duration"
    "$ROOT/bench/smoke/multi_process.sh" --processes "$p" --out "$dir" \
      --label "$label x$p (round $round)" --no-self-check "${server_args[@]}" \
      "$server" "$BENCH" "$check" \
      -- --scenario workflow --tasks "$tasks" --clients "$c" \
         --duration "$duration" --warmup "$warmup" --show-errors 3 \
         "${protocol[@]}" >"$dir.log" 2>&1
    rc=$?
    if [ "$json" = 1 ]; then cat "$dir.log" >&2; else cat "$dir.log"; fi
    [ "$rc" -eq 0 ] || say "run failed (status $rc): $label x$p round $round"
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$p" "$round" "$dir/summary.json" "$rc" >>"$RUNS"
  done
done

header="workflow (Pattern 1, $tasks tasks) over HTTP, $( [ -n "$clients_per_process" ] \
  && echo "$clients_per_process clients per process" \
  || echo "$clients clients in all, split over the processes"), $duration after a $warmup warm-up per run, $rounds round(s); one data directory per run (${TMPDIR:-/tmp}) shared by its processes${server_args[*]:+; server ${server_args[*]}}
machine: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), Linux $(uname -r); servers and benches share the cores; load average $loadavg_before before, $(cut -d' ' -f1-3 /proc/loadavg) after; started $started_at"
if [ "$json" = 1 ]; then
  node "$ROOT/bench/multi_process_report.mjs" table --runs "$RUNS" --header "$header" --json 1
else
  echo
  node "$ROOT/bench/multi_process_report.mjs" table --runs "$RUNS" --header "$header"
fi
! cut -f5 "$RUNS" | grep -qv '^0$'
