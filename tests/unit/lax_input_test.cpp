// Issue 29 item 9: lax input where the meaning is unambiguous, in one place
// (tools/lax_input.hpp) derived from each tool's input schema: "5" for an
// integer, "true"/"false" for a boolean, a whole number for a string (an
// estimate in minutes), one string for an array of strings. Everything
// else is refused as before; and estimates read "10m", "1.5h" and "P1D".

#include "tools/lax_input.hpp"
#include "tools/session_common.hpp"

#include <catch2/catch.hpp>
#include "session_client.hpp"
#include "test_json.hpp"

#include <chrono>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;
using ttm::test::parse;
using ttm::test::str;
using ttm::test::to_json;

namespace {

std::string coerced(const std::string& value, const std::string& schema) {
  auto v = parse(value);
  auto s = parse(schema);
  tools::coerce_lax(v, s, v.GetAllocator());
  return to_json(v);
}

/// The JSON-RPC error message of a call refused for its arguments.
std::string refusal(client& c, const std::string& tool,
                    const std::string& args) {
  auto res = c.rpc(c.call_json(tool, args));
  if (res.HasMember("error"))
    return str(res["error"]["message"]);
  REQUIRE(res.HasMember("result"));
  REQUIRE(res["result"]["isError"].GetBool());
  return str(res["result"]["structuredContent"]["message"]);
}

std::string parse_and_print(const std::string& json) {
  return to_json(parse(json));
}

std::int64_t ms(const std::string& estimate) {
  auto e = tools::parse_estimate(estimate);
  INFO(estimate << ": " << (std::holds_alternative<std::string>(e)
                              ? std::get<std::string>(e)
                              : std::string{}));
  REQUIRE(std::holds_alternative<std::chrono::milliseconds>(e));
  return std::get<std::chrono::milliseconds>(e).count();
}

} // namespace

TEST_CASE("lax input: the schema's type guides the unambiguous cases only",
          "[lax][issue29]") {
  const std::string schema = R"({"type":"object","properties":{
    "n":{"type":"integer"},"b":{"type":"boolean"},
    "s":{"type":"string","maxLength":32},"long":{"type":"string","maxLength":33},
    "free":{"type":"string"},
    "e":{"type":"string","enum":["a","b"]},
    "list":{"type":"array","items":{"type":"string"}},
    "objs":{"type":"array","items":{"type":"object","properties":{
      "n":{"type":"integer"}}}},
    "map":{"type":"object","additionalProperties":{"type":"string",
      "maxLength":32}}}})";
  CHECK(coerced(R"({"n":"5","b":"true","s":15,"list":"Asia/Tokyo"})", schema)
        == R"({"n":5,"b":true,"s":"15","list":["Asia/Tokyo"]})");
  CHECK(coerced(R"({"n":"-12","b":"false"})", schema)
        == R"({"n":-12,"b":false})");
  CHECK(coerced(R"({"map":{"parse":15},"objs":[{"n":"2"}]})", schema)
        == R"({"map":{"parse":"15"},"objs":[{"n":2}]})");
  // Not unambiguous: left for the validator to refuse.
  for (const char* same :
       {R"({"n":"5.5"})", R"({"n":" 5"})", R"({"n":"5x"})", R"({"n":""})",
        R"({"n":"1234567890123456789"})", R"({"n":true})", R"({"n":5.0})",
        R"({"b":"yes"})", R"({"b":"True"})", R"({"b":1})", R"({"s":1.5})",
        R"({"s":true})", R"({"e":1})", R"({"list":5})", R"({"long":5})",
        R"({"free":5})",
        R"({"objs":{"n":1}})", R"({"other":"5"})"}) {
    INFO(same);
    CHECK(coerced(same, schema) == parse_and_print(same));
  }
}

TEST_CASE("lax input: a client's loosely typed arguments are read, others "
          "are refused with the same message as before",
          "[lax][issue29]") {
  client c;
  // One zone where a list is expected.
  auto conv = c.ok("time_convert", R"({"time":"2025-12-14T10:00:00Z",
      "to_timezones":"Asia/Tokyo"})");
  REQUIRE(conv["results"].Size() == 1);
  // "true" for a boolean, "5" for an integer, 15 for an estimate.
  auto sid = c.start_session(R"(["parse"])", R"(,"estimates":{"parse":15})");
  auto s = c.ok("time_session_summary",
                R"({"session_id":")" + sid
                  + R"(","include_task_details":"true"})");
  CHECK(s.HasMember("tasks"));
  CHECK(s["estimates"][0]["estimate_ms"].GetInt64() == 900000);
  auto due = c.call("request_break_if_needed", R"({"threshold_minutes":"5"})");
  CHECK_FALSE(due.is_error);
  // Still refused, as before.
  CHECK(refusal(c, "request_break_if_needed", R"({"threshold_minutes":"5m"})")
        == "Argument 'threshold_minutes' must be an integer.");
  CHECK(refusal(c, "time_session_summary",
                R"({"session_id":")" + sid
                  + R"(","include_task_details":"yes"})")
          .find("Argument 'include_task_details' must be a boolean.")
        != std::string::npos);
}

TEST_CASE("estimates: whole minutes, a number with a unit, or an ISO 8601 "
          "duration with days",
          "[lax][issue29]") {
  CHECK(ms("15") == 900'000);
  CHECK(ms("10m") == 600'000);
  CHECK(ms("10min") == 600'000);
  CHECK(ms("1.5h") == 5'400'000);
  CHECK(ms("1h30m") == 5'400'000);
  CHECK(ms("90s") == 90'000);
  CHECK(ms("2d") == 172'800'000);
  CHECK(ms("PT1H30M") == 5'400'000);
  CHECK(ms("P1D") == 86'400'000);
  CHECK(ms("P1DT2H") == 93'600'000);
  CHECK(ms("P1W") == 604'800'000);
  for (const char* bad : {"", "abc", "P1M", "P1Y", "-PT1H", "1.h", ".5h",
                          "1.2.3h", "10x", "h", "P400D", "9000h"}) {
    INFO(bad);
    CHECK(std::holds_alternative<std::string>(tools::parse_estimate(bad)));
  }
}
