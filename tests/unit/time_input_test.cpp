// The time-input grammar (src/domain/time_input.*) on fixed clocks: every
// accepted form, across a DST change, a month end, a year end and a leap
// February, and a table of refused inputs.

#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

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

// Friday 2026-03-27 16:45:30.250 in Berlin (+01:00); clocks go forward on
// Sunday the 29th at 02:00.
wall_time friday_in_berlin() {
  return date::sys_days{date::year{2026} / 3 / 27} + 15h + 45min + 30s + 250ms;
}

struct reader {
  zone z;
  wall_time now;
  unsigned week_start = 1;
  disambiguation rule = disambiguation::reject;

  time_input_result read(const std::string& text) const {
    time_input_options o;
    o.now = now;
    o.in = &z;
    o.week_start = week_start;
    o.on_conflict = rule;
    return parse_time_input(text, o);
  }

  // The instant as ISO 8601 in the reader's zone.
  std::string iso(const std::string& text) const {
    auto r = read(text);
    INFO("input: " << text);
    if (auto* e = std::get_if<time_input_error>(&r))
      FAIL(e->code << ": " << e->message);
    return format_iso8601(std::get<time_input>(r).instant, z);
  }

  time_input_error error(const std::string& text) const {
    auto r = read(text);
    INFO("input: " << text);
    REQUIRE(std::holds_alternative<time_input_error>(r));
    return std::get<time_input_error>(r);
  }
};

reader berlin() {
  return {zone_named("Europe/Berlin"), friday_in_berlin()};
}

reader utc_at(date::year_month_day d, std::chrono::milliseconds tod) {
  return {zone_named("UTC"), date::sys_days{d} + tod};
}

} // namespace

TEST_CASE("time input: day forms on a Friday in Berlin", "[time_input]") {
  auto r = berlin();
  CHECK(r.iso("now") == "2026-03-27T16:45:30.250+01:00");
  CHECK(r.iso("today") == "2026-03-27T00:00:00.000+01:00");
  CHECK(r.iso("TODAY at 17:00") == "2026-03-27T17:00:00.000+01:00");
  CHECK(r.iso("tomorrow") == "2026-03-28T00:00:00.000+01:00");
  CHECK(r.iso("yesterday at 9:05:30") == "2026-03-26T09:05:30.000+01:00");
  // next/last: the first such day strictly after/before today.
  CHECK(r.iso("next friday") == "2026-04-03T00:00:00.000+02:00");
  CHECK(r.iso("  Next   FRIDAY  ") == "2026-04-03T00:00:00.000+02:00");
  CHECK(r.iso("next saturday") == "2026-03-28T00:00:00.000+01:00");
  CHECK(r.iso("next monday at 10:00") == "2026-03-30T10:00:00.000+02:00");
  CHECK(r.iso("last friday") == "2026-03-20T00:00:00.000+01:00");
  CHECK(r.iso("last monday") == "2026-03-23T00:00:00.000+01:00");
  CHECK(r.iso("last thursday") == "2026-03-26T00:00:00.000+01:00");
  // this: the day of the current week (Monday to Sunday by default).
  CHECK(r.iso("this friday") == "2026-03-27T00:00:00.000+01:00");
  CHECK(r.iso("this monday") == "2026-03-23T00:00:00.000+01:00");
  CHECK(r.iso("this sunday") == "2026-03-29T00:00:00.000+01:00");
  CHECK(r.iso("next business day") == "2026-03-30T00:00:00.000+02:00");
  CHECK(r.iso("next business day at 09:00")
        == "2026-03-30T09:00:00.000+02:00");
}

TEST_CASE("time input: week_start moves 'this', 'start of week' and 'end of "
          "week'",
          "[time_input]") {
  auto r = berlin();
  r.week_start = 0; // Sunday
  CHECK(r.iso("this sunday") == "2026-03-22T00:00:00.000+01:00");
  CHECK(r.iso("this saturday") == "2026-03-28T00:00:00.000+01:00");
  CHECK(r.iso("start of week") == "2026-03-22T00:00:00.000+01:00");
  CHECK(r.iso("end of week") == "2026-03-28T23:59:59.999+01:00");
  r.week_start = 5; // Friday: the week starts today
  CHECK(r.iso("start of week") == "2026-03-27T00:00:00.000+01:00");
  CHECK(r.iso("this thursday") == "2026-04-02T00:00:00.000+02:00");
}

