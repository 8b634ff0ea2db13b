#!/usr/bin/env bash
# Checks the #include "..." lines of the server's sources against the layers
# (docs/architecture.md), lowest first:
#   protocol, log, metrics  <  domain, reports, tools, storage  <  journal
#   <  mcp  <  actors  <  edge, admin, config, main
# A file may include its own layer and any lower one; of two layers on one
# level only tools -> reports -> domain, tools -> domain, edge -> config,
# admin -> config and main -> edge/admin/config are allowed (storage stays testable alone, domain knows no storage). Also
# fails on an include cycle between units (x.hpp and x.cpp are one unit), on
# our own headers included as <...> or by a relative path ("../x.hpp", or
# "x.hpp" found only beside the including file), and on C/C++ files that
# are not .hpp/.cpp (.h, .cc, ...).
# Folders that do not exist (yet) are skipped. Usage: check_layers.sh [ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

layer_of() {
  case $1 in
    protocol/*) echo protocol ;;
    src/log.* | src/log_*) echo log ;;
    src/metrics.*) echo metrics ;;
    src/lazy_libs*) echo lazy ;;
    src/domain/*) echo domain ;;
    src/reports/*) echo reports ;;
    src/tools/*) echo tools ;;
    src/storage/*) echo storage ;;
    src/journal/*) echo journal ;;
    src/mcp/*) echo mcp ;;
    actors/*) echo actors ;;
    src/edge/*) echo edge ;;
    src/admin/*) echo admin ;;
    src/config.* | src/config_*) echo config ;;
    src/main.cpp | src/wiring.* | src/crash_signals.*) echo main ;;
    *) echo unknown ;;
  esac
}

rank_of() {
  case $1 in
    protocol | log | metrics | lazy) echo 0 ;;
    domain | reports | tools | storage) echo 1 ;;
    journal) echo 2 ;;
    mcp) echo 3 ;;
    actors) echo 4 ;;
    edge | admin | config | main) echo 5 ;;
    *) echo 99 ;;
  esac
}

# Same level, different layer: allowed only for these.
peer_allowed() {
  case "$1>$2" in
    "tools>domain" | "tools>reports" | "reports>domain" | "edge>config" | "admin>config" | "main>edge" | "main>admin" | "main>config") return 0 ;;
    *) return 1 ;;
  esac
}

dirs=()
for d in protocol actors src; do
  [ -d "$d" ] && dirs+=("$d")
done

failures=0
files=0
includes=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

# Ours are .hpp and .cpp only.
while IFS= read -r file; do
  echo "not .hpp/.cpp: $file (our sources are .hpp and .cpp)"
  failures=$((failures + 1))
done < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.hh' -o -name '*.hxx' \
           -o -name '*.c' -o -name '*.cc' -o -name '*.cxx' -o -name '*.ipp' \) | sort)

# The file of ours an include names from the source root, if any.
ours() {
  local t
  case $1 in
    protocol/* | actors/*) t=$1 ;;
    *) t=src/$1 ;;
  esac
  [ -f "$t" ] && echo "$t"
}

while IFS= read -r file; do
  files=$((files + 1))
  from=$(layer_of "$file")
  if [ "$from" = unknown ]; then
    echo "unplaced: $file belongs to no layer (add it to scripts/check_layers.sh)"
    failures=$((failures + 1))
    continue
  fi
  from_rank=$(rank_of "$from")
  while IFS=' ' read -r delim inc; do
    # Ours are named from the source root, in quotes: one spelling per file,
    # which is what the layer and cycle checks below can follow.
    case $inc in
      ../* | */../* | ./* | */./*)
        if [ "$delim" = '<' ]; then spelt="<$inc>"; else spelt="\"$inc\""; fi
        echo "relative include: $file includes $spelt (name ours from the source root)"
        failures=$((failures + 1))
        continue ;;
    esac
    target=$(ours "$inc")
    if [ "$delim" = '<' ]; then
      if [ -n "$target" ]; then
        echo "angle include: $file includes <$inc>, ours (use \"$inc\")"
        failures=$((failures + 1))
      fi
      continue # a system or third-party header
    fi
    if [ -z "$target" ]; then
      if [ -f "$(dirname "$file")/$inc" ]; then
        echo "relative include: $file includes \"$inc\" (name ours from the source root)"
        failures=$((failures + 1))
      fi
      continue # not ours (or a test helper)
    fi
    includes=$((includes + 1))
    to=$(layer_of "$target")
    to_rank=$(rank_of "$to")
    if [ "$from" != "$to" ]; then
      if [ "$to_rank" -gt "$from_rank" ] \
         || { [ "$to_rank" -eq "$from_rank" ] && ! peer_allowed "$from" "$to"; }; then
        echo "back-edge: $file ($from) includes $inc ($to)"
        failures=$((failures + 1))
      fi
    fi
    a=${file%.*}
    b=${target%.*}
    [ "$a" != "$b" ] && echo "$a $b" >>"$edges"
  done < <(sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/" \1/p' \
               -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/< \1/p' "$file")
done < <(find "${dirs[@]}" -type f \( -name '*.hpp' -o -name '*.cpp' \) | sort)

# tsort names the units of every loop it meets on stderr.
if ! loops=$(sort -u "$edges" | tsort 2>&1 >/dev/null); then
  # One line per loop: "a -> b -> ...".
  echo "$loops" | awk '
    /input contains a loop/ { if (l != "") print "include cycle: " l; l = ""; next }
    /^tsort: / { sub(/^tsort: /, ""); l = (l == "" ? $0 : l " -> " $0) }
    END { if (l != "") print "include cycle: " l }'
  failures=$((failures + 1))
fi

# --- Tool names as strings (issue 28) ---------------------------------------
# A tool is named once, in its declaration (src/tools: tool_spec::name).
# Anywhere else in the server's sources a string literal that is a tool name
# ("time_session_report") is a lookup that goes around the declaration: ask
# the registry by role, preference_defaults() or instructions() instead.
# Tool names: those declared in src/tools (`spec.name = "..."`) and the
# chronometric ones. Comments do not count, nor prose that mentions a tool
# inside a longer string.
tool_name_literals() {
  local names pattern
  names=$( { [ -d src/tools ] && sed -n 's/.*spec\.name = "\([A-Za-z0-9_]*\)";.*/\1/p' src/tools/*.cpp
             printf '%s\n' get_time_context mark_session_start mark_session_end \
               request_break_if_needed idle_status; } | sort -u | paste -sd'|')
  pattern="\"($names)\""
  local file
  while IFS= read -r file; do
    # Comments become blanks (line numbers kept), then literals are matched.
    perl -0pe 's{/\*.*?\*/}{ (my $c = $&) =~ tr/\n//cd; $c }gse; s{//[^\n]*}{}g' "$file" \
      | grep -noE "$pattern" \
      | while IFS=: read -r line name; do
          echo "tool name as a string: $file:$line uses $name (outside src/tools; ask the registry: role, preference_defaults, instructions)"
        done
  done < <(find "${dirs[@]}" -type f \( -name '*.hpp' -o -name '*.cpp' \) -not -path 'src/tools/*' | sort)
}
named=$(tool_name_literals)
if [ -n "$named" ]; then
  echo "$named"
  failures=$((failures + $(wc -l <<<"$named")))
fi

if [ "$failures" -gt 0 ]; then
  echo "check_layers: $failures problem(s) in $files files"
  exit 1
fi
echo "check_layers: $files files, $includes includes of ours: no back-edges, no cycles, no tool names as strings outside src/tools"
