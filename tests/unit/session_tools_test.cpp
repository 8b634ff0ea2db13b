// Unit tests for the five session tools, driven as a client drives them:
// JSON-RPC lines decoded and fed to mcp::session, the supervisor's
// slot answer given by hand through resume(). Every tool result is checked
// against the tool's declared output schema. Time moves only through
// fake_clock.

#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_ids.hpp"
#include "test_json.hpp"
#include "session_client.hpp"
#include "tools_snapshot.hpp"
#include <date/date.h>
#include <rapidjson/document.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

using mcp::rpc_step;

using ttm::test::contains;
using ttm::test::parse;
using ttm::test::replace_all;
using ttm::test::str;
using ttm::test::to_json;

using namespace ttm::test::session_client;

namespace {

const char* const spec_start_args = R"({
  "milestone_id": "M2",
  "milestone_name": "Commit + Lifecycle",
  "task_ids": ["M2-001", "M2-002", "M2-003", "M2-004", "M2-005"],
  "timezone": "America/New_York",
  "metadata": {"branch": "Recipe-Ingest-Agent", "execution_date": "2025-12-14"},
  "tags": ["milestone:2", "area:gateway", "area:orchestrator"]
})";

} // namespace

// -- the spec's examples ------------------------------------------------------

TEST_CASE("session tools: the spec's milestone runs field by field",
          "[session_tools]") {
  client c;
  auto start = c.ok("time_session_start", spec_start_args);
  auto sid = str(start["session_id"]);
  CHECK(is_uuid_v4(sid));
  CHECK(str(start["milestone_id"]) == "M2");
  CHECK(str(start["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(start["start_time_friendly"])
        == "December 14, 2025 9:45:32 AM EST");
  CHECK(integer(start["task_count"]) == 5);
  CHECK(str(start["timezone"]) == "America/New_York");
  // The spec's six fields, plus already_started and the counts (issue 20),
  // and error: false as on every success (issue 29).
  CHECK_FALSE(boolean(start["already_started"]));
  CHECK(integer(start["tasks_not_started"]) == 5);
  CHECK_FALSE(boolean(start["error"]));
  CHECK(start.MemberCount() == 14);

  // M2-001 and M2-002 as in the summary example.
  auto t1 = c.ok("time_task_start",
                 task_args(sid, "M2-001",
                           R"(,"task_name":"Create ImportRecipeRequest model")"));
  CHECK(str(t1["task_id"]) == "M2-001");
  CHECK(str(t1["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(t1["start_time_friendly"]) == "9:45:32 AM");
  CHECK(str(t1["session_elapsed"]) == "0 seconds");
  CHECK(integer(t1["run"]) == 1);
  CHECK(integer(t1["tasks_completed"]) == 0);
  CHECK(integer(t1["tasks_in_progress"]) == 1);
  CHECK(integer(t1["tasks_remaining"]) == 4);
  CHECK_FALSE(boolean(t1["already_running"]));
  c.clock->advance(73'666ms);
  auto e1 = c.ok("time_task_end", task_args(sid, "M2-001"));
  CHECK(str(e1["end_time"]) == "2025-12-14T09:46:45.789-05:00");
  CHECK(str(e1["duration"]) == "1 minute 13 seconds");
  CHECK(integer(e1["duration_ms"]) == 73'666);

  c.ok("time_task_start",
       task_args(sid, "M2-002",
                 R"(,"task_name":"Create ImportRecipeResponse model")"));
  c.clock->advance(29'667ms);
  auto e2 = c.ok("time_task_end", task_args(sid, "M2-002"));
  CHECK(str(e2["duration"]) == "29 seconds");
  CHECK(integer(e2["duration_ms"]) == 29'667);

  // The time_task_start example.
  auto t3 = c.ok(
    "time_task_start",
    task_args(sid, "M2-003",
              R"(,"task_name":"Implement POST /api/recipes/import skeleton",)"
              R"("external_task_id":"task-guid-12345")"));
  CHECK(str(t3["task_id"]) == "M2-003");
  CHECK(str(t3["start_time"]) == "2025-12-14T09:47:15.456-05:00");
  CHECK(str(t3["start_time_friendly"]) == "9:47:15 AM");
  CHECK(str(t3["session_elapsed"]) == "1 minute 43 seconds");
  CHECK(integer(t3["tasks_completed"]) == 2);
  CHECK(integer(t3["tasks_remaining"]) == 2);
  CHECK_FALSE(boolean(t3["already_running"]));

  // The time_task_end example.
  c.clock->advance(154'333ms);
  auto e3 = c.ok("time_task_end",
                 task_args(sid, "M2-003",
                           R"(,"status":"completed","metadata":{)"
                           R"("files_created":"RecipeImportService.cs",)"
                           R"("files_modified":"RecipeEndpoints.cs, Program.cs"})"));
  CHECK(str(e3["task_id"]) == "M2-003");
  CHECK(str(e3["start_time"]) == "2025-12-14T09:47:15.456-05:00");
  CHECK(str(e3["end_time"]) == "2025-12-14T09:49:49.789-05:00");
  CHECK(str(e3["duration"]) == "2 minutes 34 seconds");
  CHECK(integer(e3["duration_ms"]) == 154'333);
  CHECK(str(e3["duration_iso"]) == "PT2M34S");
  CHECK(str(e3["status"]) == "completed");
  CHECK(integer(e3["tasks_completed"]) == 3);
  CHECK(integer(e3["tasks_remaining"]) == 2);
  CHECK_FALSE(boolean(e3["error"]));
  CHECK_FALSE(boolean(e3["already_ended"]));
  CHECK(integer(e3["run"]) == 1);

  // M2-004 and M2-005 fill the rest up to the example's end, 9:57:18.456.
  c.ok("time_task_start", task_args(sid, "M2-004"));
  c.clock->advance(200'000ms);
  c.ok("time_task_end", task_args(sid, "M2-004"));
  c.ok("time_task_start", task_args(sid, "M2-005"));
  c.clock->advance(248'667ms);
  c.ok("time_task_end", task_args(sid, "M2-005"));

  // The time_session_end example.
  auto end = c.ok("time_session_end",
                  session_args(sid, R"(,"include_task_details":true)"));
  CHECK(str(end["session_id"]) == sid);
  CHECK(str(end["milestone_id"]) == "M2");
  CHECK(str(end["milestone_name"]) == "Commit + Lifecycle");
  CHECK(str(end["status"]) == "ended");
  CHECK(str(end["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(end["end_time"]) == "2025-12-14T09:57:18.456-05:00");
  CHECK(str(end["end_time_friendly"]) == "December 14, 2025 9:57:18 AM EST");
  CHECK(str(end["total_duration"]) == "11 minutes 46 seconds");
  CHECK(integer(end["total_duration_ms"]) == 706'333);
  CHECK(str(end["total_duration_iso"]) == "PT11M46S");
  CHECK(integer(end["task_count"]) == 5);
  CHECK(integer(end["tasks_completed"]) == 5);
  CHECK(integer(end["tasks_skipped"]) == 0);
  CHECK(integer(end["tasks_not_started"]) == 0);
  CHECK(integer(end["tasks_in_progress"]) == 0);
  CHECK(integer(end["tasks_interrupted"]) == 0);
  CHECK(integer(end["tasks_remaining"]) == 0);
  // Back-to-back tasks: busy the whole session, nothing counted twice.
  CHECK(integer(end["busy_duration_ms"]) == 706'333);
  CHECK(integer(end["task_time_ms"]) == 706'333);
  CHECK(str(end["timezone"]) == "America/New_York");
  CHECK(end["metadata"]
        == parse(R"({"branch":"Recipe-Ingest-Agent","execution_date":"2025-12-14"})"));
  CHECK(strings(end["tags"])
        == std::vector<std::string>{"milestone:2", "area:gateway",
                                    "area:orchestrator"});
  CHECK_FALSE(boolean(end["already_ended"]));
  REQUIRE(end["tasks"].Size() == 5);
  const auto& d1 = task_entry(end, 0);
  CHECK(str(d1["task_id"]) == "M2-001");
  CHECK(str(d1["task_name"]) == "Create ImportRecipeRequest model");
  CHECK(d1["external_task_id"].IsNull());
  CHECK(str(d1["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(d1["end_time"]) == "2025-12-14T09:46:45.789-05:00");
  CHECK(str(d1["duration"]) == "1 minute 13 seconds");
  CHECK(integer(d1["duration_ms"]) == 73'666);
  CHECK(str(d1["status"]) == "completed");
  const auto& d2 = task_entry(end, 1);
  CHECK(str(d2["task_id"]) == "M2-002");
  CHECK(str(d2["task_name"]) == "Create ImportRecipeResponse model");
  CHECK(d2["external_task_id"].IsNull());
  CHECK(str(d2["start_time"]) == "2025-12-14T09:46:45.789-05:00");
  CHECK(str(d2["end_time"]) == "2025-12-14T09:47:15.456-05:00");
  CHECK(str(d2["duration"]) == "29 seconds");
  CHECK(integer(d2["duration_ms"]) == 29'667);
  CHECK(str(d2["status"]) == "completed");
  const auto& d3 = task_entry(end, 2);
  CHECK(str(d3["external_task_id"]) == "task-guid-12345");
  CHECK(d3["completion_metadata"]
        == parse(R"({"files_created":"RecipeImportService.cs","files_modified":"RecipeEndpoints.cs, Program.cs"})"));
  CHECK(str(task_entry(end, 3)["duration"]) == "3 minutes 20 seconds");
  CHECK(integer(task_entry(end, 4)["duration_ms"]) == 248'667);
}

// -- time_session_start -------------------------------------------------------

TEST_CASE("session tools: timezone defaults to the configured local zone",
          "[session_tools]") {
  client c{"2025-11-25", {}, "Asia/Kolkata"};
  for (std::string tz_arg : {"", R"(,"timezone":"local")",
                             R"(,"timezone":"LOCAL")"}) {
    INFO("timezone argument: " << tz_arg);
    auto sc = c.ok("time_session_start",
                   R"({"milestone_id":"M1","task_ids":[])" + tz_arg + "}");
    CHECK(str(sc["timezone"]) == "Asia/Kolkata");
    CHECK(str(sc["start_time"]) == "2025-12-14T20:15:32.123+05:30");
    CHECK(str(sc["start_time_friendly"])
          == "December 14, 2025 8:15:32 PM IST");
    CHECK(integer(sc["task_count"]) == 0);
  }
  // An explicit zone wins over the local one.
  auto sc = c.ok("time_session_start",
                 R"({"milestone_id":"M1","task_ids":[],"timezone":"UTC"})");
  CHECK(str(sc["start_time"]) == "2025-12-14T14:45:32.123+00:00");
  auto fixed = c.ok("time_session_start",
                    R"({"milestone_id":"M1","task_ids":[],"timezone":"+05:45"})");
  CHECK(str(fixed["timezone"]) == "UTC+05:45");
  CHECK(str(fixed["start_time"]) == "2025-12-14T20:30:32.123+05:45");
}

TEST_CASE("session tools: an unknown timezone is INVALID_TIMEZONE with "
          "suggestions and no session",
          "[session_tools]") {
  client c;
  auto step = c.step(c.call_json(
    "time_session_start",
    R"({"milestone_id":"M2","task_ids":["a"],"timezone":"America/NewYork"})"));
  // Refused before a global slot is asked for.
  REQUIRE_FALSE(step.waiting());
  auto res = parse(step.output.response);
  auto r = check_tool_result(res["result"], *c.registry, "time_session_start");
  REQUIRE(r.is_error);
  CHECK(str(r.sc["error_code"]) == "INVALID_TIMEZONE");
  CHECK(contains(str(r.sc["message"]), "America/NewYork"));
  auto suggestions = strings(r.sc["suggestions"]);
  REQUIRE_FALSE(suggestions.empty());
  CHECK(suggestions.front() == "America/New_York");
  CHECK(c.state.tracker().size() == 0);

  auto abbr = c.fails("time_session_start",
                      R"({"milestone_id":"M2","task_ids":[],"timezone":"EST"})",
                      "INVALID_TIMEZONE");
  CHECK_FALSE(strings(abbr["suggestions"]).empty());
}

TEST_CASE("session tools: session_start refuses bad task lists before asking "
          "for a slot",
          "[session_tools]") {
  domain::tracking_limits limits;
  limits.max_tasks_per_session = 3;
  client c{"2025-11-25", limits};
  SECTION("too many tasks") {
    auto step = c.step(c.call_json(
      "time_session_start", R"({"milestone_id":"M2","task_ids":["a","b","c","d"]})"));
    REQUIRE_FALSE(step.waiting());
    auto r = check_tool_result(parse(step.output.response)["result"],
                               *c.registry, "time_session_start");
    REQUIRE(r.is_error);
    CHECK(str(r.sc["error_code"]) == "LIMIT_REACHED");
    CHECK(contains(str(r.sc["message"]), "max_tasks_per_session"));
    CHECK(contains(str(r.sc["message"]), "the limit is 3"));
    CHECK(c.state.tracker().size() == 0);
  }
  SECTION("duplicate task ids") {
    auto sc = c.fails("time_session_start",
                      R"({"milestone_id":"M2","task_ids":["a","b","a"]})",
                      "VALIDATION_ERROR");
    CHECK(contains(str(sc["message"]), "'a'"));
    CHECK(c.state.tracker().size() == 0);
  }
  SECTION("exactly the limit is fine") {
    c.start_session(R"(["a","b","c"])");
    CHECK(c.state.tracker().size() == 1);
  }
}

TEST_CASE("session tools: a refused slot is LIMIT_REACHED naming the limit",
          "[session_tools]") {
  domain::tracking_limits limits;
  limits.max_sessions = 7;
  client c{"2025-11-25", limits};
  auto step = c.step(c.call_json("time_session_start",
                                 R"({"milestone_id":"M2","task_ids":["a"]})"));
  REQUIRE(step.waiting());
  CHECK(is_uuid_v4(step.slot_for()));
  CHECK(step.output.response.empty());
  auto done = c.state.resume(false);
  REQUIRE_FALSE(done.waiting());
  auto r = check_tool_result(parse(done.output.response)["result"],
                             *c.registry, "time_session_start");
  REQUIRE(r.is_error);
  CHECK(str(r.sc["error_code"]) == "LIMIT_REACHED");
  auto message = str(r.sc["message"]);
  CHECK(contains(message, "max_tracking_sessions"));
  CHECK(contains(message, "The limit of 7 open tracking sessions"));
  CHECK(c.state.tracker().size() == 0);
  // The refused id was never created.
  c.fails("time_session_summary", session_args(step.slot_for()),
          "SESSION_NOT_FOUND");

  SECTION("a granted slot creates the session under the id asked for") {
    auto granted = c.step(c.call_json(
      "time_session_start", R"({"milestone_id":"M2","task_ids":["a"]})"));
    REQUIRE(granted.waiting());
    auto answered = c.state.resume(true);
    REQUIRE_FALSE(answered.waiting());
    auto ok = check_tool_result(parse(answered.output.response)["result"],
                                *c.registry, "time_session_start");
    REQUIRE_FALSE(ok.is_error);
    CHECK(str(ok.sc["session_id"]) == granted.slot_for());
    CHECK(c.state.tracker().size() == 1);
  }
}

TEST_CASE("session tools: argument limits are VALIDATION_ERROR tool errors",
          "[session_tools]") {
  client c;
  auto refused = [&](const std::string& args, const std::string& fragment) {
    INFO("args: " << args);
    auto step = c.step(c.call_json("time_session_start", args));
    REQUIRE_FALSE(step.waiting());
    auto r = check_tool_result(parse(step.output.response)["result"],
                               *c.registry, "time_session_start");
    REQUIRE(r.is_error);
    CHECK(str(r.sc["error_code"]) == "VALIDATION_ERROR");
    CHECK(contains(str(r.sc["message"]), fragment));
  };
  std::string value_4096(4096, 'v');
  std::string tags_64 = "[";
  for (int i = 0; i < 64; ++i)
    tags_64 += (i == 0 ? "\"t" : ",\"t") + std::to_string(i) + "\"";
  std::string tags_65 = tags_64 + R"(,"t64"])";
  tags_64 += "]";

  refused(R"({"milestone_id":"","task_ids":[]})", "'milestone_id'");
  refused(R"({"task_ids":[]})", "Missing required argument 'milestone_id'");
  refused(R"({"milestone_id":"M2"})", "Missing required argument 'task_ids'");
  refused(R"({"milestone_id":"M2","task_ids":[],"metadata":{"k":")"
            + value_4096 + R"(v"}})",
          "at most 4096 characters");
  refused(R"({"milestone_id":"M2","task_ids":[],"metadata":{"n":1}})",
          "metadata");
  refused(R"({"milestone_id":"M2","task_ids":[],"tags":)" + tags_65 + "}",
          "at most 64");
  refused(R"({"milestone_id":"M2","task_ids":[],"milestone":"x"})",
          "Unknown argument 'milestone'");
  refused(R"({"milestone_id":"M2","task_ids":[1]})", "task_ids");
  CHECK(c.state.tracker().size() == 0);

  // The limits themselves are accepted.
  auto sc = c.ok("time_session_start",
                 R"({"milestone_id":"M2","task_ids":[],"metadata":{"k":")"
                   + value_4096 + R"("},"tags":)" + tags_64 + "}");
  auto sid = str(sc["session_id"]);
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(str(summary["metadata"]["k"]) == value_4096);
  CHECK(summary["tags"].Size() == 64);
  // No tasks, details asked for: an empty list, not a missing key.
  REQUIRE(summary["tasks"].IsArray());
  CHECK(summary["tasks"].Empty());
}

TEST_CASE("session tools: before 2025-11-25 schema violations are -32602",
          "[session_tools]") {
  client c{"2025-06-18"};
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  auto res = c.rpc(c.call_json("time_task_end",
                               task_args(sid, "a", R"(,"status":"bogus")")));
  auto message = rpc_error(res, -32602);
  CHECK(contains(message, "'status'"));
  CHECK(contains(message, "completed, skipped"));
  auto empty_id = c.rpc(c.call_json("time_session_start",
                                    R"({"milestone_id":"","task_ids":[]})"));
  CHECK(contains(rpc_error(empty_id, -32602), "'milestone_id'"));
  // Nothing was ended by the refused call.
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(integer(summary["tasks_in_progress"]) == 1);
  // Tracking errors stay tool errors in every revision.
  c.fails("time_task_end", task_args(sid, "zzz"), "TASK_NOT_IN_SESSION");
}

// -- tools/list ---------------------------------------------------------------

TEST_CASE("session tools: tools/list lists every tool (--toolsets all) "
          "with schemas and annotations",
          "[session_tools]") {
  client c;
  auto res = c.rpc(R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})");
  const auto& list = res["result"]["tools"];
  REQUIRE(list.IsArray());
  // Every tool of the reviewed snapshot, in its order.
  const auto expected = test::snapshot_tool_names("all");
  REQUIRE(list.Size() == expected.size());
  std::vector<std::string> names;
  for (const auto& t : list.GetArray()) {
    names.push_back(str(t["name"]));
    INFO("tool: " << names.back());
    CHECK(str(t["inputSchema"]["type"]) == "object");
    CHECK(str(t["outputSchema"]["type"]) == "object");
    CHECK(t["outputSchema"]["properties"].IsObject());
    REQUIRE(t["annotations"].IsObject());
    for (const char* hint : {"readOnlyHint", "destructiveHint",
                             "idempotentHint", "openWorldHint"})
      CHECK(t["annotations"][hint].IsBool());
    CHECK_FALSE(boolean(t["annotations"]["destructiveHint"]));
    CHECK_FALSE(boolean(t["annotations"]["openWorldHint"]));
  }
  CHECK(names == expected);
  auto listed = [&](const char* tool) -> const rapidjson::Value& {
    for (const auto& t : list.GetArray())
      if (str(t["name"]) == tool)
        return t;
    FAIL("tools/list lacks " << tool);
    return list;
  };
  auto hint = [&](const char* tool, const char* name) {
    return boolean(listed(tool)["annotations"][name]);
  };
  auto required = [&](const char* tool) {
    return strings(listed(tool)["inputSchema"]["required"]);
  };
  using names_t = std::vector<std::string>;
  // time_session_start creates a session.
  CHECK_FALSE(hint("time_session_start", "readOnlyHint"));
  CHECK_FALSE(hint("time_session_start", "idempotentHint"));
  CHECK(required("time_session_start")
        == names_t{"milestone_id", "task_ids"});
  CHECK_FALSE(hint("time_task_start", "readOnlyHint"));
  CHECK(hint("time_task_start", "idempotentHint"));
  CHECK(required("time_task_start") == names_t{"session_id", "task_id"});
  CHECK_FALSE(hint("time_task_end", "readOnlyHint"));
  CHECK(required("time_task_end") == names_t{"session_id", "task_id"});
  CHECK_FALSE(hint("time_session_end", "readOnlyHint"));
  CHECK(required("time_session_end") == names_t{"session_id"});
  CHECK(hint("time_session_summary", "readOnlyHint"));
  CHECK(hint("time_session_summary", "idempotentHint"));
  CHECK(required("time_session_summary") == names_t{"session_id"});
  CHECK(hint("time_session_report", "readOnlyHint"));
  CHECK(hint("time_session_report", "idempotentHint"));
  CHECK(required("time_session_report") == names_t{"session_id"});
  CHECK(hint("time_convert", "readOnlyHint"));
  CHECK(hint("time_convert", "idempotentHint"));
  CHECK(required("time_convert") == names_t{"time", "to_timezones"});
  CHECK(hint("time_calculate", "readOnlyHint"));
  CHECK(hint("time_calculate", "idempotentHint"));
  CHECK(required("time_calculate") == names_t{"operation", "start"});
  CHECK(hint("time_session_list", "readOnlyHint"));
  CHECK(hint("time_session_list", "idempotentHint"));
  CHECK(required("time_session_list").empty());
  CHECK(hint("time_stats", "readOnlyHint"));
  CHECK(hint("time_stats", "idempotentHint"));
  CHECK(required("time_stats").empty());
  CHECK_FALSE(hint("time_tasks_edit", "readOnlyHint"));
  CHECK_FALSE(hint("time_tasks_edit", "idempotentHint"));
  CHECK(required("time_tasks_edit")
        == names_t{"session_id", "operations"});
  CHECK_FALSE(hint("time_undo", "readOnlyHint"));
  CHECK_FALSE(hint("time_undo", "idempotentHint"));
  CHECK(required("time_undo") == names_t{"session_id"});
  CHECK(hint("get_time_context", "readOnlyHint"));
  // get_time_context's answer moves with time.
  CHECK_FALSE(hint("get_time_context", "idempotentHint"));
  CHECK_FALSE(hint("mark_session_start", "readOnlyHint"));
  CHECK(required("mark_session_start") == names_t{"intent"});
  CHECK_FALSE(hint("mark_session_end", "readOnlyHint"));
  CHECK(required("mark_session_end").empty());
  CHECK(hint("request_break_if_needed", "readOnlyHint"));
  CHECK(required("request_break_if_needed")
        == names_t{"threshold_minutes"});
  CHECK(hint("idle_status", "readOnlyHint"));
  CHECK(hint("time_preferences_get", "readOnlyHint"));
  CHECK_FALSE(hint("time_preferences_set", "readOnlyHint"));
  CHECK(hint("time_preferences_set", "idempotentHint"));
}

// -- isolation ----------------------------------------------------------------

TEST_CASE("session tools: another client's session is indistinguishable from "
          "one that never existed",
          "[session_tools]") {
  client owner;
  client other{"2025-11-25", {}, "America/New_York", example_start(),
               owner.clock};
  auto sid = owner.start_session(R"(["a"])");
  owner.ok("time_task_start", task_args(sid, "a"));
  const std::string never = "0f0e0d0c-0b0a-4908-8706-050403020100";

  const std::vector<std::pair<std::string, std::string>> calls = {
    {"time_task_start", R"(,"task_id":"a")"},
    {"time_task_end", R"(,"task_id":"a")"},
    {"time_tasks_edit", R"(,"operations":[{"op":"pause","task_id":"a"}])"},
    {"time_undo", ""},
    {"time_session_summary", ""},
    {"time_session_report", R"(,"format":"csv")"},
    {"time_session_end", ""},
  };
  for (const auto& [tool_name, extra] : calls) {
    INFO("tool: " << tool_name);
    auto foreign = other.fails(tool_name, session_args(sid, extra),
                               "SESSION_NOT_FOUND");
    auto unknown = other.fails(tool_name, session_args(never, extra),
                               "SESSION_NOT_FOUND");
    CHECK(contains(str(foreign["message"]), sid));
    // Byte-identical once the id itself is blanked out.
    CHECK(replace_all(to_json(foreign), sid, "<id>")
          == replace_all(to_json(unknown), never, "<id>"));
    // The owner gets the same answer for an id it never had.
    auto own_unknown = owner.fails(tool_name, session_args(never, extra),
                                   "SESSION_NOT_FOUND");
    CHECK(to_json(own_unknown) == to_json(unknown));
  }
  CHECK(other.state.tracker().size() == 0);
  // The other client's attempts did not touch the owner's session.
  auto summary = owner.ok("time_session_summary", session_args(sid));
  CHECK(str(summary["status"]) == "active");
  CHECK(integer(summary["tasks_in_progress"]) == 1);
}

// -- time_task_start / time_task_end ------------------------------------------

TEST_CASE("session tools: task_start is idempotent while the task runs",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.clock->advance(1min);
  auto first = c.ok("time_task_start",
                    task_args(sid, "a", R"(,"task_name":"A")"));
  c.clock->advance(30s);
  auto again = c.ok("time_task_start",
                    task_args(sid, "a", R"(,"task_name":"B")"));
  CHECK(boolean(again["already_running"]));
  CHECK(str(again["start_time"]) == str(first["start_time"]));
  CHECK(str(again["start_time"]) == "2025-12-14T09:46:32.123-05:00");
  CHECK(integer(again["run"]) == 1);
  CHECK(str(again["session_elapsed"]) == "1 minute 30 seconds");
  CHECK(integer(again["tasks_in_progress"]) == 1);
  CHECK(integer(again["tasks_remaining"]) == 1);
  auto summary = c.ok("time_session_summary", session_args(sid));
  REQUIRE(summary["tasks"].Size() == 2);
  CHECK(str(task_entry(summary, 0)["task_name"]) == "A");
}

TEST_CASE("session tools: task_end errors name what is wrong",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  SECTION("never started") {
    auto sc = c.fails("time_task_end", task_args(sid, "a"), "TASK_NOT_STARTED");
    CHECK(boolean(sc["error"]));
    CHECK(contains(str(sc["message"]), "'a'"));
  }
  SECTION("not in the session") {
    auto sc = c.fails("time_task_end", task_args(sid, "c"),
                      "TASK_NOT_IN_SESSION");
    CHECK(strings(sc["suggestions"]) == std::vector<std::string>{"a", "b"});
    c.fails("time_task_start", task_args(sid, "c"), "TASK_NOT_IN_SESSION");
  }
  SECTION("status outside the enum") {
    c.ok("time_task_start", task_args(sid, "a"));
    auto sc = c.fails("time_task_end",
                      task_args(sid, "a", R"(,"status":"bogus")"),
                      "VALIDATION_ERROR");
    CHECK(contains(str(sc["message"]), "'status'"));
    // The task still runs.
    auto summary = c.ok("time_session_summary", session_args(sid));
    CHECK(integer(summary["tasks_in_progress"]) == 1);
  }
  SECTION("unknown argument") {
    auto sc = c.fails("time_task_start",
                      task_args(sid, "a", R"(,"name":"x")"),
                      "VALIDATION_ERROR");
    CHECK(contains(str(sc["message"]), "Unknown argument 'name'"));
  }
}

TEST_CASE("session tools: a repeated task_end returns the original result",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(42s);
  auto first = c.ok("time_task_end",
                    task_args(sid, "a", R"(,"status":"skipped")"));
  CHECK(str(first["status"]) == "skipped");
  CHECK(integer(first["duration_ms"]) == 42'000);
  CHECK(integer(first["tasks_skipped"]) == 1);
  CHECK(integer(first["tasks_completed"]) == 0);
  c.clock->advance(1h);
  auto again = c.ok("time_task_end",
                    task_args(sid, "a", R"(,"status":"completed")"));
  CHECK(boolean(again["already_ended"]));
  CHECK(str(again["status"]) == "skipped");
  CHECK(integer(again["duration_ms"]) == 42'000);
  CHECK(str(again["end_time"]) == str(first["end_time"]));
  // Everything but already_ended is as before.
  again.RemoveMember("already_ended");
  first.RemoveMember("already_ended");
  CHECK(again == first);
}

TEST_CASE("session tools: a task started after it ended is a second run",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(10s);
  c.ok("time_task_end", task_args(sid, "a"));
  c.clock->advance(5s);
  auto second = c.ok("time_task_start", task_args(sid, "a"));
  CHECK(integer(second["run"]) == 2);
  CHECK_FALSE(boolean(second["already_running"]));
  CHECK(str(second["start_time"]) == "2025-12-14T09:45:47.123-05:00");
  c.clock->advance(3s);
  auto ended = c.ok("time_task_end", task_args(sid, "a"));
  CHECK(integer(ended["run"]) == 2);
  CHECK(integer(ended["duration_ms"]) == 3'000);
  auto summary = c.ok("time_session_summary", session_args(sid));
  REQUIRE(summary["tasks"].Size() == 2);
  CHECK(integer(task_entry(summary, 0)["run"]) == 1);
  CHECK(integer(task_entry(summary, 0)["duration_ms"]) == 10'000);
  CHECK(integer(task_entry(summary, 1)["run"]) == 2);
  CHECK(integer(task_entry(summary, 1)["duration_ms"]) == 3'000);
  CHECK(integer(summary["task_count"]) == 1);
  CHECK(integer(summary["tasks_completed"]) == 1);
  CHECK(integer(summary["task_time_ms"]) == 13'000);
}

// -- summaries ----------------------------------------------------------------

TEST_CASE("session tools: completion metadata is reported in the summary",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start",
       task_args(sid, "a", R"(,"metadata":{"phase":"impl"},"work_item_id":"JIRA-7")"));
  c.ok("time_task_end",
       task_args(sid, "a", R"(,"metadata":{"files_created":"A.cs","files_modified":"B.cs"})"));
  auto summary = c.ok("time_session_summary", session_args(sid));
  const auto& t = task_entry(summary, 0);
  CHECK(t["metadata"] == parse(R"({"phase":"impl"})"));
  CHECK(t["completion_metadata"]
        == parse(R"({"files_created":"A.cs","files_modified":"B.cs"})"));
  CHECK(str(t["work_item_id"]) == "JIRA-7");
}

TEST_CASE("session tools: include_task_details false leaves tasks out",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  auto summary = c.ok("time_session_summary",
                      session_args(sid, R"(,"include_task_details":false)"));
  CHECK_FALSE(summary.HasMember("tasks"));
  CHECK(integer(summary["task_count"]) == 2);
  CHECK(integer(summary["tasks_in_progress"]) == 1);
  auto with = c.ok("time_session_summary", session_args(sid));
  CHECK(with["tasks"].Size() == 2);
  auto end = c.ok("time_session_end",
                  session_args(sid, R"(,"include_task_details":false)"));
  CHECK_FALSE(end.HasMember("tasks"));
  CHECK(integer(end["tasks_interrupted"]) == 1);
}

TEST_CASE("session tools: a summary shows running tasks' time so far",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.clock->advance(30s);
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(90s);
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(str(summary["status"]) == "active");
  CHECK(str(summary["end_time"]) == "2025-12-14T09:47:32.123-05:00");
  CHECK(str(summary["end_time_friendly"])
        == "December 14, 2025 9:47:32 AM EST");
  CHECK(integer(summary["total_duration_ms"]) == 120'000);
  CHECK(str(summary["total_duration"]) == "2 minutes");
  CHECK(integer(summary["tasks_in_progress"]) == 1);
  CHECK(integer(summary["tasks_not_started"]) == 1);
  CHECK(integer(summary["busy_duration_ms"]) == 90'000);
  CHECK_FALSE(summary.HasMember("already_ended"));
  const auto& running = task_entry(summary, 0);
  CHECK(str(running["status"]) == "in_progress");
  CHECK(str(running["start_time"]) == "2025-12-14T09:46:02.123-05:00");
  CHECK(running["end_time"].IsNull());
  CHECK(str(running["duration"]) == "1 minute 30 seconds");
  CHECK(integer(running["duration_ms"]) == 90'000);
  CHECK(str(running["duration_iso"]) == "PT1M30S");
  // A summary ends nothing: time keeps running.
  c.clock->advance(30s);
  auto later = c.ok("time_session_summary", session_args(sid));
  CHECK(integer(task_entry(later, 0)["duration_ms"]) == 120'000);
  CHECK(integer(later["total_duration_ms"]) == 150'000);
}

TEST_CASE("session tools: session_end interrupts running tasks and repeats "
          "the same summary",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b","c"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.ok("time_task_start", task_args(sid, "b"));
  c.clock->advance(20s);
  c.ok("time_task_end", task_args(sid, "a"));
  c.clock->advance(40s);

  auto step = c.step(c.call_json("time_session_end", session_args(sid)));
  REQUIRE_FALSE(step.waiting());
  // The supervisor learns the session ended (its slot may be reused).
  CHECK(step.ended == std::vector<std::string>{sid});
  auto end = check_tool_result(parse(step.output.response)["result"],
                               *c.registry, "time_session_end");
  REQUIRE_FALSE(end.is_error);
  auto& e = end.sc;
  CHECK(str(e["status"]) == "ended");
  CHECK_FALSE(boolean(e["already_ended"]));
  CHECK(str(e["end_time"]) == "2025-12-14T09:46:32.123-05:00");
  CHECK(integer(e["total_duration_ms"]) == 60'000);
  CHECK(integer(e["tasks_completed"]) == 1);
  CHECK(integer(e["tasks_interrupted"]) == 1);
  CHECK(integer(e["tasks_in_progress"]) == 0);
  CHECK(integer(e["tasks_not_started"]) == 1);
  CHECK(integer(e["tasks_remaining"]) == 1);
  const auto& b = task_entry(e, 1);
  CHECK(str(b["status"]) == "interrupted");
  CHECK(str(b["end_time"]) == "2025-12-14T09:46:32.123-05:00");
  CHECK(integer(b["duration_ms"]) == 60'000);
  CHECK(str(b["duration"]) == "1 minute");
  const auto& never = task_entry(e, 2);
  CHECK(str(never["status"]) == "not_started");

  c.clock->advance(1h);
  auto again_step = c.step(c.call_json("time_session_end", session_args(sid)));
  CHECK(again_step.ended.empty());
  auto again = check_tool_result(parse(again_step.output.response)["result"],
                                 *c.registry, "time_session_end");
  REQUIRE_FALSE(again.is_error);
  CHECK(boolean(again.sc["already_ended"]));
  again.sc.RemoveMember("already_ended");
  e.RemoveMember("already_ended");
  CHECK(to_json(again.sc) == to_json(e));

  // Ended: no more task calls, but summaries still work.
  auto err = c.fails("time_task_start", task_args(sid, "c"), "SESSION_ENDED");
  CHECK(contains(str(err["message"]), sid));
  c.fails("time_task_end", task_args(sid, "b"), "SESSION_ENDED");
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(str(summary["status"]) == "ended");
  CHECK(integer(summary["total_duration_ms"]) == 60'000);
}

TEST_CASE("session tools: a session without task calls reports every task "
          "not started",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["M2-001","M2-002","M2-003"])");
  c.clock->advance(5min);
  auto end = c.ok("time_session_end", session_args(sid));
  CHECK(integer(end["task_count"]) == 3);
  CHECK(integer(end["tasks_not_started"]) == 3);
  CHECK(integer(end["tasks_completed"]) == 0);
  CHECK(integer(end["tasks_remaining"]) == 3);
  CHECK(str(end["total_duration"]) == "5 minutes");
  CHECK(integer(end["total_duration_ms"]) == 300'000);
  CHECK(integer(end["busy_duration_ms"]) == 0);
  CHECK(integer(end["task_time_ms"]) == 0);
  REQUIRE(end["tasks"].Size() == 3);
  for (rapidjson::SizeType i = 0; i < 3; ++i) {
    const auto& t = end["tasks"][i];
    CHECK(str(t["task_id"]) == "M2-00" + std::to_string(i + 1));
    CHECK(str(t["status"]) == "not_started");
    CHECK(t["run"].IsNull());
    CHECK(t["start_time"].IsNull());
    CHECK(t["end_time"].IsNull());
    CHECK(t["duration_ms"].IsNull());
  }
}

TEST_CASE("session tools: parallel tasks count once in busy time and each in "
          "task time",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(5s);
  c.ok("time_task_start", task_args(sid, "b"));
  c.clock->advance(5s);
  auto a = c.ok("time_task_end", task_args(sid, "a"));
  CHECK(integer(a["duration_ms"]) == 10'000);
  CHECK(integer(a["tasks_in_progress"]) == 1);
  c.clock->advance(5s);
  auto b = c.ok("time_task_end", task_args(sid, "b"));
  CHECK(integer(b["duration_ms"]) == 10'000);
  c.clock->advance(5s);
  auto end = c.ok("time_session_end", session_args(sid));
  CHECK(integer(end["total_duration_ms"]) == 20'000);
  CHECK(integer(end["busy_duration_ms"]) == 15'000);
  CHECK(str(end["busy_duration"]) == "15 seconds");
  CHECK(integer(end["task_time_ms"]) == 20'000);
  CHECK(str(end["task_time"]) == "20 seconds");
}

// -- clocks -------------------------------------------------------------------

TEST_CASE("session tools: a task across the fall-back DST change lasts one "
          "real hour",
          "[session_tools]") {
  // 2025-11-02 05:00Z is 01:00 EDT; at 06:00Z New York falls back to EST.
  client c{"2025-11-25", {}, "UTC",
           date::sys_days{date::year{2025} / 11 / 2} + 5h};
  auto start = c.ok("time_session_start",
                    R"({"milestone_id":"M9","task_ids":["a"],"timezone":"America/New_York"})");
  auto sid = str(start["session_id"]);
  CHECK(str(start["start_time"]) == "2025-11-02T01:00:00.000-04:00");
  CHECK(str(start["start_time_friendly"]) == "November 2, 2025 1:00:00 AM EDT");
  c.clock->advance(30min);
  auto t = c.ok("time_task_start", task_args(sid, "a"));
  CHECK(str(t["start_time"]) == "2025-11-02T01:30:00.000-04:00");
  CHECK(str(t["start_time_friendly"]) == "1:30:00 AM");
  c.clock->advance(1h);
  auto e = c.ok("time_task_end", task_args(sid, "a"));
  // Same local clock reading, one hour apart.
  CHECK(str(e["start_time"]) == "2025-11-02T01:30:00.000-04:00");
  CHECK(str(e["end_time"]) == "2025-11-02T01:30:00.000-05:00");
  CHECK(integer(e["duration_ms"]) == 3'600'000);
  CHECK(str(e["duration"]) == "1 hour");
  CHECK(str(e["duration_iso"]) == "PT1H");
  auto end = c.ok("time_session_end", session_args(sid));
  CHECK(str(end["end_time_friendly"]) == "November 2, 2025 1:30:00 AM EST");
  CHECK(integer(end["total_duration_ms"]) == 5'400'000);
}

TEST_CASE("session tools: stepping the wall clock back does not change "
          "durations",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a"])", R"(,"timezone":"America/New_York")");
  c.clock->advance(1min);
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(10min);
  c.clock->step_wall(-1h);
  c.clock->advance(5min + 400ms);
  auto e = c.ok("time_task_end", task_args(sid, "a"));
  CHECK(integer(e["duration_ms"]) == 900'400);
  CHECK(str(e["duration"]) == "15 minutes");
  CHECK(str(e["duration_iso"]) == "PT15M");
  // Timestamps report the wall clock as it was read.
  CHECK(str(e["start_time"]) == "2025-12-14T09:46:32.123-05:00");
  CHECK(str(e["end_time"]) == "2025-12-14T09:01:32.523-05:00");
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(integer(summary["total_duration_ms"]) == 960'400);
  CHECK(integer(summary["task_time_ms"]) == 900'400);
  // Session elapsed time ignores the step too (16 min 0.4 s, not 0 s).
  c.clock->step_wall(-2h);
  auto rerun = c.ok("time_task_start", task_args(sid, "a"));
  CHECK(str(rerun["session_elapsed"]) == "16 minutes");
  CHECK(integer(rerun["run"]) == 2);
}

TEST_CASE("session tools: an idle session expires and the supervisor hears "
          "of it",
          "[session_tools]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.clock->advance(4h - 1s);
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(4h + 1s);
  auto step = c.step(c.call_json("time_task_end", task_args(sid, "a")));
  CHECK(step.expired == std::vector<std::string>{sid});
  auto r = check_tool_result(parse(step.output.response)["result"],
                             *c.registry, "time_task_end");
  REQUIRE(r.is_error);
  CHECK(str(r.sc["error_code"]) == "SESSION_EXPIRED");
  CHECK(contains(str(r.sc["message"]), "time_session_start"));
  c.fails("time_session_summary", session_args(sid), "SESSION_EXPIRED");

  SECTION("the supervisor's sweep expires sessions too") {
    auto other = c.start_session(R"([])");
    c.clock->advance(4h + 1s);
    CHECK(c.state.expire_due() == std::vector<std::string>{other});
    c.fails("time_session_end", session_args(other), "SESSION_EXPIRED");
  }
}

// -- batches ------------------------------------------------------------------

TEST_CASE("session tools: a batch with two session starts pauses twice",
          "[session_tools]") {
  client c{"2025-03-26"};
  // Built in steps: call_json numbers the requests (ids 1 and 2).
  auto start_a = c.call_json("time_session_start",
                             R"({"milestone_id":"A","task_ids":["a"]})");
  auto start_b = c.call_json("time_session_start",
                             R"({"milestone_id":"B","task_ids":[]})");
  auto batch = "[" + start_a + ","
               + R"({"jsonrpc":"2.0","id":"p","method":"ping"})" + ","
               + start_b + "]";
  auto first = c.step(batch);
  REQUIRE(first.waiting());
  CHECK(first.output.response.empty());
  auto second = c.state.resume(true);
  REQUIRE(second.waiting());
  CHECK(second.output.response.empty());
  CHECK(second.slot_for() != first.slot_for());
  CHECK(c.state.tracker().size() == 1);
  auto done = c.state.resume(true);
  REQUIRE_FALSE(done.waiting());
  CHECK(c.state.tracker().size() == 2);

  auto res = parse(done.output.response);
  REQUIRE(res.IsArray());
  REQUIRE(res.Size() == 3);
  CHECK(res[0]["id"].GetInt() == 1);
  auto a = check_tool_result(res[0]["result"], *c.registry,
                             "time_session_start");
  REQUIRE_FALSE(a.is_error);
  CHECK(str(a.sc["milestone_id"]) == "A");
  CHECK(str(a.sc["session_id"]) == first.slot_for());
  CHECK(str(res[1]["id"]) == "p");
  CHECK(res[1]["result"].IsObject());
  CHECK(res[2]["id"].GetInt() == 2);
  auto b = check_tool_result(res[2]["result"], *c.registry,
                             "time_session_start");
  REQUIRE_FALSE(b.is_error);
  CHECK(str(b.sc["milestone_id"]) == "B");
  CHECK(str(b.sc["session_id"]) == second.slot_for());

  SECTION("a refusal answers only its own element") {
    auto start_c = c.call_json("time_session_start",
                               R"({"milestone_id":"C","task_ids":[]})");
    auto summary_a = c.call_json("time_session_summary",
                                 session_args(str(a.sc["session_id"])));
    auto mixed = "[" + start_c + "," + summary_a + "]";
    auto paused = c.step(mixed);
    REQUIRE(paused.waiting());
    auto answered = c.state.resume(false);
    REQUIRE_FALSE(answered.waiting());
    auto out = parse(answered.output.response);
    REQUIRE(out.Size() == 2);
    auto refused = check_tool_result(out[0]["result"], *c.registry,
                                     "time_session_start");
    REQUIRE(refused.is_error);
    CHECK(str(refused.sc["error_code"]) == "LIMIT_REACHED");
    auto summary = check_tool_result(out[1]["result"], *c.registry,
                                     "time_session_summary");
    REQUIRE_FALSE(summary.is_error);
    CHECK(str(summary.sc["milestone_id"]) == "A");
    CHECK(c.state.tracker().size() == 2);
  }
}

// -- text ---------------------------------------------------------------------

TEST_CASE("session tools: non-ASCII and escaped text round-trips exactly",
          "[session_tools]") {
  client c;
  // Quotes, backslash, control characters, NUL, accents, CJK, an emoji and
  // U+2028 (legal in JSON, not in JavaScript source).
  const std::string args = R"({"milestone_id":"M\"2\\ü","milestone_name":"Réunion 会議 🚀",)"
                           R"("task_ids":["tâche-1","t\n2"],)"
                           R"("metadata":{"clé":"a\u0000b\tc\u2028d"},"tags":["ärea:😀"]})";
  auto start = c.ok("time_session_start", args);
  auto sid = str(start["session_id"]);
  CHECK(str(start["milestone_id"]) == "M\"2\\\xC3\xBC");
  c.ok("time_task_start", task_args(sid, "t\\n2"));
  auto summary = c.ok("time_session_summary", session_args(sid));
  auto sent = parse(args);
  CHECK(summary["milestone_name"] == sent["milestone_name"]);
  CHECK(summary["metadata"] == sent["metadata"]);
  CHECK(summary["tags"] == sent["tags"]);
  CHECK(str(summary["metadata"]["cl\xC3\xA9"])
        == std::string("a\0b\tc\xE2\x80\xA8" "d", 9));
  CHECK(str(task_entry(summary, 0)["task_id"]) == "t\xC3\xA2" "che-1");
  CHECK(str(task_entry(summary, 1)["task_id"]) == "t\n2");
  CHECK(str(task_entry(summary, 1)["status"]) == "in_progress");
}

TEST_CASE("session tools: length limits count characters, not bytes",
          "[session_tools]") {
  client c;
  std::string e_acute = "\xC3\xA9"; // two bytes, one character
  std::string at_limit;
  for (int i = 0; i < 4096; ++i)
    at_limit += e_acute;
  auto sid = str(c.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":[],"metadata":{"k":")"
                        + at_limit + R"("}})")["session_id"]);
  CHECK(str(c.ok("time_session_summary", session_args(sid))["metadata"]["k"])
        == at_limit);
  auto sc = c.fails("time_session_start",
                    R"({"milestone_id":"M","task_ids":[],"metadata":{"k":")"
                      + at_limit + e_acute + R"("}})",
                    "VALIDATION_ERROR");
  CHECK(contains(str(sc["message"]), "at most 4096 characters"));
}

// A session must never register a task id the task tools refuse: empty ids
// are refused up front, naming the item.
TEST_CASE("session tools: every task id a session accepts can be timed",
          "[session_tools]") {
  client c;
  auto refused = c.fails("time_session_start",
                         R"({"milestone_id":"M2","task_ids":["a",""]})",
                         "VALIDATION_ERROR");
  CHECK(contains(str(refused["message"]), "task_ids.1"));
  CHECK(contains(str(refused["message"]), "too short"));
  c.fails("time_session_start",
          R"({"milestone_id":"M2","task_ids":["a"],"tags":[""]})",
          "VALIDATION_ERROR");
  auto start = c.call("time_session_start",
                      R"({"milestone_id":"M2","task_ids":[" ","a"]})");
  REQUIRE_FALSE(start.is_error);
  auto sid = str(start.sc["session_id"]);
  auto started = c.call("time_task_start", task_args(sid, " "));
  INFO(to_json(started.sc));
  CHECK_FALSE(started.is_error);
  auto ended = c.call("time_task_end", task_args(sid, " "));
  INFO(to_json(ended.sc));
  CHECK_FALSE(ended.is_error);
}
