// The time grammar's corpus (docs/time-grammar.md): what people and models
// write, each with the instant it names at a fixed reference instant and
// zone. New York, a Friday, in winter (two days before the spring gap), in
// summer, and two days before the fall overlap; the locales' names; then
// the refusals and the round trip of amounts.
//
// Each block is "input | expected" lines; expected is the instant in the
// reader's zone, "2026-03-06T15:00-05:00" (seconds and milliseconds only
// when not zero), or "! CODE" for a refusal with that error code.

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <sstream>
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

// "2026-03-06T15:00:00.000-05:00" -> "2026-03-06T15:00-05:00".
std::string compact(const std::string& iso) {
  if (iso.size() == 29 && iso.compare(16, 7, ":00.000") == 0)
    return iso.substr(0, 16) + iso.substr(23);
  return iso;
}

struct corpus {
  std::string zone_name;
  wall_time now;
  std::string locale; // ICU id, "" for en-US
  disambiguation rule = disambiguation::reject;

  time_input_result read(const std::string& text) const {
    static thread_local zone z = zone_named("UTC");
    z = zone_named(zone_name);
    time_input_options o;
    o.now = now;
    o.in = &z;
    o.on_conflict = rule;
    if (!locale.empty())
      o.words = &time_words_for(locale);
    return parse_time_input(text, o);
  }

  std::string outcome(const std::string& text) const {
    auto r = read(text);
    if (auto* e = std::get_if<time_input_error>(&r))
      return "! " + e->code;
    return compact(format_iso8601(std::get<time_input>(r).instant,
                                  zone_named(zone_name)));
  }

  // Checks every "input | expected" line; returns how many.
  std::size_t check(const char* table) const {
    std::istringstream lines(table);
    std::string line;
    std::size_t n = 0;
    while (std::getline(lines, line)) {
      auto bar = line.find('|');
      if (bar == std::string::npos)
        continue;
      auto trim = [](std::string s) {
        auto a = s.find_first_not_of(' ');
        auto b = s.find_last_not_of(' ');
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
      };
      auto input = trim(line.substr(0, bar));
      auto expected = trim(line.substr(bar + 1));
      INFO("input: '" << input << "' (" << zone_name << ", locale '"
                      << locale << "')");
      CHECK(outcome(input) == expected);
      ++n;
    }
    return n;
  }
};

wall_time at_utc(date::year_month_day d, std::chrono::milliseconds tod) {
  return date::sys_days{d} + tod;
}

// Friday 2026-03-06 10:15 EST; clocks go from 02:00 to 03:00 on Sunday the 8th.
corpus winter() {
  return {"America/New_York", at_utc(date::year{2026} / 3 / 6, 15h + 15min), ""};
}
// Friday 2026-07-10 10:15 EDT.
corpus summer() {
  return {"America/New_York", at_utc(date::year{2026} / 7 / 10, 14h + 15min), ""};
}
// Friday 2026-10-30 10:15 EDT; clocks go back from 02:00 to 01:00 on
// Sunday 1 November.
corpus fall() {
  return {"America/New_York", at_utc(date::year{2026} / 10 / 30, 14h + 15min), ""};
}

} // namespace

