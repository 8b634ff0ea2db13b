// time_calculate through the MCP session (tools/call, schema-checked
// results), on a fake clock: add/subtract across DST changes and month ends,
// differences, business days, and the refusals, each naming its field.

#include "session_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

// Friday 2026-03-27 16:45:30.250 in Berlin.
domain::wall_time friday() {
  return date::sys_days{date::year{2026} / 3 / 27} + 15h + 45min + 30s + 250ms;
}

client berlin_client() {
  return client{"2025-11-25", {}, "Europe/Berlin", friday()};
}

std::string calc(const std::string& body) {
  return "{" + body + "}";
}

} // namespace

TEST_CASE("time_calculate: P1D keeps the wall time across the Berlin spring "
          "change, PT24H the elapsed time",
          "[time_calculate]") {
  auto c = berlin_client();
  auto day = c.ok("time_calculate",
                  calc(R"("operation":"add","start":"2026-03-28T12:00",)"
                       R"("duration":"p1d","timezone":"Europe/Berlin")"));
  CHECK(str(day["operation"]) == "add");
  CHECK(str(day["duration"]) == "P1D");
  CHECK(str(day["start"]["timestamp"]) == "2026-03-28T12:00:00.000+01:00");
  CHECK(str(day["start"]["interpreted_as"]) == "local");
  CHECK(str(day["result"]["timestamp"]) == "2026-03-29T12:00:00.000+02:00");
  CHECK(boolean(day["result"]["is_dst"]));
  CHECK(str(day["result"]["abbreviation"]) == "CEST");
  CHECK(str(day["result"]["day_of_week"]) == "Sunday");
  CHECK(day["result"]["disambiguation"].IsNull());
  CHECK(integer(day["result"]["elapsed_ms"]) == 23 * 3'600'000);
  CHECK_FALSE(day.HasMember("difference"));
  CHECK_FALSE(day.HasMember("end"));

  auto hours = c.ok("time_calculate",
                    calc(R"("operation":"add","start":"2026-03-28T12:00",)"
                         R"("duration":"PT24H")"));
  CHECK(str(hours["result"]["timestamp"]) == "2026-03-29T13:00:00.000+02:00");
  CHECK(integer(hours["result"]["elapsed_ms"]) == 24 * 3'600'000);

  // New York, autumn: P1D is 25 hours; subtract walks back.
  auto ny = c.ok("time_calculate",
                 calc(R"("operation":"subtract","start":"2026-11-01T12:00",)"
                      R"("duration":"P1D","timezone":"America/New_York")"));
  CHECK(str(ny["result"]["timestamp"]) == "2026-10-31T12:00:00.000-04:00");
  CHECK(integer(ny["result"]["elapsed_ms"]) == -25 * 3'600'000);
}

TEST_CASE("time_calculate: month ends clamp", "[time_calculate]") {
  auto c = berlin_client();
  auto feb = c.ok("time_calculate",
                  calc(R"("operation":"add","start":"2026-01-31T09:00",)"
                       R"("duration":"P1M","timezone":"UTC")"));
  CHECK(str(feb["result"]["timestamp"]) == "2026-02-28T09:00:00.000+00:00");
  auto leap = c.ok("time_calculate",
                   calc(R"("operation":"add","start":"2028-01-31",)"
                        R"("duration":"P1M","timezone":"UTC","format":"friendly")"));
  CHECK(str(leap["result"]["timestamp"]) == "February 29, 2028 12:00:00 AM UTC");
  CHECK(str(leap["start"]["interpreted_as"]) == "date");
}

