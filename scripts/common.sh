# Shared by the README's two commands. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"

# Debian packages needed to build the server; the tests and benchmarks need
# TEST_PACKAGES too.
BUILD_PACKAGES=(g++ make cmake ccache libcaf-dev rapidjson-dev
  libhowardhinnant-date-dev libboost-dev libsqlite3-dev tzdata libicu-dev
  libsystemd-dev prometheus-cpp-dev libssl-dev libcurl4-openssl-dev libpq-dev)
# chromium: the browser checks of the reports (tests/browser), headless.
# sqlite3: the shell holds the journal's write lock in limits.test.mjs.
# prometheus: promtool and a real Prometheus scraping /metrics (tests).
# postgresql: a throwaway server (tests/scripts/pg_server.sh) for the
# PostgreSQL journal's tests.
# The package checks (tests/package): cpack's dpkg-shlibdeps (dpkg-dev, file),
# lintian, systemd-analyze (systemd), the man page (groff-base, man-db);
# python3 runs them and the sd_notify test.
# clang and libclang-rt-14-dev: the libFuzzer targets (tests/fuzz).
# nginx: the scale-out tests (tests/scaleout), in front of several nodes;
# openssl: a throw-away certificate for `nginx -t` of examples/deploy.
TEST_PACKAGES=(catch2 libbenchmark-dev chromium sqlite3 python3 prometheus
  dpkg-dev file lintian systemd groff-base man-db nginx openssl postgresql
  clang libclang-rt-14-dev)

say() { printf '==> %s\n' "$*" >&2; }

# Installs the named Debian packages that `dpkg -s` reports missing, so a
# machine that has them all touches neither the network nor apt's lists.
ensure_packages() {
  local missing=()
  local p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  # To stderr: stdout may be an MCP client's pipe (command 1).
  "${sudo[@]}" apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q \
    "${missing[@]}" >&2
}

# Configures and builds a tree. Configuring an up-to-date tree is a no-op and
# keeps the options those given here; an up-to-date build compiles nothing.
# Usage: build_tree DIR TARGET... -- CMAKE_ARGS...
build_tree() {
  local dir="$1"; shift
  local targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    targets+=(--target "$1"); shift
  done
  [ $# -gt 0 ] && shift
  # Build chatter goes to stderr: stdout may be an MCP client's pipe.
  cmake -S "$ROOT" -B "$ROOT/$dir" "$@" >&2
  cmake --build "$ROOT/$dir" -j"$(nproc)" "${targets[@]}" >&2
}