TEST_CASE("time grammar corpus: times of day, alone and with a day",
          "[time_grammar]") {
  winter().check(R"(
    3pm | 2026-03-06T15:00-05:00
    3 pm | 2026-03-06T15:00-05:00
    3PM | 2026-03-06T15:00-05:00
    3 p.m. | 2026-03-06T15:00-05:00
    3p.m. | 2026-03-06T15:00-05:00
    3p | 2026-03-06T15:00-05:00
    9am | 2026-03-06T09:00-05:00
    9 AM | 2026-03-06T09:00-05:00
    9:30 am | 2026-03-06T09:30-05:00
    9:30am | 2026-03-06T09:30-05:00
    10:30pm | 2026-03-06T22:30-05:00
    10:30 PM | 2026-03-06T22:30-05:00
    12am | 2026-03-06T00:00-05:00
    12pm | 2026-03-06T12:00-05:00
    12:30am | 2026-03-06T00:30-05:00
    12:45 pm | 2026-03-06T12:45-05:00
    11:59pm | 2026-03-06T23:59-05:00
    15:00 | 2026-03-06T15:00-05:00
    09:05 | 2026-03-06T09:05-05:00
    9:05 | 2026-03-06T09:05-05:00
    23:59:59 | 2026-03-06T23:59:59.000-05:00
    00:00 | 2026-03-06T00:00-05:00
    noon | 2026-03-06T12:00-05:00
    midday | 2026-03-06T12:00-05:00
    12 noon | 2026-03-06T12:00-05:00
    tomorrow at 12 noon | 2026-03-07T12:00-05:00
    12 midnight | 2026-03-06T00:00-05:00
    midnight | 2026-03-06T00:00-05:00
    at 3pm | 2026-03-06T15:00-05:00
    at 15:00 | 2026-03-06T15:00-05:00
    at noon | 2026-03-06T12:00-05:00
    at midnight | 2026-03-06T00:00-05:00
    @ 3pm | 2026-03-06T15:00-05:00
    at 7 | 2026-03-06T07:00-05:00
    at 19 | 2026-03-06T19:00-05:00
    7 o'clock | 2026-03-06T07:00-05:00
    15h | 2026-03-06T15:00-05:00
    15h30 | 2026-03-06T15:30-05:00
    today at 3pm | 2026-03-06T15:00-05:00
    today 3pm | 2026-03-06T15:00-05:00
    3pm today | 2026-03-06T15:00-05:00
    tomorrow at 9am | 2026-03-07T09:00-05:00
    tomorrow 9am | 2026-03-07T09:00-05:00
    9am tomorrow | 2026-03-07T09:00-05:00
    at 9am tomorrow | 2026-03-07T09:00-05:00
    Tomorrow at 9:30 AM | 2026-03-07T09:30-05:00
    tomorrow at noon | 2026-03-07T12:00-05:00
    noon tomorrow | 2026-03-07T12:00-05:00
    tomorrow at midnight | 2026-03-07T00:00-05:00
    midnight tomorrow | 2026-03-07T00:00-05:00
    tomorrow at 15:00 | 2026-03-07T15:00-05:00
    tomorrow, 3pm | 2026-03-07T15:00-05:00
    tmrw at 9am | 2026-03-07T09:00-05:00
    yesterday at 5pm | 2026-03-05T17:00-05:00
    yesterday 17:30 | 2026-03-05T17:30-05:00
    5pm yesterday | 2026-03-05T17:00-05:00
    the day after tomorrow | 2026-03-08T00:00-05:00
    the day after tomorrow at 9am | 2026-03-08T09:00-04:00
    day after tomorrow at noon | 2026-03-08T12:00-04:00
    the day before yesterday | 2026-03-04T00:00-05:00
    the day before yesterday at 3pm | 2026-03-04T15:00-05:00
    day before yesterday | 2026-03-04T00:00-05:00
    today | 2026-03-06T00:00-05:00
    tomorrow | 2026-03-07T00:00-05:00
    yesterday | 2026-03-05T00:00-05:00
  )");
}

TEST_CASE("time grammar corpus: weekdays", "[time_grammar]") {
  winter().check(R"(
    friday | 2026-03-06T00:00-05:00
    Friday at 15:00 | 2026-03-06T15:00-05:00
    friday at 15:00 | 2026-03-06T15:00-05:00
    friday 3pm | 2026-03-06T15:00-05:00
    on friday at 3pm | 2026-03-06T15:00-05:00
    this friday at 3pm | 2026-03-06T15:00-05:00
    3pm on friday | 2026-03-06T15:00-05:00
    Friday, 9:30 AM | 2026-03-06T09:30-05:00
    fri 5pm | 2026-03-06T17:00-05:00
    fri. at 5pm | 2026-03-06T17:00-05:00
    next friday | 2026-03-13T00:00-04:00
    next friday at 3pm | 2026-03-13T15:00-04:00
    next fri at 3pm | 2026-03-13T15:00-04:00
    last friday | 2026-02-27T00:00-05:00
    last friday at 9am | 2026-02-27T09:00-05:00
    saturday 10am | 2026-03-07T10:00-05:00
    saturday at 10:00 | 2026-03-07T10:00-05:00
    this saturday | 2026-03-07T00:00-05:00
    next saturday | 2026-03-07T00:00-05:00
    sat at noon | 2026-03-07T12:00-05:00
    sunday at noon | 2026-03-08T12:00-04:00
    sunday | 2026-03-08T00:00-05:00
    this sunday | 2026-03-08T00:00-05:00
    next sunday | 2026-03-08T00:00-05:00
    last sunday | 2026-03-01T00:00-05:00
    monday | 2026-03-09T00:00-04:00
    monday at 9am | 2026-03-09T09:00-04:00
    at 10am on monday | 2026-03-09T10:00-04:00
    next monday | 2026-03-09T00:00-04:00
    this monday | 2026-03-02T00:00-05:00
    last monday | 2026-03-02T00:00-05:00
    tuesday morning | 2026-03-10T09:00-04:00
    tue 9am | 2026-03-10T09:00-04:00
    tues at 4:30pm | 2026-03-10T16:30-04:00
    coming tuesday | 2026-03-10T00:00-04:00
    wednesday at 2pm | 2026-03-11T14:00-04:00
    wed 14:00 | 2026-03-11T14:00-04:00
    this wednesday | 2026-03-04T00:00-05:00
    next wednesday | 2026-03-11T00:00-04:00
    last wednesday | 2026-03-04T00:00-05:00
    thursday | 2026-03-12T00:00-04:00
    this thursday | 2026-03-05T00:00-05:00
    next thursday | 2026-03-12T00:00-04:00
    last thursday | 2026-03-05T00:00-05:00
    thurs at noon | 2026-03-12T12:00-04:00
    thu 8am | 2026-03-12T08:00-04:00
    friday evening | 2026-03-06T19:00-05:00
    saturday afternoon | 2026-03-07T15:00-05:00
    sunday night | 2026-03-08T21:00-04:00
    next monday at 10:00 | 2026-03-09T10:00-04:00
    next business day | 2026-03-09T00:00-04:00
    next business day at 9am | 2026-03-09T09:00-04:00
    next working day | 2026-03-09T00:00-04:00
  )");
}

