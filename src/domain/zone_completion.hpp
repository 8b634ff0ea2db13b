#pragma once

// Zone names for MCP `completion/complete` (issue 16 item 6): what a client
// offers while the user types a `timezone` argument.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain {

struct completion_values {
  /// At most the `max` asked for, sorted.
  std::vector<std::string> values;
  /// How many names match in all.
  std::size_t total = 0;
};

/// IANA zone and link names, then Windows names, that start with `prefix`
/// (ASCII case-insensitively; "new" -> America/New_York's "America/..."
/// does not match, but "america/new" does, and so does a last component:
/// "new_y" -> America/New_York). "local" and "UTC" come first when they
/// match. An empty prefix lists every name, "local" and "UTC" first.
completion_values complete_zone_names(std::string_view prefix,
                                      std::size_t max);

} // namespace ttm::domain
