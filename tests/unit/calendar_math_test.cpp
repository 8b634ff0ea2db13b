// Calendar arithmetic (src/domain/calendar_math.*): the ISO 8601 duration
// grammar, adding durations across DST changes and month ends, differences,
// business days; and properties over many random instants and zones with a
// fixed seed (issue 18 item 7).

#include "domain/calendar_math.hpp"
#include "domain/time_format.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <random>
#include <string>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

zone zone_named(const std::string& name) {
  auto r = resolve_zone(name, "UTC");
  REQUIRE(r.found.has_value());
  return *r.found;
}

iso_duration dur(const std::string& text) {
  auto r = parse_iso_duration(text);
  INFO("duration " << text);
  REQUIRE(std::holds_alternative<iso_duration>(r));
  return std::get<iso_duration>(r);
}

std::string refusal(const std::string& text) {
  auto r = parse_iso_duration(text);
  INFO("duration " << text);
  REQUIRE(std::holds_alternative<std::string>(r));
  return std::get<std::string>(r);
}

// Reads a local time that must be unique in `z`.
wall_time at(const zone& z, const std::string& local) {
  auto day = parse_iso_date(local.substr(0, 10));
  REQUIRE(day);
  auto t = date::days{*day} + std::chrono::hours{std::stoi(local.substr(11, 2))}
           + std::chrono::minutes{std::stoi(local.substr(14, 2))};
  auto r = z.resolve(local_time{t});
  REQUIRE(r.kind == local_resolution::unique);
  return r.earlier;
}

time_input add(wall_time t, const zone& z, const std::string& d,
               bool subtract = false,
               disambiguation rule = disambiguation::compatible) {
  auto r = add_duration(t, z, dur(d), subtract, rule, "x", "rule");
  if (auto* e = std::get_if<time_input_error>(&r))
    FAIL(e->code << ": " << e->message);
  return std::get<time_input>(r);
}

std::string iso(wall_time t, const zone& z) {
  return format_iso8601(t, z);
}

} // namespace

TEST_CASE("calendar math: ISO 8601 durations are read component by component "
          "and written back canonically",
          "[calendar_math]") {
  struct row {
    const char* in;
    const char* canonical;
  };
  for (const auto& x : {row{"P1M", "P1M"}, row{"P1DT2H", "P1DT2H"},
                        row{"PT90M", "PT90M"}, row{"p1y2m3w4dt5h6m7s", "P1Y2M3W4DT5H6M7S"},
                        row{"PT1.5S", "PT1.5S"}, row{"PT0,250S", "PT0.25S"},
                        row{"-P1D", "-P1D"}, row{"+P2W", "P2W"},
                        row{"P0D", "PT0S"}, row{"PT36H", "PT36H"},
                        row{"P999999999D", "P999999999D"},
                        row{"PT1.0009S", "PT1S"}}) {
    INFO(x.in);
    CHECK(format_iso_duration(dur(x.in)) == x.canonical);
  }
  auto d = dur("P1Y2M3W4DT5H6M7.125S");
  CHECK(d.years == 1);
  CHECK(d.months == 2);
  CHECK(d.weeks == 3);
  CHECK(d.days == 4);
  CHECK(d.exact_part() == 5h + 6min + 7125ms);
  CHECK(dur("-PT1M").negative);

  struct bad {
    const char* in;
    const char* why;
  };
  for (const auto& x : {
         bad{"", "does not start with 'P'"},
         bad{"1D", "does not start with 'P'"},
         bad{"P", "no component"},
         bad{"PT", "'T' is not followed"},
         bad{"P1DT", "'T' is not followed"},
         bad{"P1H", "needs a 'T' before it (PT1H)"},
         bad{"P1D1M", "comes after a smaller unit or twice"},
         bad{"PT1M1H", "comes after a smaller unit or twice"},
         bad{"P1Y1Y", "comes after a smaller unit or twice"},
         bad{"P1X", "'X' is not a unit designator"},
         bad{"P1", "has no unit designator"},
         bad{"PD", "'D' is not a number"},
         bad{"P1.5D", "only seconds may have a fraction"},
         bad{"PT1.S", "a fraction has 1 to 9 digits"},
         bad{"P1234567890D", "more than 9 digits"},
         bad{"P-1D", "'-' is not a number"},
         bad{"--P1D", "does not start with 'P'"},
         bad{"P1D ", "' ' is not a number"},
         bad{"PT1S1S", "comes after a smaller unit or twice"},
         bad{"P1DTT1H", "'T' appears twice"},
       }) {
    INFO(x.in);
    CHECK_THAT(refusal(x.in), Catch::Contains(x.why));
  }
}