TEST_CASE("time grammar corpus: month names and numeric dates",
          "[time_grammar]") {
  winter().check(R"(
    december 25 | 2026-12-25T00:00-05:00
    December 25 | 2026-12-25T00:00-05:00
    dec 25 | 2026-12-25T00:00-05:00
    Dec. 25 | 2026-12-25T00:00-05:00
    december 25th | 2026-12-25T00:00-05:00
    25 december | 2026-12-25T00:00-05:00
    25th december | 2026-12-25T00:00-05:00
    the 25th of december | 2026-12-25T00:00-05:00
    25th of December | 2026-12-25T00:00-05:00
    on december 25 | 2026-12-25T00:00-05:00
    december 25 at 10:30 | 2026-12-25T10:30-05:00
    december 25 10:30am | 2026-12-25T10:30-05:00
    10:30am on december 25 | 2026-12-25T10:30-05:00
    Dec 25, 2026 at 3pm | 2026-12-25T15:00-05:00
    dec 25 2026 3pm | 2026-12-25T15:00-05:00
    25 December 2026 | 2026-12-25T00:00-05:00
    25 dec 2026 at 15:00 | 2026-12-25T15:00-05:00
    December 25, 2026 | 2026-12-25T00:00-05:00
    friday, december 25, 2026 | 2026-12-25T00:00-05:00
    Friday December 25 2026 at 3pm | 2026-12-25T15:00-05:00
    March 3rd 2027 at 14:00 | 2027-03-03T14:00-05:00
    march 3rd, 2027 | 2027-03-03T00:00-05:00
    3 march 2027 14:00 | 2027-03-03T14:00-05:00
    january 1 | 2027-01-01T00:00-05:00
    jan 1st | 2027-01-01T00:00-05:00
    January 1st at midnight | 2027-01-01T00:00-05:00
    march 6 | 2026-03-06T00:00-05:00
    March 6 at 5pm | 2026-03-06T17:00-05:00
    march 5 | 2027-03-05T00:00-05:00
    march 7 | 2026-03-07T00:00-05:00
    march 9 at 9am | 2026-03-09T09:00-04:00
    july 4 | 2026-07-04T00:00-04:00
    July 4th at 9pm | 2026-07-04T21:00-04:00
    4 july 2026 21:00 | 2026-07-04T21:00-04:00
    feb 29 | 2028-02-29T00:00-05:00
    february 29, 2028 | 2028-02-29T00:00-05:00
    feb 28 | 2027-02-28T00:00-05:00
    sep 1 | 2026-09-01T00:00-04:00
    sept 1 | 2026-09-01T00:00-04:00
    september 1st at 8:00 | 2026-09-01T08:00-04:00
    october 31 at 11:59 pm | 2026-10-31T23:59-04:00
    november 1 2026 noon | 2026-11-01T12:00-05:00
    april 1st at noon | 2026-04-01T12:00-04:00
    apr 15 | 2026-04-15T00:00-04:00
    may 1 | 2026-05-01T00:00-04:00
    june 30 2026 | 2026-06-30T00:00-04:00
    aug 12 at 6pm | 2026-08-12T18:00-04:00
    nov 26 | 2026-11-26T00:00-05:00
    12/25/2026 | 2026-12-25T00:00-05:00
    12/25/2026 3pm | 2026-12-25T15:00-05:00
    12/25/2026 at 15:00 | 2026-12-25T15:00-05:00
    12/25 | 2026-12-25T00:00-05:00
    3/7/2026 | 2026-03-07T00:00-05:00
    03/07/26 | 2026-03-07T00:00-05:00
    1/15/2027 9:00 | 2027-01-15T09:00-05:00
    7/4 at 9pm | 2026-07-04T21:00-04:00
    2026/12/25 | 2026-12-25T00:00-05:00
    25.12.2026 | 2026-12-25T00:00-05:00
    25.12.2026 15:00 | 2026-12-25T15:00-05:00
    2026-12-25 | 2026-12-25T00:00-05:00
    2026-12-25T15:00 | 2026-12-25T15:00-05:00
    2026-12-25 15:00 | 2026-12-25T15:00-05:00
    2026-03-06T15:00:00Z | 2026-03-06T10:00-05:00
    2026-12-25 3pm | 2026-12-25T15:00-05:00
    2026-12-25 at 15:00 | 2026-12-25T15:00-05:00
    2026-12-25 03:00 PM | 2026-12-25T15:00-05:00
    2026-12-25 noon | 2026-12-25T12:00-05:00
    2026-03-06T15:00:00+01:00 | 2026-03-06T09:00-05:00
    unix:1772810100 | 2026-03-06T10:15-05:00
    unix_ms:1772810100000 | 2026-03-06T10:15-05:00
  )");
}

