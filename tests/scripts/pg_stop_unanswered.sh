#!/usr/bin/env bash
# A server on PostgreSQL stops (SIGTERM) even when PostgreSQL stopped
# answering: its processes are stopped (SIGSTOP), so the kernel still
# acknowledges and neither keepalives nor tcp_user_timeout end the journal's
# wait for its lease renewal. Before the fix, ~actor_system waited for the
# journal actor for ever (systemctl stop ran into its kill timeout); now the
# wait gives up 5 s after shutdown began (stop_waiting_for_postgresql).
#
#   pg_stop_unanswered.sh BINARY
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/ttm-pg.XXXXXX)
chmod 755 "$dir"
server=
stopped=
cleanup() {
  [[ -n $stopped ]] && kill -CONT $stopped 2>/dev/null
  [[ -n $server ]] && kill -KILL "$server" 2>/dev/null
  bash "$here/pg_server.sh" stop "$dir"
  rm -rf "$dir"
}
trap cleanup EXIT
uri=$(bash "$here/pg_server.sh" start "$dir") || exit 1

"$bin" http --listen 127.0.0.1:0 --lease 3s --data-dir "$dir/state" \
  --journal "$uri" >"$dir/server.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
  grep -q '\[journal\] journal postgresql' "$dir/server.log" && break
  sleep 0.1
done
if ! grep -q '\[journal\] journal postgresql' "$dir/server.log"; then
  echo "the journal did not open:"; cat "$dir/server.log"; exit 1
fi

# Stop the database (postmaster and its children), then wait for a lease
# renewal (every second with --lease 3s) to be waiting on it.
pm=$(head -1 "$dir/data/postmaster.pid")
stopped="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
kill -STOP $stopped
sleep 2

start=$(date +%s)
kill -TERM "$server"
for _ in $(seq 1 300); do
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$server" 2>/dev/null; then
  echo "FAIL: the server did not exit within 30 s of SIGTERM with PostgreSQL not answering"
  cat "$dir/server.log"
  exit 1
fi
wait "$server"
code=$?
server=
echo "exited with $code $(($(date +%s) - start)) s after SIGTERM"
grep -q "PostgreSQL did not answer before shutdown" "$dir/server.log" || {
  echo "FAIL: no log line of the wait given up"; cat "$dir/server.log"; exit 1
}
[[ $code -eq 0 ]] || { echo "FAIL: exit code $code"; cat "$dir/server.log"; exit 1; }
echo ok
