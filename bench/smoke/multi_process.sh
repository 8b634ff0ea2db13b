#!/usr/bin/env bash
# Several server processes on one data directory under load, then the
# ack-log check: every change a bench saw acknowledged is in the shared
# journal exactly once (issue 15). For ctest, and one run of
# bench/multi_process.sh.
#
# Usage: multi_process.sh [--processes N] [--kill-one-after SECONDS]
#          [--server-arg ARG]... [--out DIR] [--label TEXT] [--no-self-check]
#          SERVER BENCH JOURNAL_CHECK -- BENCH_ARGS...
#
# Starts N (default 2) `SERVER http --listen 127.0.0.1:0 --data-dir TMP
# --max-tracking-sessions 100000 --max-tracking-sessions-per-principal
# 100000 ARGS` at once, all on the same directory (the bench's clients are
# all principal `local`: 64 of them need more than the default 50 per
# principal), and runs one `BENCH --url URL_i --server-pid PID_i --ack-log ACK_i --json
# BENCH_ARGS` against each, concurrently (BENCH_ARGS: the load, e.g.
# --scenario workflow --clients 4 --duration 2s). Prints each bench's
# figures and the aggregate (calls/s summed, the worst p50 and p99, errors
# summed), stops the servers with SIGTERM (each must exit 0), and runs
# `JOURNAL_CHECK --data-dir TMP --ack-log ACKS` over the N ack logs
# concatenated: every acknowledged change present, none applied twice. Then a self-check: the
# checker must fail on a copy of the journal with one acknowledged
# task_started event doubled (needs the sqlite3 CLI; skipped without it)
# and on the logs plus an invented acknowledgement.
#
# --kill-one-after S: SIGKILL the last server S seconds into the run (its
# bench must exit 1: its requests fail; BENCH_ARGS must keep the benches
# running past S). The other benches must still see no error at all, and the
# check covers the killed server's acknowledgements too.
#
# Fails (exit 1) when a server does not start (a build before issue 15 lets
# one server use a directory: the second waits 2 s and exits 1), a bench
# reports an error a kill does not explain, a server does not stop cleanly,
# or the check fails. Server log lines mentioning SQLITE_BUSY or a locked
# database are counted and shown, not judged (a request they failed is a
# bench error). --out DIR keeps every file there (bench JSON and stderr,
# server logs, summary.json, the check's output); otherwise KEEP_WORK=1
# keeps the temporary directory. --no-self-check skips the self-check.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"

processes=2
kill_after=
server_args=()
out=
label=
self_check=1
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="$2"; shift 2 ;;
    --kill-one-after) kill_after="$2"; shift 2 ;;
    --server-arg) server_args+=("$2"); shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --no-self-check) self_check=0; shift ;;
    *) break ;;
  esac