TEST_CASE("calendar math: month ends clamp, leap years included",
          "[calendar_math]") {
  auto utc = zone_named("UTC");
  auto berlin = zone_named("Europe/Berlin");
  CHECK(iso(add(at(utc, "2026-01-31T10:00"), utc, "P1M").instant, utc)
        == "2026-02-28T10:00:00.000+00:00");
  CHECK(iso(add(at(utc, "2028-01-31T10:00"), utc, "P1M").instant, utc)
        == "2028-02-29T10:00:00.000+00:00");
  CHECK(iso(add(at(berlin, "2024-02-29T12:00"), berlin, "P1Y").instant, berlin)
        == "2025-02-28T12:00:00.000+01:00");
  CHECK(iso(add(at(berlin, "2026-03-31T12:00"), berlin, "P1M", true).instant,
            berlin)
        == "2026-02-28T12:00:00.000+01:00");
  // Years and months first, then weeks and days.
  CHECK(iso(add(at(utc, "2026-01-31T00:00"), utc, "P1M1D").instant, utc)
        == "2026-03-01T00:00:00.000+00:00");
  CHECK(iso(add(at(utc, "2026-05-31T00:00"), utc, "P13M").instant, utc)
        == "2027-06-30T00:00:00.000+00:00");
}

TEST_CASE("calendar math: P1D keeps the wall time across a DST change, PT24H "
          "keeps the elapsed time",
          "[calendar_math]") {
  struct row {
    const char* zone;
    const char* start;
    const char* p1d;
    const char* pt24h;
    std::chrono::hours p1d_elapsed;
  };
  for (const auto& x : {
         row{"Europe/Berlin", "2026-03-28T12:00", "2026-03-29T12:00:00.000+02:00",
             "2026-03-29T13:00:00.000+02:00", 23h},
         row{"Europe/Berlin", "2026-10-24T12:00", "2026-10-25T12:00:00.000+01:00",
             "2026-10-25T11:00:00.000+01:00", 25h},
         row{"America/New_York", "2026-03-07T12:00",
             "2026-03-08T12:00:00.000-04:00", "2026-03-08T13:00:00.000-04:00",
             23h},
         row{"America/New_York", "2026-10-31T12:00",
             "2026-11-01T12:00:00.000-05:00", "2026-11-01T11:00:00.000-05:00",
             25h},
       }) {
    INFO(x.zone << " " << x.start);
    auto z = zone_named(x.zone);
    auto t = at(z, x.start);
    auto day = add(t, z, "P1D");
    CHECK(iso(day.instant, z) == x.p1d);
    CHECK(day.disambiguated.empty());
    CHECK(day.instant - t == x.p1d_elapsed);
    CHECK(iso(add(t, z, "PT24H").instant, z) == x.pt24h);
    // Subtracting walks back the same way.
    CHECK(add(day.instant, z, "P1D", true).instant == t);
  }
}

TEST_CASE("calendar math: a calendar step landing in a gap or an overlap "
          "follows the rule, and reject names the argument",
          "[calendar_math]") {
  auto berlin = zone_named("Europe/Berlin");
  auto before_gap = at(berlin, "2026-03-28T02:30");
  auto gap = add(before_gap, berlin, "P1D");
  CHECK(iso(gap.instant, berlin) == "2026-03-29T03:30:00.000+02:00");
  CHECK(gap.disambiguated == "later");
  auto earlier = add(before_gap, berlin, "P1D", false, disambiguation::earlier);
  CHECK(iso(earlier.instant, berlin) == "2026-03-29T01:30:00.000+01:00");
  CHECK(earlier.disambiguated == "earlier");
  auto refused = add_duration(before_gap, berlin, dur("P1D"), false,
                              disambiguation::reject,
                              "2026-03-28T02:30:00.000+01:00 + P1D",
                              "result_disambiguation");
  REQUIRE(std::holds_alternative<time_input_error>(refused));
  const auto& e = std::get<time_input_error>(refused);
  CHECK(e.code == "NONEXISTENT_LOCAL_TIME");
  CHECK_THAT(e.message,
             Catch::StartsWith("2026-03-29T02:30 (from "
                               "'2026-03-28T02:30:00.000+01:00 + P1D') does "
                               "not exist in Europe/Berlin"));
  CHECK_THAT(e.message, Catch::Contains("pass result_disambiguation to choose"));

  auto before_overlap = at(berlin, "2026-10-24T02:30");
  auto overlap = add(before_overlap, berlin, "P1D");
  CHECK(iso(overlap.instant, berlin) == "2026-10-25T02:30:00.000+02:00");
  CHECK(overlap.disambiguated == "earlier");
  auto later = add(before_overlap, berlin, "P1D", false, disambiguation::later);
  CHECK(iso(later.instant, berlin) == "2026-10-25T02:30:00.000+01:00");
  auto amb = add_duration(before_overlap, berlin, dur("P1D"), false,
                          disambiguation::reject, "x", "result_disambiguation");
  REQUIRE(std::holds_alternative<time_input_error>(amb));
  CHECK(std::get<time_input_error>(amb).code == "AMBIGUOUS_LOCAL_TIME");
  // Exact units never land in a gap: they count elapsed time.
  auto exact = add(at(berlin, "2026-03-29T01:30"), berlin, "PT1H");
  CHECK(iso(exact.instant, berlin) == "2026-03-29T03:30:00.000+02:00");
  CHECK(exact.disambiguated.empty());
}

