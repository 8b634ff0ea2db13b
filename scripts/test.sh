#!/usr/bin/env bash
# The README's command 2 (and all that .ci/run does): install what the tests
# need, build, and run the whole suite twice: the Release build, then a build
# with AddressSanitizer and UndefinedBehaviorSanitizer; then a third pass
# with ThreadSanitizer of what runs threads: the unit cases that start more
# than one thread and the multi-process integration tests (ctest -L tsan;
# it builds the server and unit_tests_tsan only; TTM_TSAN=0 leaves it out):
# docs/reliability.md, "ThreadSanitizer".
source "$(dirname "$0")/common.sh"

ensure_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  ensure_packages nodejs npm
fi

# npm test tooling, pinned by committed lock files, installed into git-ignored
# node_modules/ folders: the official MCP SDK client for the integration
# tests, the MCP conformance suite and the MCP Inspector CLI (each with the
# Node 22 it needs), Mermaid for the browser checks of the reports,
# oidc-provider, the authorization server of the OAuth tests, and the MCP
# Apps host bridge with puppeteer-core and esbuild for the app's tests.
for npm_dir in "$ROOT/tests/integration" "$ROOT/tests/conformance" \
               "$ROOT/tests/inspector" "$ROOT/tests/browser" "$ROOT/tests/oauth" \
               "$ROOT/tests/app"; do
  stamp="$npm_dir/node_modules/.ttm-lock-sha256"
  want="$(sha256sum "$npm_dir/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing pinned npm test tooling in ${npm_dir#"$ROOT"/} (npm ci)"
    (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
  fi
done

tests_on=(-DTTM_BUILD_TESTS=ON -DTTM_BUILD_BENCH=ON)
build_tree build all -- -DCMAKE_BUILD_TYPE=Release "${tests_on[@]}"
build_tree build-asan all -- -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTTM_SANITIZE=ON "${tests_on[@]}"
# ThreadSanitizer (docs/reliability.md): a third build, of the server and
# the small unit_tests_tsan only (about 8-13 cold minutes on 2 cores, an
# estimate; its tests about a minute). TTM_TSAN=0 leaves it out.
if [ "${TTM_TSAN:-1}" = 1 ]; then
  build_tree build-tsan unit_tests_tsan time-tracker-mcp -- \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTTM_SANITIZE=thread \
    -DTTM_BUILD_TESTS=ON -DTTM_BUILD_BENCH=OFF
fi
# The libFuzzer targets (tests/fuzz): clang, only the libraries they need.
build_tree build-fuzz fuzz -- -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Release -DTTM_FUZZ=ON -DTTM_BUILD_TESTS=OFF \
  -DTTM_BUILD_BENCH=OFF

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

say "test suite, Release build"
(cd "$ROOT/build" && ctest --output-on-failure -j"$(nproc)")
say "test suite, sanitizer build (address, undefined)"
(cd "$ROOT/build-asan" && ctest --output-on-failure -j"$(nproc)")
# Each target replays its seeds and regression inputs, then fuzzes for a
# bounded time (TTM_FUZZ_SECONDS); scripts/fuzz.sh runs them long.
say "fuzz targets (libFuzzer), a bounded run each"
(cd "$ROOT/build-fuzz" && ctest --output-on-failure -j"$(nproc)")

# Every process of the pass (unit_tests, the servers the integration tests
# start) writes its reports to tsan-reports/ as well as failing: a report
# from a server whose exit no test looks at still fails the pass.
[ "${TTM_TSAN:-1}" = 1 ] || exit 0
say "test suite, ThreadSanitizer build (the tsan-labelled tests)"
tsan_reports="$ROOT/build-tsan/tsan-reports"
rm -rf "$tsan_reports" && mkdir -p "$tsan_reports"
tsan_status=0
(cd "$ROOT/build-tsan" &&
  TSAN_OPTIONS="suppressions=$ROOT/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1 log_path=$tsan_reports/report ${TSAN_OPTIONS:-}" \
  ctest --output-on-failure -j"$(nproc)" -L tsan) ||
  tsan_status=$?
if compgen -G "$tsan_reports/report*" >/dev/null; then
  cat "$tsan_reports"/report* >&2
  say "ThreadSanitizer reported the above (in $tsan_reports)"
  exit 1
fi
exit "$tsan_status"