done
if [ $# -lt 3 ] || ! [[ "$processes" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [--processes N] [--kill-one-after S] [--server-arg ARG]... [--out DIR] [--label TEXT] [--no-self-check] SERVER BENCH JOURNAL_CHECK -- BENCH_ARGS..." >&2
  exit 2
fi
server="$1"
bench="$2"
check="$3"
shift 3
[ "${1:-}" = "--" ] && shift
if [ -n "$kill_after" ] && [ "$processes" -lt 2 ]; then
  echo "$0: --kill-one-after needs --processes 2 or more" >&2
  exit 2
fi

if [ -n "$out" ]; then
  mkdir -p "$out" || exit 2
  work="$(cd "$out" && pwd)"
  keep=1
else
  work="$(mktemp -d)"
  keep="${KEEP_WORK:-0}"
fi
data="$work/data"
# Server log lines on contention: SQLITE_BUSY, a locked or busy database.
busy_re='sqlite_busy|sqlite_locked|database( table)? is locked|busy[ _-]?timeout|\bbusy\b'
pids=()
bench_pids=()
cleanup() {
  local p
  for p in "${bench_pids[@]}" "${pids[@]}"; do
    [ -n "$p" ] && { kill -KILL "$p"; wait "$p"; } 2>/dev/null
  done
  if [ "$keep" = 1 ]; then
    [ -z "$out" ] && echo "kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  local i
  for i in $(seq "$processes"); do
    echo "--- server $i log (last lines):" >&2
    tail -n 15 "$work/server.$i.log" >&2 2>/dev/null
    if [ -s "$work/bench.$i.err" ]; then
      echo "--- bench $i stderr (last lines):" >&2
      tail -n 15 "$work/bench.$i.err" >&2
    fi
  done
  exit 1
}

# -- N servers on one directory, started at once
for i in $(seq "$processes"); do
  "$server" http --listen 127.0.0.1:0 --data-dir "$data" \
    --max-tracking-sessions 100000 \
    --max-tracking-sessions-per-principal 100000 "${server_args[@]}" \
    2>"$work/server.$i.log" &
  pids[i]=$!
done
urls=()
for i in $(seq "$processes"); do
  urls[i]="$(wait_for_url "$work/server.$i.log" "${pids[i]}")"
  if [ -z "${urls[i]}" ]; then
    if ! kill -0 "${pids[i]}" 2>/dev/null; then
      wait "${pids[i]}"
      rc=$?
      pids[i]=
      fail "server $i of $processes exited with status $rc before serving" \
           "(a build before issue 15 lets one server use a data directory)"
    fi
    fail "server $i of $processes did not say its URL within 10 s"
  fi
done
echo "${label:+$label: }$processes server process(es) on $data ${server_args[*]}"
for i in $(seq "$processes"); do
  echo "  server $i: pid ${pids[i]} at ${urls[i]}"
done

# -- one bench per server, concurrently
t0=$(date +%s.%N)
for i in $(seq "$processes"); do
  "$bench" --url "${urls[i]}" --server-pid "${pids[i]}" \
    --ack-log "$work/acks.$i.tsv" --json "$@" \
    >"$work/bench.$i.json" 2>"$work/bench.$i.err" &
  bench_pids[i]=$!
done
killed=0
server_rc=()
if [ -n "$kill_after" ]; then
  killed=$processes
  sleep "$kill_after"
  for i in $(seq "$processes"); do
    kill -0 "${bench_pids[i]}" 2>/dev/null \
      || fail "bench $i ended before the kill: lengthen its --duration"
    kill -0 "${pids[i]}" 2>/dev/null || fail "server $i died before the kill"
  done
  # (Braces and 2>/dev/null: no "Killed" job notice from bash.)
  { kill -KILL "${pids[killed]}"; wait "${pids[killed]}"; server_rc[killed]=$?; } 2>/dev/null
  pids[killed]=
  t_kill=$(date +%s.%N)
  awk -v a="$t0" -v k="$t_kill" 'BEGIN {
    printf "server '"$killed"' killed with SIGKILL %.2f s into the run\n", k - a }'
fi
bench_rc=()
for i in $(seq "$processes"); do
  wait "${bench_pids[i]}"
  bench_rc[i]=$?
  bench_pids[i]=
done

# -- stop the servers (SIGTERM by pid), each must exit 0
for i in $(seq "$processes"); do
  [ -n "${pids[i]}" ] && kill -TERM "${pids[i]}" 2>/dev/null
done
for i in $(seq "$processes"); do
  if [ -n "${pids[i]}" ]; then
    wait "${pids[i]}"
    server_rc[i]=$?
    pids[i]=
  fi
done

# -- figures: per process and in all
manifest="$work/manifest.tsv"
: >"$manifest"
for i in $(seq "$processes"); do
  # The journal's own count at shutdown: "N events in M transactions; C
  # claims, L loads; W waits for other servers' transactions (T ms)"
  # (claims: checks of a session against the journal; loads: those that
  # read it anew; waits: statements that waited for another server's write
  # lock, the contention, shown, not judged).
  line="$(grep -o "[0-9]* events in [0-9]* transactions; [0-9]* claims, [0-9]* loads; [0-9]* waits for other servers' transactions ([0-9]* ms)" \
           "$work/server.$i.log" | tail -n 1)"
  txn="$(echo "$line" | awk 'NF { print $1 "\t" $4 "\t" $6 "\t" $8 }')"
  busy="$(echo "$line" | awk 'NF { print $10 }')"
  wait_ms="$(echo "$line" | awk 'NF { gsub(/\(/, "", $16); print $16 }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$work/bench.$i.json" \
    "${bench_rc[i]}" "${server_rc[i]}" "$([ "$i" = "$killed" ] && echo 1 || echo 0)" \
    "${busy:-0}" "${txn:-			}" "${wait_ms:-0}" >>"$manifest"
