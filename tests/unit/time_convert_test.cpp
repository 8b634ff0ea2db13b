// time_convert through the MCP session (tools/call, schema-checked results),
// on a fake clock: DST gaps and overlaps, date differences, odd offsets,
// argument limits.

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

const rapidjson::Value& result(const rapidjson::Value& sc, unsigned i) {
  REQUIRE(sc["results"].IsArray());
  REQUIRE(sc["results"].Size() > i);
  return sc["results"][i];
}

} // namespace

TEST_CASE("time_convert: a local time in the Berlin spring gap is refused "
          "with the two nearest valid times",
          "[time_convert]") {
  auto c = berlin_client();
  auto sc = c.fails("time_convert",
                    R"({"time":"2026-03-29T02:30","from_timezone":"Europe/Berlin",)"
                    R"("to_timezones":["Asia/Tokyo"]})",
                    "NONEXISTENT_LOCAL_TIME");
  auto message = str(sc["message"]);
  CHECK(message.find("2026-03-29T02:30 does not exist in Europe/Berlin: clocks "
                     "went from 02:00 +01:00 to 03:00 +02:00")
        == 0);
  CHECK(message.find("2026-03-29T01:30:00+01:00") != std::string::npos);
  CHECK(message.find("2026-03-29T03:30:00+02:00") != std::string::npos);
  CHECK(strings(sc["suggestions"])
        == std::vector<std::string>{"2026-03-29T01:30:00+01:00",
                                    "2026-03-29T03:30:00+02:00"});
  // The default zone is the server's: the same refusal without from_timezone.
  c.fails("time_convert", R"({"time":"2026-03-29T02:30","to_timezones":["UTC"]})",
          "NONEXISTENT_LOCAL_TIME");

  struct row {
    const char* rule;
    const char* source;
    const char* utc;
    const char* picked;
  };
  for (const auto& x : {
         row{"later", "2026-03-29T03:30:00.000+02:00",
             "2026-03-29T01:30:00.000+00:00", "later"},
         row{"compatible", "2026-03-29T03:30:00.000+02:00",
             "2026-03-29T01:30:00.000+00:00", "later"},
         row{"earlier", "2026-03-29T01:30:00.000+01:00",
             "2026-03-29T00:30:00.000+00:00", "earlier"},
       }) {
    INFO("disambiguation: " << x.rule);
    auto ok = c.ok("time_convert",
                   std::string(R"({"time":"2026-03-29T02:30","to_timezones":["UTC"],)")
                     + R"("disambiguation":")" + x.rule + "\"}");
    CHECK(str(ok["source"]["timestamp"]) == x.source);
    CHECK(str(ok["source"]["timezone"]) == "Europe/Berlin");
    CHECK(str(ok["source"]["disambiguation"]) == x.picked);
    CHECK(str(ok["source"]["interpreted_as"]) == "local");
    CHECK(str(result(ok, 0)["timestamp"]) == x.utc);
  }
}

TEST_CASE("time_convert: a local time in the Berlin autumn overlap is refused "
          "listing both instants, or picked by disambiguation",
          "[time_convert]") {
  auto c = berlin_client();
  auto sc = c.fails("time_convert",
                    R"({"time":"2026-10-25T02:30","to_timezones":["UTC"]})",
                    "AMBIGUOUS_LOCAL_TIME");
  CHECK(str(sc["message"]).find(
          "2026-10-25T02:30 is ambiguous in Europe/Berlin: clocks went back "
          "from 03:00 +02:00 to 02:00 +01:00, so it happens twice: "
          "2026-10-25T02:30:00+02:00")
        == 0);
  CHECK(strings(sc["suggestions"])
        == std::vector<std::string>{"2026-10-25T02:30:00+02:00",
                                    "2026-10-25T02:30:00+01:00"});
  auto earlier = c.ok("time_convert",
                      R"({"time":"2026-10-25T02:30","to_timezones":["UTC"],)"
                      R"("disambiguation":"earlier"})");
  CHECK(str(earlier["source"]["timestamp"]) == "2026-10-25T02:30:00.000+02:00");
  CHECK(boolean(earlier["source"]["is_dst"]));
  CHECK(str(earlier["source"]["abbreviation"]) == "CEST");
  CHECK(str(result(earlier, 0)["timestamp"]) == "2026-10-25T00:30:00.000+00:00");
  auto later = c.ok("time_convert",
                    R"({"time":"2026-10-25T02:30","to_timezones":["UTC"],)"
                    R"("disambiguation":"later"})");
  CHECK(str(later["source"]["timestamp"]) == "2026-10-25T02:30:00.000+01:00");
  CHECK_FALSE(boolean(later["source"]["is_dst"]));
  CHECK(str(later["source"]["abbreviation"]) == "CET");
  CHECK(str(later["source"]["disambiguation"]) == "later");
  CHECK(str(result(later, 0)["timestamp"]) == "2026-10-25T01:30:00.000+00:00");
  // An unambiguous time says no disambiguation was needed.
  auto plain = c.ok("time_convert",
                    R"({"time":"2026-10-25T04:30","to_timezones":["UTC"]})");
  CHECK(plain["source"]["disambiguation"].IsNull());
  CHECK(plain["source"]["input_offset"].IsNull());
}

