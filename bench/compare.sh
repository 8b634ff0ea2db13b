#!/usr/bin/env bash
# Side by side: time-tracker-mcp against the servers a user would pick
# instead, driven by time-tracker-bench in the same conditions (issue 6,
# item 2). See bench/README.md, "Comparison with peers".
#
#   HTTP   ours, Go mcp-time, a minimal server on the official TypeScript SDK,
#          and nginx answering with a static JSON-RPC reply (the loopback
#          ceiling, driven with --raw-post): --scenario with --clients for
#          --duration each.
#   stdio  ours, mcp-time (stdio) and a C echo server (the stdio floor):
#          sequential calls (1 client) for --stdio-duration each.
#   cold   ours, mcp-time and the echo floor: spawn to the initialize reply
#          (the stdio handshake scenario) for --cold-duration each.
#
# Every system runs once per round, each round in a rotated order, and each
# run on a freshly started server, so that drift of a shared machine hits all
# alike; the table shows medians over the rounds. Ratios are taken within a
# round (numerator and denominator from the same round), then the median of
# those. A run whose load generator used >= 90 % of the cores it was given
# (its own CPU time over the window, per --threads) is marked SATURATED: its
# req/s is the generator's limit, so it never serves as a ceiling and its
# round gives no ratio; the server's CPU per request (the bench reads it
# from /proc for the server's pid and its descendants: nginx's master and
# workers) is not limited by the generator, and gives the targets' row
# "req/s per server CPU-second vs nginx" from every round. Peers missing are
# installed (bench/peers/install.sh: npm, apt-get) unless --no-install; a
# peer that cannot be had is skipped with a message. Once installed, nothing
# touches the network. A manual tool: not part of ctest.
#
# Usage: bench/compare.sh [options]
#   --scenario NAME      HTTP scenario: get-current (default), ping or
#                        handshake (nginx runs only get-current and ping)
#   --clients N          HTTP virtual clients (64)
#   --duration D         measured time of one HTTP run (10s)
#   --warmup D           warm-up of one HTTP or stdio run (2s)
#   --rounds R           rounds (3)
#   --threads T          the bench's HTTP I/O threads (1)
#   --systems LIST       HTTP systems, comma-separated, in this order
#                        (ours,mcp-time,ts-sdk,nginx)
#   --stdio-duration D   measured time of one stdio run (5s); 0 skips stdio
#   --cold-duration D    measured time of one cold-start run (3s); 0 skips it
#   --no-http            skip the HTTP comparison
#   --open-duration D    after ours's closed-loop HTTP run of each round,
#                        ours again (a fresh server) in OPEN loop at half the
#                        req/s that run reached, for D (0: skip; default 0)
#   --journal-duration D workflow over HTTP (--journal-clients, 64), ours
#                        with its journal (--journal-sync full) against
#                        --ephemeral, each once per round (0: skip; default 0)
#   --idle-sessions M    memory: ours with M idle MCP sessions (the bench's
#                        idle-sessions scenario), once per round (0: skip;
#                        default 0)
#   --build DIR          build tree with time-tracker-mcp and
#                        time-tracker-bench (build)
#   --base DIR           another build tree of ours (say, main before a
#                        change), run as system 'base' beside ours in every
#                        section and round: before/after from one run
#   --no-build           do not (re)build them
#   --no-install         do not install missing peers (skip them)
#   --json               one JSON document on stdout instead of the tables
#   --keep               keep the work dir (every run's bench JSON and logs)
#   -h, --help
source "$(dirname "$0")/../scripts/common.sh"
# No per-client rate limit (capacity from one address), stop_server,
# rotate, record.
source "$ROOT/bench/smoke/common.sh"
# Failures are handled where they happen: a peer that fails is skipped, a
# run that fails is recorded.
set +e

usage() {
  sed -n '2,/^source /p' "$0" | sed '$d; s/^# \{0,1\}//'
}