TEST_CASE("time input: amounts across a DST change: calendar units keep the "
          "wall time, exact units the elapsed time",
          "[time_input]") {
  auto r = berlin();
  CHECK(r.iso("in 3 hours") == "2026-03-27T19:45:30.250+01:00");
  CHECK(r.iso("in 2 days") == "2026-03-29T16:45:30.250+02:00");
  CHECK(r.iso("in 48 hours") == "2026-03-29T17:45:30.250+02:00");
  CHECK(r.iso("2 days ago") == "2026-03-25T16:45:30.250+01:00");
  CHECK(r.iso("in 1 week 2 days") == "2026-04-05T16:45:30.250+02:00");
  CHECK(r.iso("in 2 days 1 week") == "2026-04-05T16:45:30.250+02:00");
  CHECK(r.iso("in 1 day 2 hours") == "2026-03-28T18:45:30.250+01:00");
  CHECK(r.iso("in 90 minutes 30 seconds") == "2026-03-27T18:16:00.250+01:00");
  CHECK(r.iso("in 1 month") == "2026-04-27T16:45:30.250+02:00");
  CHECK(r.iso("1 year ago") == "2025-03-27T16:45:30.250+01:00");
  CHECK(r.iso("in 0 days") == "2026-03-27T16:45:30.250+01:00");
  CHECK(r.iso("in 2 days at 17:00") == "2026-03-29T17:00:00.000+02:00");
  CHECK(r.iso("1 second ago") == "2026-03-27T16:45:29.250+01:00");
}

TEST_CASE("time input: start and end of day, week, month, year",
          "[time_input]") {
  auto r = berlin();
  CHECK(r.iso("start of day") == "2026-03-27T00:00:00.000+01:00");
  CHECK(r.iso("start of week") == "2026-03-23T00:00:00.000+01:00");
  CHECK(r.iso("start of week at 09:00") == "2026-03-23T09:00:00.000+01:00");
  CHECK(r.iso("start of month") == "2026-03-01T00:00:00.000+01:00");
  CHECK(r.iso("Start Of Year") == "2026-01-01T00:00:00.000+01:00");
  // end of P: 1 ms before the next P starts.
  CHECK(r.iso("end of day") == "2026-03-27T23:59:59.999+01:00");
  CHECK(r.iso("end of week") == "2026-03-29T23:59:59.999+02:00");
  CHECK(r.iso("end of month") == "2026-03-31T23:59:59.999+02:00");
  CHECK(r.iso("end of year") == "2026-12-31T23:59:59.999+01:00");
}

TEST_CASE("time input: a month end, a leap February and a year end",
          "[time_input]") {
  auto jan31 = utc_at(date::year{2026} / 1 / 31, 12h);
  CHECK(jan31.iso("in 1 month") == "2026-02-28T12:00:00.000+00:00");
  CHECK(jan31.iso("in 2 months") == "2026-03-31T12:00:00.000+00:00");
  CHECK(jan31.iso("end of month") == "2026-01-31T23:59:59.999+00:00");
  auto leap = utc_at(date::year{2028} / 1 / 31, 8h);
  CHECK(leap.iso("in 1 month") == "2028-02-29T08:00:00.000+00:00");
  auto feb = utc_at(date::year{2028} / 2 / 10, 10h);
  CHECK(feb.iso("end of month") == "2028-02-29T23:59:59.999+00:00");
  CHECK(feb.iso("start of month") == "2028-02-01T00:00:00.000+00:00");
  auto feb29 = utc_at(date::year{2028} / 2 / 29, 10h);
  CHECK(feb29.iso("in 1 year") == "2029-02-28T10:00:00.000+00:00");
  CHECK(feb29.iso("tomorrow") == "2028-03-01T00:00:00.000+00:00");
  // Thursday 2026-12-31 23:30 UTC.
  auto nye = utc_at(date::year{2026} / 12 / 31, 23h + 30min);
  CHECK(nye.iso("tomorrow") == "2027-01-01T00:00:00.000+00:00");
  CHECK(nye.iso("in 1 hour") == "2027-01-01T00:30:00.000+00:00");
  CHECK(nye.iso("end of year") == "2026-12-31T23:59:59.999+00:00");
  CHECK(nye.iso("next business day") == "2027-01-01T00:00:00.000+00:00");
  CHECK(nye.iso("start of week") == "2026-12-28T00:00:00.000+00:00");
  CHECK(nye.iso("next monday") == "2027-01-04T00:00:00.000+00:00");
  // Saturday: the next business day is Monday.
  auto saturday = utc_at(date::year{2026} / 3 / 28, 9h);
  CHECK(saturday.iso("next business day") == "2026-03-30T00:00:00.000+00:00");
}

