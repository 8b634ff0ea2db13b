# Shared by the README's two commands. Sourced, not run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"

# Debian packages needed to build the server, its tests and benchmarks.
BUILD_PACKAGES=(g++ make cmake ccache git libcaf-dev rapidjson-dev
  libhowardhinnant-date-dev libboost-dev libsqlite3-dev catch2
  libbenchmark-dev tzdata)

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
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
}

# Configures (once) and builds a tree. Incremental: an up-to-date tree
# builds nothing.
build_tree() {
  local dir="$1"; shift
  if [ ! -f "$ROOT/$dir/CMakeCache.txt" ]; then
    say "configuring $dir"
    cmake -S "$ROOT" -B "$ROOT/$dir" "$@" >&2
  fi
  local targets=() t
  for t in "${TTM_BUILD_TARGETS[@]}"; do targets+=(--target "$t"); done
  # Build chatter goes to stderr: stdout may be an MCP client's pipe.
  cmake --build "$ROOT/$dir" -j"$(nproc)" "${targets[@]}" >&2
}