TEST_CASE("time_convert: date differences from a Berlin evening, and back",
          "[time_convert]") {
  auto c = berlin_client();
  auto sc = c.ok("time_convert",
                 R"({"time":"2026-06-10T20:00","from_timezone":"Europe/Berlin",)"
                 R"("to_timezones":["Asia/Tokyo","America/New_York","Europe/Berlin",)"
                 R"("Pacific/Kiritimati"]})");
  CHECK(str(sc["source"]["timestamp"]) == "2026-06-10T20:00:00.000+02:00");
  CHECK(str(sc["source"]["friendly"]) == "June 10, 2026 8:00:00 PM CEST");
  CHECK(str(sc["source"]["day_of_week"]) == "Wednesday");
  const auto& tokyo = result(sc, 0);
  CHECK(str(tokyo["timezone"]) == "Asia/Tokyo");
  CHECK(str(tokyo["timestamp"]) == "2026-06-11T03:00:00.000+09:00");
  CHECK(str(tokyo["friendly"]) == "June 11, 2026 3:00:00 AM JST");
  CHECK(str(tokyo["date_difference"]) == "+1 day");
  CHECK(str(tokyo["day_of_week"]) == "Thursday");
  CHECK(str(tokyo["utc_offset"]) == "+09:00");
  CHECK_FALSE(boolean(tokyo["is_dst"]));
  const auto& ny = result(sc, 1);
  CHECK(str(ny["timestamp"]) == "2026-06-10T14:00:00.000-04:00");
  CHECK(str(ny["abbreviation"]) == "EDT");
  CHECK(boolean(ny["is_dst"]));
  CHECK(str(ny["date_difference"]) == "same day");
  CHECK(str(result(sc, 2)["date_difference"]) == "same day");
  CHECK(str(result(sc, 3)["timestamp"]) == "2026-06-11T08:00:00.000+14:00");
  CHECK(str(result(sc, 3)["date_difference"]) == "+1 day");

  auto back = c.ok("time_convert",
                   R"({"time":"2026-06-11T07:00","from_timezone":"Asia/Tokyo",)"
                   R"("to_timezones":["America/New_York","Pacific/Pago_Pago"]})");
  CHECK(str(result(back, 0)["timestamp"]) == "2026-06-10T18:00:00.000-04:00");
  CHECK(str(result(back, 0)["date_difference"]) == "-1 day");
  CHECK(str(result(back, 1)["date_difference"]) == "-1 day");
  auto far = c.ok("time_convert",
                  R"({"time":"2026-06-10T23:30","from_timezone":"Pacific/Pago_Pago",)"
                  R"("to_timezones":["Pacific/Kiritimati"]})");
  CHECK(str(result(far, 0)["timestamp"]) == "2026-06-12T00:30:00.000+14:00");
  CHECK(str(result(far, 0)["date_difference"]) == "+2 days");
}

TEST_CASE("time_convert: half-hour and 45-minute zones", "[time_convert]") {
  auto c = berlin_client();
  auto sc = c.ok("time_convert",
                 R"({"time":"2026-01-15T12:00:00Z",)"
                 R"("to_timezones":["Asia/Kolkata","Asia/Kathmandu","+05:30"]})");
  CHECK(str(sc["source"]["timezone"]) == "UTC+00:00");
  CHECK(str(sc["source"]["input_offset"]) == "+00:00");
  CHECK(str(sc["source"]["interpreted_as"]) == "offset");
  const auto& kolkata = result(sc, 0);
  CHECK(str(kolkata["timestamp"]) == "2026-01-15T17:30:00.000+05:30");
  CHECK(str(kolkata["utc_offset"]) == "+05:30");
  CHECK(str(kolkata["abbreviation"]) == "IST");
  const auto& kathmandu = result(sc, 1);
  CHECK(str(kathmandu["timestamp"]) == "2026-01-15T17:45:00.000+05:45");
  CHECK(str(kathmandu["utc_offset"]) == "+05:45");
  CHECK(str(kathmandu["abbreviation"]) == "+0545");
  CHECK(str(kathmandu["friendly"]) == "January 15, 2026 5:45:00 PM +0545");
  CHECK(str(result(sc, 2)["timezone"]) == "UTC+05:30");
  // `format` picks what `timestamp` holds; `friendly` is always there.
  for (auto [format, expected] :
       {std::pair{"unix", "1768478400"}, {"unix_ms", "1768478400000"},
        {"friendly", "January 15, 2026 5:45:00 PM +0545"}}) {
    auto f = c.ok("time_convert",
                  std::string(R"({"time":"2026-01-15T12:00:00Z","to_timezones":)")
                    + R"(["Asia/Kathmandu"],"format":")" + format + "\"}");
    CHECK(str(result(f, 0)["timestamp"]) == expected);
    CHECK(str(result(f, 0)["friendly"]) == "January 15, 2026 5:45:00 PM +0545");
  }
}