TEST_CASE("time input: ISO 8601, dates and unix numbers", "[time_input]") {
  auto r = berlin();
  auto offset = r.read("2026-03-29T02:30:00+01:00");
  REQUIRE(std::holds_alternative<time_input>(offset));
  CHECK(std::get<time_input>(offset).form == time_input::offset);
  CHECK(std::get<time_input>(offset).input_offset == 1h);
  CHECK(r.iso("2026-03-29T02:30:00+01:00") == "2026-03-29T03:30:00.000+02:00");
  CHECK(r.iso("2026-03-29T01:30:00.250Z") == "2026-03-29T03:30:00.250+02:00");
  CHECK(r.iso("2026-03-29t01:30:00.123456789z")
        == "2026-03-29T03:30:00.123+02:00");
  CHECK(r.iso("2026-03-29T07:15+0545") == "2026-03-29T03:30:00.000+02:00");
  CHECK(r.iso("2026-03-28T19:30-05") == "2026-03-29T01:30:00.000+01:00");
  CHECK(r.iso("2026-03-29 10:00") == "2026-03-29T10:00:00.000+02:00");
  CHECK(r.iso("2026-03-29T10:00:05") == "2026-03-29T10:00:05.000+02:00");
  CHECK(r.iso("2026-03-29") == "2026-03-29T00:00:00.000+01:00");
  CHECK(std::get<time_input>(r.read("2026-03-29")).form == time_input::date);
  CHECK(std::get<time_input>(r.read("2026-03-29T10:00")).form
        == time_input::local);
  CHECK(r.iso("unix:1774747800") == "2026-03-29T03:30:00.000+02:00");
  CHECK(r.iso("UNIX_MS:1774747800123") == "2026-03-29T03:30:00.123+02:00");
  CHECK(r.iso("unix:-1") == "1970-01-01T00:59:59.000+01:00");
  CHECK(std::get<time_input>(r.read("unix:0")).form == time_input::unix);
}

TEST_CASE("time input: a local time in a gap or an overlap is refused unless "
          "disambiguation says which instant",
          "[time_input]") {
  auto r = berlin();
  auto gap = r.error("2026-03-29T02:30");
  CHECK(gap.code == "NONEXISTENT_LOCAL_TIME");
  CHECK(gap.message.find("2026-03-29T02:30 does not exist in Europe/Berlin: "
                         "clocks went from 02:00 +01:00 to 03:00 +02:00")
        == 0);
  CHECK(gap.suggestions
        == std::vector<std::string>{"2026-03-29T01:30:00+01:00",
                                    "2026-03-29T03:30:00+02:00"});
  auto overlap = r.error("2026-10-25T02:30");
  CHECK(overlap.code == "AMBIGUOUS_LOCAL_TIME");
  CHECK(overlap.message.find("2026-10-25T02:30 is ambiguous in Europe/Berlin: "
                             "clocks went back from 03:00 +02:00 to 02:00 "
                             "+01:00")
        == 0);
  CHECK(overlap.suggestions
        == std::vector<std::string>{"2026-10-25T02:30:00+02:00",
                                    "2026-10-25T02:30:00+01:00"});
  // A relative expression names the local time it computed.
  auto relative = r.error("in 2 days at 02:30");
  CHECK(relative.code == "NONEXISTENT_LOCAL_TIME");
  CHECK(relative.message.find("2026-03-29T02:30 (from 'in 2 days at 02:30') "
                              "does not exist")
        == 0);

  struct row {
    disambiguation rule;
    const char* gap;
    const char* overlap;
    const char* picked_gap;
    const char* picked_overlap;
  };
  for (const auto& x : {
         row{disambiguation::compatible, "2026-03-29T03:30:00.000+02:00",
             "2026-10-25T02:30:00.000+02:00", "later", "earlier"},
         row{disambiguation::earlier, "2026-03-29T01:30:00.000+01:00",
             "2026-10-25T02:30:00.000+02:00", "earlier", "earlier"},
         row{disambiguation::later, "2026-03-29T03:30:00.000+02:00",
             "2026-10-25T02:30:00.000+01:00", "later", "later"},
       }) {
    r.rule = x.rule;
    CHECK(r.iso("2026-03-29T02:30") == x.gap);
    CHECK(r.iso("2026-10-25T02:30") == x.overlap);
    CHECK(std::get<time_input>(r.read("2026-03-29T02:30")).disambiguated
          == x.picked_gap);
    CHECK(std::get<time_input>(r.read("2026-10-25T02:30")).disambiguated
          == x.picked_overlap);
  }
  // Computed midnights and wall times use "compatible", whatever the rule.
  r.rule = disambiguation::reject;
  auto santiago = reader{zone_named("America/Santiago"),
                         date::sys_days{date::year{2026} / 9 / 5} + 12h};
  // Clocks skip 00:00-01:00 local on 2026-09-06 in Santiago.
  CHECK(santiago.iso("tomorrow") == "2026-09-06T01:00:00.000-03:00");
  CHECK(santiago.error("2026-09-06T00:30").code == "NONEXISTENT_LOCAL_TIME");
  CHECK(r.iso("2026-03-29T03:00") == "2026-03-29T03:00:00.000+02:00");
  CHECK(r.iso("2026-03-29T01:59:59") == "2026-03-29T01:59:59.000+01:00");
}

