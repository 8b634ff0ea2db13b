#pragma once

// Windows time zone names ("Eastern Standard Time", "W. Europe Standard
// Time") mapped to IANA names through CLDR's windowsZones data as ICU ships
// it (the system libicu). ICU only names the zone: offsets and transitions
// still come from date/tz and the system tz database.

#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain {

struct windows_zone {
  /// As ICU spells it, e.g. "W. Europe Standard Time".
  std::string windows_name;
  /// ICU's canonical id for the territory "001" (CLDR's default), e.g.
  /// "Asia/Calcutta".
  std::string icu_id;
  /// The name to report: icu_id, or the zone it links to when the system
  /// tz database lists it as a link ("Asia/Calcutta" -> "Asia/Kolkata").
  std::string iana_name;
};

/// Every Windows zone ICU knows, sorted by name; built on first use (about
/// a millisecond: ICU's canonical zones, each asked its Windows id).
/// Thread-safe.
const std::vector<windows_zone>& windows_zones();

/// The Windows zone `name` names, ASCII case-insensitively ("eastern
/// standard time" too: Windows itself ignores case in registry key names);
/// nullptr when it names none.
const windows_zone* find_windows_zone(std::string_view name);

/// A misspelt Windows name ("Eastern Standart Time"): up to 3 Windows names
/// nearest first, by fuzzy_match's near() over lower-cased names.
std::vector<std::string> suggest_windows_zones(std::string_view name);

} // namespace ttm::domain