TEST_CASE("calendar math: results outside the years 1800 to 2200 are refused, "
          "never overflowed",
          "[calendar_math]") {
  auto z = zone_named("America/New_York");
  auto t = at(z, "2026-06-01T12:00");
  for (const char* d : {"P999999999Y", "P999999999M", "P999999999W",
                        "P999999999D", "PT999999999H", "PT999999999M",
                        "P300Y", "P3600M", "P100000D", "P999999999Y999999999M"}) {
    INFO(d);
    for (bool subtract : {false, true}) {
      auto r = add_duration(t, z, dur(d), subtract, disambiguation::compatible,
                            "x", "rule");
      REQUIRE(std::holds_alternative<time_input_error>(r));
      CHECK(std::get<time_input_error>(r).code == "VALIDATION_ERROR");
      CHECK_THAT(std::get<time_input_error>(r).message,
                 Catch::Contains("outside the years 1800 to 2200"));
    }
  }
  // (The offset so far ahead is whatever the OS tz database says.)
  CHECK_THAT(iso(add(t, z, "P174Y").instant, z),
             Catch::StartsWith("2200-06-01T12:00:00.000"));
}

TEST_CASE("calendar math: add then subtract a day-based duration returns the "
          "start wall time outside gaps (random instants and zones, fixed "
          "seed)",
          "[calendar_math][property]") {
  const char* zones[] = {"Europe/Berlin",    "America/New_York", "Australia/Lord_Howe",
                         "America/Santiago", "Asia/Kathmandu",   "Pacific/Chatham",
                         "America/St_Johns", "Europe/London",    "UTC",
                         "Africa/Casablanca"};
  // Months and days mixed are no inverse pair (Mar 19 + P3M2W = Jul 3, Jul 3
  // - P3M2W = Mar 20), in Temporal either: days are counted after months.
  const char* durations[] = {"P1D", "P1W", "P2D", "P10D", "P5W",
                             "P1M", "P1Y", "P14M", "P1DT1H"};
  std::mt19937_64 rng{20260329};
  // Instants spread over 2000 to 2040.
  std::uniform_int_distribution<std::int64_t> second{946'684'800, 2'208'988'800};
  int checked = 0, skipped = 0;
  for (int i = 0; i < 4000; ++i) {
    auto z = zone_named(zones[rng() % std::size(zones)]);
    const char* d = durations[rng() % std::size(durations)];
    wall_time t{std::chrono::seconds{second(rng)}};
    auto there = add(t, z, d);
    INFO(z.name() << " " << iso(t, z) << " + " << d << " = "
                  << iso(there.instant, z));
    auto local_start = z.local_at(t).since_epoch;
    auto dd = dur(d);
    // Month arithmetic clamps days 29 to 31, so going back need not return;
    // a landing in a gap or overlap moved the wall time.
    auto day = date::year_month_day{date::floor<date::days>(
      date::local_time<std::chrono::milliseconds>{local_start})};
    bool clamps = (dd.months != 0 || dd.years != 0) && day.day() > date::day{28};
    if (!there.disambiguated.empty() || clamps) {
      ++skipped;
      continue;
    }
    auto back = add(there.instant, z, d, true);
    if (!back.disambiguated.empty()) {
      ++skipped;
      continue;
    }
    CHECK(z.local_at(back.instant).since_epoch == local_start);
    // The same duration written negative is the same subtraction.
    CHECK(add(there.instant, z, std::string("-") + d).instant == back.instant);
    ++checked;
  }
  CHECK(checked > 3000);
  CHECK(skipped > 0);
}

TEST_CASE("calendar math: differences, exact and calendar, with their sign",
          "[calendar_math]") {
  auto berlin = zone_named("Europe/Berlin");
  auto a = at(berlin, "2026-03-28T12:00");
  auto b = at(berlin, "2026-03-29T12:00");
  auto d = difference(a, b, berlin);
  CHECK_FALSE(d.negative);
  CHECK(d.exact == 23h);
  CHECK(d.days == 1);
  CHECK(d.hours == 0);
  CHECK(format_calendar_duration(d) == "P1D");
  CHECK(format_exact_duration(d.exact) == "PT23H");

  auto back = difference(b, a, berlin);
  CHECK(back.negative);
  CHECK(back.exact == -23h);
  CHECK(back.days == -1);
  CHECK(format_calendar_duration(back) == "-P1D");
  CHECK(format_exact_duration(back.exact) == "-PT23H");

  // Month ends: Jan 31 to Feb 28 is a month, to Mar 1 a month and a day.
  auto utc = zone_named("UTC");
  auto jan31 = at(utc, "2026-01-31T10:00");
  auto m = difference(jan31, at(utc, "2026-02-28T10:00"), utc);
  CHECK((m.months == 1 && m.days == 0));
  auto m1 = difference(jan31, at(utc, "2026-03-01T10:00"), utc);
  CHECK((m1.months == 1 && m1.days == 1));
  auto full = difference(at(utc, "2025-01-15T08:00"),
                         at(utc, "2026-03-17T07:30") + 12s + 500ms, utc);
  CHECK(format_calendar_duration(full) == "P1Y2M1DT23H30M12.5S");
  CHECK(full.years == 1);
  CHECK(full.months == 2);
  CHECK(full.days == 1);
  CHECK(full.hours == 23);
  CHECK(full.minutes == 30);
  CHECK(full.seconds == 12);
  CHECK(full.milliseconds == 500);
  CHECK(format_calendar_duration(difference(a, a, berlin)) == "PT0S");
  CHECK(format_exact_duration(250ms) == "PT0.25S");
  CHECK(format_exact_duration(49h + 1s) == "PT49H1S");

  // Across the autumn overlap: the second 02:30 is an hour after the first,
  // with no calendar day between them.
  auto first = berlin.resolve(berlin.local_at(at(berlin, "2026-10-25T01:00"))).earlier
               + 90min;
  auto second = first + 1h;
  auto o = difference(first, second, berlin);
  CHECK((o.days == 0 && o.hours == 1 && o.minutes == 0));
  auto o2 = difference(second, first, berlin);
  CHECK((o2.hours == -1 && o2.days == 0));
}

TEST_CASE("calendar math: the calendar difference adds back up to the end "
          "(random instants, fixed seed)",
          "[calendar_math][property]") {
  const char* zones[] = {"Europe/Berlin", "America/New_York", "Asia/Kolkata",
                         "Australia/Lord_Howe", "UTC"};
  std::mt19937_64 rng{18};
  std::uniform_int_distribution<std::int64_t> second{946'684'800, 2'208'988'800};
  for (int i = 0; i < 2000; ++i) {
    auto z = zone_named(zones[rng() % std::size(zones)]);
    wall_time a{std::chrono::seconds{second(rng)}};
    wall_time b{std::chrono::seconds{second(rng)}};
    if (b < a)
      std::swap(a, b);
    auto d = difference(a, b, z);
    REQUIRE_FALSE(d.negative);
    CHECK(d.months < 12);
    // start + PnYnMnD (compatible) + the exact rest is the end.
    iso_duration cal;
    cal.years = d.years;
    cal.months = d.months;
    cal.days = d.days;
    auto mid = add_duration(a, z, cal, false, disambiguation::compatible, "x",
                            "rule");
    REQUIRE(std::holds_alternative<time_input>(mid));
    auto rest = std::chrono::hours{d.hours} + std::chrono::minutes{d.minutes}
                + std::chrono::seconds{d.seconds}
                + std::chrono::milliseconds{d.milliseconds};
    INFO(z.name() << " " << iso(a, z) << " -> " << iso(b, z) << ": "
                  << format_calendar_duration(d));
    CHECK(std::get<time_input>(mid).instant + rest == b);
    CHECK(rest < 25h);
    auto neg = difference(b, a, z);
    CHECK(format_calendar_duration(neg) == "-" + format_calendar_duration(d));
  }
}

TEST_CASE("calendar math: business days, counted and added, with a weekend "
          "and holidays",
          "[calendar_math]") {
  auto day = [](const char* s) {
    auto d = parse_iso_date(s);
    REQUIRE(d);
    return *d;
  };
  business_calendar std_cal{{true, false, false, false, false, false, true}, {}};
  // Friday 2026-12-18 to Monday 2026-12-21: one business day, the Monday.
  CHECK(std_cal.count(day("2026-12-18"), day("2026-12-21")) == 1);
  CHECK(std_cal.count(day("2026-12-21"), day("2026-12-18")) == -1);
  CHECK(std_cal.count(day("2026-12-19"), day("2026-12-20")) == 0);
  CHECK(std_cal.count(day("2026-12-01"), day("2026-12-01")) == 0);
  CHECK(std_cal.count(day("2026-01-01"), day("2027-01-01")) == 261);
  CHECK(format_iso_date(std_cal.add(day("2026-12-18"), 1)) == "2026-12-21");
  CHECK(format_iso_date(std_cal.add(day("2026-12-21"), -1)) == "2026-12-18");
  CHECK(format_iso_date(std_cal.add(day("2026-12-19"), 1)) == "2026-12-21");
  CHECK(format_iso_date(std_cal.add(day("2026-12-19"), -1)) == "2026-12-18");
  CHECK(format_iso_date(std_cal.add(day("2026-12-19"), 0)) == "2026-12-19");
  CHECK(format_iso_date(std_cal.add(day("2026-12-18"), 10)) == "2027-01-01");

  business_calendar xmas{{true, false, false, false, false, false, true},
                         {day("2026-12-25"), day("2026-12-24"),
                          day("2026-12-25"), day("2026-12-26"),
                          day("2027-01-01")}};
  CHECK(format_iso_date(xmas.add(day("2026-12-23"), 1)) == "2026-12-28");
  CHECK(xmas.count(day("2026-12-23"), day("2026-12-28")) == 1);
  // The Saturday holiday (26th) changes nothing and is not counted.
  CHECK(xmas.holidays_in(day("2026-12-23"), day("2026-12-28")) == 2);
  CHECK_FALSE(xmas.is_business_day(day("2026-12-24")));
  CHECK(format_iso_date(xmas.add(day("2026-12-18"), 10)) == "2027-01-06");

  // A Friday-Saturday weekend.
  business_calendar gulf{{false, false, false, false, false, true, true}, {}};
  CHECK(format_iso_date(gulf.add(day("2026-12-17"), 1)) == "2026-12-20");
  // No weekend at all.
  business_calendar every{{}, {}};
  CHECK(every.count(day("2026-12-01"), day("2026-12-31")) == 30);

  CHECK_FALSE(parse_iso_date("2026-02-29"));
  CHECK_FALSE(parse_iso_date("2026-2-28"));
  CHECK_FALSE(parse_iso_date("1799-12-31"));
  CHECK_FALSE(parse_iso_date("2026-12-25T00"));
  CHECK(weekday_of(day("2026-12-25")) == 5);
  CHECK(weekday_of(day("1969-12-31")) == 3);
}

TEST_CASE("calendar math: adding n business days lands n business days later "
          "(random calendars, fixed seed)",
          "[calendar_math][property]") {
  std::mt19937_64 rng{7};
  std::uniform_int_distribution<day_number> days{0, 20'000};
  for (int i = 0; i < 500; ++i) {
    std::array<bool, 7> weekend{};
    for (auto& w : weekend)
      w = rng() % 4 == 0;
    if (std::count(weekend.begin(), weekend.end(), false) == 0)
      weekend[1] = false;
    auto from = days(rng);
    std::vector<day_number> holidays;
    for (int h = 0; h < 40; ++h)
      holidays.push_back(from - 200 + static_cast<day_number>(rng() % 2000));
    business_calendar cal{weekend, holidays};
    auto n = static_cast<std::int64_t>(rng() % 2000) - 1000;
    auto to = cal.add(from, n);
    INFO("from " << format_iso_date(from) << " n " << n << " to "
                 << format_iso_date(to));
    CHECK(cal.count(from, to) == n);
    if (n != 0) {
      CHECK(cal.is_business_day(to));
      // The first such day: one step closer counts one fewer.
      CHECK(cal.count(from, to - (n > 0 ? 1 : -1)) == n - (n > 0 ? 1 : -1));
    }
    // count agrees with a day-by-day walk.
    auto lo = std::min(from, to), hi = std::max(from, to);
    std::int64_t walk = 0;
    for (auto d = lo + 1; d <= hi; ++d)
      walk += cal.is_business_day(d) ? 1 : 0;
    CHECK(cal.count(lo, hi) == walk);
  }
}
