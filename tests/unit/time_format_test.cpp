#include "domain/time_format.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include <cstdio>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

zone named(std::string_view name) {
  auto r = resolve_zone(name, "UTC");
  INFO("name: " << name << ", message: " << r.message);
  REQUIRE(r.found.has_value());
  return *r.found;
}

// An instant given as a UTC calendar date and time of day.
wall_time utc(date::year_month_day d,
              std::chrono::nanoseconds time_of_day = 0ns) {
  return wall_time{date::sys_days{d}} + time_of_day;
}

struct expected {
  wall_time t;
  std::chrono::seconds offset;
  bool dst;
  const char* abbreviation;
  const char* iso;
  const char* friendly;
};

void check_all(const zone& z, const expected& e) {
  INFO(z.name() << " " << e.iso);
  auto st = z.state_at(e.t);
  CHECK(st.utc_offset == e.offset);
  CHECK(st.is_dst == e.dst);
  CHECK(st.abbreviation == e.abbreviation);
  CHECK(format_iso8601(e.t, z) == e.iso);
  CHECK(format_friendly(e.t, z) == e.friendly);
}

} // namespace

TEST_CASE("time_format: the documented example") {
  auto ny = named("America/New_York");
  auto t = utc(date::year{2025} / 12 / 14, 14h + 45min + 32s + 123ms);
  CHECK(format_iso8601(t, ny) == "2025-12-14T09:45:32.123-05:00");
  CHECK(format_friendly(t, ny) == "December 14, 2025 9:45:32 AM EST");
  CHECK(format_friendly_time(t, ny) == "9:45:32 AM");
  CHECK(day_of_week(t, ny) == "Sunday");
}

TEST_CASE("time_format: New York springs forward on 2025-03-09") {
  auto ny = named("America/New_York");
  auto change = utc(date::year{2025} / 3 / 9, 7h); // 2:00 EST
  check_all(ny, {change - 1s, -5h, false, "EST",
                 "2025-03-09T01:59:59.000-05:00",
                 "March 9, 2025 1:59:59 AM EST"});
  check_all(ny, {change, -4h, true, "EDT", "2025-03-09T03:00:00.000-04:00",
                 "March 9, 2025 3:00:00 AM EDT"});
}

TEST_CASE("time_format: New York falls back on 2025-11-02") {
  auto ny = named("America/New_York");
  auto change = utc(date::year{2025} / 11 / 2, 6h); // 2:00 EDT
  check_all(ny, {change - 1s, -4h, true, "EDT",
                 "2025-11-02T01:59:59.000-04:00",
                 "November 2, 2025 1:59:59 AM EDT"});
  check_all(ny, {change, -5h, false, "EST", "2025-11-02T01:00:00.000-05:00",
                 "November 2, 2025 1:00:00 AM EST"});
}

TEST_CASE("time_format: London switches between GMT and BST in 2025") {
  auto london = named("Europe/London");
  auto spring = utc(date::year{2025} / 3 / 30, 1h);
  check_all(london, {spring - 1s, 0s, false, "GMT",
                     "2025-03-30T00:59:59.000+00:00",
                     "March 30, 2025 12:59:59 AM GMT"});
  check_all(london, {spring, 1h, true, "BST", "2025-03-30T02:00:00.000+01:00",
                     "March 30, 2025 2:00:00 AM BST"});
  auto autumn = utc(date::year{2025} / 10 / 26, 1h);
  check_all(london, {autumn - 1s, 1h, true, "BST",
                     "2025-10-26T01:59:59.000+01:00",
                     "October 26, 2025 1:59:59 AM BST"});
  check_all(london, {autumn, 0s, false, "GMT", "2025-10-26T01:00:00.000+00:00",
                     "October 26, 2025 1:00:00 AM GMT"});
}

