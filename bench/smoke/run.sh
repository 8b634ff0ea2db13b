#!/usr/bin/env bash
# A smoke run of time-tracker-bench against time-tracker-mcp, for ctest: no
# figure is checked, only the bench's exit status (non-zero on any protocol
# or validation error) and that the server exits cleanly.
#
# Usage: run.sh [--stdio] [--expect-exit N] [--server-arg ARG]... \
#               SERVER BENCH -- BENCH_ARGS...
#   HTTP (default): starts `SERVER http --listen 127.0.0.1:0 ARGS`, finds its
#   URL in the start-up log, runs `BENCH --url URL --server-pid PID
#   BENCH_ARGS`, then stops the server with SIGTERM (it must exit 0).
#   --stdio: runs `BENCH BENCH_ARGS --server-log FILE --stdio -- SERVER
#   stdio ARGS` (the bench checks the server's exit status).
# Exits 0 when the bench's exit status is N (default 0).
set -uo pipefail
. "$(dirname "$0")/common.sh"

mode=http
expect=0
server_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --stdio) mode=stdio; shift ;;
    --expect-exit) expect="$2"; shift 2 ;;
    --server-arg) server_args+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
server="$1"
bench="$2"
shift 2
[ "${1:-}" = "--" ] && shift

work="$(mktemp -d)"
# The server's journal lives with the run, never in the user's directory.
# Over stdio the handshake starts a server per iteration, several at once:
# one directory cannot serve them all (one server per directory), so those
# run without a journal.
case " ${server_args[*]} " in
  *" --data-dir"* | *" --ephemeral"*) ;;
  *)
    if [ "$mode" = stdio ] && [[ " $* " =~ " --scenario "(handshake|mixed)" " ]]; then
      server_args+=(--ephemeral)
    else
      server_args+=(--data-dir "$work/journal")
    fi
    ;;
esac
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

if [ "$mode" = stdio ]; then
  "$bench" "$@" --server-log "$work/server.log" \
    --stdio -- "$server" stdio "${server_args[@]}"
  rc=$?
  echo "bench exit status: $rc (expected $expect)"
  if [ "$rc" -ne "$expect" ]; then
    echo "the server's log (last lines):" >&2
    tail -n 50 "$work/server.log" >&2
  fi
  [ "$rc" -eq "$expect" ]
  exit
fi

"$server" http --listen 127.0.0.1:0 "${server_args[@]}" 2>"$work/server.log" &
pid=$!
url="$(wait_for_url "$work/server.log" "$pid")"
if [ -z "$url" ]; then
  echo "the server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
fi

"$bench" --url "$url" --server-pid "$pid" "$@"
rc=$?
echo "bench exit status: $rc (expected $expect)"

kill -TERM "$pid"
wait "$pid"
server_rc=$?
pid=
if [ "$server_rc" -ne 0 ]; then
  echo "the server exited with status $server_rc; its log:" >&2
  tail -n 50 "$work/server.log" >&2
  exit 1
fi
[ "$rc" -eq "$expect" ]
