#!/usr/bin/env bash
# The README's command 2 (and all that .ci/run does): install what the tests
# need, build, and run the whole suite twice: the Release build, then a build
# with AddressSanitizer and UndefinedBehaviorSanitizer.
source "$(dirname "$0")/common.sh"

ensure_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  ensure_packages nodejs npm
fi

# npm test tooling, pinned by committed lock files, installed into git-ignored
# node_modules/ folders: the official MCP SDK client for the integration
# tests, the MCP conformance suite and the MCP Inspector CLI (each with the
# Node 22 it needs), and Mermaid for the browser checks of the reports.
for npm_dir in "$ROOT/tests/integration" "$ROOT/tests/conformance" \
               "$ROOT/tests/inspector" "$ROOT/tests/browser"; do
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
