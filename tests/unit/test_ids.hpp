#pragma once

// Id checks shared by the unit tests.

#include <string>

namespace ttm::test {

/// 8-4-4-4-12 lower-case hex, version nibble 4, variant 8..b.
inline bool is_uuid_v4(const std::string& id) {
  if (id.size() != 36)
    return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    char ch = id[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (ch != '-')
        return false;
    } else if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) {
      return false;
    }
  }
  return id[14] == '4' && std::string{"89ab"}.find(id[19]) != std::string::npos;
}

} // namespace ttm::test
