// Issue 20 item 5: what the README and docs/tools.md claim, checked
// against behaviour. Every session tool's reply carries the same task
// counts (time_session_start's too), and logs name a session id only by
// its first 8 characters.

#include "domain/ids.hpp"
#include "journal/replay.hpp"
#include "session_client.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

const char* const count_keys[] = {"tasks_completed",   "tasks_skipped",
                                  "tasks_failed",      "tasks_in_progress",
                                  "tasks_not_started", "tasks_remaining"};

/// The counts of a reply, in count_keys order.
std::vector<std::int64_t> counts_of(const rapidjson::Value& sc) {
  std::vector<std::int64_t> out;
  for (const char* k : count_keys) {
    INFO("count " << k);
    REQUIRE(sc.HasMember(k));
    out.push_back(integer(sc[k]));
  }
  return out;
}

bool lists(const rapidjson::Value& array, const char* name) {
  for (const auto& x : array.GetArray())
    if (x.IsString() && std::string{x.GetString()} == name)
      return true;
  return false;
}

} // namespace

TEST_CASE("doc claims: every session tool's reply carries the same counts, "
          "time_session_start's too",
          "[session_tools][issue20]") {
  client c;
  auto start = c.ok("time_session_start",
                    R"({"milestone_id":"M","task_ids":["a","b","c"]})");
  CHECK(counts_of(start) == std::vector<std::int64_t>{0, 0, 0, 0, 3, 3});
  auto sid = str(start["session_id"]);
  auto t = c.ok("time_task_start", task_args(sid, "a"));
  CHECK(counts_of(t) == std::vector<std::int64_t>{0, 0, 0, 1, 2, 2});
  auto e = c.ok("time_task_end", task_args(sid, "a"));
  CHECK(counts_of(e) == std::vector<std::int64_t>{1, 0, 0, 0, 2, 2});
  auto s = c.ok("time_session_summary", session_args(sid));
  CHECK(counts_of(s) == counts_of(e));
  auto end = c.ok("time_session_end", session_args(sid));
  CHECK(counts_of(end) == counts_of(e));
  // The output schema declares them as required result fields.
  const auto* tool = c.registry->find("time_session_start");
  REQUIRE(tool != nullptr);
  auto schema = parse(tool->output_schema_json());
  for (const char* k : count_keys) {
    INFO("count " << k);
    CHECK(schema["properties"].HasMember(k));
    CHECK(lists(schema["anyOf"][0]["required"], k));
  }
}

TEST_CASE("doc claims: logs name a session id by its first 8 characters",
          "[journal][issue20]") {
  const std::string id = "1b4e28ba-2fa1-4d2f-883f-0016d3cca427";
  CHECK(domain::log_id(id) == "1b4e28ba...");
  CHECK(domain::log_id("short") == "short");
  // What recovery logs about a session it cannot read.
  storage::stored_session broken;
  broken.session_id = id;
  broken.principal = "local";
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  std::vector<std::string> problems;
  journal::replay(tr, {broken}, clock, "UTC", problems);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("1b4e28ba...") != std::string::npos);
  CHECK(problems[0].find(id) == std::string::npos);
}
