// Over HTTP, a tracking session another MCP session of the same principal
// holds in this server is handed over, as it is, to the one a call comes
// through: the journal only checks the copy is current, nothing is read
// back and replayed from it. The undo history moves with the session; a
// stranger gets nothing.

#include "log_capture.hpp"
#include "shared_dir_fixture.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace ttm;
using namespace ttm::test::shared_dir;

namespace {

std::string details_call(int id, const std::string& sid) {
  return tools_call("time_session_summary",
                    R"({"session_id":")" + sid
                      + R"(","include_task_details":true})",
                    id);
}

/// Task `task`'s status in a summary with details.
std::string status_of(const rapidjson::Document& summary,
                      const std::string& task) {
  for (const auto& t : summary["tasks"].GetArray())
    if (str(t["task_id"]) == task)
      return str(t["status"]);
  return "absent";
}

} // namespace

TEST_CASE("journal: over HTTP a session another MCP session of the "
          "principal holds is handed over, not read back from the journal, "
          "and its undo history moves with it",
          "[journal][takeover]") {
  shared_dir_fixture f;
  f.start();
  f.open_journal();
  f.open("alice-1", "alice");
  f.open("alice-2", "alice");
  f.open("bob-1", "bob");
  auto started = f.forward(
    "alice-1", tools_call("time_session_start",
                          R"({"milestone_id":"M","task_ids":["a","b"]})", 1));
  REQUIRE(f.code_of(*started) == "");
  auto sid = str(f.content(*started)["session_id"]);
  auto on = [&](const std::string& tool, const std::string& rest, int id) {
    return tools_call(tool, R"({"session_id":")" + sid + "\"" + rest + "}",
                      id);
  };
  REQUIRE(f.code_of(*f.forward("alice-1",
                               on("time_task_start", R"(,"task_id":"a")", 2)))
          == "");
  f.clock->advance(std::chrono::minutes{5});
  REQUIRE(f.code_of(*f.forward(
            "alice-1",
            on("time_task_end", R"(,"task_id":"a","status":"completed")", 3)))
          == "");

  test::log_capture log{log::level::debug};
  auto read = f.forward("alice-2", details_call(4, sid));
  REQUIRE(f.code_of(*read) == "");
  CHECK(status_of(f.content(*read), "a") == "completed");
  CHECK(f.state().directory.at(sid) == "alice-2");
  CHECK(f.slots() == 1);
  CHECK(log.find(log::level::debug, {"handed over"}).size() == 1);
  CHECK(log.find(log::level::info, {"took over session"}).empty());

  // The end of task a, undone through alice-2: its steps act on alice-2's
  // copy, and the journal has it.
  auto undone = f.forward("alice-2", on("time_undo", "", 5));
  REQUIRE(f.code_of(*undone) == "");
  auto back = f.forward("alice-1", details_call(6, sid));
  REQUIRE(f.code_of(*back) == "");
  CHECK(status_of(f.content(*back), "a") == "in_progress");
  CHECK(f.state().directory.at(sid) == "alice-1");
  CHECK(log.find(log::level::debug, {"handed over"}).size() == 2);
  auto& other = f.second();
  f.inbound(init_request, other.transport);
  // (stdio there: principal "local", so it reads nothing of alice's)
  CHECK(f.code_of(*f.inbound(details_call(7, sid), other.transport))
        == "SESSION_NOT_FOUND");

  // A stranger gets nothing handed over, and the holder keeps it.
  CHECK(f.code_of(*f.forward("bob-1", details_call(8, sid)))
        == "SESSION_NOT_FOUND");
  CHECK(f.state().directory.at(sid) == "alice-1");
  CHECK(log.find(log::level::debug, {"handed over"}).size() == 2);
  CHECK(log.find(log::level::info, {"took over session"}).empty());
}