TEST_CASE("time_calculate: a calendar step into a DST gap or overlap follows "
          "result_disambiguation (compatible by default), and says so",
          "[time_calculate]") {
  auto c = berlin_client();
  auto gap = c.ok("time_calculate",
                  calc(R"("operation":"add","start":"2026-03-28T02:30",)"
                       R"("duration":"P1D")"));
  CHECK(str(gap["result"]["timestamp"]) == "2026-03-29T03:30:00.000+02:00");
  CHECK(str(gap["result"]["disambiguation"]) == "later");
  CHECK(gap["start"]["disambiguation"].IsNull());
  auto earlier = c.ok("time_calculate",
                      calc(R"("operation":"add","start":"2026-03-28T02:30",)"
                           R"("duration":"P1D","result_disambiguation":"earlier")"));
  CHECK(str(earlier["result"]["timestamp"]) == "2026-03-29T01:30:00.000+01:00");
  CHECK(str(earlier["result"]["disambiguation"]) == "earlier");
  auto refused = c.fails(
    "time_calculate",
    calc(R"("operation":"add","start":"2026-03-28T02:30","duration":"P1D",)"
         R"("result_disambiguation":"reject")"),
    "NONEXISTENT_LOCAL_TIME");
  CHECK_THAT(str(refused["message"]),
             Catch::StartsWith("2026-03-29T02:30 (from "
                               "'2026-03-28T02:30:00.000+01:00 + P1D') does "
                               "not exist in Europe/Berlin"));
  CHECK_THAT(str(refused["message"]),
             Catch::Contains("pass result_disambiguation to choose"));
  CHECK(strings(refused["suggestions"])
        == std::vector<std::string>{"2026-03-29T01:30:00+01:00",
                                    "2026-03-29T03:30:00+02:00"});

  auto overlap = c.ok("time_calculate",
                      calc(R"("operation":"subtract","start":"2026-10-26T02:30",)"
                           R"("duration":"P1D")"));
  CHECK(str(overlap["result"]["timestamp"]) == "2026-10-25T02:30:00.000+02:00");
  CHECK(str(overlap["result"]["disambiguation"]) == "earlier");
  c.fails("time_calculate",
          calc(R"("operation":"subtract","start":"2026-10-26T02:30",)"
               R"("duration":"P1D","result_disambiguation":"reject")"),
          "AMBIGUOUS_LOCAL_TIME");

  // The start itself in a gap follows `disambiguation` (reject by default).
  auto start = c.fails("time_calculate",
                       calc(R"("operation":"add","start":"2026-03-29T02:30",)"
                            R"("duration":"PT1H")"),
                       "NONEXISTENT_LOCAL_TIME");
  CHECK_THAT(str(start["message"]), Catch::Contains("pass disambiguation"));
  auto shifted = c.ok("time_calculate",
                      calc(R"("operation":"add","start":"2026-03-29T02:30",)"
                           R"("duration":"PT1H","disambiguation":"compatible")"));
  CHECK(str(shifted["start"]["disambiguation"]) == "later");
  CHECK(str(shifted["result"]["timestamp"]) == "2026-03-29T04:30:00.000+02:00");
}

