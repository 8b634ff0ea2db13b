// The friendly format's interpreted ICU patterns (locale_pattern): for every
// locale ICU has, on many local times, the same bytes as ICU's formatter;
// locales it cannot reproduce keep ICU.

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <unicode/uloc.h>

#include <string>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

// Every locale ICU lists, and ids with keywords a tag can carry.
std::vector<std::string> all_locale_ids() {
  std::vector<std::string> ids;
  for (int32_t i = 0, n = uloc_countAvailable(); i < n; ++i)
    ids.emplace_back(uloc_getAvailable(i));
  for (const char* tag :
       {"ja-JP-u-ca-japanese", "ar-EG-u-nu-latn", "th-TH-u-ca-gregory",
        "de-DE-u-hc-h12", "en-US-u-hc-h23", "en-GB-u-ca-islamic",
        "fa-IR-u-nu-latn", "he-IL-u-ca-hebrew", "zh-CN-u-ca-chinese",
        "hi-IN-u-nu-deva", "en-US-u-nu-arab", "fr-CA-u-hc-h11",
        "ja-JP-u-hc-h24", "zh-Hant-TW", "es-419", "sr-Latn-ME"}) {
    auto r = resolve_locale(tag);
    INFO(tag);
    REQUIRE(r.found);
    ids.push_back(r.found->icu_id);
  }
  return ids;
}

// Local wall times (given as UTC instants): years 1900, 2026, 2099, every
// month, one- and two-digit days, the hours around midnight and noon,
// varied minutes and seconds; and a few edges.
std::vector<wall_time> local_times() {
  std::vector<wall_time> out;
  int i = 0;
  for (int y : {1900, 2026, 2099})
    for (unsigned m = 1; m <= 12; ++m)
      for (unsigned d : {1u, 9u, 10u, 28u})
        for (int h : {0, 1, 11, 12, 13, 23}) {
          ++i;
          out.push_back(date::sys_days{date::year{y} / date::month{m} / d}
                        + std::chrono::hours{h} + std::chrono::minutes{i * 7 % 60}
                        + std::chrono::seconds{i * 13 % 60}
                        + std::chrono::milliseconds{i % 1000});
        }
  // Edges, within what a wall_time (nanoseconds since 1970) holds: years
  // 1678 to 2262.
  using namespace date;
  for (auto day : {sys_days{1700_y / January / 1}, sys_days{1970_y / January / 1},
                   sys_days{2000_y / February / 29}, sys_days{2024_y / December / 31},
                   sys_days{2261_y / December / 31}})
    for (std::chrono::seconds tod : {0s, 12h + 0s, 23h + 59min + 59s})
      out.push_back(day + tod);
  return out;
}

} // namespace

TEST_CASE("locale_format: the interpreted pattern equals ICU in every locale",
          "[locale_format]") {
  auto ids = all_locale_ids();
  auto times = local_times();
  const auto listed = static_cast<std::size_t>(uloc_countAvailable());
  std::size_t fast = 0, listed_fast = 0, compared = 0, mismatches = 0;
  std::vector<std::string> icu_only;
  for (const auto& id : ids) {
    if (!detail::has_fast_path(id)) {
      icu_only.push_back(id);
      continue;
    }
    ++fast;
    if (&id - ids.data() < static_cast<std::ptrdiff_t>(listed))
      ++listed_fast;
    for (auto t : times) {
      auto mine = detail::friendly_local_text(t, id, true);
      auto theirs = detail::friendly_local_text(t, id, false);
      REQUIRE(theirs);
      ++compared;
      if (mine != theirs && ++mismatches <= 20)
        FAIL_CHECK(id << " at " << date::format("%F %T", t) << ": interpreted '"
                      << mine.value_or("(none)") << "', ICU '" << *theirs
                      << "'");
    }
  }
  CHECK(mismatches == 0);
  std::string refused;
  for (const auto& id : icu_only)
    refused += id + " ";
  WARN("locales: " << ids.size() << " (" << listed << " listed by ICU, "
                   << listed_fast << " of them interpreted), interpreted: "
                   << fast << ", through ICU: " << icu_only.size()
                   << "; compared " << compared
                   << " texts (" << times.size() << " times each). ICU: "
                   << refused);
  // The common locales are interpreted; other calendars and digits are not.
  for (const char* id : {"de_DE", "fr_FR", "fr_CA", "ja_JP", "es_ES", "pt_BR",
                         "zh_CN", "ko_KR", "ar_EG@numbers=latn", "en_GB"}) {
    INFO(id);
    CHECK(detail::has_fast_path(id));
  }
  for (const char* id : {"ar_EG", "th_TH", "fa_IR", "ja_JP@calendar=japanese",
                         "he_IL@calendar=hebrew", "hi_IN@numbers=deva"}) {
    INFO(id);
    CHECK_FALSE(detail::has_fast_path(id));
  }
}

TEST_CASE("locale_format: localize_friendly gives ICU's text and the "
          "abbreviation in every locale",
          "[locale_format]") {
  auto z = resolve_zone("America/St_Johns", "UTC");
  REQUIRE(z.found);
  const wall_time t = date::sys_days{date::year{2026} / 7 / 4} + 3h + 5min + 9s;
  auto local = t + std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::minutes{-150}); // NDT, -02:30
  for (const auto& id : all_locale_ids()) {
    friendly_locale l;
    l.is_default = false;
    l.icu_id = id;
    auto d = describe(t, *z.found);
    REQUIRE(d.state.abbreviation == "NDT");
    localize_friendly(d, t, l);
    auto theirs = detail::friendly_local_text(local, id, false);
    REQUIRE(theirs);
    INFO(id);
    CHECK(d.friendly == *theirs + " NDT");
  }
}
