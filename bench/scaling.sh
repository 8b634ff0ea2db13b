#!/usr/bin/env bash
# How cost grows with work (issue 33 item 5): Markdown tables for
# bench/README.md, "How cost grows with work".
#
#   concurrency  HTTP get-current, closed loop: req/s, p50, p99, server CPU
#                per request at 1, 16, 64, 256 and 1,024 concurrent MCP
#                sessions (one per bench client and connection)
#   tasks        the workflow (Pattern 1) with K tasks per tracking session,
#                then time_session_report (markdown) and time_session_summary
#                --summaries times each (20) before the end, few clients
#                (latency, not capacity): summary and report p50/p99 at
#                K = 5, 50, 500
#   memory       RSS per idle MCP session at 1k, 10k, 100k sessions
#   processes    workflow calls/s with 1, 2 and 4 processes on one data
#                directory (bench/multi_process.sh, its ack-log check included)
#
# Every row runs against a freshly started server (its journal in a fresh
# directory of the run). Rows of one stage run in a rotated order per round
# and the table shows medians; a run whose load generator used >= 90 % of
# the cores it was given (--threads) is marked SATURATED: its req/s is the
# generator's limit, not the server's. Nothing is asserted.
#
# Usage: bench/scaling.sh [options]
#   --short              a validation run: every stage small (2 s runs;
#                        1,000/3,000 sessions; 1 and 2 processes): ~1.5 min
#   --stages LIST        concurrency,tasks,memory,processes (all)
#   --clients-list L     concurrency stage (1,16,64,256,1024)
#   --duration D         measured time of one run (10s)
#   --warmup D           warm-up of one run (2s)
#   --threads T          the bench's HTTP I/O threads (1)
#   --tasks-list L       tasks stage (5,50,500)
#   --tasks-clients N    bench clients in the tasks stage (4)
#   --tasks-duration D   measured time of one tasks-stage run (--duration),
#                        plus 1 s per 50 tasks (a 500-task session takes
#                        1,000 calls before its first summary)
#   --summaries N        report + summary calls per session (20)
#   --sessions-list L    memory stage (1000,10000,100000)
#   --processes L        processes stage (1,2,4)
#   --rounds R           rounds (1)
#   --build DIR          build tree with time-tracker-mcp, time-tracker-bench
#                        and journal_check (build)
#   --no-build           do not (re)build them
#   --json               one JSON document on stdout instead of the tables
#   --keep               keep the work dir
#   -h, --help
source "$(dirname "$0")/../scripts/common.sh"
# No per-client rate limit (capacity from one address), wait_for_url,
# stop_server, rotate, record.
source "$ROOT/bench/smoke/common.sh"
set +e

usage() { sed -n '2,/^source /p' "$0" | sed '$d; s/^# \{0,1\}//'; }

stages=concurrency,tasks,memory,processes
clients_list=1,16,64,256,1024
duration=10s
warmup=2s
threads=1
tasks_list=5,50,500
tasks_clients=4
tasks_duration=
summaries=20
sessions_list=1000,10000,100000
processes=1,2,4
rounds=1
build_dir=build
do_build=1
json=0
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --short)
      duration=2s; warmup=0.5s; sessions_list=1000,3000; processes=1,2
      clients_list=1,16,64,256; tasks_list=5,50,500; tasks_duration=6s; shift ;;
    --stages) stages="$2"; shift 2 ;;
    --clients-list) clients_list="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --tasks-list) tasks_list="$2"; shift 2 ;;
    --tasks-clients) tasks_clients="$2"; shift 2 ;;
    --tasks-duration) tasks_duration="$2"; shift 2 ;;
    --summaries) summaries="$2"; shift 2 ;;
    --sessions-list) sessions_list="$2"; shift 2 ;;
    --processes) processes="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --build) build_dir="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --json) json=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scaling.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
list_re='^[1-9][0-9]*(,[1-9][0-9]*)*$'
for l in "$clients_list" "$tasks_list" "$sessions_list" "$processes"; do
  [[ "$l" =~ $list_re ]] || { echo "scaling.sh: '$l' is not a list of counts" >&2; exit 2; }
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "scaling.sh: --rounds N >= 1" >&2; exit 2; }
command -v node >/dev/null || { echo "scaling.sh: needs node (Debian nodejs) for its report" >&2; exit 1; }
on() { [[ ",$stages," == *",$1,"* ]]; }