TEST_CASE("time input: anything else is a VALIDATION_ERROR pointing at "
          "docs/time-grammar.md",
          "[time_input]") {
  auto r = berlin();
  struct row {
    const char* input;
    const char* reason;
  };
  for (const auto& x : {
         row{"", "it is empty"},
         row{"   ", "it is empty"},
         row{"next", "not a form"},
         row{"next week", "is a period, not an instant"},
         row{"the day after", "not a form"},
         row{"in 3", "has no unit after it"},
         row{"3 days", "not a form"},
         row{"in 3 fortnights", "'fortnights' is not a unit"},
         row{"in -3 days", "'-3' is not a number"},
         row{"in 1234567 days", "is not a number (up to 6 digits"},
         row{"in 1 day 1 day", "appears twice"},
         row{"in 999999 years", "outside the years 1800 to 2200"},
         row{"in 999999 days", "outside the years 1800 to 2200"},
         row{"now at 17:00", "'now' takes no time of day"},
         row{"end of day at 17:00", "takes no time of day"},
         row{"in 3 hours at 17:00", "goes only with whole days"},
         row{"start of fortnight", "not day, week, month or year"},
         row{"tomorrow at 25:00", "'25:00' is not a time of day"},
         row{"tomorrow at 13pm", "'13pm' is not a 12-hour time"},
         row{"tomorrow at", "'at' is followed by a time of day"},
         row{"next friday 17:00 18:00", "two times of day"},
         row{"1774747800", "a bare number is ambiguous"},
         row{"unix:abc", "unix: is followed by whole seconds"},
         row{"unix_ms:1.5", "unix_ms: is followed by whole milliseconds"},
         row{"unix:99999999999", "outside the years 1800 to 2200"},
         row{"2026-02-30", "there is no such date"},
         row{"2026-13-01", "there is no such date"},
         row{"2026-3-29", "YYYY-MM-DD"},
         row{"2300-01-01", "outside 1800 to 2200"},
         row{"2026-03-29T24:00", "out of range"},
         row{"2026-03-29T10", "HH:MM"},
         row{"2026-03-29T10:00:60", "out of range"},
         row{"2026-03-29T10:00:00.", "needs digits"},
         row{"2026-03-29T02:30+15:00", "offset is out of range"},
         row{"2026-03-29T02:30+1", "an offset is written"},
         row{"2026-03-29T02:30:00+01:00 extra", "an offset is written"},
         row{"2026-03-29X10:00", "followed by 'T'"},
       }) {
    INFO("input: '" << x.input << "'");
    auto e = r.error(x.input);
    CHECK(e.code == "VALIDATION_ERROR");
    CHECK(e.message.find(x.reason) != std::string::npos);
    CHECK(e.message.find("Every form: docs/time-grammar.md.")
          != std::string::npos);
    CHECK(e.message.size() <= 300);
  }
  CHECK(r.error(std::string(129, 'a')).message.find("longer than 128")
        != std::string::npos);
}
