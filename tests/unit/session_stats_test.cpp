// time_stats through mcp::session on a fake clock (issue 16): groups and
// their numbers (counts, total / busy / task time, median and p90 by
// nearest rank, run outcomes), days and weeks in the zone argument, the
// range, refusals; the same numbers from the journal as from memory.

#include "journaled_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

/// Session A (M2, tag x; ended): t1 60 s completed; t2 30 s skipped and
/// t3 beside it, interrupted 40 s in by the session's end (100 s in all).
/// A day later session B (M3, active): t1 120 s completed, then again
/// 20 s failed.
template <class Client>
void scenario(Client& c) {
  auto sid = [&](const std::string& args) {
    return str(c.ok("time_session_start", args)["session_id"]);
  };
  auto call = [&](const char* tool, const std::string& sid_,
                  const std::string& more) {
    c.ok(tool, R"({"session_id":")" + sid_ + "\"" + more + "}");
  };
  auto a = sid(R"({"milestone_id":"M2","task_ids":["t1","t2","t3"],"tags":["x"]})");
  call("time_task_start", a, R"(,"task_id":"t1")");
  c.clock->advance(60s);
  call("time_task_end", a, R"(,"task_id":"t1")");
  call("time_task_start", a, R"(,"task_id":"t2")");
  call("time_task_start", a, R"(,"task_id":"t3")");
  c.clock->advance(30s);
  call("time_task_end", a, R"(,"task_id":"t2","status":"skipped")");
  c.clock->advance(10s);
  call("time_session_end", a, "");
  c.clock->advance(24h);
  auto b = sid(R"({"milestone_id":"M3","task_ids":["t1"]})");
  call("time_task_start", b, R"(,"task_id":"t1")");
  c.clock->advance(120s);
  call("time_task_end", b, R"(,"task_id":"t1")");
  call("time_task_start", b, R"(,"task_id":"t1")");
  c.clock->advance(20s);
  call("time_task_end", b, R"(,"task_id":"t1","status":"failed")");
}

std::int64_t n(const rapidjson::Value& v, const char* key) {
  return integer(v[key]);
}

std::vector<std::string> keys(const rapidjson::Value& sc) {
  std::vector<std::string> out;
  for (const auto& g : sc["groups"].GetArray())
    out.push_back(str(g["key"]));
  return out;
}

} // namespace

