#pragma once

// Restores TZ (and glibc's idea of it) when a test that sets it ends.

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace ttm::test {

struct tz_env_guard {
  std::optional<std::string> saved;
  tz_env_guard() {
    if (const char* v = std::getenv("TZ"))
      saved = v;
  }
  ~tz_env_guard() {
    if (saved)
      ::setenv("TZ", saved->c_str(), 1);
    else
      ::unsetenv("TZ");
    ::tzset();
  }
};

} // namespace ttm::test
