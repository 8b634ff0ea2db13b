// One declaration per tool (issue 28): tools/list is pinned by the committed
// snapshots tests/golden/tools_list.{default,all}.json, so that no name,
// schema or description changes unreviewed (after a deliberate change:
// TTM_UPDATE_GOLDEN=1 build/tests/unit_tests "[snapshot]", then review
// and commit; docs/development.md). What the MCP layer asks of a tool
// besides (toolset, preference defaults, role, instructions) comes from
// the same declaration.

#include "tools/registry.hpp"
#include "tools/toolsets.hpp"

#include "tools_snapshot.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>

using namespace ttm;
using ttm::test::check_golden;
using ttm::test::snapshot_text;
using ttm::test::tools_snapshot_file;

namespace {

struct echo_args {
  std::optional<std::string> text;
};

/// A tool declared like the real ones, in toolset `set`.
tools::tool echo_tool(std::string name, std::string set) {
  auto in = std::make_shared<tools::input_schema<echo_args>>();
  in->add("text", &echo_args::text, "Echoed.");
  auto out = std::make_shared<tools::output_schema<echo_args>>();
  out->add("text", &echo_args::text, "The text.");
  tools::tool_spec<echo_args, echo_args> spec;
  spec.name = std::move(name);
  spec.title = "Echo";
  spec.description = "Echoes.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.handler = [](const echo_args& a,
                    tools::tool_context&) -> tools::outcome<echo_args> {
    return a;
  };
  spec.toolset = std::move(set);
  return tools::make_tool(std::move(spec));
}

} // namespace

TEST_CASE("tools/list snapshots: the registry lists exactly the reviewed "
          "names, schemas and descriptions",
          "[snapshot][tools]") {
  for (const std::string set : {"default", "all"}) {
    INFO("toolsets: " << set);
    auto reg = tools::make_registry(
      {}, set == "default" ? std::vector<std::string>{}
                           : std::vector<std::string>{set});
    check_golden(tools_snapshot_file(set),
                 snapshot_text(reg->list_result_json()));
  }
}

TEST_CASE("tool declarations: a tool in no toolset, or in an unknown one, "
          "or a name used twice, fails the registry's build",
          "[snapshot][tools]") {
  auto build = [](std::vector<tools::tool> declared) {
    tools::registry r{std::move(declared), {"time"}};
  };
  CHECK_NOTHROW(build({echo_tool("echo", "time")}));
  CHECK_THROWS_WITH(build({echo_tool("echo", "")}),
                    Catch::Contains("tool 'echo' is in no toolset"));
  CHECK_THROWS_WITH(build({echo_tool("echo", "tim")}),
                    Catch::Contains("'tim'"));
  CHECK_THROWS_WITH(build({echo_tool("echo", "time"),
                           echo_tool("echo", "history")}),
                    Catch::Contains("two tools are named 'echo'"));
  // A tool of a toolset that is off: known by name and toolset, not
  // callable.
  tools::registry r{{echo_tool("echo", "time"), echo_tool("past", "history")},
                    {"time"}};
  CHECK(r.find("past") == nullptr);
  CHECK(r.toolset_of("past") == "history");
  CHECK(r.toolset_of("echo") == "time");
  CHECK(r.toolset_of("nope").empty());
  // Every real tool is declared in a toolset that exists, or make_registry
  // would have thrown.
  auto all = tools::make_registry({}, {"all"});
  for (const auto& t : all->tools())
    CHECK(tools::find_toolset(t.about().toolset) != nullptr);
}

TEST_CASE("tool declarations: roles name the tools prompts and resources "
          "use, whether or not their toolset is on",
          "[snapshot][tools]") {
  auto all = tools::make_registry({}, {"all"});
  auto def = tools::make_registry({}, {"time", "tracking"});
  for (auto role : {tools::role::session_start, tools::role::task_start,
                    tools::role::task_end, tools::role::session_summary,
                    tools::role::session_end, tools::role::session_report,
                    tools::role::session_list}) {
    INFO("role " << static_cast<int>(role));
    const auto* t = all->find_role(role);
    REQUIRE(t != nullptr);
    CHECK(t->about().role == role);
    // A set without the history tools: declared, not enabled.
    const auto* d = def->declared(role);
    REQUIRE(d != nullptr);
    CHECK(d->name() == t->name());
    CHECK((def->find_role(role) != nullptr)
          == (def->find(t->name()) != nullptr));
  }
  CHECK(def->find_role(tools::role::session_report) == nullptr);
  // The default set has the report and the history (issue 29).
  CHECK(tools::make_registry()->find_role(tools::role::session_report)
        != nullptr);
  CHECK(tools::make_registry()->find_role(tools::role::session_list)
        != nullptr);
  CHECK(all->find_role(tools::role::none) == nullptr);
}

TEST_CASE("tool declarations: the instructions come from the enabled "
          "tools' notes, a sentence per toolset",
          "[snapshot][tools]") {
  // The default toolsets: the clock, focus, a milestone; never a
  // command-line flag, which the model cannot pass (issue 29).
  CHECK(tools::make_registry()->instructions()
        == "Trusted time for agents. Call time_get_current instead of "
           "guessing the date or time; omit timezone for the user's "
           "preferred zone. Focus: mark_session_start with the user's "
           "intent when work begins, get_time_context at the start of a "
           "turn, request_break_if_needed now and then (null: carry on; "
           "else quote prior_intent back), mark_session_end when done. To "
           "time a milestone: time_session_start with its task_ids, "
           "time_task_start / time_task_end around each task, "
           "time_session_summary for progress, time_session_end at the "
           "end. Failures are isError results with an error_code and a "
           "fix.");
  // A tool that is off is not mentioned; with every toolset on, nothing
  // is left to enable.
  auto time_only = tools::make_registry({}, {"time"})->instructions();
  CHECK(time_only
        == "Trusted time for agents. Call time_get_current instead of "
           "guessing the date or time; omit timezone for the user's "
           "preferred zone. Failures are isError results with an "
           "error_code and a fix.");
  auto all = tools::make_registry({}, {"all"})->instructions();
  for (const auto& sets : std::vector<std::vector<std::string>>{
         {}, {"all"}, {"time"}, {"edit"}, {"history", "preferences"}})
    CHECK(tools::make_registry({}, sets)->instructions().find("--")
          == std::string::npos);
  CHECK(all.find("To time a milestone: time_session_start") != std::string::npos);
  // Every tool the instructions name is enabled.
  auto reg = tools::make_registry({}, {"time", "chronometric"});
  const auto& text = reg->instructions();
  auto every = tools::make_registry({}, {"all"});
  for (const auto& t : every->tools()) {
    INFO("tool " << t.name());
    bool named = !t.about().instructions.text.empty()
                 && text.find(t.name()) != std::string::npos;
    if (named)
      CHECK(reg->find(t.name()) != nullptr);
  }
  CHECK(text.find("time_session_start") == std::string::npos);
}
