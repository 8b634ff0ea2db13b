#!/usr/bin/env bash
# scripts/check_layers.sh on small made-up trees: it passes a clean one and
# fails, naming the culprit, on a back-edge, a forbidden peer, a cycle and
# a tool name used as a string outside src/tools.
set -u
check=${1:?usage: check_layers_test.sh path/to/check_layers.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

tree() { # tree NAME: a clean tree (no src/mcp: absent folders are fine)
  local t=$tmp/$1
  mkdir -p "$t/protocol" "$t/src/domain" "$t/src/storage" "$t/src/journal" \
           "$t/src/tools" "$t/actors"
  echo '#pragma once' >"$t/protocol/p.hpp"
  printf '#include "protocol/p.hpp"\n' >"$t/src/domain/d.hpp"
  printf '#include "domain/d.hpp"\n' >"$t/src/tools/t.hpp"
  printf '#include "protocol/p.hpp"\n' >"$t/src/storage/s.hpp"
  printf '#include "domain/d.hpp"\n#include "storage/s.hpp"\n' \
    >"$t/src/journal/j.hpp"
  printf '#include "journal/j.hpp"\n#include "tools/t.hpp"\n' \
    >"$t/actors/a.hpp"
  echo "$t"
}

expect() { # expect RC PATTERN DIR
  local out rc
  out=$(bash "$check" "$3" 2>&1)
  rc=$?
  if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" <<<"$out"; then
    echo "FAIL: wanted rc $1 and '$2' for $3, got rc $rc:"
    echo "$out"
    fail=1
  fi
}

expect 0 "no back-edges, no cycles" "$(tree clean)"

t=$(tree back); printf '#include "actors/a.hpp"\n' >>"$t/src/domain/d.hpp"
expect 1 "back-edge: src/domain/d.hpp (domain) includes actors/a.hpp" "$t"

t=$(tree peer); printf '#include "domain/d.hpp"\n' >>"$t/src/storage/s.hpp"
expect 1 "back-edge: src/storage/s.hpp (storage) includes domain/d.hpp" "$t"

# reports sits beside tools: tools -> reports -> domain, never back.
t=$(tree reports); mkdir -p "$t/src/reports"
printf '#include "domain/d.hpp"\n' >"$t/src/reports/r.hpp"
printf '#include "reports/r.hpp"\n' >>"$t/src/tools/t.hpp"
expect 0 "no back-edges, no cycles" "$t"
printf '#include "tools/t.hpp"\n' >"$t/src/reports/r.cpp"
expect 1 "back-edge: src/reports/r.cpp (reports) includes tools/t.hpp" "$t"

t=$(tree cycle)
printf '#include "protocol/q.hpp"\n' >"$t/protocol/p.cpp"
printf '#include "protocol/p.hpp"\n' >"$t/protocol/q.hpp"
expect 1 "include cycle: protocol/[pq] -> protocol/[pq]" "$t"

# Tool names as strings (issue 28): a tool is named in its declaration
# (src/tools) only; a comment or prose inside a longer string may name it.
t=$(tree names)
printf 'void f() { spec.name = "time_echo"; }\n' >"$t/src/tools/time_echo.cpp"
mkdir -p "$t/src/mcp"
printf '#include "tools/t.hpp"\n// "time_echo" in a comment\n/* "idle_status"\n   too */\nconst char* m = "call time_echo first";\n' \
  >"$t/src/mcp/m.cpp"
expect 0 "no tool names as strings outside src/tools" "$t"
printf 'const char* x = "time_echo";\n' >>"$t/src/mcp/m.cpp"
expect 1 'tool name as a string: src/mcp/m.cpp:6 uses "time_echo"' "$t"
t=$(tree chrono)
printf 'auto n = find("idle_status"); // the chronometric names count too\n' \
  >>"$t/actors/a.hpp"
expect 1 'tool name as a string: actors/a.hpp:3 uses "idle_status"' "$t"

[ "$fail" -eq 0 ] && echo "check_layers_test: all cases pass"
exit "$fail"
