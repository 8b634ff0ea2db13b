// time_get_current's `utc` and calendar facts (issue 18 item 4) through the
// MCP session on a fake clock (results checked against the output schema),
// and calendar_facts_of against the ISO 8601 week rule for every day of
// 1900..2200.

#include "domain/time_format.hpp"
#include "session_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

struct facts {
  const char* utc;
  std::int64_t iso_week, iso_week_year, day_of_year, quarter, days_in_month;
  bool is_weekend;
};

/// time_get_current in `zone` at `now`.
rapidjson::Document current_at(domain::wall_time now, const std::string& zone) {
  client c{"2025-11-25", {}, "UTC", now};
  return c.ok("time_get_current", R"({"timezone":")" + zone + R"("})");
}

void check_facts(const rapidjson::Value& sc, const facts& want) {
  CHECK(str(sc["utc"]) == want.utc);
  CHECK(integer(sc["iso_week"]) == want.iso_week);
  CHECK(integer(sc["iso_week_year"]) == want.iso_week_year);
  CHECK(integer(sc["day_of_year"]) == want.day_of_year);
  CHECK(integer(sc["quarter"]) == want.quarter);
  CHECK(integer(sc["days_in_month"]) == want.days_in_month);
  CHECK(boolean(sc["is_weekend"]) == want.is_weekend);
}

domain::wall_time noon_utc(date::year_month_day d) {
  return date::sys_days{d} + 12h;
}

} // namespace

TEST_CASE("time_get_current: calendar facts at fixed UTC dates",
          "[time_get_current]") {
  using date::year;
  struct row {
    date::year_month_day day;
    const char* weekday;
    facts want;
  };
  // Expected values cross-checked with Python's date.isocalendar().
  for (const auto& r : {
         row{year{2026} / 12 / 31, "Thursday",
             {"2026-12-31T12:00:00.000Z", 53, 2026, 365, 4, 31, false}},
         row{year{2027} / 1 / 1, "Friday",
             {"2027-01-01T12:00:00.000Z", 53, 2026, 1, 1, 31, false}},
         row{year{2024} / 12 / 30, "Monday",
             {"2024-12-30T12:00:00.000Z", 1, 2025, 365, 4, 31, false}},
         row{year{2021} / 1 / 3, "Sunday",
             {"2021-01-03T12:00:00.000Z", 53, 2020, 3, 1, 31, true}},
         row{year{2020} / 12 / 31, "Thursday",
             {"2020-12-31T12:00:00.000Z", 53, 2020, 366, 4, 31, false}},
         row{year{2024} / 2 / 29, "Thursday",
             {"2024-02-29T12:00:00.000Z", 9, 2024, 60, 1, 29, false}},
         row{year{2023} / 2 / 15, "Wednesday",
             {"2023-02-15T12:00:00.000Z", 7, 2023, 46, 1, 28, false}},
         row{year{2026} / 11 / 27, "Friday",
             {"2026-11-27T12:00:00.000Z", 48, 2026, 331, 4, 30, false}},
         row{year{2026} / 11 / 28, "Saturday",
             {"2026-11-28T12:00:00.000Z", 48, 2026, 332, 4, 30, true}},
         row{year{2026} / 11 / 29, "Sunday",
             {"2026-11-29T12:00:00.000Z", 48, 2026, 333, 4, 30, true}},
         row{year{2026} / 11 / 30, "Monday",
             {"2026-11-30T12:00:00.000Z", 49, 2026, 334, 4, 30, false}},
         row{year{2025} / 3 / 31, "Monday",
             {"2025-03-31T12:00:00.000Z", 14, 2025, 90, 1, 31, false}},
         row{year{2025} / 4 / 1, "Tuesday",
             {"2025-04-01T12:00:00.000Z", 14, 2025, 91, 2, 30, false}},
         row{year{2025} / 6 / 30, "Monday",
             {"2025-06-30T12:00:00.000Z", 27, 2025, 181, 2, 30, false}},
         row{year{2025} / 7 / 1, "Tuesday",
             {"2025-07-01T12:00:00.000Z", 27, 2025, 182, 3, 31, false}},
         row{year{2025} / 9 / 30, "Tuesday",
             {"2025-09-30T12:00:00.000Z", 40, 2025, 273, 3, 30, false}},
         row{year{2025} / 10 / 1, "Wednesday",
             {"2025-10-01T12:00:00.000Z", 40, 2025, 274, 4, 31, false}},
       }) {
    INFO("date: " << r.day);
    auto sc = current_at(noon_utc(r.day), "UTC");
    CHECK(str(sc["day_of_week"]) == r.weekday);
    check_facts(sc, r.want);
  }
}

