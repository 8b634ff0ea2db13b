// Unit tests for src/tools: the schema builder (schema.hpp), tool validation
// and error messages (tool.cpp), the registry and time_get_current.

#include "domain/clock.hpp"
#include "tools/registry.hpp"
#include "tools/schema.hpp"
#include "tools/tool.hpp"

#include <catch2/catch.hpp>
#include "test_json.hpp"
#include "tools_snapshot.hpp"
#include <date/date.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using tools::call_result;

using ttm::test::contains;
using ttm::test::parse;
using ttm::test::str;

namespace {

std::vector<std::string> strings(const rapidjson::Value& v) {
  REQUIRE(v.IsArray());
  std::vector<std::string> out;
  for (const auto& x : v.GetArray())
    out.push_back(str(x));
  return out;
}

using names = std::vector<std::string>;

domain::wall_time utc(date::year_month_day d,
                      std::chrono::nanoseconds time_of_day = 0ns) {
  return date::sys_days{d} + time_of_day;
}

domain::wall_time unix_time(std::int64_t seconds,
                            std::chrono::nanoseconds extra = 0ns) {
  return domain::wall_time{} + std::chrono::seconds{seconds} + extra;
}

const tools::tool& time_tool() {
  static const tools::tool t = tools::make_time_get_current();
  return t;
}

/// Calls `t` with `args_json` at the instant `now`, with `local_zone` as the
/// host zone; every structuredContent produced is checked against the
/// tool's output schema.
call_result call_at(const tools::tool& t, const std::string& args_json,
                    domain::wall_time now,
                    const std::string& local_zone = "America/New_York") {
  domain::fake_clock clock{now};
  domain::tracker sessions{domain::tracking_limits{}};
  tools::tool_context ctx{clock, local_zone,
                          [](protocol::log_level, std::string) {}, sessions};
  auto args = parse(args_json);
  auto res = t.call(args, ctx);
  if (res.status != call_result::invalid_arguments) {
    INFO("args: " << args_json << "\nstructured: " << res.structured);
    CHECK(t.check_output(res.structured) == "");
  }
  return res;
}

/// time_get_current at `now`; requires success and returns structuredContent.
rapidjson::Document current(const std::string& args_json, domain::wall_time now,
                            const std::string& local_zone = "America/New_York") {
  auto res = call_at(time_tool(), args_json, now, local_zone);
  INFO("args: " << args_json << "\nstructured: " << res.structured
                << "\nmessage: " << res.message);
  REQUIRE(res.status == call_result::ok);
  auto doc = parse(res.structured);
  REQUIRE(doc.IsObject());
  return doc;
}

/// The message of a call refused by schema validation.
std::string invalid_message(const tools::tool& t, const std::string& args_json) {
  auto res = call_at(t, args_json, utc(date::year{2025} / 6 / 1));
  INFO("args: " << args_json << "\nstructured: " << res.structured);
  REQUIRE(res.status == call_result::invalid_arguments);
  CHECK(res.structured.empty());
  CHECK_FALSE(res.message.empty());
  return res.message;
}

struct expected_state {
  const char* timestamp;
  const char* timezone;
  const char* utc_offset;
  const char* day_of_week;
  bool is_dst;
  const char* abbreviation;
};

void check_state(const rapidjson::Document& doc, const expected_state& want) {
  CHECK(str(doc["timestamp"]) == want.timestamp);
  CHECK(str(doc["timezone"]) == want.timezone);
  CHECK(str(doc["utc_offset"]) == want.utc_offset);
  CHECK(str(doc["day_of_week"]) == want.day_of_week);
  REQUIRE(doc["is_dst"].IsBool());
  CHECK(doc["is_dst"].GetBool() == want.is_dst);
  CHECK(str(doc["abbreviation"]) == want.abbreviation);
  CHECK_FALSE(doc["error"].GetBool()); // every success says so (issue 29)
  CHECK(doc.MemberCount() == 14); // + utc, the calendar facts and error
}

// -- a small custom tool exercising the schema builder -------------------------

struct demo_args {
  std::string name;
  bool verbose = false;
  std::vector<std::string> tags;
  tools::string_map metadata;
  std::optional<std::string> note;
};

struct demo_result {
  std::string echo;
  bool flag = false;
};

struct demo_tool {
  std::shared_ptr<demo_args> last = std::make_shared<demo_args>();
  tools::tool tool;