scenario=get-current
clients=64
duration=10s
warmup=2s
rounds=3
threads=1
systems=ours,mcp-time,ts-sdk,nginx
stdio_duration=5s
cold_duration=3s
do_http=1
open_duration=0
journal_duration=0
journal_clients=64
idle_sessions=0
build_dir=build
base_dir=
do_build=1
do_install=1
json=0
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) scenario="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --systems) systems="$2"; shift 2 ;;
    --stdio-duration) stdio_duration="$2"; shift 2 ;;
    --cold-duration) cold_duration="$2"; shift 2 ;;
    --no-http) do_http=0; shift ;;
    --open-duration) open_duration="$2"; shift 2 ;;
    --journal-duration) journal_duration="$2"; shift 2 ;;
    --journal-clients) journal_clients="$2"; shift 2 ;;
    --idle-sessions) idle_sessions="$2"; shift 2 ;;
    --build) build_dir="$2"; shift 2 ;;
    --base) base_dir="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --no-install) do_install=0; shift ;;
    --json) json=1; shift ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$scenario" in
  get-current|ping|handshake) ;;
  *) echo "compare.sh: --scenario get-current, ping or handshake" >&2; exit 2 ;;
esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --rounds N >= 1" >&2; exit 2; }
is_zero() { [[ "$1" =~ ^0+(\.0*)?(ms|s|m)?$ ]]; }
[[ "$idle_sessions" =~ ^[0-9]+$ ]] || { echo "compare.sh: --idle-sessions M (a count)" >&2; exit 2; }
[[ "$journal_clients" =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --journal-clients N >= 1" >&2; exit 2; }

PEERS="$ROOT/bench/peers"
[[ "$build_dir" = /* ]] || build_dir="$ROOT/$build_dir"
SERVER="$build_dir/time-tracker-mcp"
BENCH="$build_dir/time-tracker-bench"
MCP_TIME="$PEERS/node_modules/mcp-time-linux-x64/bin/mcp-time"
ZONE_ARGS='{"timezone":"America/New_York"}'

# -- what is needed ------------------------------------------------------------

if ! command -v node >/dev/null; then
  [ "$do_install" = 1 ] && ensure_packages nodejs npm
  command -v node >/dev/null || {
    echo "compare.sh: needs node (Debian nodejs) for its report" >&2
    exit 1
  }
fi
if [ "$do_build" = 1 ]; then
  say "building time-tracker-mcp and time-tracker-bench in ${build_dir#"$ROOT"/}"
  build_tree "${build_dir#"$ROOT"/}" time-tracker-mcp time-tracker-bench \
    -- -DCMAKE_BUILD_TYPE=Release -DTTM_BUILD_BENCH=ON || exit 1
fi
BASE_SERVER=
if [ -n "$base_dir" ]; then
  [[ "$base_dir" = /* ]] || base_dir="$ROOT/$base_dir"
  BASE_SERVER="$base_dir/time-tracker-mcp"
  # Beside ours, wherever ours runs.
  case ",$systems," in
    *,base,*) ;;
    *) systems="$(printf '%s' ",$systems," | sed 's/,ours,/,ours,base,/; s/^,//; s/,$//')" ;;
  esac
fi
for b in "$SERVER" "$BENCH" $BASE_SERVER; do
  [ -x "$b" ] || { echo "compare.sh: $b is missing (drop --no-build)" >&2; exit 1; }
done
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build_dir/CMakeCache.txt" 2>/dev/null)"
[ "$build_type" = Release ] \
  || say "warning: ${build_dir#"$ROOT"/} is a '${build_type:-?}' build, not Release"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/ttm-compare.XXXXXX")"
MANIFEST="$WORK/manifest.tsv"
: >"$MANIFEST"
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
  fi
  if [ "$keep" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Peers: installed (or found) once; a missing one is skipped.
declare -A have=([ours]=1)
[ -n "$BASE_SERVER" ] && have[base]=1
skip() { # SYSTEM REASON
  have[$1]=0
  printf 'skip\t%s\t\t\t\t%s\n' "$1" "$2" >>"$MANIFEST"
  say "skipping $1: $2"
}
wanted=" ${systems//,/ } "
need_peer() { # PEER SYSTEM...: install PEER for the systems that use it
  local peer="$1"; shift
  local ok=1
  if [ "$do_install" = 1 ]; then
    "$PEERS/install.sh" "$peer" || ok=0
  else
    case "$peer" in
      mcp-time) [ -x "$MCP_TIME" ] || ok=0 ;;
      ts-sdk) [ -d "$PEERS/node_modules/@modelcontextprotocol/sdk" ] || ok=0 ;;
      nginx) command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || ok=0 ;;
      echo) [ -x "$PEERS/.build/echo_stdio" ] || ok=0 ;;
    esac
  fi
  local s
  for s in "$@"; do
    if [ "$ok" = 1 ]; then have[$s]=1; else skip "$s" "not installed (bench/peers/install.sh $peer)"; fi
  done
}
for s in ${systems//,/ }; do
  case "$s" in ours|mcp-time|ts-sdk|nginx) ;; base) [ -n "$BASE_SERVER" ] || {
    echo "compare.sh: system 'base' needs --base DIR" >&2; exit 2; } ;; *)
    echo "compare.sh: unknown system '$s' (ours, base, mcp-time, ts-sdk, nginx)" >&2
    exit 2 ;;
  esac
done
stdio_on=1; is_zero "$stdio_duration" && stdio_on=0
cold_on=1; is_zero "$cold_duration" && cold_on=0
open_on=1; is_zero "$open_duration" && open_on=0
[ "$do_http" = 1 ] || open_on=0
journal_on=1; is_zero "$journal_duration" && journal_on=0
if [[ "$wanted" == *" mcp-time "* ]] || [ $stdio_on = 1 ] || [ $cold_on = 1 ]; then
  need_peer mcp-time mcp-time
fi
[[ "$wanted" == *" ts-sdk "* ]] && [ "$do_http" = 1 ] && need_peer ts-sdk ts-sdk
if [[ "$wanted" == *" nginx "* ]] && [ "$do_http" = 1 ]; then
  if [ "$scenario" = handshake ]; then
    skip nginx "a static reply has no MCP session for the handshake scenario"
  else
    need_peer nginx nginx
  fi
fi
if [ $stdio_on = 1 ] || [ $cold_on = 1 ]; then need_peer echo echo; fi

# mcp-time's current-time tool and its arguments, from its tools/list: the
# tool was get_current_time in older releases, current_time in 0.4.0.
mcp_tool=
mcp_args=
if [ "${have[mcp-time]:-0}" = 1 ]; then
  probe="$({
    printf '%s\n' \
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"compare.sh","version":"1"}}}' \
      '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
      '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
    sleep 0.5
  } | timeout 10 "$MCP_TIME" --transport stdio 2>/dev/null || true)"
  read -r mcp_tool mcp_args < <(node -e '
    const zone = process.argv[1];
    let tools = [];
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      try { const m = JSON.parse(line); if (m.id === 2) tools = m.result.tools; } catch {}
    }
    const t = ["get_current_time", "current_time"].map((n) => tools.find((x) => x.name === n)).find(Boolean)
      || tools.find((x) => /current/.test(x.name));
    if (t) console.log(t.name, t.inputSchema?.properties?.timezone ? zone : "{}");
  ' "$ZONE_ARGS" <<<"$probe") || true
  if [ -z "$mcp_tool" ]; then
    skip mcp-time "its tools/list has no current-time tool"
  else
    say "mcp-time: tool $mcp_tool, arguments $mcp_args"
  fi
fi

# -- helpers -------------------------------------------------------------------

free_port() {
  node -e 'const s = require("net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# Waits until PORT accepts connections while PID lives.
wait_port() {
  local i
  for i in $(seq 200); do
    kill -0 "$2" 2>/dev/null || return 1
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# Peak RSS (VmHWM, KiB) of PID and its descendants, summed: nginx's master
# and workers; the others are one process.
tree_hwm() {
  local total=0 p c kib
  local pids=("$1") queue=("$1")
  while [ ${#queue[@]} -gt 0 ]; do
    p="${queue[0]}"; queue=("${queue[@]:1}")
    for c in $(pgrep -P "$p"); do pids+=("$c"); queue+=("$c"); done
  done
  for p in "${pids[@]}"; do
    kib="$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$p/status" 2>/dev/null)"
    total=$((total + ${kib:-0}))
  done
  echo "$total"
}

# The static reply nginx serves: ours to the same call, with id 1 (so the
# ceiling sends the same bytes), or an empty result for ping.
nginx_body() {
  if [ "$scenario" = ping ]; then
    echo '{"jsonrpc":"2.0","id":1,"result":{}}' >"$WORK/nginx-body.json"
    return
  fi
  {
    printf '%s\n' \
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"compare.sh","version":"1"}}}' \
      '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"time_get_current\",\"arguments\":$ZONE_ARGS}}"
    sleep 0.5
  } | timeout 10 "$SERVER" stdio --log-level off 2>/dev/null \
    | grep '^{"jsonrpc":"2.0","id":1,' >"$WORK/nginx-body.json"
  [ -s "$WORK/nginx-body.json" ]
}

our_binary() { # ours|base
  if [ "$1" = base ]; then echo "$BASE_SERVER"; else echo "$SERVER"; fi
}

# Starts SYSTEM over HTTP; sets server_pid, url and bench_args. Ours
# takes server_storage (default: a data directory of the run) and
# server_extra, both reset afterwards.
server_storage=()
server_extra=()
start_http() {
  local port
  port="$(free_port)"
  url="http://127.0.0.1:$port/mcp"
  bench_args=()
  local log="$WORK/$1.log"
  case "$1" in
    ours|base)
      # Its journal in a directory of this run, never the user's own
      # (server_storage: another one, or --ephemeral).
      [ ${#server_storage[@]} -gt 0 ] || server_storage=(--data-dir "$WORK/journal-$1")
      # --rate-limit off: the default 1000/s per principal is an abuse bound
      # (every bench client shares one address), not what is measured here.
      "$(our_binary "$1")" http --listen "127.0.0.1:$port" --log-level warning \
        --rate-limit off "${server_storage[@]}" "${server_extra[@]}" 2>>"$log" &
      ;;
    mcp-time)
      "$PEERS/start.sh" mcp-time "$port" 2>>"$log" &
      bench_args=(--tool "$mcp_tool" --args "$mcp_args")
      ;;
    ts-sdk)
      "$PEERS/start.sh" ts-sdk "$port" 2>>"$log" &
      ;;
    nginx)
      mkdir -p "$WORK/nginx"
      "$PEERS/start.sh" nginx "$port" "$WORK/nginx-body.json" "$WORK/nginx" 2>>"$log" &
      bench_args=(--raw-post)
      ;;
  esac
  server_pid=$!
  server_storage=()
  server_extra=()
  wait_port "$port" "$server_pid" || {
    say "$1 did not start; its log:"; tail -n 20 "$log" >&2
    stop_server
    return 1
  }
}

# The binaries themselves, not start.sh: a shell in front would add its own
# start-up to the cold start.
stdio_command() { # SYSTEM -> the server command, in cmd[]
  case "$1" in
    ours|base) cmd=("$(our_binary "$1")" stdio --log-level warning --rate-limit off --data-dir "$WORK/journal-$1") ;;
    mcp-time) cmd=("$MCP_TIME" --transport stdio) ;;
    echo) cmd=("$PEERS/.build/echo_stdio") ;;
  esac
}

tool_args() { # SYSTEM -> the bench's --tool/--args, in targs[]
  targs=()
  [ "$1" = mcp-time ] && targs=(--tool "$mcp_tool" --args "$mcp_args")
  return 0
}

# record SECTION SYSTEM ROUND FILE RSS EXIT (bench/smoke/common.sh)

present() { # SYSTEM...: those available
  local s
  for s in "$@"; do [ "${have[$s]:-0}" = 1 ] && printf '%s ' "$s"; done
}

# open_run SYSTEM ROUND CLOSED_JSON: ours (or base) in open loop at half
# the req/s of that round's closed-loop run of the same system (a fresh
# server; latency from the intended send time, so a stall counts as the
# queue it would have built).
open_run() {
  local who="$1" r="$2" closed="$3" rate out rc
  rate="$(node -e 'try { const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const x = d.total.throughput_rps / 2; if (x >= 1) console.log(Math.round(x)); } catch {}' "$closed")"
  if [ -z "$rate" ]; then
    record open "$who" "$r" "" "" no-closed-loop-rate
    return
  fi
  say "round $r/$rounds: HTTP $scenario, $who, open loop at $rate req/s"
  out="$WORK/open-$who-$r.json"
  if ! start_http "$who"; then
    record open "$who" "$r" "" "" start-failed
    return
  fi
  rc=0
  "$BENCH" --url "$url" --server-pid "$server_pid" --scenario "$scenario" \
    --clients "$clients" --duration "$open_duration" --warmup "$warmup" \
    --threads "$threads" --rate "$rate" --show-errors 3 --json >"$out" || rc=$?
  local rss
  rss="$(tree_hwm "$server_pid")"
  stop_server
  record open "$who" "$r" "$out" "$rss" "$rc"
}

# Ours, and base beside it (--base): the systems of the journal and memory
# stages.
ours_and_base=(ours)
[ -n "$BASE_SERVER" ] && ours_and_base+=(base)

# -- the runs ------------------------------------------------------------------

started_at="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
loadavg_before="$(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$do_http" = 1 ]; then
  # shellcheck disable=SC2046,SC2086 # words: system names
  set -- $(present ${systems//,/ })
  if [ "${have[nginx]:-0}" = 1 ] && ! nginx_body; then
    skip nginx "could not capture our reply for its static body"
    # shellcheck disable=SC2046
    set -- $(present "$@")
  fi
  http_systems=("$@")
  for ((r = 1; r <= rounds; ++r)); do
    for s in $(rotate $((r - 1)) "${http_systems[@]}"); do
      say "round $r/$rounds: HTTP $scenario, $s"
      out="$WORK/http-$s-$r.json"
      if ! start_http "$s"; then
        record http "$s" "$r" "" "" start-failed
        continue
      fi
      rc=0
      "$BENCH" --url "$url" --server-pid "$server_pid" --scenario "$scenario" \
        --clients "$clients" --duration "$duration" --warmup "$warmup" \
        --threads "$threads" --show-errors 3 --json "${bench_args[@]}" \
        >"$out" || rc=$?
      rss="$(tree_hwm "$server_pid")"
      stop_server
      record http "$s" "$r" "$out" "$rss" "$rc"
      case "$s" in ours|base) [ $open_on = 1 ] && open_run "$s" "$r" "$out" ;; esac
    done
  done
fi

# The journal stage: workflow over HTTP, ours with its journal (full, the
# default) against --ephemeral (systems full and ephemeral; base-full and
# base-ephemeral for --base), rotated each round; a fresh directory per run.
if [ $journal_on = 1 ]; then
  journal_systems=(full ephemeral)
  [ -n "$BASE_SERVER" ] && journal_systems+=(base-full base-ephemeral)
  for ((r = 1; r <= rounds; ++r)); do
    for s in $(rotate $((r - 1)) "${journal_systems[@]}"); do
      say "round $r/$rounds: workflow, journal $s"
      out="$WORK/journal-$s-$r.json"
      if [ "${s#base-}" = full ]; then
        server_storage=(--data-dir "$WORK/journal-workflow-$s-$r" --journal-sync full)
      else
        server_storage=(--ephemeral)
      fi
      server_extra=(--max-tracking-sessions 100000 --max-tracking-sessions-per-principal 100000)
      who=ours; [ "${s#base-}" = "$s" ] || who=base
      if ! start_http "$who"; then
        record journal "$s" "$r" "" "" start-failed
        continue
      fi
      rc=0
      "$BENCH" --url "$url" --server-pid "$server_pid" --scenario workflow \
        --clients "$journal_clients" --duration "$journal_duration" --warmup "$warmup" \
        --threads "$threads" --show-errors 3 --json >"$out" || rc=$?
      rss="$(tree_hwm "$server_pid")"
      stop_server
      record journal "$s" "$r" "$out" "$rss" "$rc"
    done
  done
fi

# Memory per idle MCP session: a fresh server per round admitting them all.
if [ "$idle_sessions" -gt 0 ]; then
  for ((r = 1; r <= rounds; ++r)); do
    for s in $(rotate $((r - 1)) "${ours_and_base[@]}"); do
      say "round $r/$rounds: $idle_sessions idle sessions, $s"
      out="$WORK/memory-$s-$r.json"
      server_extra=(--max-mcp-sessions $((idle_sessions + 200)))
      if ! start_http "$s"; then
        record memory "$s" "$r" "" "" start-failed
        continue
      fi
      rc=0
      "$BENCH" --url "$url" --server-pid "$server_pid" --scenario idle-sessions \
        --sessions "$idle_sessions" --show-errors 3 --json >"$out" || rc=$?
      rss="$(tree_hwm "$server_pid")"
      stop_server
      record memory "$s" "$r" "$out" "$rss" "$rc"
    done
  done
fi

read -r -a stdio_systems <<<"$(present ours base mcp-time echo)"
# stdio_rounds KIND LABEL SCENARIO DURATION WARMUP: every stdio system once
# per round, one client, recorded as KIND.
stdio_rounds() {
  local kind=$1 label=$2 scen=$3 dur=$4 warm=$5 r s rc out
  for ((r = 1; r <= rounds; ++r)); do
    for s in $(rotate $((r - 1)) "${stdio_systems[@]}"); do
      say "round $r/$rounds: $label, $s"
      out="$WORK/$kind-$s-$r.json"
      stdio_command "$s"; tool_args "$s"
      rc=0
      "$BENCH" --scenario "$scen" --clients 1 --duration "$dur" \
        --warmup "$warm" --show-errors 3 --json "${targs[@]}" \
        --server-log "$WORK/$kind-$s.log" --stdio -- "${cmd[@]}" >"$out" || rc=$?
      record "$kind" "$s" "$r" "$out" "" "$rc"
    done
  done
}
if [ $stdio_on = 1 ]; then
  stdio_rounds stdio "stdio sequential calls" get-current "$stdio_duration" "$warmup"
fi
if [ $cold_on = 1 ]; then
  stdio_rounds cold "cold start over stdio" handshake "$cold_duration" 0.5s
fi

# -- the report ----------------------------------------------------------------

versions="$WORK/versions.tsv"
{
  printf 'ours\t%s\n' "$("$SERVER" --version 2>/dev/null | head -1)"
  [ -n "$BASE_SERVER" ] && printf 'base\t%s (%s)\n' \
    "$("$BASE_SERVER" --version 2>/dev/null | head -1)" "$base_dir"
  [ -x "$MCP_TIME" ] && printf 'mcp-time\t%s\n' \
    "$("$MCP_TIME" --version 2>/dev/null | head -1 | sed 's/.*version //; s/ (.*//')"
  [ -f "$PEERS/node_modules/@modelcontextprotocol/sdk/package.json" ] \
    && printf 'ts-sdk\t%s\n' "@modelcontextprotocol/sdk $(node -p \
      "require('$PEERS/node_modules/@modelcontextprotocol/sdk/package.json').version") on node $(node --version)"
  ng="$(command -v nginx || echo /usr/sbin/nginx)"
  [ -x "$ng" ] && printf 'nginx\t%s\n' "$("$ng" -v 2>&1 | sed 's/.*: //')"
  printf 'echo\t%s\n' "bench/peers/echo_stdio.c"
} >"$versions"

node "$ROOT/bench/compare_report.mjs" \
  --manifest "$MANIFEST" --versions "$versions" --json "$json" \
  --scenario "$scenario" --clients "$clients" --duration "$duration" \
  --warmup "$warmup" --rounds "$rounds" --threads "$threads" \
  --stdio-duration "$stdio_duration" --cold-duration "$cold_duration" \
  --open-duration "$open_duration" --journal-duration "$journal_duration" \
  --journal-clients "$journal_clients" --idle-sessions "$idle_sessions" \
  --commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)" \
  --started "$started_at" --loadavg-before "$loadavg_before" \
  --loadavg-after "$(cut -d' ' -f1-3 /proc/loadavg)" \
  --cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
  --nproc "$(nproc)" --kernel "$(uname -r)"