TEST_CASE("time grammar corpus: amounts from now and ago", "[time_grammar]") {
  winter().check(R"(
    in 3 hours | 2026-03-06T13:15-05:00
    in 1.5 hours | 2026-03-06T11:45-05:00
    in 90 minutes | 2026-03-06T11:45-05:00
    in an hour | 2026-03-06T11:15-05:00
    in a minute | 2026-03-06T10:16-05:00
    in 30 seconds | 2026-03-06T10:15:30.000-05:00
    in half an hour | 2026-03-06T10:45-05:00
    half an hour ago | 2026-03-06T09:45-05:00
    an hour ago | 2026-03-06T09:15-05:00
    a week ago | 2026-02-27T10:15-05:00
    3 days from now | 2026-03-09T10:15-04:00
    3 days ago | 2026-03-03T10:15-05:00
    in 2 days | 2026-03-08T10:15-04:00
    in 48 hours | 2026-03-08T11:15-04:00
    in 24 hours | 2026-03-07T10:15-05:00
    in 72 hours | 2026-03-09T11:15-04:00
    in one week | 2026-03-13T10:15-04:00
    in two weeks | 2026-03-20T10:15-04:00
    twelve hours ago | 2026-03-05T22:15-05:00
    five minutes ago | 2026-03-06T10:10-05:00
    ten minutes from now | 2026-03-06T10:25-05:00
    in 1 week 2 days | 2026-03-15T10:15-04:00
    in 1 week and 2 days | 2026-03-15T10:15-04:00
    in 2 hours 30 minutes | 2026-03-06T12:45-05:00
    in 2 hours and 30 minutes | 2026-03-06T12:45-05:00
    in 2 hours, 30 minutes | 2026-03-06T12:45-05:00
    in an hour and a half | 2026-03-06T11:45-05:00
    in 1 and a half hours | 2026-03-06T11:45-05:00
    in 2h | 2026-03-06T12:15-05:00
    in 30m | 2026-03-06T10:45-05:00
    in 30min | 2026-03-06T10:45-05:00
    in 2h 30m | 2026-03-06T12:45-05:00
    in 3 days at 9am | 2026-03-09T09:00-04:00
    2 weeks from now at 3pm | 2026-03-20T15:00-04:00
    3 days ago at noon | 2026-03-03T12:00-05:00
    a month ago | 2026-02-06T10:15-05:00
    in 1 month | 2026-04-06T10:15-04:00
    in a year | 2027-03-06T10:15-05:00
    2 years ago | 2024-03-06T10:15-05:00
    in 1.5 days | 2026-03-07T22:15-05:00
    in 0.5 days | 2026-03-06T22:15-05:00
    in 6 months | 2026-09-06T10:15-04:00
    in 3 hrs | 2026-03-06T13:15-05:00
    in 45 mins | 2026-03-06T11:00-05:00
    in 10 secs | 2026-03-06T10:15:10.000-05:00
    a couple of hours ago | 2026-03-06T08:15-05:00
    in a couple of days | 2026-03-08T10:15-04:00
    one day ago | 2026-03-05T10:15-05:00
    in 4 weeks | 2026-04-03T10:15-04:00
    in eleven days | 2026-03-17T10:15-04:00
    in 1 day | 2026-03-07T10:15-05:00
    in 0 days | 2026-03-06T10:15-05:00
    1 second ago | 2026-03-06T10:14:59.000-05:00
    in 2.25 hours | 2026-03-06T12:30-05:00
    in 1.5 weeks | 2026-03-16T22:15-04:00
    6 hours from now | 2026-03-06T16:15-05:00
    in 1 year 2 months | 2027-05-06T10:15-04:00
    IN 3 HOURS | 2026-03-06T13:15-05:00
  )");
}

