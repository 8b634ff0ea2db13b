// Windows time zone names (issue 18 item 5): mapped through ICU's CLDR
// windowsZones data, reported and computed as the system tz database's IANA
// zone.

#include "domain/windows_zones.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include <string>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

zone must_resolve(std::string_view name) {
  auto r = resolve_zone(name, "UTC");
  INFO("name: " << name << ", message: " << r.message);
  REQUIRE(r.found.has_value());
  return *r.found;
}

wall_time utc(date::year_month_day d, std::chrono::seconds time_of_day = 0s) {
  return date::sys_days{d} + time_of_day;
}

} // namespace

TEST_CASE("windows zones: common names resolve to their IANA zone",
          "[windows_zones]") {
  struct row {
    const char* windows;
    const char* iana;
  };
  for (const auto& r : {
         row{"Eastern Standard Time", "America/New_York"},
         row{"W. Europe Standard Time", "Europe/Berlin"},
         // ICU's canonical id is Asia/Calcutta, a link in the tz database:
         // the zone it links to is reported.
         row{"India Standard Time", "Asia/Kolkata"},
         row{"Pacific Standard Time", "America/Los_Angeles"},
         row{"Tokyo Standard Time", "Asia/Tokyo"},
         row{"GMT Standard Time", "Europe/London"},
         row{"AUS Eastern Standard Time", "Australia/Sydney"},
         row{"Nepal Standard Time", "Asia/Kathmandu"}, // ICU: Asia/Katmandu
         row{"UTC", "UTC"}, // the IANA name comes first
       }) {
    auto z = must_resolve(r.windows);
    CHECK(z.name() == r.iana);
    CHECK_FALSE(z.is_fixed());
  }
  // Offsets and transitions are date/tz's: New York's 2026 spring change.
  auto ny = must_resolve("Eastern Standard Time");
  auto before = ny.state_at(utc(date::year{2026} / 3 / 8, 6h + 59min));
  auto after = ny.state_at(utc(date::year{2026} / 3 / 8, 7h));
  CHECK(before.utc_offset == -5h);
  CHECK(before.abbreviation == "EST");
  CHECK(after.utc_offset == -4h);
  CHECK(after.abbreviation == "EDT");
  CHECK(after.is_dst);
}

TEST_CASE("windows zones: names match ASCII case-insensitively",
          "[windows_zones]") {
  CHECK(must_resolve("eastern standard time").name() == "America/New_York");
  CHECK(must_resolve("W. EUROPE STANDARD TIME").name() == "Europe/Berlin");
  REQUIRE(find_windows_zone("w. europe standard time") != nullptr);
  CHECK(find_windows_zone("w. europe standard time")->windows_name
        == "W. Europe Standard Time");
  CHECK(find_windows_zone("Eastern Standard") == nullptr);
  // Windows' "UTC" is the IANA name, which is case-sensitive: "utc" stays
  // refused (with "UTC" suggested), as "asia/tokyo" is.
  auto lower = resolve_zone("utc", "UTC");
  CHECK_FALSE(lower.found);
  REQUIRE_FALSE(lower.suggestions.empty());
  CHECK(lower.suggestions.front() == "UTC");
}

TEST_CASE("windows zones: a misspelt name gets Windows names as suggestions",
          "[windows_zones]") {
  auto r = resolve_zone("Eastern Standart Time", "UTC");
  CHECK_FALSE(r.found);
  REQUIRE_FALSE(r.suggestions.empty());
  CHECK(r.suggestions.front() == "Eastern Standard Time");
  CHECK(r.message.find("Did you mean: Eastern Standard Time") != std::string::npos);
  // Windows' "UTC-02" is the fixed offset it reads as.
  auto m2 = must_resolve("UTC-02");
  CHECK(m2.is_fixed());
  CHECK(m2.name() == "UTC-02:00");
}

TEST_CASE("windows zones: every Windows id ICU knows maps to a zone the "
          "system tz database loads",
          "[windows_zones]") {
  const auto& all = windows_zones();
  // ICU 72 (CLDR 42) knows about 140 Windows ids.
  CHECK(all.size() > 120);
  std::vector<std::string> failed;
  for (const auto& w : all) {
    auto r = resolve_zone(w.windows_name, "UTC");
    if (!r.found) {
      failed.push_back(w.windows_name + ": " + r.message);
      continue;
    }
    // Fixed offsets ("UTC-02") and "UTC" (an IANA name itself) aside, the
    // reported name is the IANA one and the tz database knows it.
    if (!r.found->is_fixed() && w.windows_name != "UTC") {
      CHECK(r.found->name() == w.iana_name);
      CHECK_NOTHROW(date::locate_zone(w.iana_name));
    }
  }
  INFO("Windows ids: " << all.size());
  CHECK(failed == std::vector<std::string>{});
  WARN("Windows ids swept: " << all.size());
}