  demo_tool() : tool(make()) {
  }

private:
  tools::tool make() {
    auto in = std::make_shared<tools::input_schema<demo_args>>();
    in->add("name", &demo_args::name, "Who.").max_length(16).required();
    in->add("verbose", &demo_args::verbose, "Talk more.").default_to(true);
    in->add("tags", &demo_args::tags, "Labels.")
      .min_items(1)
      .max_items(3)
      .default_to({"untagged"});
    in->add("metadata", &demo_args::metadata, "Free-form strings.");
    in->add("note", &demo_args::note, "Optional note.");
    auto out = std::make_shared<tools::output_schema<demo_result>>();
    out->add("echo", &demo_result::echo, "The name.");
    out->add("flag", &demo_result::flag, "The verbose flag.");
    auto sink = last;
    tools::tool_spec<demo_args, demo_result> spec;
    spec.name = "demo";
    spec.title = "Demo";
    spec.description = "A tool for tests.";
    spec.input = std::move(in);
    spec.output = std::move(out);
    spec.annotations = tools::hint::destructive | tools::hint::open_world;
    spec.handler = [sink](const demo_args& a, tools::tool_context&)
      -> tools::outcome<demo_result> {
      *sink = a;
      if (a.name == "fail")
        return tools::tool_error{"DEMO_FAILED", "it failed", {"x", "y"}};
      return demo_result{a.name, a.verbose};
    };
    return tools::make_tool(std::move(spec));
  }
};

} // namespace

// -- time_get_current: schemas --------------------------------------------------

TEST_CASE("tools: time_get_current input schema") {
  const auto& t = time_tool();
  CHECK(t.name() == "time_get_current");
  auto s = parse(t.input_schema_json());
  CHECK(str(s["type"]) == "object");
  REQUIRE(s.HasMember("additionalProperties"));
  REQUIRE(s["additionalProperties"].IsBool());
  CHECK_FALSE(s["additionalProperties"].GetBool());
  REQUIRE(s["required"].IsArray());
  CHECK(s["required"].Empty());
  const auto& props = s["properties"];
  REQUIRE(props.IsObject());
  CHECK(props.MemberCount() == 3);

  const auto& format = props["format"];
  CHECK(str(format["type"]) == "string");
  CHECK(strings(format["enum"])
        == names{"iso8601", "unix", "unix_ms", "friendly"});
  CHECK(str(format["default"]) == "iso8601");
  CHECK_FALSE(str(format["description"]).empty());

  const auto& tz = props["timezone"];
  CHECK(str(tz["type"]) == "string");
  CHECK(str(tz["default"]) == "local");
  REQUIRE(tz["maxLength"].IsUint());
  CHECK(tz["maxLength"].GetUint() == 128);
  CHECK_FALSE(tz.HasMember("enum"));
  CHECK_FALSE(str(tz["description"]).empty());

  // Issue 18 item 6: BCP 47, checked by the handler (VALIDATION_ERROR).
  const auto& locale = props["locale"];
  CHECK(str(locale["type"]) == "string");
  CHECK(str(locale["default"]) == "en-US");
  REQUIRE(locale["maxLength"].IsUint());
  CHECK(locale["maxLength"].GetUint() == 64);
  CHECK_FALSE(locale.HasMember("enum"));
}

TEST_CASE("tools: time_get_current output schema") {
  auto s = parse(time_tool().output_schema_json());
  CHECK(str(s["type"]) == "object");
  const auto& props = s["properties"];
  REQUIRE(props.IsObject());
  // The spec's fields first, in its order, then issue 18's additions.
  const names result_fields{
    "timestamp",     "timezone",    "utc_offset", "day_of_week",
    "is_dst",        "abbreviation", "utc",       "iso_week",
    "iso_week_year", "day_of_year", "quarter",    "days_in_month",
    "is_weekend"};
  const names integers{"iso_week", "iso_week_year", "day_of_year", "quarter",
                       "days_in_month"};
  for (const auto& f : result_fields) {
    INFO("field: " << f);
    REQUIRE(props.HasMember(f));
    auto type = f == "is_dst" || f == "is_weekend" ? "boolean"
                : std::find(integers.begin(), integers.end(), f)
                    != integers.end()
                  ? "integer"
                  : "string";
    CHECK(str(props[f]["type"]) == type);
    CHECK_FALSE(str(props[f]["description"]).empty());
  }
  CHECK(str(props["error"]["type"]) == "boolean");
  CHECK(str(props["error_code"]["type"]) == "string");
  CHECK(str(props["message"]["type"]) == "string");
  CHECK(str(props["suggestions"]["type"]) == "array");
  CHECK(str(props["suggestions"]["items"]["type"]) == "string");
  CHECK(str(props["limit"]["type"]) == "string"); // LIMIT_REACHED's
  // time_tasks_edit's (issue 17): which operation failed the call.
  CHECK(str(props["operation_index"]["type"]) == "integer");
  // Every failure's request id (issue 31), set by the MCP layer.
  CHECK(str(props["request_id"]["type"]) == "string");
  CHECK(props.MemberCount() == 20);

  const auto& any_of = s["anyOf"];
  REQUIRE(any_of.IsArray());
  REQUIRE(any_of.Size() == 2);
  // A success carries every result field and `"error": false` (issue 29).
  auto success = result_fields;
  success.push_back("error");
  CHECK(strings(any_of[0]["required"]) == success);
  CHECK(strings(any_of[1]["required"])
        == names{"error", "error_code", "message"});
}

