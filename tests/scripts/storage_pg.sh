#!/usr/bin/env bash
# ctest unit.storage_pg: the storage tests of both backends ([backends])
# and the PostgreSQL backend's own ([.pg]) against a throwaway PostgreSQL
# started by pg_server.sh. Usage: storage_pg.sh UNIT_TESTS_BINARY
set -u
bin=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/ttm-pg.XXXXXX)
chmod 755 "$dir"
trap 'bash "$here/pg_server.sh" stop "$dir"; rm -rf "$dir"' EXIT
uri=$(bash "$here/pg_server.sh" start "$dir") || exit 1
TTM_TEST_PG_URI=$uri TTM_TEST_PG_DIR=$dir \
  TTM_TEST_PG_SCRIPT=$here/pg_server.sh "$bin" "[backends],[pg]" "$@"