TEST_CASE("time_convert: an input with an offset is shown at that offset, "
          "from_timezone reads only local inputs",
          "[time_convert]") {
  auto c = berlin_client();
  auto sc = c.ok("time_convert",
                 R"({"time":"2026-03-29T23:00:00-05:00","from_timezone":"Asia/Tokyo",)"
                 R"("to_timezones":["Asia/Tokyo"]})");
  CHECK(str(sc["source"]["timezone"]) == "UTC-05:00");
  CHECK(str(sc["source"]["input_offset"]) == "-05:00");
  CHECK(str(sc["source"]["timestamp"]) == "2026-03-29T23:00:00.000-05:00");
  CHECK(str(result(sc, 0)["timestamp"]) == "2026-03-30T13:00:00.000+09:00");
  CHECK(str(result(sc, 0)["date_difference"]) == "+1 day");
  // Relative expressions are evaluated on the (fake) clock in from_timezone.
  auto rel = c.ok("time_convert",
                  R"({"time":"next friday at 10:00","to_timezones":["Asia/Tokyo"]})");
  CHECK(str(rel["source"]["interpreted_as"]) == "relative");
  CHECK(str(rel["source"]["timestamp"]) == "2026-04-03T10:00:00.000+02:00");
  CHECK(str(result(rel, 0)["timestamp"]) == "2026-04-03T17:00:00.000+09:00");
  auto week = c.ok("time_convert",
                   R"({"time":"start of week","week_start":"sunday","to_timezones":["UTC"]})");
  CHECK(str(week["source"]["timestamp"]) == "2026-03-22T00:00:00.000+01:00");
  auto unix = c.ok("time_convert",
                   R"({"time":"unix:1774747800","to_timezones":["UTC"]})");
  CHECK(str(unix["source"]["interpreted_as"]) == "unix");
  CHECK(str(unix["source"]["timezone"]) == "Europe/Berlin");
  CHECK(str(result(unix, 0)["timestamp"]) == "2026-03-29T01:30:00.000+00:00");
}

TEST_CASE("time_convert: limits, duplicates, unknown zones and unreadable "
          "times are refused",
          "[time_convert]") {
  auto c = berlin_client();
  c.fails("time_convert", R"({"time":"now","to_timezones":[]})",
          "VALIDATION_ERROR");
  std::string many = R"({"time":"now","to_timezones":[)";
  for (int i = 0; i < 21; ++i)
    many += (i == 0 ? "\"+0" : ",\"+0") + std::to_string(i % 10) + ":"
            + std::to_string(10 + i) + "\"";
  many += "]}";
  c.fails("time_convert", many, "VALIDATION_ERROR");
  auto twenty = c.ok("time_convert",
                     many.substr(0, many.rfind(",\"")) + "]}");
  CHECK(twenty["results"].Size() == 20);
  auto dup = c.fails("time_convert",
                     R"({"time":"now","to_timezones":["UTC","Asia/Tokyo","UTC"]})",
                     "VALIDATION_ERROR");
  CHECK(str(dup["message"]) == "to_timezones[2]: 'UTC' is listed twice; name "
                               "each zone once.");
  auto bad = c.fails("time_convert",
                     R"({"time":"now","to_timezones":["UTC","America/NewYork"]})",
                     "INVALID_TIMEZONE");
  CHECK(str(bad["message"]).find("to_timezones[1]: Unknown time zone") == 0);
  CHECK(strings(bad["suggestions"]).at(0) == "America/New_York");
  auto from = c.fails("time_convert",
                      R"({"time":"now","from_timezone":"EST","to_timezones":["UTC"]})",
                      "INVALID_TIMEZONE");
  CHECK(str(from["message"]).find("from_timezone: ") == 0);
  auto time = c.fails("time_convert",
                      R"({"time":"next fortnight","to_timezones":["UTC"]})",
                      "VALIDATION_ERROR");
  CHECK(str(time["message"]).find("docs/time-grammar.md") != std::string::npos);
  c.fails("time_convert", R"({"time":"now","to_timezones":["UTC"],"language":"de-DE"})",
          "VALIDATION_ERROR");
  c.fails("time_convert", R"({"to_timezones":["UTC"]})", "VALIDATION_ERROR");
}