// -- time_get_current: results at fixed instants ---------------------------------

TEST_CASE("tools: time_get_current in New York around spring-forward") {
  // 2025-03-09 07:00Z: 02:00 EST becomes 03:00 EDT.
  const auto d = date::year{2025} / 3 / 9;
  check_state(current(R"({"timezone":"America/New_York"})",
                      utc(d, 6h + 59min + 59s + 999ms)),
              {"2025-03-09T01:59:59.999-05:00", "America/New_York", "-05:00",
               "Sunday", false, "EST"});
  check_state(current(R"({"timezone":"America/New_York"})", utc(d, 7h)),
              {"2025-03-09T03:00:00.000-04:00", "America/New_York", "-04:00",
               "Sunday", true, "EDT"});
}

TEST_CASE("tools: time_get_current in New York around fall-back") {
  // 2025-11-02 06:00Z: 02:00 EDT becomes 01:00 EST.
  const auto d = date::year{2025} / 11 / 2;
  check_state(current(R"({"timezone":"America/New_York"})",
                      utc(d, 5h + 59min + 59s)),
              {"2025-11-02T01:59:59.000-04:00", "America/New_York", "-04:00",
               "Sunday", true, "EDT"});
  check_state(current(R"({"timezone":"America/New_York"})", utc(d, 6h)),
              {"2025-11-02T01:00:00.000-05:00", "America/New_York", "-05:00",
               "Sunday", false, "EST"});
}

TEST_CASE("tools: time_get_current in London, Lord Howe, Kathmandu, UTC") {
  const auto january = utc(date::year{2025} / 1 / 15, 12h);
  const auto july = utc(date::year{2025} / 7 / 15, 12h);
  SECTION("Europe/London: GMT in winter, BST in summer") {
    check_state(current(R"({"timezone":"Europe/London"})", january),
                {"2025-01-15T12:00:00.000+00:00", "Europe/London", "+00:00",
                 "Wednesday", false, "GMT"});
    check_state(current(R"({"timezone":"Europe/London"})", july),
                {"2025-07-15T13:00:00.000+01:00", "Europe/London", "+01:00",
                 "Tuesday", true, "BST"});
  }
  SECTION("Australia/Lord_Howe: half-hour DST") {
    auto summer = current(R"({"timezone":"Australia/Lord_Howe"})", january);
    CHECK(str(summer["timestamp"]) == "2025-01-15T23:00:00.000+11:00");
    CHECK(str(summer["utc_offset"]) == "+11:00");
    CHECK(summer["is_dst"].GetBool());
    CHECK(str(summer["day_of_week"]) == "Wednesday");
    CHECK(str(summer["timezone"]) == "Australia/Lord_Howe");
    auto winter = current(R"({"timezone":"Australia/Lord_Howe"})", july);
    CHECK(str(winter["timestamp"]) == "2025-07-15T22:30:00.000+10:30");
    CHECK(str(winter["utc_offset"]) == "+10:30");
    CHECK_FALSE(winter["is_dst"].GetBool());
    CHECK(str(winter["day_of_week"]) == "Tuesday");
  }
  SECTION("Asia/Kathmandu: +05:45") {
    check_state(current(R"({"timezone":"Asia/Kathmandu"})", july),
                {"2025-07-15T17:45:00.000+05:45", "Asia/Kathmandu", "+05:45",
                 "Tuesday", false, "+0545"});
  }
  SECTION("UTC is +00:00, never Z") {
    auto doc = current(R"({"timezone":"UTC"})", july);
    check_state(doc, {"2025-07-15T12:00:00.000+00:00", "UTC", "+00:00",
                      "Tuesday", false, "UTC"});
    CHECK_FALSE(contains(str(doc["timestamp"]), "Z"));
  }
  SECTION("a fixed offset") {
    check_state(current(R"({"timezone":"+05:30"})", july),
                {"2025-07-15T17:30:00.000+05:30", "UTC+05:30", "+05:30",
                 "Tuesday", false, "UTC+05:30"});
    check_state(current(R"({"timezone":"UTC-3"})", july),
                {"2025-07-15T09:00:00.000-03:00", "UTC-03:00", "-03:00",
                 "Tuesday", false, "UTC-03:00"});
  }
  SECTION("the weekday is the zone's, not UTC's") {
    // 2025-07-15 23:30Z is already Wednesday in Kathmandu.
    auto late = utc(date::year{2025} / 7 / 15, 23h + 30min);
    auto doc = current(R"({"timezone":"Asia/Kathmandu"})", late);
    CHECK(str(doc["day_of_week"]) == "Wednesday");
    CHECK(str(doc["timestamp"]) == "2025-07-16T05:15:00.000+05:45");
  }
}