TEST_CASE("time grammar corpus: parts of the day, now, starts and ends",
          "[time_grammar]") {
  winter().check(R"(
    tonight | 2026-03-06T21:00-05:00
    tonight at 7 | 2026-03-06T19:00-05:00
    tonight at 7pm | 2026-03-06T19:00-05:00
    7pm tonight | 2026-03-06T19:00-05:00
    tonight at 11:30 | 2026-03-06T23:30-05:00
    tonight at midnight | 2026-03-07T00:00-05:00
    midnight tonight | 2026-03-07T00:00-05:00
    this morning | 2026-03-06T09:00-05:00
    this morning at 8 | 2026-03-06T08:00-05:00
    this morning at 8:30 | 2026-03-06T08:30-05:00
    this afternoon | 2026-03-06T15:00-05:00
    this afternoon at 2 | 2026-03-06T14:00-05:00
    this evening | 2026-03-06T19:00-05:00
    this evening at 8 | 2026-03-06T20:00-05:00
    this evening at 6:30 | 2026-03-06T18:30-05:00
    tomorrow morning | 2026-03-07T09:00-05:00
    tomorrow morning at 7 | 2026-03-07T07:00-05:00
    tomorrow evening at 8 | 2026-03-07T20:00-05:00
    tomorrow night | 2026-03-07T21:00-05:00
    last night | 2026-03-05T21:00-05:00
    yesterday afternoon | 2026-03-05T15:00-05:00
    at 7 in the evening | 2026-03-06T19:00-05:00
    now | 2026-03-06T10:15-05:00
    right now | 2026-03-06T10:15-05:00
    NOW | 2026-03-06T10:15-05:00
    just now | 2026-03-06T10:15-05:00
    end of day | 2026-03-06T23:59:59.999-05:00
    EOD | 2026-03-06T23:59:59.999-05:00
    end of the day | 2026-03-06T23:59:59.999-05:00
    end of today | 2026-03-06T23:59:59.999-05:00
    end of tomorrow | 2026-03-07T23:59:59.999-05:00
    start of day | 2026-03-06T00:00-05:00
    start of tomorrow | 2026-03-07T00:00-05:00
    start of next week | 2026-03-09T00:00-04:00
    start of this week | 2026-03-02T00:00-05:00
    start of last week | 2026-02-23T00:00-05:00
    start of week | 2026-03-02T00:00-05:00
    end of the week | 2026-03-08T23:59:59.999-04:00
    end of next week | 2026-03-15T23:59:59.999-04:00
    end of the month | 2026-03-31T23:59:59.999-04:00
    end of month | 2026-03-31T23:59:59.999-04:00
    start of the month | 2026-03-01T00:00-05:00
    start of next month | 2026-04-01T00:00-04:00
    end of next month | 2026-04-30T23:59:59.999-04:00
    end of last month | 2026-02-28T23:59:59.999-05:00
    beginning of next month | 2026-04-01T00:00-04:00
    start of the year | 2026-01-01T00:00-05:00
    end of the year | 2026-12-31T23:59:59.999-05:00
    start of next year | 2027-01-01T00:00-05:00
    end of last year | 2025-12-31T23:59:59.999-05:00
    start of week at 9am | 2026-03-02T09:00-05:00
    start of next week at 9am | 2026-03-09T09:00-04:00
  )");
}

