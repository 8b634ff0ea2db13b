// The prompts (issue 16 item 3): their texts carry tool calls the tools
// accept, their arguments are checked, their times come from the clock.

#include "domain/zone_completion.hpp"
#include "mcp/prompts.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

using namespace std::chrono_literals;
using ttm::mcp::find_prompt;
using ttm::mcp::prompt_context;
using ttm::mcp::prompt_text;
using ttm::mcp::render_prompt;

namespace {

// 2026-11-25T10:00:00Z, a Wednesday.
prompt_context context() {
  return {date::sys_days{date::year{2026} / 11 / 25} + 10h, "Europe/Berlin"};
}

std::string rendered(const char* name, ttm::mcp::prompt_args args) {
  const auto* p = find_prompt(name);
  REQUIRE(p != nullptr);
  auto out = render_prompt(*p, args, context());
  if (auto* why = std::get_if<std::string>(&out))
    FAIL("refused: " << *why);
  return std::get<prompt_text>(out).text;
}

std::string refused(const char* name, ttm::mcp::prompt_args args) {
  const auto* p = find_prompt(name);
  REQUIRE(p != nullptr);
  auto out = render_prompt(*p, args, context());
  REQUIRE(std::holds_alternative<std::string>(out));
  return std::get<std::string>(out);
}

} // namespace

TEST_CASE("prompts: execution_report names the session's report call",
          "[prompts]") {
  auto text = rendered("execution_report", {{"session_id", "abc-1"}});
  CHECK_THAT(text, Catch::Contains(
    R"(Call `time_session_report` with {"session_id": "abc-1", "format": "markdown"})"));
  // An id with quotes stays a JSON string in the call.
  auto quoted = rendered("execution_report", {{"session_id", "a\"b"}});
  CHECK_THAT(quoted, Catch::Contains(R"({"session_id": "a\"b",)"));
  CHECK(refused("execution_report", {})
        == "prompt 'execution_report' needs the argument 'session_id'");
  CHECK(refused("execution_report", {{"session_id", ""}})
        == "prompt 'execution_report' needs the argument 'session_id'");
}

TEST_CASE("prompts: standup's range comes from the clock and the zone",
          "[prompts]") {
  auto last_day = rendered("standup", {});
  CHECK_THAT(last_day, Catch::Contains(
    R"({"started_after": "2026-11-24T11:00:00.000+01:00", )"
    R"("started_before": "2026-11-25T11:00:00.000+01:00"})"));
  auto yesterday = rendered("standup", {{"date", "yesterday"},
                                        {"timezone", "Asia/Tokyo"}});
  CHECK_THAT(yesterday, Catch::Contains("on 2026-11-24 (Asia/Tokyo)"));
  CHECK_THAT(yesterday, Catch::Contains(
    R"({"started_after": "2026-11-24T00:00:00.000+09:00", )"
    R"("started_before": "2026-11-25T00:00:00.000+09:00"})"));
  // A day with a DST change has its own two midnights (23 hours apart).
  auto spring = rendered("standup", {{"date", "2026-03-29"},
                                     {"timezone", "Europe/Berlin"}});
  CHECK_THAT(spring, Catch::Contains(
    R"({"started_after": "2026-03-29T00:00:00.000+01:00", )"
    R"("started_before": "2026-03-30T00:00:00.000+02:00"})"));
  CHECK_THAT(refused("standup", {{"date", "someday"}}),
             Catch::StartsWith("date: "));
  CHECK_THAT(refused("standup", {{"timezone", "Mars/Base"}}),
             Catch::StartsWith("timezone: Unknown time zone 'Mars/Base'"));
  CHECK(refused("standup", {{"day", "today"}})
        == "prompt 'standup' has no argument \"day\"; it takes date, "
           "timezone");
  CHECK(refused("standup", {{"date", std::string(5000, 'x')}})
        == "argument 'date' is longer than 4096 bytes");
}

TEST_CASE("prompts: plan_milestone turns a task list into a start call",
          "[prompts]") {
  auto text = rendered("plan_milestone",
                       {{"milestone_id", "M3"},
                        {"milestone_name", "Render"},
                        {"tasks", "parse: Parse the input\n- Write the docs\n"
                                  "\n* render: Render it\n"}});
  CHECK_THAT(text, Catch::Contains(
    R"({"milestone_id": "M3", "milestone_name": "Render", )"
    R"("task_ids": ["parse", "write-the-docs", "render"]})"));
  CHECK_THAT(text, Catch::Contains("- `write-the-docs`: Write the docs"));
  // Comma-separated, and a zone only when one is named.
  auto commas = rendered("plan_milestone",
                         {{"milestone_id", "M4"}, {"tasks", "a, b,c"},
                          {"timezone", "Eastern Standard Time"}});
  CHECK_THAT(commas, Catch::Contains(
    R"({"milestone_id": "M4", "timezone": "America/New_York", )"
    R"("task_ids": ["a", "b", "c"]})"));
  CHECK_THAT(refused("plan_milestone",
                     {{"milestone_id", "M"}, {"tasks", "a: x\na: y"}}),
             Catch::Contains("the task id 'a' comes twice"));
  CHECK_THAT(refused("plan_milestone", {{"milestone_id", "M"},
                                        {"tasks", " \n ,"}}),
             Catch::StartsWith("tasks: no task found"));
  CHECK(refused("plan_milestone", {{"tasks", "a"}})
        == "prompt 'plan_milestone' needs the argument 'milestone_id'");
}

TEST_CASE("completions: zone names by name or last component",
          "[prompts][completion]") {
  auto berlin = ttm::domain::complete_zone_names("europe/ber", 100);
  CHECK(berlin.values == std::vector<std::string>{"Europe/Berlin"});
  auto ny = ttm::domain::complete_zone_names("New_Y", 100);
  CHECK(ny.values == std::vector<std::string>{"America/New_York"});
  auto eastern = ttm::domain::complete_zone_names("Eastern S", 100);
  CHECK(eastern.values.front() == "Eastern Standard Time");
  auto all = ttm::domain::complete_zone_names("", 5);
  CHECK(all.values.size() == 5);
  CHECK(all.values[0] == "local");
  CHECK(all.values[1] == "UTC");
  CHECK(all.total > 500);
}