TEST_CASE("tools: time_get_current formats") {
  SECTION("unix and unix_ms") {
    const auto t = unix_time(1734185132, 123ms + 456us);
    auto s = current(R"({"format":"unix","timezone":"UTC"})", t);
    CHECK(str(s["timestamp"]) == "1734185132");
    auto ms = current(R"({"format":"unix_ms","timezone":"UTC"})", t);
    CHECK(str(ms["timestamp"]) == "1734185132123");
    // Unix times do not depend on the zone; the other fields still do.
    auto ny = current(R"({"format":"unix","timezone":"America/New_York"})", t);
    CHECK(str(ny["timestamp"]) == "1734185132");
    CHECK(str(ny["utc_offset"]) == "-05:00");
  }
  SECTION("iso8601 (explicit and default) truncates to milliseconds") {
    const auto t = unix_time(1734185132, 123ms + 999us);
    auto explicit_iso = current(
      R"({"format":"iso8601","timezone":"America/New_York"})", t);
    CHECK(str(explicit_iso["timestamp"]) == "2024-12-14T09:05:32.123-05:00");
    auto by_default = current(R"({"timezone":"America/New_York"})", t);
    CHECK(str(by_default["timestamp"]) == "2024-12-14T09:05:32.123-05:00");
  }
  SECTION("friendly") {
    const auto d = date::year{2025} / 12 / 14;
    auto morning = current(
      R"({"format":"friendly","timezone":"America/New_York"})",
      utc(d, 14h + 45min + 32s + 123ms));
    CHECK(str(morning["timestamp"]) == "December 14, 2025 9:45:32 AM EST");
    auto evening = current(
      R"({"format":"friendly","timezone":"America/New_York"})",
      utc(d, 23h + 5min + 9s));
    CHECK(str(evening["timestamp"]) == "December 14, 2025 6:05:09 PM EST");
    auto midnight = current(
      R"({"format":"friendly","timezone":"America/New_York"})",
      utc(date::year{2025} / 12 / 15, 5h + 7s));
    CHECK(str(midnight["timestamp"]) == "December 15, 2025 12:00:07 AM EST");
    auto noon = current(R"({"format":"friendly","timezone":"UTC"})",
                        utc(date::year{2025} / 7 / 4, 12h));
    CHECK(str(noon["timestamp"]) == "July 4, 2025 12:00:00 PM UTC");
  }
  SECTION("before 1970, unix times are floored") {
    const auto t = unix_time(-1, 500ms);
    CHECK(str(current(R"({"format":"unix","timezone":"UTC"})", t)["timestamp"])
          == "-1");
    CHECK(str(current(R"({"format":"unix_ms","timezone":"UTC"})", t)["timestamp"])
          == "-500");
    CHECK(str(current(R"({"timezone":"UTC"})", t)["timestamp"])
          == "1969-12-31T23:59:59.500+00:00");
  }
}

TEST_CASE("tools: time_get_current resolves local to the host zone") {
  const auto t = utc(date::year{2025} / 1 / 15, 12h);
  SECTION("explicit local") {
    check_state(current(R"({"timezone":"local"})", t, "America/New_York"),
                {"2025-01-15T07:00:00.000-05:00", "America/New_York", "-05:00",
                 "Wednesday", false, "EST"});
  }
  SECTION("the default is local") {
    auto doc = current("{}", t, "Asia/Kathmandu");
    CHECK(str(doc["timezone"]) == "Asia/Kathmandu");
    CHECK(str(doc["utc_offset"]) == "+05:45");
    CHECK(str(doc["timestamp"]) == "2025-01-15T17:45:00.000+05:45");
  }
  SECTION("local in any case, never reported as 'local'") {
    auto doc = current(R"({"timezone":"LOCAL"})", t, "Europe/London");
    CHECK(str(doc["timezone"]) == "Europe/London");
    CHECK(str(doc["utc_offset"]) == "+00:00");
  }
}

TEST_CASE("tools: time_get_current refuses a bad zone with a tool error") {
  auto res = call_at(time_tool(), R"({"timezone":"America/NewYork"})",
                     utc(date::year{2025} / 6 / 1));
  REQUIRE(res.status == call_result::failed);
  CHECK(res.message.empty());
  auto doc = parse(res.structured);
  REQUIRE(doc["error"].IsBool());
  CHECK(doc["error"].GetBool());
  CHECK(str(doc["error_code"]) == "INVALID_TIMEZONE");
  CHECK(contains(str(doc["message"]), "America/NewYork"));
  auto suggestions = strings(doc["suggestions"]);
  REQUIRE_FALSE(suggestions.empty());
  CHECK(suggestions.front() == "America/New_York");
  CHECK_FALSE(doc.HasMember("timestamp"));

  SECTION("abbreviations are refused too") {
    auto est = call_at(time_tool(), R"({"timezone":"EST"})",
                       utc(date::year{2025} / 6 / 1));
    REQUIRE(est.status == call_result::failed);
    auto e = parse(est.structured);
    CHECK(str(e["error_code"]) == "INVALID_TIMEZONE");
    CHECK_FALSE(strings(e["suggestions"]).empty());
  }
}

