// Defects the fuzz targets found (tests/fuzz; their inputs are replayed
// from tests/fuzz/regressions/ by the fuzz.<target> ctests), each pinned
// here too at the unit level, in the Release and sanitizer builds.

#include "domain/absolute_time.hpp"
#include "domain/calendar_math.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zone_completion.hpp"
#include "domain/zones.hpp"
#include "reports/report.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <chrono>
#include <variant>

using namespace ttm;
using namespace std::chrono;

TEST_CASE("fuzz regression: a year past 32767 is outside the supported years",
          "[fuzz]") {
  // date::year holds a short: year 67527 read as a year_month_day wrapped
  // to 1991 and passed the 1800..2200 check.
  CHECK_FALSE(domain::in_supported_years(hours{574180921}));
  CHECK_FALSE(domain::in_supported_years(-hours{574180921}));
  CHECK(domain::in_supported_years(milliseconds{0}));
  using date::sys_days;
  auto ms = [](sys_days d) {
    return duration_cast<milliseconds>(d.time_since_epoch());
  };
  CHECK(domain::in_supported_years(ms(sys_days{date::year{1800} / 1 / 1})));
  CHECK(domain::in_supported_years(ms(sys_days{date::year{2200} / 12 / 31})
                                   + hours{23}));
  CHECK_FALSE(domain::in_supported_years(ms(sys_days{date::year{1800} / 1 / 1})
                                         - milliseconds{1}));
  CHECK_FALSE(domain::in_supported_years(ms(sys_days{date::year{2201} / 1 / 1})));
}

TEST_CASE("fuzz regression: PT574180921H added to a time is refused, not "
          "wrapped",
          "[fuzz]") {
  auto parsed = domain::parse_iso_duration("PT574180921H");
  REQUIRE(std::holds_alternative<domain::iso_duration>(parsed));
  auto z = domain::resolve_zone("Europe/Berlin", "UTC");
  REQUIRE(z.found);
  domain::wall_time start{date::sys_days{date::year{2026} / 3 / 28} + hours{12}};
  auto res = domain::add_duration(start, *z.found,
                                  std::get<domain::iso_duration>(parsed), false,
                                  domain::disambiguation::compatible,
                                  "PT574180921H", "disambiguation");
  REQUIRE(std::holds_alternative<domain::time_input_error>(res));
  CHECK(std::get<domain::time_input_error>(res).code == "VALIDATION_ERROR");
}

TEST_CASE("fuzz regression: zone completion offers only names resolve_zone "
          "accepts",
          "[fuzz]") {
  // "EE" completed to the legacy zone "EET", which resolve_zone refuses as
  // an abbreviation.
  auto ee = domain::complete_zone_names("EE", 100);
  for (const auto& v : ee.values)
    CHECK(v != "EET");
  auto all = domain::complete_zone_names("", 100000);
  REQUIRE(all.values.size() > 300);
  for (const auto& v : all.values) {
    INFO(v);
    CHECK(domain::resolve_zone(v, "Europe/Berlin").found.has_value());
  }
}

TEST_CASE("fuzz regression: a task label after JavaScript whitespace is no "
          "Mermaid keyword",
          "[fuzz]") {
  // Mermaid's lexer skips \s (no-break space, \v, ...) before its
  // keywords: "\u00A0title z" was read as a title statement.
  for (const char* name : {"\xC2\xA0title z", "\vsection y", "\xEF\xBB\xBF" "click x"}) {
    reports::report_model m;
    m.milestone_id = "m";
    reports::report_run r;
    r.task_id = name;
    r.status = domain::run_status::completed;
    r.active = {{minutes{0}, minutes{5}}};
    m.runs.push_back(r);
    auto g = reports::render_mermaid_gantt(m);
    INFO(g);
    CHECK(g.find("\n    \xE2\x80\xA3 ") != std::string::npos);
  }
  // A name of JavaScript whitespace alone ("\v") made an empty label.
  reports::report_model m;
  m.milestone_id = "m";
  reports::report_run r;
  r.task_id = "\v";
  r.status = domain::run_status::completed;
  r.active = {{minutes{0}, minutes{5}}};
  m.runs.push_back(r);
  auto g = reports::render_mermaid_gantt(m);
  INFO(g);
  CHECK(g.find("\n    (unnamed) :") != std::string::npos);
}