TEST_CASE("time_stats: groups and their numbers (--ephemeral)",
          "[session_stats]") {
  client c;
  scenario(c);
  auto by_task = c.ok("time_stats", R"({"group_by":"task"})");
  const auto& t = by_task["totals"];
  CHECK(n(t, "session_count") == 2);
  CHECK(n(t, "tasks_started") == 4);
  CHECK(n(t, "run_count") == 5);
  CHECK(n(t, "total_duration_ms") == 240'000); // 100 s + 140 s so far
  CHECK(n(t, "busy_duration_ms") == 240'000);
  CHECK(n(t, "task_time_ms") == 270'000); // 130 s + 140 s
  CHECK(n(t, "median_task_ms") == 40'000); // of 20, 30, 40, 60, 120 s
  CHECK(n(t, "p90_task_ms") == 120'000);
  CHECK(n(t, "runs_completed") == 2);
  CHECK(n(t, "runs_skipped") == 1);
  CHECK(n(t, "runs_failed") == 1);
  CHECK(n(t, "runs_interrupted") == 1);
  CHECK(n(t, "runs_in_progress") == 0);
  CHECK(str(by_task["group_by"]) == "task");
  CHECK_FALSE(by_task["truncated"].GetBool());
  // Largest task time first.
  REQUIRE(keys(by_task) == std::vector<std::string>{"t1", "t3", "t2"});
  const auto& t1 = by_task["groups"][0];
  CHECK(n(t1, "session_count") == 2);
  CHECK(n(t1, "run_count") == 3);
  CHECK(n(t1, "task_time_ms") == 200'000);
  CHECK(n(t1, "median_task_ms") == 60'000);
  CHECK(n(t1, "busy_duration_ms") == 200'000);
  CHECK(n(by_task["groups"][1], "runs_interrupted") == 1);

  auto by_ms = c.ok("time_stats", R"({"group_by":"milestone"})");
  CHECK(keys(by_ms) == std::vector<std::string>{"M3", "M2"}); // 140 s, 130 s
  CHECK(n(by_ms["groups"][1], "busy_duration_ms") == 100'000);
  CHECK(n(by_ms["groups"][1], "task_time_ms") == 130'000);

  auto by_tag = c.ok("time_stats", R"({"group_by":"tag"})");
  CHECK(keys(by_tag) == std::vector<std::string>{"", "x"});

  // Days and weeks in the zone argument (A: Sunday 2025-12-14 in New York).
  auto by_day = c.ok("time_stats", R"({"group_by":"day"})");
  CHECK(keys(by_day) == std::vector<std::string>{"2025-12-14", "2025-12-15"});
  CHECK(str(by_day["timezone"]) == "America/New_York");
  auto by_week = c.ok("time_stats", R"({"group_by":"week"})");
  CHECK(keys(by_week) == std::vector<std::string>{"2025-12-08", "2025-12-15"});
  auto sunday = c.ok("time_stats", R"({"group_by":"week","week_start":"sunday"})");
  CHECK(keys(sunday) == std::vector<std::string>{"2025-12-14"});
  auto tokyo = c.ok("time_stats", R"({"group_by":"day","timezone":"Asia/Tokyo"})");
  CHECK(keys(tokyo) == std::vector<std::string>{"2025-12-14", "2025-12-15"});

  // The range and filters.
  auto late = c.ok("time_stats", R"({"from":"2025-12-15"})");
  CHECK(n(late["totals"], "session_count") == 1);
  CHECK(str(late["from"]) == "2025-12-15T00:00:00.000-05:00");
  auto early = c.ok("time_stats", R"({"to":"2025-12-15"})");
  CHECK(n(early["totals"], "session_count") == 1);
  CHECK(n(c.ok("time_stats", R"({"status":"active"})")["totals"], "run_count") == 2);
  CHECK(n(c.ok("time_stats", R"({"tags":["x"]})")["totals"], "run_count") == 3);
  auto none = c.ok("time_stats", R"({"milestone_id":"nope"})");
  CHECK(none["groups"].Empty());
  CHECK(n(none["totals"], "session_count") == 0);
  CHECK(none["totals"]["median_task_ms"].IsNull());
  auto old = c.ok("time_stats", R"({"to":"2025-12-01"})");
  CHECK(n(old["totals"], "session_count") == 0);
}

TEST_CASE("time_stats: the journal gives the numbers memory gives",
          "[session_stats][journal]") {
  test::temp_dir tmp;
  auto store = open_store(tmp.data());
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  journaled j{clock, *store, "local"};
  client mem;
  scenario(j);
  scenario(mem);
  for (auto by : {"milestone", "tag", "day", "week", "task"}) {
    INFO(by);
    auto args = std::string{R"({"group_by":")"} + by + "\"}";
    auto from_journal = j.ok("time_stats", args);
    auto from_memory = mem.ok("time_stats", args);
    CHECK(to_json(from_journal["groups"]) == to_json(from_memory["groups"]));
    CHECK(to_json(from_journal["totals"]) == to_json(from_memory["totals"]));
  }
  CHECK(j.history_queries == 5);
}

TEST_CASE("time_stats: bad arguments are refused, naming the field",
          "[session_stats]") {
  client c;
  auto msg = [&](const std::string& args, const std::string& code) {
    return str(c.fails("time_stats", args, code)["message"]);
  };
  CHECK_THAT(msg(R"({"from":"2025-12-14","to":"2025-12-13"})",
                 "VALIDATION_ERROR"),
             Catch::StartsWith("to:"));
  CHECK_THAT(msg(R"({"from":"2024-01-01","to":"2025-12-14"})",
                 "VALIDATION_ERROR"),
             Catch::Contains("366 days"));
  CHECK_THAT(msg(R"({"from":"someday"})", "VALIDATION_ERROR"),
             Catch::StartsWith("from:"));
  CHECK_THAT(msg(R"({"timezone":"Mars/Olympus"})", "INVALID_TIMEZONE"),
             Catch::StartsWith("timezone:"));
  for (auto args : {R"({"group_by":"year"})", R"({"week_start":"funday"})"}) {
    auto res = c.rpc(c.call_json("time_stats", args));
    CHECK(res["result"]["isError"].GetBool());
    CHECK(str(res["result"]["structuredContent"]["error_code"])
          == "VALIDATION_ERROR");
  }
}

TEST_CASE("time_stats and time_session_list read month names in the "
          "caller's locale (issue 30)",
          "[session_stats][grammar]") {
  client c;
  const char* stats = R"({"from":"1. Dezember 2025","to":"14. Dezember 2025"})";
  const char* list = R"({"started_after":"1. Dezember 2025"})";
  // English alone until the caller's locale says otherwise.
  c.fails("time_stats", stats, "VALIDATION_ERROR");
  c.fails("time_session_list", list, "VALIDATION_ERROR");
  c.ok("time_preferences_set", R"({"locale":"de-DE"})");
  c.ok("time_stats", stats);
  c.ok("time_session_list", list);
  // English is always read.
  c.ok("time_stats", R"({"from":"December 1, 2025"})");
}