TEST_CASE("tools: every time_get_current result matches its output schema") {
  const std::vector<std::string> formats{"", "iso8601", "unix", "unix_ms",
                                         "friendly"};
  const std::vector<std::string> zones{
    "",        "local",          "LOCAL",           "UTC",
    "+05:30",  "-03",            "UTC+14",          "GMT-2",
    "+0545",   "Europe/London",  "America/New_York", "Australia/Lord_Howe",
    "Asia/Kathmandu", "US/Eastern", "Etc/GMT+12",  "Pacific/Chatham",
    "EST",     "IST",            "America/NewYork", "Mars/Olympus_Mons",
    "+15:00",  "asia/tokyo",     "x"};
  const std::vector<domain::wall_time> instants{
    utc(date::year{2025} / 3 / 9, 7h), utc(date::year{2025} / 11 / 2, 6h),
    utc(date::year{1969} / 12 / 31, 23h + 59min + 59s + 1ms),
    utc(date::year{2038} / 1 / 19, 3h + 14min + 8s)};
  int ok = 0;
  int failed = 0;
  for (const auto& at : instants)
    for (const auto& f : formats)
      for (const auto& z : zones) {
        std::string args = "{";
        if (!f.empty())
          args += R"("format":")" + f + "\"";
        if (!z.empty())
          args += std::string{f.empty() ? "" : ","} + R"("timezone":")" + z
                  + "\"";
        args += "}";
        // call_at checks every structuredContent against the output schema.
        auto res = call_at(time_tool(), args, at);
        INFO("args: " << args);
        REQUIRE(res.status != call_result::invalid_arguments);
        (res.status == call_result::ok ? ok : failed)++;
      }
  CHECK(ok > 0);
  CHECK(failed > 0);
  SECTION("the VALIDATION_ERROR shape the session sends also matches") {
    CHECK(time_tool().check_output(tools::encode_tool_error(
            {"VALIDATION_ERROR", "Argument 'format' must be a string."}))
          == "");
  }
  SECTION("check_output does reject what does not match") {
    CHECK(time_tool().check_output("not json") != "");
    CHECK(time_tool().check_output("{}") != "");
    CHECK(time_tool().check_output(R"({"timestamp":"x"})") != "");
    CHECK(time_tool().check_output(
            R"({"timestamp":1,"timezone":"UTC","utc_offset":"+00:00","day_of_week":"Monday","is_dst":false,"abbreviation":"UTC"})")
          != "");
    CHECK(time_tool().check_output(R"({"error":"yes","error_code":"X","message":"m"})")
          != "");
  }
}

// -- validation messages ----------------------------------------------------------

TEST_CASE("tools: time_get_current validation messages name the field") {
  SECTION("unknown format lists the allowed values") {
    auto m = invalid_message(time_tool(), R"({"format":"rfc2822"})");
    CHECK(contains(m, "'format'"));
    for (const char* f : {"iso8601", "unix", "unix_ms", "friendly"})
      CHECK(contains(m, f));
  }
  SECTION("wrong type") {
    auto m = invalid_message(time_tool(), R"({"format":5})");
    CHECK(contains(m, "'format'"));
    CHECK(contains(m, "string"));
    auto z = invalid_message(time_tool(), R"({"timezone":["UTC"]})");
    CHECK(contains(z, "'timezone'"));
    CHECK(contains(z, "string"));
  }
  SECTION("unknown property") {
    auto m = invalid_message(time_tool(), R"({"timzone":"UTC"})");
    INFO("message: " << m);
    CHECK(contains(m, "'timzone'"));
  }
  SECTION("arguments that are not an object") {
    for (const char* args : {"[]", R"(["UTC"])", "5", R"("UTC")", "null",
                             "true"}) {
      INFO("args: " << args);
      auto m = invalid_message(time_tool(), args);
      CHECK(contains(m, "must be"));
      CHECK(contains(m, "object"));
    }
  }
  SECTION("timezone longer than 128 characters") {
    auto m = invalid_message(time_tool(), R"({"timezone":")"
                                            + std::string(129, 'a') + "\"}");
    CHECK(contains(m, "'timezone'"));
    CHECK(contains(m, "128"));
    // 128 is allowed (and then refused as an unknown zone).
    auto at_limit = call_at(time_tool(),
                            R"({"timezone":")" + std::string(128, 'a') + "\"}",
                            utc(date::year{2025} / 6 / 1));
    CHECK(at_limit.status == call_result::failed);
  }
}

// -- the schema builder, through a custom tool ------------------------------------