[[ "$build_dir" = /* ]] || build_dir="$ROOT/$build_dir"
SERVER="$build_dir/time-tracker-mcp"
BENCH="$build_dir/time-tracker-bench"
if [ "$do_build" = 1 ]; then
  say "building time-tracker-mcp, time-tracker-bench and journal_check in ${build_dir#"$ROOT"/}"
  build_tree "${build_dir#"$ROOT"/}" time-tracker-mcp time-tracker-bench journal_check \
    -- -DCMAKE_BUILD_TYPE=Release -DTTM_BUILD_BENCH=ON || exit 1
fi
for b in "$SERVER" "$BENCH"; do
  [ -x "$b" ] || { echo "scaling.sh: $b is missing (drop --no-build)" >&2; exit 1; }
done
# 1,024 connections and the server's own descriptors.
[ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 2>/dev/null

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ttm-scaling.XXXXXX")"
MANIFEST="$WORK/manifest.tsv"
: >"$MANIFEST"
server_pid=
cleanup() {
  [ -n "$server_pid" ] && { kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; }
  if [ "$keep" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts ours over HTTP with a fresh journal and ARGS; sets server_pid, url.
start_server() {
  local n=$((++started))
  # --rate-limit off: the default per-principal bound (every bench client
  # shares one address) is an abuse limit, not what is measured here.
  "$SERVER" http --listen 127.0.0.1:0 --data-dir "$WORK/journal-$n" \
    --rate-limit off "$@" 2>"$WORK/server-$n.log" &
  server_pid=$!
  url="$(wait_for_url "$WORK/server-$n.log" "$server_pid")"
  [ -n "$url" ] || { say "the server did not start:"; tail -20 "$WORK/server-$n.log" >&2; stop_server; return 1; }
}
started=0
# record STAGE X ROUND FILE LOAD EXIT (bench/smoke/common.sh)
load() { cut -d' ' -f1-3 /proc/loadavg; }
# plus_seconds DURATION N: DURATION (500ms, 10s, 2m, or seconds) + N s, in ms.
plus_seconds() {
  local d="$1" ms
  case "$d" in
    *ms) ms="${d%ms}" ;;
    *m) ms=$(( ${d%m} * 60000 )) ;;
    *s) ms="$(awk -v x="${d%s}" 'BEGIN { printf "%d", x * 1000 }')" ;;
    *) ms="$(awk -v x="$d" 'BEGIN { printf "%d", x * 1000 }')" ;;
  esac
  echo "$((ms + $2 * 1000))ms"
}

# bench_row STAGE X ROUND SERVER_ARGS... -- BENCH_ARGS...
bench_row() {
  local stage="$1" x="$2" r="$3"; shift 3
  local sargs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs+=("$1"); shift; done
  shift
  local out="$WORK/$stage-$x-$r.json" rc=0 l
  l="$(load)"
  if ! start_server "${sargs[@]}"; then
    record "$stage" "$x" "$r" "" "$l" start-failed
    return
  fi
  "$BENCH" --url "$url" --server-pid "$server_pid" --show-errors 3 --json "$@" >"$out" || rc=$?
  stop_server
  record "$stage" "$x" "$r" "$out" "$l" "$rc"
}

started_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
uptime_before="$(uptime)"
for ((r = 1; r <= rounds; ++r)); do
  if on concurrency; then
    for n in $(rotate $((r - 1)) ${clients_list//,/ }); do
      say "round $r/$rounds: concurrency $n"
      # One principal (the bench's address) holds every request in flight.
      inflight=$((n > 256 ? n : 256))
      bench_row concurrency "$n" "$r" --max-in-flight "$inflight" --max-connections $((n + 256)) \
        -- --scenario get-current --clients "$n" --duration "$duration" --warmup "$warmup" --threads "$threads"
    done
  fi
  if on tasks; then
    for k in $(rotate $((r - 1)) ${tasks_list//,/ }); do
      say "round $r/$rounds: workflow with $k tasks"
      bench_row tasks "$k" "$r" --max-tasks-per-session "$((k > 500 ? k : 500))" \
        --max-tracking-sessions 100000 --max-tracking-sessions-per-principal 100000 \
        -- --scenario workflow --tasks "$k" --report-format markdown --summaries "$summaries" \
           --clients "$tasks_clients" --duration "$(plus_seconds "${tasks_duration:-$duration}" $((k / 50)))" \
           --warmup "$warmup"
    done
  fi
  if on memory; then
    for m in $(rotate $((r - 1)) ${sessions_list//,/ }); do
      say "round $r/$rounds: $m idle sessions"
      bench_row memory "$m" "$r" --max-mcp-sessions $((m + 200)) \
        -- --scenario idle-sessions --sessions "$m"
    done
  fi
done
if on processes; then
  say "processes $processes on one data directory (bench/multi_process.sh)"
  l="$(load)"
  rc=0
  "$ROOT/bench/multi_process.sh" --no-build --build "$build_dir" --processes "$processes" \
    --duration "$duration" --warmup "$warmup" --rounds "$rounds" --json \
    >"$WORK/processes.json" 2>"$WORK/processes.log" || rc=$?
  [ "$rc" = 0 ] || tail -20 "$WORK/processes.log" >&2
  record processes "$processes" all "$WORK/processes.json" "$l" "$rc"
fi

node "$ROOT/bench/scaling_report.mjs" --manifest "$MANIFEST" --json "$json" \
  --started "$started_at" --uptime-before "$uptime_before" --uptime-after "$(uptime)" \
  --duration "$duration" --warmup "$warmup" --threads "$threads" --rounds "$rounds" \
  --tasks-clients "$tasks_clients" --summaries "$summaries" \
  --tasks-duration "${tasks_duration:-$duration}" \
  --commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" \
  --cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
  --nproc "$(nproc)" --kernel "$(uname -r)"