TEST_CASE("time_get_current: the facts follow the zone's local date, utc "
          "follows UTC",
          "[time_get_current]") {
  SECTION("Pacific/Kiritimati (+14) is already in the next year") {
    auto now = date::sys_days{date::year{2026} / 12 / 31} + 12h;
    auto sc = current_at(now, "Pacific/Kiritimati");
    CHECK(str(sc["timestamp"]) == "2027-01-01T02:00:00.000+14:00");
    CHECK(str(sc["day_of_week"]) == "Friday");
    check_facts(sc, {"2026-12-31T12:00:00.000Z", 53, 2026, 1, 1, 31, false});
  }
  SECTION("Pacific/Kiritimati: the next quarter and a 30-day month") {
    auto now = date::sys_days{date::year{2025} / 3 / 31} + 12h;
    auto sc = current_at(now, "Pacific/Kiritimati");
    CHECK(str(sc["timestamp"]) == "2025-04-01T02:00:00.000+14:00");
    check_facts(sc, {"2025-03-31T12:00:00.000Z", 14, 2025, 91, 2, 30, false});
  }
  SECTION("Pacific/Pago_Pago (-11) is still on the leap day") {
    auto now = date::sys_days{date::year{2024} / 3 / 1} + 5h + 30min + 1ms;
    auto sc = current_at(now, "Pacific/Pago_Pago");
    CHECK(str(sc["timestamp"]) == "2024-02-29T18:30:00.001-11:00");
    check_facts(sc, {"2024-03-01T05:30:00.001Z", 9, 2024, 60, 1, 29, false});
  }
  SECTION("Pacific/Pago_Pago: Sunday in UTC is still Saturday there") {
    auto now = date::sys_days{date::year{2026} / 11 / 29} + 3h;
    auto sc = current_at(now, "Pacific/Pago_Pago");
    CHECK(str(sc["day_of_week"]) == "Saturday");
    check_facts(sc, {"2026-11-29T03:00:00.000Z", 48, 2026, 332, 4, 30, true});
  }
  SECTION("Monday in UTC is still Sunday in New York: a weekend there") {
    auto now = date::sys_days{date::year{2026} / 11 / 30} + 2h;
    auto sc = current_at(now, "America/New_York");
    CHECK(str(sc["day_of_week"]) == "Sunday");
    check_facts(sc, {"2026-11-30T02:00:00.000Z", 48, 2026, 333, 4, 30, true});
  }
}

TEST_CASE("time_get_current: utc is the same instant whatever the format",
          "[time_get_current]") {
  // Milliseconds truncate like the zoned ISO output.
  auto now = date::sys_days{date::year{2025} / 12 / 14} + 14h + 45min + 32s
             + 123ms + 999us;
  client c{"2025-11-25", {}, "America/New_York", now};
  for (const char* format : {"iso8601", "unix", "unix_ms", "friendly"}) {
    INFO("format: " << format);
    auto sc = c.ok("time_get_current",
                   std::string{R"({"format":")"} + format + R"("})");
    CHECK(str(sc["utc"]) == "2025-12-14T14:45:32.123Z");
    CHECK(str(sc["timezone"]) == "America/New_York");
  }
  SECTION("before 1970 the milliseconds floor toward the past") {
    auto early = date::sys_days{date::year{1969} / 12 / 31} + 23h + 59min
                 + 59s + 999ms + 500us;
    CHECK(domain::format_iso8601_utc(early) == "1969-12-31T23:59:59.999Z");
  }
}

TEST_CASE("calendar_facts_of follows the ISO 8601 week rule, 1900..2200",
          "[time_get_current]") {
  // Independent statement of the rule: a date's ISO week is the week (Monday
  // to Sunday) of its Thursday, numbered within that Thursday's year.
  const date::sys_days first{date::year{1900} / 1 / 1};
  const date::sys_days last{date::year{2200} / 12 / 31};
  int failures = 0;
  for (auto day = first; day <= last && failures < 5; day += date::days{1}) {
    auto f = domain::calendar_facts_of(day.time_since_epoch().count());
    auto monday_based = (date::weekday{day}.c_encoding() + 6) % 7; // Mon = 0
    auto thursday = day - date::days{monday_based} + date::days{3};
    date::year_month_day t{thursday};
    auto want_week
      = (thursday - date::sys_days{t.year() / 1 / 1}).count() / 7 + 1;
    date::year_month_day ymd{day};
    auto month = static_cast<unsigned>(ymd.month());
    auto month_start = date::sys_days{ymd.year() / ymd.month() / 1};
    auto next_month
      = date::sys_days{(ymd.year() / ymd.month() + date::months{1}) / 1};
    bool ok = f.iso_week == want_week
              && f.iso_week_year == static_cast<int>(t.year())
              && f.day_of_year
                   == (day - date::sys_days{ymd.year() / 1 / 1}).count() + 1
              && f.quarter == static_cast<int>((month - 1) / 3 + 1)
              && f.days_in_month == (next_month - month_start).count()
              && f.is_weekend == (monday_based >= 5);
    if (!ok) {
      ++failures;
      FAIL_CHECK("calendar facts wrong for " << ymd);
    }
  }
  CHECK(failures == 0);
}