TEST_CASE("tools: schema builder writes types, required and constraints") {
  demo_tool demo;
  auto s = parse(demo.tool.input_schema_json());
  CHECK(str(s["type"]) == "object");
  CHECK(strings(s["required"]) == names{"name"});
  CHECK_FALSE(s["additionalProperties"].GetBool());
  const auto& p = s["properties"];
  CHECK(str(p["name"]["type"]) == "string");
  CHECK(p["name"]["maxLength"].GetUint() == 16);
  CHECK_FALSE(p["name"].HasMember("default"));
  CHECK(str(p["name"]["description"]) == "Who.");
  CHECK(str(p["verbose"]["type"]) == "boolean");
  CHECK(p["verbose"]["default"].IsBool());
  CHECK(p["verbose"]["default"].GetBool());
  CHECK(str(p["tags"]["type"]) == "array");
  CHECK(str(p["tags"]["items"]["type"]) == "string");
  CHECK(p["tags"]["minItems"].GetUint() == 1);
  CHECK(p["tags"]["maxItems"].GetUint() == 3);
  CHECK(strings(p["tags"]["default"]) == names{"untagged"});
  CHECK(str(p["metadata"]["type"]) == "object");
  CHECK(str(p["metadata"]["additionalProperties"]["type"]) == "string");
  CHECK(str(p["note"]["type"]) == "string");
  CHECK_FALSE(p["note"].HasMember("default"));

  auto out = parse(demo.tool.output_schema_json());
  CHECK(strings(out["anyOf"][0]["required"])
        == names{"echo", "flag", "error"}); // error: false on success
  CHECK(str(out["properties"]["flag"]["type"]) == "boolean");
}

TEST_CASE("tools: schema builder applies defaults only when absent") {
  demo_tool demo;
  const auto at = utc(date::year{2025} / 6 / 1);
  SECTION("all absent but the required one") {
    auto res = call_at(demo.tool, R"({"name":"ann"})", at);
    REQUIRE(res.status == call_result::ok);
    CHECK(demo.last->name == "ann");
    CHECK(demo.last->verbose);
    CHECK(demo.last->tags == names{"untagged"});
    CHECK(demo.last->metadata.empty());
    CHECK_FALSE(demo.last->note.has_value());
    auto doc = parse(res.structured);
    CHECK(str(doc["echo"]) == "ann");
    CHECK(doc["flag"].GetBool());
  }
  SECTION("given values win over defaults, even false") {
    auto res = call_at(
      demo.tool,
      R"({"name":"bo","verbose":false,"tags":["p","q"],"note":"hi","metadata":{"z":"1","a":"2","m":"3"}})",
      at);
    REQUIRE(res.status == call_result::ok);
    CHECK_FALSE(demo.last->verbose);
    CHECK(demo.last->tags == names{"p", "q"});
    REQUIRE(demo.last->note.has_value());
    CHECK(*demo.last->note == "hi");
    CHECK(demo.last->metadata
          == tools::string_map{{"z", "1"}, {"a", "2"}, {"m", "3"}});
    CHECK_FALSE(parse(res.structured)["flag"].GetBool());
  }
  SECTION("an empty optional string is kept, not confused with absent") {
    auto res = call_at(demo.tool, R"({"name":"c","note":""})", at);
    REQUIRE(res.status == call_result::ok);
    REQUIRE(demo.last->note.has_value());
    CHECK(demo.last->note->empty());
  }
  SECTION("a handler's tool_error becomes the error shape") {
    auto res = call_at(demo.tool, R"({"name":"fail"})", at);
    REQUIRE(res.status == call_result::failed);
    auto doc = parse(res.structured);
    CHECK(doc["error"].GetBool());
    CHECK(str(doc["error_code"]) == "DEMO_FAILED");
    CHECK(str(doc["message"]) == "it failed");
    CHECK(strings(doc["suggestions"]) == names{"x", "y"});
  }
}