done
node "$here/../multi_process_report.mjs" summarize --manifest "$manifest" \
  --label "${label:-run}" --processes "$processes" \
  --summary "$work/summary.json" || fail "the report failed"

for i in $(seq "$processes"); do
  if grep -Eiq "$busy_re" "$work/server.$i.log"; then
    echo "--- server $i log, lines on contention (first 5):"
    grep -Ei "$busy_re" "$work/server.$i.log" | head -n 5
  fi
  if grep -Eq ' (error|warning|critical) ' "$work/server.$i.log"; then
    echo "--- server $i log, warnings and errors (first 10):"
    grep -E ' (error|warning|critical) ' "$work/server.$i.log" | head -n 10
  fi
  if grep -q . "$work/bench.$i.err"; then
    echo "--- bench $i stderr (first 10 lines):"
    head -n 10 "$work/bench.$i.err"
  fi
done

for i in $(seq "$processes"); do
  if [ "$i" = "$killed" ]; then
    [ "${server_rc[i]}" -eq 137 ] \
      || fail "server $i's status was ${server_rc[i]}, not 137 (SIGKILL)"
    [ "${bench_rc[i]}" -eq 1 ] \
      || fail "bench $i (its server killed) exited ${bench_rc[i]}, not 1"
  else
    [ "${bench_rc[i]}" -eq 0 ] \
      || fail "bench $i exited ${bench_rc[i]}: errors no kill explains (see its stderr)"
    [ "${server_rc[i]}" -eq 0 ] \
      || fail "server $i exited ${server_rc[i]} on SIGTERM, not 0"
  fi
done

# -- the journal: every acknowledged change exactly once
# All processes' acknowledgements as one log (a journal_check of any
# version reads it).
echo "--- journal check:"
for i in $(seq "$processes"); do
  cat "$work/acks.$i.tsv"
done >"$work/acks.tsv"
acks=(--ack-log "$work/acks.tsv")
"$check" --data-dir "$data" "${acks[@]}" | tee "$work/check.out"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "journal_check exited $rc: acknowledged changes missing or applied twice (or an empty log)"

[ "$self_check" = 1 ] || exit 0
# The checker must be able to fail, on this very journal: one acknowledged
# task_started event doubled, in a copy; and an invented acknowledgement.
if command -v sqlite3 >/dev/null; then
  cp -r "$data" "$work/data-doubled"
  task_ack="$(grep -m1 "^time_task_start	" "$work/acks.tsv")"
  sid="$(printf '%s' "$task_ack" | cut -f2)"
  task="$(printf '%s' "$task_ack" | cut -f3)"
  if sqlite3 "$work/data-doubled/journal.sqlite3" >"$work/doubled.err" 2>&1 <<SQL
CREATE TEMP TABLE twin AS
  SELECT e.* FROM events e JOIN sessions s ON s.sid = e.sid
  WHERE s.session_id = '$sid' AND e.task_id = '$task'
    AND e.kind = 'task_started' LIMIT 1;
UPDATE twin SET seq = (SELECT max(seq) + 1 FROM events);
INSERT INTO events SELECT * FROM twin;
SELECT 'doubled ' || changes();
SQL
  [ "$(cat "$work/doubled.err")" = "doubled 1" ]
  then
    "$check" --data-dir "$work/data-doubled" "${acks[@]}" \
      >"$work/check-doubled.out" 2>&1
    rc=$?
    [ "$rc" -eq 1 ] && grep -q 'applied more than once: 1$' "$work/check-doubled.out" \
      || { cat "$work/check-doubled.out"; fail "journal_check (status $rc) accepted a doubled task_started event"; }
    echo "self-check: journal_check fails on the journal with one task_started doubled"
  else
    echo "self-check skipped: could not double an event: $(cat "$work/doubled.err")"
  fi
  rm -rf "$work/data-doubled"
else
  echo "self-check of doubled events skipped: no sqlite3 command"
fi
sid="$(cut -f2 "$work/acks.tsv" | head -n 1)"
printf 'time_task_start\t%s\tNOT-A-TASK\t-\n' "$sid" >"$work/acks-invented.tsv"
"$check" --data-dir "$data" "${acks[@]}" --ack-log "$work/acks-invented.tsv" \
  >"$work/check-invented.out" 2>&1
[ $? -eq 1 ] || { cat "$work/check-invented.out"; fail "journal_check accepted an invented acknowledgement"; }
echo "self-check: journal_check fails on an invented acknowledgement"