TEST_CASE("time_calculate: difference, exact and in calendar terms, with its "
          "sign",
          "[time_calculate]") {
  auto c = berlin_client();
  auto d = c.ok("time_calculate",
                calc(R"("operation":"difference","start":"2026-03-28T12:00",)"
                     R"("end":"2026-03-30T15:30")"));
  const auto& diff = d["difference"];
  CHECK_FALSE(boolean(diff["negative"]));
  CHECK(integer(diff["duration_ms"]) == (50 * 60 + 30) * 60'000LL);
  CHECK(str(diff["duration_iso"]) == "PT50H30M");
  CHECK(str(diff["duration"]) == "2 days 2 hours");
  CHECK(str(diff["calendar"]["duration_iso"]) == "P2DT3H30M");
  CHECK(integer(diff["calendar"]["days"]) == 2);
  CHECK(integer(diff["calendar"]["hours"]) == 3);
  CHECK(integer(diff["calendar"]["minutes"]) == 30);
  CHECK(str(d["end"]["timestamp"]) == "2026-03-30T15:30:00.000+02:00");

  // Backwards, relative to the clock: 'now' is the fake clock's Friday.
  auto back = c.ok("time_calculate",
                   calc(R"("operation":"difference","start":"now",)"
                        R"("end":"2025-12-25","timezone":"Europe/Berlin")"));
  const auto& b = back["difference"];
  CHECK(boolean(b["negative"]));
  CHECK(integer(b["duration_ms"]) < 0);
  CHECK(str(b["calendar"]["duration_iso"]) == "-P3M2DT16H45M30.25S");
  CHECK(integer(b["calendar"]["months"]) == -3);
  CHECK(integer(b["calendar"]["milliseconds"]) == -250);
  CHECK(str(back["start"]["interpreted_as"]) == "relative");
  CHECK_THAT(str(b["duration_iso"]), Catch::StartsWith("-PT"));
}

TEST_CASE("time_calculate: business days counted and added, with a weekend "
          "and holidays",
          "[time_calculate]") {
  auto c = berlin_client();
  auto count = c.ok("time_calculate",
                    calc(R"("operation":"business_days","start":"2026-12-23",)"
                         R"("end":"2027-01-04",)"
                         R"("holidays":["2026-12-24","2026-12-25","2026-12-25",)"
                         R"("2026-12-26","2027-01-01"])"));
  const auto& b = count["business_days"];
  CHECK(str(b["start_date"]) == "2026-12-23");
  CHECK(str(b["start_day_of_week"]) == "Wednesday");
  CHECK(str(b["end_date"]) == "2027-01-04");
  CHECK(integer(b["count"]) == 5); // Dec 28, 29, 30, 31, Jan 4
  CHECK(integer(b["holidays_excluded"]) == 3);
  CHECK(strings(b["weekend"]) == std::vector<std::string>{"saturday", "sunday"});

  // Friday + 1 business day is Monday; a Friday-Saturday weekend: Sunday.
  auto monday = c.ok("time_calculate",
                     calc(R"("operation":"business_days","start":"today","days":1)"));
  CHECK(str(monday["business_days"]["start_date"]) == "2026-03-27");
  CHECK(str(monday["business_days"]["end_date"]) == "2026-03-30");
  CHECK(str(monday["business_days"]["end_day_of_week"]) == "Monday");
  CHECK(integer(monday["business_days"]["count"]) == 1);
  auto sunday = c.ok("time_calculate",
                     calc(R"("operation":"business_days","start":"today","days":1,)"
                          R"("weekend":["saturday","friday"])"));
  CHECK(str(sunday["business_days"]["end_date"]) == "2026-03-29");
  CHECK(strings(sunday["business_days"]["weekend"])
        == std::vector<std::string>{"friday", "saturday"});
  auto back = c.ok("time_calculate",
                   calc(R"("operation":"business_days","start":"2026-03-30","days":-1)"));
  CHECK(str(back["business_days"]["end_date"]) == "2026-03-27");
  CHECK(integer(back["business_days"]["count"]) == -1);
}

TEST_CASE("time_calculate: refusals name the field", "[time_calculate]") {
  auto c = berlin_client();
  struct row {
    const char* args;
    const char* code;
    const char* message;
  };
  for (const auto& x : {
         row{R"("operation":"add","start":"now")", "VALIDATION_ERROR",
             "duration: required by operation 'add'"},
         row{R"("operation":"add","start":"now","duration":"P1D","end":"now")",
             "VALIDATION_ERROR", "end: not used by operation 'add'"},
         row{R"("operation":"difference","start":"now","end":"now","duration":"P1D")",
             "VALIDATION_ERROR", "duration: not used by operation 'difference'"},
         row{R"("operation":"difference","start":"now")", "VALIDATION_ERROR",
             "end: required by operation 'difference'"},
         row{R"("operation":"difference","start":"now","end":"now","days":2)",
             "VALIDATION_ERROR", "days: not used"},
         row{R"("operation":"add","start":"now","duration":"P1D","weekend":[])",
             "VALIDATION_ERROR", "weekend: not used"},
         row{R"("operation":"difference","start":"now","end":"now","result_disambiguation":"later")",
             "VALIDATION_ERROR", "result_disambiguation: not used"},
         row{R"("operation":"business_days","start":"now")", "VALIDATION_ERROR",
             "takes exactly one"},
         row{R"("operation":"business_days","start":"now","end":"now","days":1)",
             "VALIDATION_ERROR", "takes exactly one"},
         row{R"("operation":"add","start":"now","duration":"P1H")",
             "VALIDATION_ERROR",
             "duration: cannot read 'P1H': 'H' needs a 'T' before it (PT1H). "
             "Accepted form: an ISO 8601 duration"},
         row{R"("operation":"add","start":"now","duration":"PT")",
             "VALIDATION_ERROR", "duration: cannot read 'PT'"},
         row{R"("operation":"add","start":"now","duration":"P999999999Y")",
             "VALIDATION_ERROR",
             "duration: the result is outside the years 1800 to 2200"},
         row{R"("operation":"add","start":"next fryday","duration":"P1D")",
             "VALIDATION_ERROR", "start: Cannot read the time 'next fryday'"},
         row{R"("operation":"difference","start":"now","end":"soon")",
             "VALIDATION_ERROR", "end: Cannot read the time 'soon'"},
         row{R"("operation":"add","start":"now","duration":"P1D","timezone":"America/NewYork")",
             "INVALID_TIMEZONE", "timezone: Unknown time zone 'America/NewYork'"},
         row{R"("operation":"business_days","start":"now","days":1,"holidays":["2026-02-30"])",
             "VALIDATION_ERROR", "holidays[0]: '2026-02-30' is not a date"},
         row{R"("operation":"business_days","start":"now","days":1,"weekend":["sunday","sunday"])",
             "VALIDATION_ERROR", "weekend[1]: 'sunday' is listed twice"},
         row{R"("operation":"business_days","start":"now","days":1,"weekend":["sunday","monday","tuesday","wednesday","thursday","friday","saturday"])",
             "VALIDATION_ERROR", "weekend: all seven days are weekend"},
         row{R"("operation":"business_days","start":"now","days":100001)",
             "VALIDATION_ERROR", "days: 100001 is outside -100000 to 100000"},
         // Every argument is checked before a time is read.
         row{R"("operation":"business_days","start":"soon","days":1,"holidays":["2026-13-01"])",
             "VALIDATION_ERROR", "holidays[0]: '2026-13-01' is not a date"},
         row{R"("operation":"add","start":"soon","duration":"PT","timezone":"UTC")",
             "VALIDATION_ERROR", "duration: cannot read 'PT': 'T' is not followed"},
         row{R"("operation":"business_days","start":"2200-12-01","days":100000)",
             "VALIDATION_ERROR", "days: the result is outside the years 1800"},
       }) {
    INFO(x.args);
    auto sc = c.fails("time_calculate", calc(x.args), x.code);
    CHECK_THAT(str(sc["message"]), Catch::StartsWith(x.message)
                                     || Catch::Contains(x.message));
  }
  // The schema refuses what it can describe: unknown operation, weekday,
  // holiday length, an unknown argument.
  for (const char* args : {
         R"("operation":"multiply","start":"now")",
         R"("operation":"business_days","start":"now","days":1,"weekend":["sat"])",
         R"("operation":"difference","start":"now","end":"now","x":1)",
         R"("operation":"business_days","start":"now","days":1,"holidays":["2026-1-1"])",
         R"("operation":"add","start":"now","duration":"P1D","language":"de")",
       }) {
    INFO(args);
    c.fails("time_calculate", calc(args), "VALIDATION_ERROR");
  }
}