TEST_CASE("tools: schema builder validation messages") {
  demo_tool demo;
  SECTION("missing required argument") {
    CHECK(invalid_message(demo.tool, "{}")
          == "Missing required argument 'name'.");
    CHECK(invalid_message(demo.tool, R"({"verbose":true})")
          == "Missing required argument 'name'.");
  }
  SECTION("nested wrong type names the path") {
    auto m = invalid_message(demo.tool,
                             R"({"name":"a","metadata":{"key":5}})");
    CHECK(contains(m, "'metadata.key'"));
    CHECK(contains(m, "string"));
    auto t = invalid_message(demo.tool, R"({"name":"a","tags":["ok",7]})");
    CHECK(contains(t, "'tags.1'"));
    CHECK(contains(t, "string"));
  }
  SECTION("a key with '/' is spelled as sent") {
    auto m = invalid_message(demo.tool,
                             R"({"name":"a","metadata":{"a/b":true}})");
    CHECK(contains(m, "'metadata.a/b'"));
  }
  SECTION("item counts") {
    auto few = invalid_message(demo.tool, R"({"name":"a","tags":[]})");
    CHECK(contains(few, "'tags'"));
    CHECK(contains(few, "1"));
    auto many = invalid_message(demo.tool,
                                R"({"name":"a","tags":["1","2","3","4"]})");
    CHECK(contains(many, "'tags'"));
    CHECK(contains(many, "3"));
  }
  SECTION("too long") {
    auto m = invalid_message(demo.tool, R"({"name":"abcdefghijklmnopq"})");
    CHECK(contains(m, "'name'"));
    CHECK(contains(m, "16"));
  }
  SECTION("unknown argument") {
    auto m = invalid_message(demo.tool, R"({"name":"a","colour":"red"})");
    INFO("message: " << m);
    CHECK(contains(m, "'colour'"));
  }
  SECTION("wrong types of top-level arguments") {
    CHECK(contains(invalid_message(demo.tool, R"({"name":"a","verbose":"yes"})"),
                   "'verbose' must be a boolean"));
    CHECK(contains(invalid_message(demo.tool, R"({"name":"a","note":null})"),
                   "'note'"));
    // One string for a list of strings is read as a list of one (lax
    // input, issue 29); a number is not.
    CHECK(contains(invalid_message(demo.tool, R"({"name":"a","tags":5})"),
                   "'tags' must be an array"));
  }
}

TEST_CASE("tools: a non-object argument of object type reads 'an object'") {
  // tool.cpp's explain() picks "an " only for "array": an object-typed
  // argument gets "must be a object." (and an integer one "a integer").
  demo_tool demo;
  auto m = invalid_message(demo.tool, R"({"name":"a","metadata":"x"})");
  CHECK(contains(m, "'metadata'"));
  CHECK(m == "Argument 'metadata' must be an object.");
}

TEST_CASE("tools: an unknown argument's message lists the known ones") {
  // explain() builds "Unknown argument 'x' (expected: ...)" only when the
  // validator's document pointer is the arguments object, but RapidJSON
  // reports the unexpected property itself ("/timzone"), so the generic
  // "Argument 'timzone' is invalid (fails 'additionalProperties')." is sent.
  CHECK(invalid_message(time_tool(), R"({"timzone":"UTC"})")
        == "Unknown argument 'timzone' (expected: format, timezone, locale).");
  demo_tool demo;
  CHECK(invalid_message(demo.tool, R"({"name":"a","colour":"red"})")
        == "Unknown argument 'colour' (expected: name, verbose, tags, "
           "metadata, note).");
}

TEST_CASE("tools: an empty optional result field matches the output schema") {
  // schema.hpp: "empty results are null", but json_type<std::optional<T>>
  // publishes T's schema ({"type":"string"}), which does not allow null, so
  // the null it encodes fails the tool's own output schema.
  struct args {
    std::optional<std::string> text;
  };
  struct result {
    std::optional<std::string> text;
  };
  auto in = std::make_shared<tools::input_schema<args>>();
  in->add("text", &args::text, "Echoed when given.");
  auto out = std::make_shared<tools::output_schema<result>>();
  out->add("text", &result::text, "The text, or null.");
  tools::tool_spec<args, result> spec;
  spec.name = "echo";
  spec.title = "Echo";
  spec.description = "Echoes.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = tools::hint::read_only | tools::hint::idempotent;
  spec.handler = [](const args& a,
                    tools::tool_context&) -> tools::outcome<result> {
    return result{a.text};
  };
  auto echo = tools::make_tool(std::move(spec));
  const auto at = utc(date::year{2025} / 6 / 1);
  domain::fake_clock clock{at};
  std::string local = "UTC";
  domain::tracker sessions{domain::tracking_limits{}};
  tools::tool_context ctx{clock, local, [](protocol::log_level, std::string) {},
                          sessions};
  auto given = echo.call(parse(R"({"text":"hi"})"), ctx);
  REQUIRE(given.status == call_result::ok);
  CHECK(given.structured == R"({"text":"hi","error":false})");
  CHECK(echo.check_output(given.structured) == "");
  auto absent = echo.call(parse("{}"), ctx);
  REQUIRE(absent.status == call_result::ok);
  CHECK(absent.structured == R"({"text":null,"error":false})");
  CHECK(echo.check_output(absent.structured) == "");
}

// -- registry -------------------------------------------------------------------

TEST_CASE("tools: registry finds tools by name") {
  auto reg = tools::make_registry({}, {"all"});
  REQUIRE(reg);
  const auto* t = reg->find("time_get_current");
  REQUIRE(t != nullptr);
  CHECK(t->name() == "time_get_current");
  CHECK(reg->find("nope") == nullptr);
  CHECK(reg->find("") == nullptr);
  CHECK(reg->find("TIME_GET_CURRENT") == nullptr);
  CHECK(reg->find("time_get_current ") == nullptr);
  for (const auto& tool : reg->tools())
    CHECK(reg->find(tool.name()) == &tool);
}