TEST_CASE("fuzz regression: an instant in the supported years whose local "
          "date is not (1799-12-31 in New York) is written and reads back: "
          "the years bound instants, whatever the zone",
          "[fuzz]") {
  auto ny = domain::resolve_zone("America/New_York", "UTC");
  auto tokyo = domain::resolve_zone("Asia/Tokyo", "UTC");
  REQUIRE(ny.found);
  REQUIRE(tokyo.found);
  domain::time_input_options opts;
  opts.in = &*ny.found;
  // "eod" at 1800-01-01 01:00 UTC: 20:03:58 on 1799-12-31 in New York.
  opts.now = domain::wall_time{date::sys_days{date::year{1800} / 1 / 1}
                               + hours{1}};
  auto eod = domain::parse_time_input("eod", opts);
  REQUIRE(std::holds_alternative<domain::time_input>(eod));
  auto t = std::get<domain::time_input>(eod).instant;
  auto iso = domain::format_iso8601(t, *ny.found);
  CHECK(iso == "1799-12-31T23:59:59.999-04:56:02");
  auto back = domain::parse_time_input(iso, opts);
  REQUIRE(std::holds_alternative<domain::time_input>(back));
  CHECK(std::get<domain::time_input>(back).instant == t);
  // The same day as a local date and time: its instants are in 1800 UTC.
  for (const char* local : {"1799-12-31T20:00", "1799-12-31T19:03:58"})
    CHECK(std::holds_alternative<domain::time_input>(
      domain::parse_time_input(local, opts)));
  // Instants outside the years are refused in every form and zone.
  auto refused = [&](const char* text, const domain::zone& z) {
    opts.in = &z;
    INFO(text);
    auto r = domain::parse_time_input(text, opts);
    REQUIRE(std::holds_alternative<domain::time_input_error>(r));
    CHECK_THAT(std::get<domain::time_input_error>(r).message,
               Catch::Contains("outside the years 1800 to 2200"));
  };
  refused("1799-12-31T19:03", *ny.found); // 23:59 UTC
  refused("1799-12-31", *ny.found);
  refused("1799-12-31T23:00Z", *ny.found);
  refused("2200-12-31T23:00-05:00", *ny.found); // 2201 UTC
  refused("2201-01-01T00:30-01:00", *ny.found);
  refused("1800-01-01", *tokyo.found); // 1799-12-31T14:41:01 UTC
  refused("1800-01-01T00:30", *tokyo.found);
  // In range at both ends, in UTC (the last one written an hour ahead).
  opts.in = &*ny.found;
  for (const char* edge : {"1800-01-01T00:00Z", "2200-12-31T23:59:59.999Z",
                           "2201-01-01T00:30+01:00"})
    CHECK(std::holds_alternative<domain::time_input>(
      domain::parse_time_input(edge, opts)));
}

TEST_CASE("fuzz regression: a time written with a local mean time offset "
          "reads back",
          "[fuzz]") {
  // Before 1900 a zone's offset has seconds (New York: -04:56:02), which
  // format_iso8601 writes; the parser took only +HH:MM and refused it.
  auto z = domain::resolve_zone("America/New_York", "UTC");
  REQUIRE(z.found);
  domain::time_input_options opts;
  opts.in = &*z.found;
  domain::wall_time t{date::sys_days{date::year{1800} / 1 / 1} + hours{5}};
  auto iso = domain::format_iso8601(t, *z.found);
  CHECK(iso == "1800-01-01T00:03:58.000-04:56:02");
  auto res = domain::parse_time_input(iso, opts);
  REQUIRE(std::holds_alternative<domain::time_input>(res));
  CHECK(std::get<domain::time_input>(res).instant == t);
  // Still strict: seconds only after HH:MM with colons, and in range.
  for (const char* bad : {"1800-01-01T00:03:58-0456:02",
                          "1800-01-01T00:03:58-04:56:60",
                          "1800-01-01T00:03:58-04:56:"})
    CHECK(std::holds_alternative<domain::time_input_error>(
      domain::parse_time_input(bad, opts)));
}