TEST_CASE("time grammar corpus: in summer and before the fall overlap",
          "[time_grammar]") {
  summer().check(R"(
    now | 2026-07-10T10:15-04:00
    3pm | 2026-07-10T15:00-04:00
    tomorrow at 9am | 2026-07-11T09:00-04:00
    9am tomorrow | 2026-07-11T09:00-04:00
    friday | 2026-07-10T00:00-04:00
    next friday | 2026-07-17T00:00-04:00
    this friday at 3pm | 2026-07-10T15:00-04:00
    last friday | 2026-07-03T00:00-04:00
    monday at 9am | 2026-07-13T09:00-04:00
    in 3 hours | 2026-07-10T13:15-04:00
    in 1.5 hours | 2026-07-10T11:45-04:00
    a week ago | 2026-07-03T10:15-04:00
    3 days from now | 2026-07-13T10:15-04:00
    in 4 months | 2026-11-10T10:15-05:00
    december 25 | 2026-12-25T00:00-05:00
    march 6 | 2027-03-06T00:00-05:00
    july 4 | 2027-07-04T00:00-04:00
    july 10 | 2026-07-10T00:00-04:00
    july 11 at noon | 2026-07-11T12:00-04:00
    12/25 | 2026-12-25T00:00-05:00
    end of month | 2026-07-31T23:59:59.999-04:00
    start of next month | 2026-08-01T00:00-04:00
    end of the year | 2026-12-31T23:59:59.999-05:00
    tonight at 8 | 2026-07-10T20:00-04:00
    this morning | 2026-07-10T09:00-04:00
    the day after tomorrow | 2026-07-12T00:00-04:00
    the day before yesterday | 2026-07-08T00:00-04:00
    EOD | 2026-07-10T23:59:59.999-04:00
    half an hour ago | 2026-07-10T09:45-04:00
    next business day | 2026-07-13T00:00-04:00
  )");
  fall().check(R"(
    now | 2026-10-30T10:15-04:00
    tomorrow at 1:30am | 2026-10-31T01:30-04:00
    in 2 days | 2026-11-01T10:15-05:00
    in 48 hours | 2026-11-01T09:15-05:00
    sunday at noon | 2026-11-01T12:00-05:00
    sunday | 2026-11-01T00:00-04:00
    sunday at 1:30am | ! AMBIGUOUS_LOCAL_TIME
    the day after tomorrow at 1:30am | ! AMBIGUOUS_LOCAL_TIME
    november 1 at 1:30 am | ! AMBIGUOUS_LOCAL_TIME
    sunday at 2:30am | 2026-11-01T02:30-05:00
    next monday | 2026-11-02T00:00-05:00
    end of month | 2026-10-31T23:59:59.999-04:00
    start of next month | 2026-11-01T00:00-04:00
    in 1 week | 2026-11-06T10:15-05:00
    halloween | ! VALIDATION_ERROR
  )");
}

TEST_CASE("time grammar corpus: across the spring gap, by the caller's "
          "disambiguation",
          "[time_grammar]") {
  auto saturday = winter();
  saturday.now += 24h; // Saturday 2026-03-07 10:15 EST
  saturday.check(R"(
    tomorrow | 2026-03-08T00:00-05:00
    tomorrow at 2:30am | ! NONEXISTENT_LOCAL_TIME
    sunday at 2:30 am | ! NONEXISTENT_LOCAL_TIME
    march 8 at 2:30am | ! NONEXISTENT_LOCAL_TIME
    tomorrow at 3:30am | 2026-03-08T03:30-04:00
    tomorrow at 1:59am | 2026-03-08T01:59-05:00
    in 1 day | 2026-03-08T10:15-04:00
    in 24 hours | 2026-03-08T11:15-04:00
  )");
  saturday.rule = disambiguation::compatible;
  saturday.check(R"(
    tomorrow at 2:30am | 2026-03-08T03:30-04:00
    sunday at 2:30 am | 2026-03-08T03:30-04:00
  )");
  saturday.rule = disambiguation::earlier;
  saturday.check(R"(
    tomorrow at 2:30am | 2026-03-08T01:30-05:00
  )");
  saturday.rule = disambiguation::later;
  saturday.check(R"(
    tomorrow at 2:30am | 2026-03-08T03:30-04:00
  )");
  auto friday = fall();
  friday.rule = disambiguation::later;
  friday.check(R"(
    sunday at 1:30am | 2026-11-01T01:30-05:00
  )");
  friday.rule = disambiguation::compatible;
  friday.check(R"(
    sunday at 1:30am | 2026-11-01T01:30-04:00
  )");
  // The disambiguation is flagged, never silent.
  saturday.rule = disambiguation::compatible;
  auto r = saturday.read("tomorrow at 2:30am");
  REQUIRE(std::holds_alternative<time_input>(r));
  CHECK(std::get<time_input>(r).disambiguated == "later");
}

