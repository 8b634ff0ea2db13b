#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests (Debian `postgresql`).
#
#   pg_server.sh start DIR   initdb in DIR/data (if not there yet), start the
#                            server on a free loopback port with its unix
#                            socket in DIR, wait until it accepts connections,
#                            and print its connection URI on stdout, e.g.
#                            postgresql://ttm@127.0.0.1:54321/ttm
#                            (also written to DIR/uri). Started already:
#                            prints its URI again.
#   pg_server.sh stop DIR    stop it (fast shutdown, by the PID in
#                            DIR/data/postmaster.pid); nothing if not running.
#   pg_server.sh restart DIR stop, then start on the same port and data.
#
# DIR is created if missing; the server runs as the invoking user, or, when
# that is root (CI), as `nobody` (initdb refuses root): DIR is chowned to it,
# so DIR's parents must be traversable by nobody (/tmp is). Trust
# authentication on loopback only; fsync off (test data). The database `ttm`
# and the superuser `ttm` exist. Logs: DIR/log. Env PG_BIN overrides the
# directory of initdb/pg_ctl (default: /usr/lib/postgresql/15/bin, else PATH).
# Env PG_DURABLE=1: start with PostgreSQL's defaults instead (fsync,
# synchronous_commit and full_page_writes on), for the one test of
# `check` on a healthy server; `restart` without it turns them off again.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z $cmd || -z $dir ]]; then
  echo "usage: $0 start|stop|restart DIR" >&2
  exit 2
fi
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
[[ -x $bin/initdb ]] || bin=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
if [[ ! -x $bin/initdb ]]; then
  echo "$0: initdb not found (install Debian postgresql, or set PG_BIN)" >&2
  exit 3
fi

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start() {
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [[ $(id -u) -eq 0 ]]; then chown -R nobody: "$dir"; fi
  if [[ ! -f $dir/data/PG_VERSION ]]; then
    as_owner "$bin/initdb" -D "$dir/data" -U ttm --auth=trust \
      --no-instructions -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 1
    }
  fi
  # Running already (a start without a stop): the same URI again.
  if [[ -f $dir/data/postmaster.pid && -f $dir/uri ]] \
    && kill -0 "$(head -1 "$dir/data/postmaster.pid")" 2>/dev/null; then
    cat "$dir/uri"
    return 0
  fi
  local port durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [[ ${PG_DURABLE:-} == 1 ]] && durability="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
  # A port chosen here (not kept from a start before: a restart keeps its
  # URI) may be taken by another test between free_port and the bind: then
  # another port, up to 5 tries.
  local kept=0
  if [[ -f $dir/port ]]; then port=$(cat "$dir/port"); kept=1; else port=$(free_port); fi
  local try logged
  for try in 1 2 3 4 5; do
    echo "$port" >"$dir/port"
    [[ $(id -u) -eq 0 ]] && chown nobody: "$dir/port"
    logged=$(stat -c %s "$dir/log" 2>/dev/null || echo 0)
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 start \
      -o "-h 127.0.0.1 -p $port -k $dir $durability -c max_connections=200" \
      >/dev/null 2>"$dir/pg_ctl.err"; then
      break
    fi
    if [[ $kept == 0 && $try -lt 5 ]] \
      && tail -c +"$((logged + 1))" "$dir/log" | grep -q "Address already in use"; then
      port=$(free_port)
      continue
    fi
    cat "$dir/pg_ctl.err" >&2
    tail -20 "$dir/log" >&2
    exit 1
  done
  if ! as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U ttm -d postgres -Atqc \
    "SELECT 1 FROM pg_database WHERE datname = 'ttm'" | grep -q 1; then
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U ttm ttm
  fi
  local uri="postgresql://ttm@127.0.0.1:$port/ttm"
  echo "$uri" >"$dir/uri"
  echo "$uri"
}

stop() {
  [[ -d $dir ]] || return 0
  dir=$(cd "$dir" && pwd)
  local pidfile=$dir/data/postmaster.pid
  [[ -f $pidfile ]] || return 0
  local pid
  pid=$(head -1 "$pidfile")
  kill -INT "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "$0: postgres $pid did not stop in 30 s" >&2
  exit 1
}

case $cmd in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  *) echo "usage: $0 start|stop|restart DIR" >&2; exit 2 ;;
esac
