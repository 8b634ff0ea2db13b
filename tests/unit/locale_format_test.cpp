// The friendly format in other locales (issue 18 item 6): ICU's long date and
// medium time of the local time date/tz computed, then date/tz's
// abbreviation; one table per locale for a fixed instant.

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <string>
#include <thread>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

zone must_zone(std::string_view name) {
  auto r = resolve_zone(name, "UTC");
  REQUIRE(r.found);
  return *r.found;
}

friendly_locale must_locale(std::string_view tag) {
  auto r = resolve_locale(tag);
  INFO("tag: " << tag << ", message: " << r.message);
  REQUIRE(r.found);
  return *r.found;
}

std::string friendly(std::string_view tag, wall_time t, std::string_view zone) {
  auto d = describe(t, must_zone(zone));
  localize_friendly(d, t, must_locale(tag));
  return d.friendly;
}

// 2026-03-29T01:30:00Z: 03:30 CEST in Berlin, just after its spring change;
// 21:30 EDT the day before in New York; 07:00 IST in Kolkata.
const wall_time instant = date::sys_days{date::year{2026} / 3 / 29} + 1h + 30min;

} // namespace

TEST_CASE("locale_format: one instant in each locale", "[locale_format]") {
  struct row {
    const char* tag;
    const char* berlin;
    const char* new_york;
    const char* kolkata;
  };
  for (const auto& r : {
         row{"en-US", "March 29, 2026 3:30:00 AM CEST",
             "March 28, 2026 9:30:00 PM EDT",
             "March 29, 2026 7:00:00 AM IST"},
         row{"de-DE", "29. März 2026 um 03:30:00 CEST",
             "28. März 2026 um 21:30:00 EDT",
             "29. März 2026 um 07:00:00 IST"},
         row{"fr-FR", "29 mars 2026 à 03:30:00 CEST",
             "28 mars 2026 à 21:30:00 EDT",
             "29 mars 2026 à 07:00:00 IST"},
         row{"fr-CA", "29 mars 2026 à 03 h 30 min 00 s CEST",
             "28 mars 2026 à 21 h 30 min 00 s EDT",
             "29 mars 2026 à 07 h 00 min 00 s IST"},
         row{"ja-JP", "2026年3月29日 3:30:00 CEST",
             "2026年3月28日 21:30:00 EDT",
             "2026年3月29日 7:00:00 IST"},
         row{"es-ES", "29 de marzo de 2026, 3:30:00 CEST",
             "28 de marzo de 2026, 21:30:00 EDT",
             "29 de marzo de 2026, 7:00:00 IST"},
         row{"pt-BR", "29 de março de 2026 às 03:30:00 CEST",
             "28 de março de 2026 às 21:30:00 EDT",
             "29 de março de 2026 às 07:00:00 IST"},
         row{"zh-CN", "2026年3月29日 03:30:00 CEST",
             "2026年3月28日 21:30:00 EDT",
             "2026年3月29日 07:00:00 IST"},
         row{"ar-EG", "٢٩ مارس ٢٠٢٦ في ٣:٣٠:٠٠ ص CEST",
             "٢٨ مارس ٢٠٢٦ في ٩:٣٠:٠٠ م EDT",
             "٢٩ مارس ٢٠٢٦ في ٧:٠٠:٠٠ ص IST"},
         row{"ko-KR", "2026년 3월 29일 오전 3:30:00 CEST",
             "2026년 3월 28일 오후 9:30:00 EDT",
             "2026년 3월 29일 오전 7:00:00 IST"},
         row{"en-GB", "29 March 2026 at 03:30:00 CEST",
             "28 March 2026 at 21:30:00 EDT",
             "29 March 2026 at 07:00:00 IST"},
         row{"hi-IN", "29 मार्च 2026 को 3:30:00 am बजे CEST",
             "28 मार्च 2026 को 9:30:00 pm बजे EDT",
             "29 मार्च 2026 को 7:00:00 am बजे IST"},
       }) {
    INFO("locale: " << r.tag);
    CHECK(friendly(r.tag, instant, "Europe/Berlin") == r.berlin);
    CHECK(friendly(r.tag, instant, "America/New_York") == r.new_york);
    CHECK(friendly(r.tag, instant, "Asia/Kolkata") == r.kolkata);
  }
}