TEST_CASE("time_format: Lord Howe's half-hour DST") {
  auto lh = named("Australia/Lord_Howe");
  auto january = utc(date::year{2025} / 1 / 15);
  auto jan = lh.state_at(january);
  CHECK(jan.utc_offset == 11h);
  CHECK(jan.is_dst);
  CHECK(format_iso8601(january, lh) == "2025-01-15T11:00:00.000+11:00");
  auto july = utc(date::year{2025} / 7 / 1);
  auto jul = lh.state_at(july);
  CHECK(jul.utc_offset == 10h + 30min);
  CHECK_FALSE(jul.is_dst);
  CHECK(format_iso8601(july, lh) == "2025-07-01T10:30:00.000+10:30");
}

TEST_CASE("time_format: Kathmandu's +05:45") {
  auto ktm = named("Asia/Kathmandu");
  auto t = utc(date::year{2025} / 12 / 14, 12h);
  CHECK(format_iso8601(t, ktm) == "2025-12-14T17:45:00.000+05:45");
  // The database's abbreviation, whatever it is ("+0545" in 2026f).
  CHECK(format_friendly(t, ktm)
        == "December 14, 2025 5:45:00 PM " + ktm.state_at(t).abbreviation);
}

TEST_CASE("time_format: UTC shows +00:00, never Z") {
  auto u = named("UTC");
  auto t = utc(date::year{2025} / 6 / 1, 8h + 5min);
  CHECK(format_iso8601(t, u) == "2025-06-01T08:05:00.000+00:00");
  CHECK(format_friendly(t, u) == "June 1, 2025 8:05:00 AM UTC");
  CHECK(u.state_at(t).utc_offset == 0s);
  CHECK(format_utc_offset(0s) == "+00:00");
  auto fixed0 = zone::fixed(0min);
  CHECK(format_iso8601(t, fixed0) == "2025-06-01T08:05:00.000+00:00");
  CHECK(format_friendly(t, fixed0) == "June 1, 2025 8:05:00 AM UTC+00:00");
}

TEST_CASE("time_format: format_utc_offset") {
  CHECK(format_utc_offset(5h + 45min) == "+05:45");
  CHECK(format_utc_offset(-3h) == "-03:00");
  CHECK(format_utc_offset(-(9h + 30min)) == "-09:30");
  CHECK(format_utc_offset(14h) == "+14:00");
  // Local mean time offsets keep their seconds.
  CHECK(format_utc_offset(-(4h + 56min + 2s)) == "-04:56:02");
}

TEST_CASE("time_format: fixed offsets format with their own name") {
  auto t = utc(date::year{2025} / 12 / 14, 14h + 45min + 32s + 123ms);
  auto india = zone::fixed(5h + 30min);
  CHECK(format_iso8601(t, india) == "2025-12-14T20:15:32.123+05:30");
  CHECK(format_friendly(t, india) == "December 14, 2025 8:15:32 PM UTC+05:30");
  auto brazil = zone::fixed(-3h);
  CHECK(format_iso8601(t, brazil) == "2025-12-14T11:45:32.123-03:00");
}

TEST_CASE("time_format: midnight is 12 AM and noon is 12 PM") {
  auto ny = named("America/New_York");
  auto midnight = utc(date::year{2025} / 12 / 14, 5h);
  CHECK(format_friendly(midnight, ny) == "December 14, 2025 12:00:00 AM EST");
  CHECK(format_friendly_time(midnight, ny) == "12:00:00 AM");
  auto noon = utc(date::year{2025} / 12 / 14, 17h);
  CHECK(format_friendly(noon, ny) == "December 14, 2025 12:00:00 PM EST");
  CHECK(format_friendly_time(noon, ny) == "12:00:00 PM");
  CHECK(format_friendly_time(noon + 1h + 2min + 3s, ny) == "1:02:03 PM");
  CHECK(format_friendly_time(midnight - 1s, ny) == "11:59:59 PM");
}

TEST_CASE("time_format: single-digit day and hour are not padded") {
  auto u = named("UTC");
  auto t = utc(date::year{2025} / 1 / 5, 14h + 7min + 9s);
  CHECK(format_friendly(t, u) == "January 5, 2025 2:07:09 PM UTC");
  CHECK(format_iso8601(t, u) == "2025-01-05T14:07:09.000+00:00");
  CHECK(format_friendly_time(t - 5h, u) == "9:07:09 AM");
}

