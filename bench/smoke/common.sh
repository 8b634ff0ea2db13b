# Shared by the smoke scripts and the bench drivers (bench/compare.sh,
# scaling.sh, multi_process.sh): sourced, not run.

# A load test measures the server's capacity from one address: the
# per-client rate limit (docs/operations.md) would refuse most of it. Set
# through the environment, which builds without the option ignore.
export TIME_TRACKER_MCP_RATE_LIMIT=off

# wait_for_url LOG PID: prints the URL the HTTP server PID logs in LOG
# ("serving MCP over HTTP at URL"), waiting up to 10 s; prints nothing if it
# exits or never says.
wait_for_url() {
  local log="$1" pid="$2" url=
  for _ in $(seq 200); do
    url="$(grep -o 'serving MCP over HTTP at http://[^ ;]*' "$log" \
           | head -1 | sed 's/.* at //')"
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  printf '%s' "$url"
}

# -- for the drivers that start one server at a time (compare.sh, scaling.sh)

# stop_server: ends the server $server_pid (SIGTERM; SIGKILL if it still
# runs 5 s later) and clears server_pid. Nothing to do without one.
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null
  local i
  for i in $(seq 100); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -KILL "$server_pid" 2>/dev/null
  wait "$server_pid" 2>/dev/null
  server_pid=
}

# rotate N WORD...: prints the words rotated left by N (each round in
# another order, so that drift of a shared machine hits all alike).
rotate() {
  local n="$1"; shift
  local a=("$@") k i
  k=${#a[@]}
  [ "$k" -gt 0 ] || return 0
  for ((i = 0; i < k; ++i)); do printf '%s ' "${a[$(((i + n) % k))]}"; done
}

# record F1 ... F6: one run's line in $MANIFEST, the report's input.
record() {
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$MANIFEST"
}