TEST_CASE("locale_format: en-US in any case is the default, without ICU",
          "[locale_format]") {
  for (auto tag : {"en-US", "en-us", "EN-US"}) {
    auto l = must_locale(tag);
    CHECK(l.is_default);
  }
  // The same text as the default describe() gives.
  auto z = must_zone("Asia/Kathmandu");
  CHECK(friendly("en-US", instant, "Asia/Kathmandu")
        == describe(instant, z).friendly);
}

TEST_CASE("locale_format: tags with a script, an extension or an area",
          "[locale_format]") {
  CHECK(friendly("zh-Hant-TW", instant, "Asia/Taipei")
        == "2026年3月29日 上午9:30:00 CST");
  // Latin digits asked for in Arabic.
  CHECK(friendly("ar-EG-u-nu-latn", instant, "Africa/Cairo")
        == "29 مارس 2026 في 3:30:00 ص EET");
  CHECK(friendly("es-419", instant, "America/Mexico_City")
        == "28 de marzo de 2026, 19:30:00 CST");
  // A fixed offset keeps its name as the abbreviation.
  CHECK(friendly("de-DE", instant, "+05:45")
        == "29. März 2026 um 07:15:00 UTC+05:45");
}

TEST_CASE("locale_format: ICU's narrow no-break spaces become plain spaces",
          "[locale_format]") {
  // ICU 72 writes "3:30:00\u202fAM" in English outside the default path.
  auto text = friendly("en-CA", instant, "America/Toronto");
  CHECK(text == "March 28, 2026 at 9:30:00 p.m. EDT");
  CHECK(text.find("\xE2\x80\xAF") == std::string::npos);
  CHECK(text.find("\xC2\xA0") == std::string::npos);
}

TEST_CASE("locale_format: unknown locales are refused with valid ones",
          "[locale_format]") {
  for (auto tag : {"xx-YY", "zz", "de-XX", "en_US", "", "de DE", "12-34",
                   "de-Qaaa-DE", "not a locale at all"}) {
    auto r = resolve_locale(tag);
    INFO("tag: " << tag);
    CHECK_FALSE(r.found);
    CHECK(r.message.find("is not a locale this server knows; e.g. ")
          != std::string::npos);
    CHECK(r.suggestions.size() >= 3);
    CHECK(r.suggestions.size() <= 4);
  }
  auto xx = resolve_locale("xx-YY");
  CHECK(xx.message
        == "'xx-YY' is not a locale this server knows; e.g. en-US, de-DE, "
           "ja-JP, fr-CA");
  // A known language with an unknown region: that language's locales
  // first, its likely region leading.
  auto de = resolve_locale("de-XX");
  REQUIRE(de.suggestions.size() == 4);
  CHECK(de.suggestions[0] == "de-DE");
  CHECK(de.suggestions[1].substr(0, 3) == "de-");
  // A huge tag is cut in the message, and ICU is not asked.
  auto huge = resolve_locale(std::string(5000, 'a'));
  CHECK_FALSE(huge.found);
  CHECK(huge.message.size() < 200);
}

TEST_CASE("locale_format: threads format with their own ICU formatters",
          "[locale_format]") {
  // More locales than a thread's cache holds, on two threads at once: each
  // answer is the one a lone call gives.
  const std::vector<std::string> tags{"de-DE", "fr-FR", "ja-JP", "es-ES",
                                      "pt-BR", "zh-CN", "ko-KR", "en-GB",
                                      "it-IT", "nl-NL"};
  std::vector<std::string> expected;
  for (const auto& t : tags)
    expected.push_back(friendly(t, instant, "Europe/Berlin"));
  auto z = must_zone("Europe/Berlin");
  std::vector<friendly_locale> locales;
  for (const auto& t : tags)
    locales.push_back(*resolve_locale(t).found);
  auto work = [&](std::vector<int>& mismatches) {
    for (int round = 0; round < 50; ++round)
      for (std::size_t i = 0; i < tags.size(); ++i) {
        auto d = describe(instant, z);
        localize_friendly(d, instant, locales[i]);
        if (d.friendly != expected[i])
          mismatches.push_back(static_cast<int>(i));
      }
  };
  std::vector<int> a, b;
  std::thread t1(work, std::ref(a)), t2(work, std::ref(b));
  t1.join();
  t2.join();
  CHECK(a.empty());
  CHECK(b.empty());
}
