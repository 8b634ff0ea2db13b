#!/usr/bin/env bash
# Which unit cases start a thread (docs/reliability.md, "ThreadSanitizer"):
# the ThreadSanitizer pass runs only the files that have one
# (TTM_TSAN_UNIT_FILES in tests/CMakeLists.txt); a case on one thread gives
# TSan nothing to check. Runs each case of a (Release) unit_tests alone with
# pthread_create counted (an LD_PRELOAD shim) and prints the count, the exit
# status and the name of every case that created a thread. Not in CI: a
# check by hand when a test file starts using threads.
# Usage: tests/scripts/tsan_thread_survey.sh build/tests/unit_tests [filter]
set -euo pipefail
unit_tests="$(realpath "$1")"
filter="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/count.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static atomic_int created;
int pthread_create(pthread_t* t, const pthread_attr_t* a,
                   void* (*f)(void*), void* arg) {
  static int (*real)(pthread_t*, const pthread_attr_t*, void* (*)(void*),
                     void*);
  if (!real)
    real = dlsym(RTLD_NEXT, "pthread_create");
  atomic_fetch_add(&created, 1);
  return real(t, a, f, arg);
}
/* The unit_tests process only: a server a case starts inherits the shim. */
__attribute__((destructor)) static void report(void) {
  const char* out = getenv("SURVEY_OUT");
  char exe[4096] = {0};
  if (!out || readlink("/proc/self/exe", exe, sizeof exe - 1) < 0
      || strcmp(exe, getenv("SURVEY_EXE")) != 0)
    return;
  FILE* f = fopen(out, "w");
  if (f) {
    fprintf(f, "%d\n", atomic_load(&created));
    fclose(f);
  }
}
EOF
gcc -shared -fPIC -O1 -o "$work/count.so" "$work/count.c" -ldl
total=0
threaded=0
while IFS= read -r name; do
  [ -n "$name" ] || continue
  total=$((total + 1))
  # Catch2's test spec: escape its special characters to match the name.
  spec="$(printf '%s' "$name" | sed -e 's/\\/\\\\/g' -e 's/,/\\,/g' \
    -e 's/\[/\\[/g' -e 's/\]/\\]/g' -e 's/\*/\\*/g' -e 's/"/\\"/g')"
  rc=0
  SURVEY_OUT="$work/n" SURVEY_EXE="$unit_tests" LD_PRELOAD="$work/count.so" \
    "$unit_tests" "$spec" >/dev/null 2>&1 || rc=$?
  n="$(cat "$work/n" 2>/dev/null || echo '?')"
  rm -f "$work/n"
  if [ "$n" != 0 ]; then
    threaded=$((threaded + 1))
    printf '%s\t%s\t%s\n' "$n" "$rc" "$name"
  fi
done < <("$unit_tests" --list-test-names-only $filter)
echo "$threaded of $total cases started a thread (or could not be counted: ?)" >&2