TEST_CASE("time_format: iso8601 truncates milliseconds") {
  auto u = named("UTC");
  auto t = utc(date::year{2025} / 12 / 14, 14h + 45min + 32s + 123'999'999ns);
  CHECK(format_iso8601(t, u) == "2025-12-14T14:45:32.123+00:00");
}

TEST_CASE("time_format: unix seconds and millis floor before 1970") {
  wall_time epoch{};
  CHECK(unix_seconds(epoch) == 0);
  CHECK(unix_millis(epoch) == 0);
  auto t = utc(date::year{2025} / 12 / 14, 14h + 45min + 32s + 123'900us);
  CHECK(unix_seconds(t) == 1765723532);
  CHECK(unix_millis(t) == 1765723532123);

  CHECK(unix_seconds(epoch - 1ns) == -1);
  CHECK(unix_millis(epoch - 1ns) == -1);
  CHECK(unix_seconds(epoch - 1500us) == -1);
  CHECK(unix_millis(epoch - 1500us) == -2);
  CHECK(unix_seconds(epoch - 1s) == -1);
  CHECK(unix_seconds(epoch - 1001ms) == -2);
  auto moon = utc(date::year{1969} / 7 / 20, 20h + 17min + 40s + 250ms);
  CHECK(unix_seconds(moon) == -14182940);
  CHECK(unix_millis(moon) == -14182939750);
}

TEST_CASE("time_format: iso8601 truncates toward the past before 1970") {
  auto u = named("UTC");
  wall_time epoch{};
  CHECK(format_iso8601(epoch - 1ns, u) == "1969-12-31T23:59:59.999+00:00");
  CHECK(format_iso8601(epoch - 1500us, u) == "1969-12-31T23:59:59.998+00:00");
  auto ny = named("America/New_York");
  auto moon = utc(date::year{1969} / 7 / 20, 20h + 17min + 40s + 250'500us);
  CHECK(format_iso8601(moon, ny) == "1969-07-20T16:17:40.250-04:00");
  CHECK(format_friendly(moon, ny) == "July 20, 1969 4:17:40 PM EDT");
}

TEST_CASE("time_format: day_of_week follows the zone's date") {
  auto t = utc(date::year{2025} / 12 / 14, 12h); // Sunday noon UTC
  CHECK(day_of_week(t, named("UTC")) == "Sunday");
  CHECK(day_of_week(t, named("Pacific/Kiritimati")) == "Monday");
  CHECK(format_iso8601(t, named("Pacific/Kiritimati"))
        == "2025-12-15T02:00:00.000+14:00");
  auto early = utc(date::year{2025} / 12 / 14, 5h);
  CHECK(day_of_week(early, named("Pacific/Pago_Pago")) == "Saturday");
  CHECK(day_of_week(early, zone::fixed(-(5h + 30min))) == "Saturday");
  CHECK(day_of_week(early, zone::fixed(-5h)) == "Sunday");
}

TEST_CASE("time_format: every weekday and month name") {
  auto u = named("UTC");
  const char* days[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                        "Friday", "Saturday", "Sunday"};
  for (int i = 0; i < 7; ++i) // 2025-12-15 was a Monday
    CHECK(day_of_week(utc(date::year{2025} / 12 / 15) + i * 24h, u) == days[i]);
  const char* months[] = {"January", "February", "March",     "April",
                          "May",     "June",     "July",      "August",
                          "September", "October", "November", "December"};
  for (unsigned m = 1; m <= 12; ++m) {
    auto text = format_friendly(utc(date::year{2025} / m / 1), u);
    CHECK(text == std::string(months[m - 1]) + " 1, 2025 12:00:00 AM UTC");
  }
}

namespace {

// The texts as format_iso8601 and format_friendly printed them before their
// hand-written digits and the per-thread offset span: date/tz's own answer
// for the instant (no cache), through snprintf.
struct reference_text {
  std::string iso, friendly;
};

reference_text reference(wall_time t, const date::time_zone* tz) {
  auto info = tz->get_info(date::floor<std::chrono::seconds>(t));
  auto local = date::floor<std::chrono::milliseconds>(t) + info.offset;
  auto day = date::floor<date::days>(local);
  date::year_month_day ymd{day};
  auto ms = (local - day).count();
  int h = static_cast<int>(ms / 3'600'000);
  int m = static_cast<int>(ms / 60'000 % 60);
  int s = static_cast<int>(ms / 1000 % 60);
  const char* months[] = {"January", "February", "March",     "April",
                          "May",     "June",     "July",      "August",
                          "September", "October", "November", "December"};
  char iso[64];
  std::snprintf(iso, sizeof iso, "%04d-%02u-%02uT%02d:%02d:%02d.%03d",
                static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), h, m, s,
                static_cast<int>(ms % 1000));
  char friendly[96];
  std::snprintf(friendly, sizeof friendly, "%s %u, %d %d:%02d:%02d %s %s",
                months[static_cast<unsigned>(ymd.month()) - 1],
                static_cast<unsigned>(ymd.day()), static_cast<int>(ymd.year()),
                h % 12 == 0 ? 12 : h % 12, m, s, h < 12 ? "AM" : "PM",
                info.abbrev.c_str());
  return {iso + format_utc_offset(info.offset), friendly};
}

} // namespace

TEST_CASE("time_format: the same text as date/tz and printf, zones "
          "interleaved across DST changes") {
  // Round robin over the zones, so each formats after another zone's span
  // (the per-thread cache in zone::state_at) and across its own changes.
  const char* names[] = {"America/New_York", "Europe/London",
                         "Australia/Lord_Howe", "Asia/Kathmandu",
                         "America/Sao_Paulo", "UTC"};
  std::vector<std::pair<zone, const date::time_zone*>> zones;
  for (const char* n : names)
    zones.emplace_back(named(n), date::locate_zone(n));
  std::size_t checked = 0;
  auto check = [&](wall_time t) {
    for (const auto& [z, tz] : zones) {
      auto want = reference(t, tz);
      if (format_iso8601(t, z) != want.iso
          || format_friendly(t, z) != want.friendly) {
        INFO(z.name());
        CHECK(format_iso8601(t, z) == want.iso);
        CHECK(format_friendly(t, z) == want.friendly);
        return;
      }
      ++checked;
    }
  };
  // Every 37 minutes and 123 ms through 2025 and 2026: each change of each
  // zone, from both sides.
  for (auto t = utc(date::year{2024} / 12 / 30, 7ms);
       t < utc(date::year{2027} / 1 / 2); t += 37min + 123ms)
    check(t);
  // Around New York's and London's changes, to the second.
  for (auto at : {utc(date::year{2025} / 3 / 9, 7h),
                  utc(date::year{2025} / 11 / 2, 6h),
                  utc(date::year{2025} / 3 / 30, 1h)})
    for (auto d = -3s; d <= 3s; d += 1s) {
      check(at + d - 1ms);
      check(at + d);
    }
  // Local mean time (offsets with seconds), the first years, the last ones.
  check(utc(date::year{1883} / 11 / 18, 16h + 59min + 59s));
  check(utc(date::year{1700} / 1 / 1, 3h)); // wall_time's range: 1678..2262
  check(utc(date::year{1900} / 1 / 1));
  check(utc(date::year{2036} / 12 / 31, 23h + 59min + 59s + 999ms));
  CHECK(checked > 6 * 28'000);
}

TEST_CASE("time_format: an offset span ending in 2037 leaves later years to "
          "the zone's rule") {
  auto ny = named("America/New_York");
  // Winter 2036/37 (EST) first, then summers past the listed transitions:
  // their DST comes from the file's rule, not from the span just used.
  CHECK(format_iso8601(utc(date::year{2036} / 12 / 31, 12h), ny)
        == "2036-12-31T07:00:00.000-05:00");
  CHECK(format_iso8601(utc(date::year{2040} / 7 / 1, 12h), ny)
        == "2040-07-01T08:00:00.000-04:00");
  CHECK(format_friendly(utc(date::year{2040} / 7 / 1, 12h), ny)
        == "July 1, 2040 8:00:00 AM EDT");
  CHECK(format_iso8601(utc(date::year{2040} / 12 / 1, 12h), ny)
        == "2040-12-01T07:00:00.000-05:00");
}