TEST_CASE("time grammar corpus: month and weekday names of the caller's "
          "locale",
          "[time_grammar]") {
  auto de = winter();
  de.locale = "de_DE";
  de.check(R"(
    25. Dezember 2026 um 15:00 | 2026-12-25T15:00-05:00
    25. dezember 2026 | 2026-12-25T00:00-05:00
    25. Dez. 2026 | 2026-12-25T00:00-05:00
    morgen um 9:00 | 2026-03-07T09:00-05:00
    heute um 15 Uhr | 2026-03-06T15:00-05:00
    gestern | 2026-03-05T00:00-05:00
    übermorgen | 2026-03-08T00:00-05:00
    Freitag um 15:00 | 2026-03-06T15:00-05:00
    Montag | 2026-03-09T00:00-04:00
    1. März 2027 | 2027-03-01T00:00-05:00
    1. MÄRZ 2027 | 2027-03-01T00:00-05:00
    25.12.2026 | 2026-12-25T00:00-05:00
    25/12/2026 | 2026-12-25T00:00-05:00
    tomorrow at 9am | 2026-03-07T09:00-05:00
    December 25 | 2026-12-25T00:00-05:00
  )");
  auto fr = winter();
  fr.locale = "fr_FR";
  fr.check(R"(
    vendredi à 15h | 2026-03-06T15:00-05:00
    vendredi à 15h30 | 2026-03-06T15:30-05:00
    demain à 9h | 2026-03-07T09:00-05:00
    aujourd'hui à 15:00 | 2026-03-06T15:00-05:00
    aujourd’hui | 2026-03-06T00:00-05:00
    hier | 2026-03-05T00:00-05:00
    lundi | 2026-03-09T00:00-04:00
    25 décembre 2026 | 2026-12-25T00:00-05:00
    25 DÉCEMBRE 2026 à 15h | 2026-12-25T15:00-05:00
    1er janvier | 2027-01-01T00:00-05:00
    25 déc. 2026 | 2026-12-25T00:00-05:00
    07/03/2026 | 2026-03-07T00:00-05:00
    friday at 3pm | 2026-03-06T15:00-05:00
  )");
  auto gb = winter();
  gb.locale = "en_GB";
  gb.check(R"(
    25/12/2026 | 2026-12-25T00:00-05:00
    03/07/2026 | 2026-07-03T00:00-04:00
    7/3 | 2026-03-07T00:00-05:00
    25 December 2026 at 3pm | 2026-12-25T15:00-05:00
  )");
  auto es = winter();
  es.locale = "es_ES";
  es.check(R"(
    25 de diciembre de 2026 | 2026-12-25T00:00-05:00
    viernes | 2026-03-06T00:00-05:00
    mañana | 2026-03-07T00:00-05:00
  )");
  auto ja = winter();
  ja.locale = "ja_JP";
  ja.check(R"(
    2026/12/25 | 2026-12-25T00:00-05:00
    12/25 | 2026-12-25T00:00-05:00
  )");
}

TEST_CASE("time grammar corpus: refusals", "[time_grammar]") {
  winter().check(R"(
    next week | ! VALIDATION_ERROR
    this month | ! VALIDATION_ERROR
    in 3 business days | ! VALIDATION_ERROR
    3 business days from now | ! VALIDATION_ERROR
    tomorow at 9am | ! VALIDATION_ERROR
    monday december 25 2026 | ! VALIDATION_ERROR
    december 2026 | ! VALIDATION_ERROR
    february 30 | ! VALIDATION_ERROR
    13pm | ! VALIDATION_ERROR
    25:00 | ! VALIDATION_ERROR
    in 1.5 months | ! VALIDATION_ERROR
    in 3 hours at 5pm | ! VALIDATION_ERROR
    tomorrow at | ! VALIDATION_ERROR
    3pm at 4pm | ! VALIDATION_ERROR
    end of day at 5pm | ! VALIDATION_ERROR
    now at 5pm | ! VALIDATION_ERROR
    in 3 fortnights | ! VALIDATION_ERROR
    13/25/2026 | ! VALIDATION_ERROR
    1774747800 | ! VALIDATION_ERROR
    soon | ! VALIDATION_ERROR
    2026-12-25 soon | ! VALIDATION_ERROR
    2026-12-32 3pm | ! VALIDATION_ERROR
    in an hour and a half and | ! VALIDATION_ERROR
    in 1.2345 hours | ! VALIDATION_ERROR
    end of the | ! VALIDATION_ERROR
    4pm PST | ! VALIDATION_ERROR
  )");
}