TEST_CASE("tools: registry list_result_json lists every tool") {
  demo_tool demo;
  std::vector<tools::tool> list;
  list.push_back(tools::make_time_get_current());
  list.push_back(demo.tool);
  tools::registry reg{std::move(list)};
  CHECK(reg.find("demo") != nullptr);

  auto doc = parse(reg.list_result_json());
  REQUIRE(doc.IsObject());
  CHECK(doc.MemberCount() == 1);
  const auto& arr = doc["tools"];
  REQUIRE(arr.IsArray());
  REQUIRE(arr.Size() == reg.tools().size());
  for (rapidjson::SizeType i = 0; i < arr.Size(); ++i) {
    const auto& entry = arr[i];
    const auto& t = reg.tools()[i];
    INFO("tool: " << t.name());
    CHECK(str(entry["name"]) == t.name());
    CHECK_FALSE(str(entry["title"]).empty());
    CHECK_FALSE(str(entry["description"]).empty());
    CHECK(entry["inputSchema"] == parse(t.input_schema_json()));
    CHECK(entry["outputSchema"] == parse(t.output_schema_json()));
    const auto& ann = entry["annotations"];
    REQUIRE(ann.IsObject());
    for (const char* hint :
         {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
      CHECK(ann[hint].IsBool());
  }
  const auto& time = arr[0];
  CHECK(str(time["name"]) == "time_get_current");
  CHECK(str(time["title"]) == "Current time");
  CHECK(time["annotations"]["readOnlyHint"].GetBool());
  CHECK_FALSE(time["annotations"]["destructiveHint"].GetBool());
  CHECK(time["annotations"]["idempotentHint"].GetBool());
  CHECK_FALSE(time["annotations"]["openWorldHint"].GetBool());
  const auto& d = arr[1];
  CHECK(str(d["name"]) == "demo");
  CHECK(str(d["title"]) == "Demo");
  CHECK(str(d["description"]) == "A tool for tests.");
  CHECK_FALSE(d["annotations"]["readOnlyHint"].GetBool());
  CHECK(d["annotations"]["destructiveHint"].GetBool());
  CHECK_FALSE(d["annotations"]["idempotentHint"].GetBool());
  CHECK(d["annotations"]["openWorldHint"].GetBool());
}

TEST_CASE("tools: a lazy registry is built once, on first use, by any thread") {
  int builds = 0;
  tools::registry reg{[&builds] {
    ++builds; // under the registry's once-flag: no race
    std::vector<tools::tool> list;
    list.push_back(tools::make_time_get_current());
    return list;
  }};
  CHECK(builds == 0);
  std::vector<const tools::tool*> found(4, nullptr);
  std::vector<const std::string*> lists(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < found.size(); ++i)
    threads.emplace_back([&, i] {
      found[i] = reg.find("time_get_current");
      lists[i] = &reg.list_result_json();
    });
  for (auto& t : threads)
    t.join();
  CHECK(builds == 1);
  for (std::size_t i = 0; i < found.size(); ++i) {
    CHECK(found[i] != nullptr);
    CHECK(found[i] == found[0]);
    CHECK(lists[i] == lists[0]);
  }
  reg.build();
  CHECK(builds == 1);

  // A failed build is tried again by the next caller.
  int attempts = 0;
  tools::registry flaky{[&attempts] {
    if (++attempts == 1)
      throw std::runtime_error("first build fails");
    return std::vector<tools::tool>{};
  }};
  CHECK_THROWS_AS(flaky.find("x"), std::runtime_error);
  CHECK(flaky.find("x") == nullptr);
  CHECK(flaky.list_result_json() == R"({"tools":[]})");
  CHECK(attempts == 2);
}

TEST_CASE("tools: make_registry builds lazily what an eager registry holds") {
  auto lazy = tools::make_registry({}, {"all"});
  std::vector<tools::tool> list;
  for (const auto& t : lazy->tools())
    list.push_back(t);
  tools::registry eager{std::move(list)};
  CHECK(lazy->list_result_json() == eager.list_result_json());
  CHECK(lazy->tools().size() == test::snapshot_tool_names("all").size());
}

TEST_CASE("tools: make_registry's list is the time tool's definition") {
  auto reg = tools::make_registry({}, {"all"});
  auto doc = parse(reg->list_result_json());
  REQUIRE(doc["tools"].Size() == reg->tools().size());
  REQUIRE(doc["tools"].Size() >= 1);
  bool found = false;
  for (const auto& entry : doc["tools"].GetArray())
    if (str(entry["name"]) == "time_get_current") {
      found = true;
      CHECK(entry["inputSchema"]
            == parse(tools::make_time_get_current().input_schema_json()));
    }
  CHECK(found);
}
