// The `locale` argument and Windows zone names in time_get_current,
// time_convert and time_calculate (issue 18 items 5 and 6), through the MCP session on a fake
// clock (results checked against the output schema).

#include "session_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

// 2026-03-29T01:30:00Z: 03:30 CEST in Berlin, just after its spring change.
domain::wall_time instant() {
  return date::sys_days{date::year{2026} / 3 / 29} + 1h + 30min;
}

client berlin_client() {
  return client{"2025-11-25", {}, "Europe/Berlin", instant()};
}

} // namespace

TEST_CASE("time_get_current: locale shapes the friendly timestamp",
          "[time_tools_locale]") {
  auto c = berlin_client();
  auto de = c.ok("time_get_current",
                 R"({"timezone":"W. Europe Standard Time","format":"friendly",)"
                 R"("locale":"de-DE"})");
  CHECK(str(de["timestamp"]) == "29. März 2026 um 03:30:00 CEST");
  CHECK(str(de["timezone"]) == "Europe/Berlin");
  auto ja = c.ok("time_get_current",
                 R"({"timezone":"Tokyo Standard Time","format":"friendly",)"
                 R"("locale":"ja-JP"})");
  CHECK(str(ja["timestamp"]) == "2026年3月29日 10:30:00 JST");
  CHECK(str(ja["timezone"]) == "Asia/Tokyo");
  // The default and an explicit en-US are the same text.
  auto en = c.ok("time_get_current", R"({"format":"friendly"})");
  CHECK(str(en["timestamp"]) == "March 29, 2026 3:30:00 AM CEST");
  auto en2 = c.ok("time_get_current",
                  R"({"format":"friendly","locale":"en-US"})");
  CHECK(str(en2["timestamp"]) == str(en["timestamp"]));
  // Other formats ignore the locale (but still check it).
  auto iso = c.ok("time_get_current", R"({"locale":"fr-CA"})");
  CHECK(str(iso["timestamp"]) == "2026-03-29T03:30:00.000+02:00");
  auto bad = c.fails("time_get_current", R"({"locale":"xx-YY"})",
                     "VALIDATION_ERROR");
  CHECK(str(bad["message"])
        == "locale: 'xx-YY' is not a locale this server knows; e.g. en-US, "
           "de-DE, ja-JP, fr-CA");
  CHECK(strings(bad["suggestions"])
        == std::vector<std::string>{"en-US", "de-DE", "ja-JP", "fr-CA"});
}

TEST_CASE("time_convert: locale shapes every friendly field",
          "[time_tools_locale]") {
  auto c = berlin_client();
  auto sc = c.ok("time_convert",
                 R"({"time":"2026-03-29T03:30","from_timezone":"Europe/Berlin",)"
                 R"("to_timezones":["Eastern Standard Time","India Standard Time"],)"
                 R"("locale":"fr-FR","format":"friendly"})");
  CHECK(str(sc["source"]["friendly"]) == "29 mars 2026 à 03:30:00 CEST");
  CHECK(str(sc["source"]["timestamp"]) == "29 mars 2026 à 03:30:00 CEST");
  const auto& ny = sc["results"][0];
  CHECK(str(ny["timezone"]) == "America/New_York");
  CHECK(str(ny["friendly"]) == "28 mars 2026 à 21:30:00 EDT");
  CHECK(str(ny["date_difference"]) == "-1 day");
  const auto& in = sc["results"][1];
  CHECK(str(in["timezone"]) == "Asia/Kolkata");
  CHECK(str(in["friendly"]) == "29 mars 2026 à 07:00:00 IST");
  // Only the friendly text changes: weekdays stay English.
  CHECK(str(ny["day_of_week"]) == "Saturday");
}

TEST_CASE("time_convert: an unknown locale is refused before anything else "
          "is read",
          "[time_tools_locale]") {
  auto c = berlin_client();
  auto sc = c.fails("time_convert",
                    R"({"time":"2026-03-29T02:30","to_timezones":["UTC"],)"
                    R"("locale":"de-XX"})",
                    "VALIDATION_ERROR");
  CHECK(str(sc["message"]).find("locale: 'de-XX' is not a locale") == 0);
  CHECK(strings(sc["suggestions"]).front() == "de-DE");
  // A Windows zone misspelt: INVALID_TIMEZONE with Windows names.
  auto tz = c.fails("time_convert",
                    R"({"time":"now","to_timezones":["Eastern Standart Time"]})",
                    "INVALID_TIMEZONE");
  CHECK(strings(tz["suggestions"]).front() == "Eastern Standard Time");
}

TEST_CASE("time_calculate: locale shapes the friendly fields of its times",
          "[time_tools_locale]") {
  auto c = berlin_client();
  auto r = c.ok("time_calculate",
                R"({"operation":"add","start":"2026-03-28T03:30",)"
                R"("duration":"P1D","timezone":"W. Europe Standard Time",)"
                R"("locale":"de-DE"})");
  CHECK(str(r["start"]["timezone"]) == "Europe/Berlin");
  CHECK(str(r["start"]["friendly"]) == "28. März 2026 um 03:30:00 CET");
  CHECK(str(r["result"]["friendly"]) == "29. März 2026 um 03:30:00 CEST");
  auto bad = c.fails("time_calculate",
                     R"({"operation":"difference","start":"now","end":"now",)"
                     R"("locale":"xx-YY"})",
                     "VALIDATION_ERROR");
  CHECK(str(bad["message"]).find("locale: 'xx-YY' is not a locale") == 0);
}