TEST_CASE("time grammar corpus: refusals are short and suggest the nearest "
          "forms",
          "[time_grammar]") {
  auto w = winter();
  struct row {
    const char* input;
    const char* reason;
    const char* suggestion;
  };
  for (const auto& x : {
         row{"in 3 business days", "operation 'business_days'",
             "next business day"},
         row{"this month", "is a period, not an instant", "start of month"},
         row{"next week", "is a period, not an instant", "start of next week"},
         row{"next month", "time_calculate's 'difference'", "end of next month"},
         row{"this weekend", "is a period", "this saturday"},
         row{"tomorow at 9am", "not a form", "tomorrow at 9am"},
         row{"nxt friday", "not a form", "next friday"},
         row{"in 3 hours agoo", "is not a number", ""},
         row{"december 2026", "names a month, not a day", ""},
         row{"monday december 25 2026", "a Friday, not a Monday", ""},
         row{"1774747800", "bare number", "unix:1774747800"},
         row{"4pm PST", "'pst' is a zone", "4pm"},
         row{"Thursday, March 12, 2026 at 4:00 PM EST", "is a zone",
             "Thursday, March 12, 2026 at 4:00 PM"},
       }) {
    INFO("input: " << x.input);
    auto r = w.read(x.input);
    REQUIRE(std::holds_alternative<time_input_error>(r));
    const auto& e = std::get<time_input_error>(r);
    CHECK(e.code == "VALIDATION_ERROR");
    CHECK(e.message.size() <= 300);
    CHECK(e.message.find(x.reason) != std::string::npos);
    CHECK(e.message.find("docs/time-grammar.md") != std::string::npos);
    if (*x.suggestion)
      CHECK(std::find(e.suggestions.begin(), e.suggestions.end(),
                      std::string(x.suggestion))
            != e.suggestions.end());
  }
  // The longest input the grammar reads, refused: still within 300.
  auto r = w.read(std::string(128, 'x'));
  CHECK(std::get<time_input_error>(r).message.size() <= 300);
  // The input is quoted up to 48 bytes, never half a UTF-8 character.
  std::string e_acute = "\xc3\xa9", many, shown;
  for (int i = 0; i < 40; ++i)
    many += e_acute;
  for (int i = 0; i < 24; ++i)
    shown += e_acute;
  auto utf8 = std::get<time_input_error>(w.read("x" + many)).message;
  CHECK(utf8.find("'x" + shown.substr(0, 46) + "...'") != std::string::npos);
}

TEST_CASE("time grammar corpus: ambiguous phrases report their convention",
          "[time_grammar]") {
  auto w = winter();
  struct row {
    const char* input;
    const char* convention;
  };
  for (const auto& x : {
         row{"next friday", "next Friday: the first Friday after today"},
         row{"this friday", "the Friday of the current week"},
         row{"friday", "today included"},
         row{"december 25", "a date without a year: the next such date"},
         row{"3pm", "a time of day alone: today's"},
         row{"at 7", "24-hour clock"},
         row{"tonight at 7", "pm"},
         row{"midnight", "the start of the day"},
         row{"EOD", "the end of today"},
         row{"end of month", "its last millisecond"},
         row{"3/7/2026", "month first"},
         row{"this evening", "evening 19:00"},
       }) {
    INFO("input: " << x.input);
    auto r = w.read(x.input);
    REQUIRE(std::holds_alternative<time_input>(r));
    CHECK(std::get<time_input>(r).convention.find(x.convention)
          != std::string::npos);
  }
  for (const char* plain : {"tomorrow at 9am", "in 3 hours", "now",
                            "2026-12-25T15:00", "Dec 25, 2026 at 3pm"}) {
    INFO("input: " << plain);
    CHECK(std::get<time_input>(w.read(plain)).convention.empty());
  }
  CHECK(std::get<time_input>(w.read("Dec 25, 2026 at 3pm")).form
        == time_input::local);
  CHECK(std::get<time_input>(w.read("25 December 2026")).form
        == time_input::date);
  CHECK(std::get<time_input>(w.read("tomorrow at 9am")).form
        == time_input::relative);
}

TEST_CASE("time grammar: 'in N units' then 'N units ago' returns to the "
          "start outside gaps",
          "[time_grammar]") {
  const char* units[] = {"seconds", "minutes", "hours", "days", "weeks",
                         "months", "years"};
  auto ny = zone_named("America/New_York");
  // Starts on the 1st to the 28th (a month or year then lands on the same
  // day) at 10:15, through a year with both DST changes.
  for (int d = 0; d < 365; d += 3) {
    auto day = date::sys_days{date::year{2026} / 1 / 1} + date::days{d};
    if (date::year_month_day{day}.day() > date::day{28})
      continue;
    auto start = day + 15h + 15min;
    for (const char* u : units) {
      for (int n : {1, 2, 7, 25}) {
        auto phrase = std::to_string(n) + " " + u;
        time_input_options o;
        o.now = start;
        o.in = &ny;
        auto there = std::get<time_input>(parse_time_input("in " + phrase, o));
        o.now = there.instant;
        auto back = std::get<time_input>(parse_time_input(phrase + " ago", o));
        INFO(phrase << " from " << format_iso8601(start, ny));
        CHECK(back.instant == start);
      }
    }
  }
}
