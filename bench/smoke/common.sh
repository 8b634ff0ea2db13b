# Shared by the smoke scripts (sourced, not run).

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
