#!/usr/bin/env bash
# scripts/check_layers.sh on small made-up trees: it passes a clean one and
# fails, naming the culprit, on a back-edge, a forbidden peer, a cycle, one
# of our headers included as <...> or by a relative path, a .h file, and a
# tool name used as a string outside src/tools.
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
  printf '#include "protocol/p.hpp"\n#include <string>\n' >"$t/src/domain/d.hpp"
  printf '#include "domain/d.hpp"\n#include <rapidjson/document.h>\n' \
    >"$t/src/domain/d.cpp"
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

# Ours in angle brackets: the same file, spelt so the checks above miss it.
t=$(tree angle); printf '#include <domain/d.hpp>\n' >>"$t/src/tools/t.hpp"
expect 1 "angle include: src/tools/t.hpp includes <domain/d.hpp>, ours" "$t"
t=$(tree angle_back); printf '#include <actors/a.hpp>\n' >>"$t/src/domain/d.hpp"
expect 1 "angle include: src/domain/d.hpp includes <actors/a.hpp>, ours" "$t"

# Relative paths: up a folder, or a bare name found only beside the file.
t=$(tree dotdot); printf '#include "../domain/d.hpp"\n' >>"$t/src/tools/t.hpp"
expect 1 'relative include: src/tools/t.hpp includes "../domain/d.hpp"' "$t"
t=$(tree dotdot_angle); printf '#include <../src/domain/d.hpp>\n' >>"$t/src/tools/t.hpp"
expect 1 "relative include: src/tools/t.hpp includes <../src/domain/d.hpp>" "$t"
t=$(tree beside); printf '#include "d.hpp"\n' >>"$t/src/domain/d.cpp"
expect 1 'relative include: src/domain/d.cpp includes "d.hpp"' "$t"

# Only .hpp and .cpp among our sources; a .h elsewhere (tests, vendored
# code outside protocol/, actors/, src/) is not ours to check.
t=$(tree dot_h); mkdir -p "$t/tests"; echo '#pragma once' >"$t/tests/helper.h"
expect 0 "no back-edges, no cycles" "$t"
echo '#pragma once' >"$t/src/domain/old.h"
expect 1 "not .hpp/.cpp: src/domain/old.h" "$t"

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
