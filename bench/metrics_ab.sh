#!/usr/bin/env bash
# The cost of the metrics (or of any change) on time_get_current over HTTP:
# two server builds side by side in one run, benched in alternating rounds
# (A B, B A, ...) so both see the same machine load. Prints each round's
# req/s and the medians, and B's median relative to A's.
#
# Usage: bench/metrics_ab.sh BINARY_A BINARY_B BENCH [ROUNDS=6] [SECONDS=4] [CLIENTS=8]
#   BENCH: build/time-tracker-bench (TTM_BUILD_BENCH=ON).
set -uo pipefail
. "$(dirname "$0")/smoke/common.sh"

[ $# -ge 3 ] || { echo "usage: $0 BINARY_A BINARY_B BENCH [ROUNDS] [SECONDS] [CLIENTS]" >&2; exit 2; }
bin_a="$1" bin_b="$2" bench="$3"
rounds="${4:-6}" seconds="${5:-4}" clients="${6:-8}"

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

start() { # NAME BINARY: sets url_NAME and pid_NAME
  "$2" http --listen 127.0.0.1:0 --ephemeral \
    --session-idle-timeout 0 2>"$work/$1.log" &
  local pid=$! url
  pids+=("$pid")
  url="$(wait_for_url "$work/$1.log" "$pid")"
  [ -n "$url" ] || { echo "$1 did not start:" >&2; cat "$work/$1.log" >&2; exit 1; }
  printf -v "url_$1" '%s' "$url"
  printf -v "pid_$1" '%s' "$pid"
}
start a "$bin_a"
start b "$bin_b"

run() { # URL PID: prints the tools/call row's req/s and the server's CPU per reply (us)
  "$bench" --url "$1" --server-pid "$2" --scenario get-current \
    --clients "$clients" --duration "${seconds}s" --warmup 1s --json \
    | node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>{
        const r=JSON.parse(s);const ops=r.operations??r.ops??[];
        const row=ops.find((o)=>o.name.startsWith("tools/call"));
        console.log(row.throughput_rps.toFixed(0), (r.server?.cpu_per_reply_us ?? 0).toFixed(1));})'
}

a=() b=() ca=() cb=()
for i in $(seq "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then
    read -r ra xa < <(run "$url_a" "$pid_a"); read -r rb xb < <(run "$url_b" "$pid_b")
  else
    read -r rb xb < <(run "$url_b" "$pid_b"); read -r ra xa < <(run "$url_a" "$pid_a")
  fi
  a+=("$ra") b+=("$rb") ca+=("$xa") cb+=("$xb")
  printf 'round %d: A %s req/s (%s us CPU/reply), B %s req/s (%s us CPU/reply)\n' \
    "$i" "$ra" "$xa" "$rb" "$xb"
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ma="$(median "${a[@]}")" mb="$(median "${b[@]}")"
echo "median: A $ma req/s, B $mb req/s; B/A $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", b/a}')"
xa="$(median "${ca[@]}")" xb="$(median "${cb[@]}")"
echo "median server CPU per reply: A $xa us, B $xb us; B/A $(awk -v a="$xa" -v b="$xb" 'BEGIN {printf "%.3f", b/a}')"
