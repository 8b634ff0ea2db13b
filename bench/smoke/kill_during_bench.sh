#!/usr/bin/env bash
# Kill -9 during a load run loses no acknowledged change (issue 7), for ctest.
#
# Usage: kill_during_bench.sh [--kill-after SECONDS] [--server-arg ARG]... \
#          SERVER BENCH JOURNAL_CHECK -- BENCH_ARGS...
#
# Starts `SERVER http --listen 127.0.0.1:0 --data-dir TMP
# --max-tracking-sessions 100000 ARGS`, runs `BENCH --url URL --ack-log ACK
# BENCH_ARGS` in the background (BENCH_ARGS must keep it running past the
# kill, e.g. --scenario workflow --duration 4s), SIGKILLs the server after
# --kill-after seconds (default 1.5), waits for the bench, and runs
# `JOURNAL_CHECK --data-dir TMP --ack-log ACK`: every change the bench saw
# acknowledged must be in the journal. Then two self-checks on the same
# journal: the checker must fail on the log plus an invented acknowledgement,
# and on an empty log.
#
# The bench loses its server mid-run: its requests fail (reset, refused),
# each client gives up after three transport failures in a row, and the
# bench exits 1 before its duration is up. Any other bench status (0: the
# kill came after the run; > 1: a crash or bad arguments) fails the test.
# KEEP_WORK=1 keeps the temporary directory (logs, journal) for a look.
set -uo pipefail
. "$(dirname "$0")/common.sh"

kill_after=1.5
server_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kill-after) kill_after="$2"; shift 2 ;;
    --server-arg) server_args+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 3 ]; then
  echo "usage: $0 [--kill-after S] [--server-arg ARG]... SERVER BENCH JOURNAL_CHECK -- BENCH_ARGS..." >&2
  exit 2
fi
server="$1"
bench="$2"
check="$3"
shift 3
[ "${1:-}" = "--" ] && shift

work="$(mktemp -d)"
pid=
bench_pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  [ -n "$bench_pid" ] && kill -KILL "$bench_pid" 2>/dev/null
  if [ "${KEEP_WORK:-0}" = 1 ]; then
    echo "kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

data="$work/data"
acks="$work/acks.tsv"
fail() {
  echo "FAIL: $*" >&2
  echo "--- server log (last lines):" >&2
  tail -n 30 "$work/server.log" >&2
  echo "--- bench stderr (last lines):" >&2
  tail -n 30 "$work/bench.err" >&2 2>/dev/null
  exit 1
}

"$server" http --listen 127.0.0.1:0 --data-dir "$data" \
  --max-tracking-sessions 100000 "${server_args[@]}" 2>"$work/server.log" &
pid=$!
url="$(wait_for_url "$work/server.log" "$pid")"
[ -n "$url" ] || fail "the server did not start"
echo "server pid $pid at $url, data dir $data ${server_args[*]}"

t0=$(date +%s.%N)
"$bench" --url "$url" --server-pid "$pid" --ack-log "$acks" "$@" \
  >"$work/bench.out" 2>"$work/bench.err" &
bench_pid=$!
sleep "$kill_after"
kill -0 "$bench_pid" 2>/dev/null \
  || fail "the bench ended before the kill: lengthen its --duration"
kill -0 "$pid" 2>/dev/null || fail "the server died before the kill"
# (Braces and 2>/dev/null: no "Killed" job notice from bash.)
{ kill -KILL "$pid"; wait "$pid"; server_rc=$?; } 2>/dev/null
pid=
t_kill=$(date +%s.%N)
wait "$bench_pid"
bench_rc=$?
bench_pid=
t_end=$(date +%s.%N)
awk -v a="$t0" -v k="$t_kill" -v e="$t_end" 'BEGIN {
  printf "server killed %.2f s into the run (status %s); bench ended %.2f s after the kill\n", k - a, "'"$server_rc"'", e - k }'
echo "bench exit status: $bench_rc (1 expected: its requests failed after the kill)"
echo "--- bench stderr:"
cat "$work/bench.err"
echo "--- bench report:"
cat "$work/bench.out"
# The server's own complaints before the kill (its log has no line for the
# kill itself): shown, not judged.
if grep -Eiq '\b(error|warning|critical)\b' "$work/server.log"; then
  echo "--- server log, warnings and errors:"
  grep -Ei '\b(error|warning|critical)\b' "$work/server.log" | head -n 20
fi
[ "$server_rc" -eq 137 ] || fail "the server's status was $server_rc, not 137 (SIGKILL)"
[ "$bench_rc" -eq 1 ] || fail "the bench's status was $bench_rc, not 1"

echo "--- journal check:"
"$check" --data-dir "$data" --ack-log "$acks"
rc=$?
[ "$rc" -eq 0 ] || fail "journal_check exited $rc: acknowledged changes are missing (a real loss) or the log is empty"

# The checker must be able to fail, on this very journal.
sid="$(cut -f2 "$acks" | head -n 1)"
{ cat "$acks"; printf 'time_task_start\t%s\tNOT-A-TASK\t-\n' "$sid"; } \
  >"$work/acks-invented.tsv"
"$check" --data-dir "$data" --ack-log "$work/acks-invented.tsv" \
  >"$work/check-invented.out" 2>&1
[ $? -eq 1 ] || { cat "$work/check-invented.out"; fail "journal_check accepted an invented acknowledgement"; }
: >"$work/acks-empty.tsv"
"$check" --data-dir "$data" --ack-log "$work/acks-empty.tsv" \
  >"$work/check-empty.out" 2>&1
[ $? -eq 1 ] || { cat "$work/check-empty.out"; fail "journal_check accepted an empty ack log"; }
echo "self-check: journal_check fails on an invented acknowledgement and on an empty log"
