#pragma once

// The PostgreSQL tests that stop and start ctest's server (unit.storage_pg:
// tests/scripts/pg_server.sh, named by TTM_TEST_PG_SCRIPT and _DIR).

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace ttm::test {

/// tests/scripts/pg_server.sh `cmd` (stop, start) on ctest's server; its
/// exit status.
inline int pg_server_script(const char* cmd) {
  auto* script = std::getenv("TTM_TEST_PG_SCRIPT");
  auto* dir = std::getenv("TTM_TEST_PG_DIR");
  REQUIRE(script != nullptr);
  REQUIRE(dir != nullptr);
  auto line = std::string{"bash '"} + script + "' " + cmd + " '" + dir
              + "' >/dev/null";
  return std::system(line.c_str());
}

} // namespace ttm::test
