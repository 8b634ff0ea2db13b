// Issue 17: time_stats counts a session's runs as its summary does —
// paused time left out, corrected instants and statuses taken — from the
// journal (open and closed sessions) as from memory.

#include "journaled_client.hpp"

#include <map>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;

namespace {

/// Tasks a, b, c start together. a pauses 2 min in, resumes 3 min later
/// and ends after 1 more (3 min active); b's forgotten end is corrected to
/// 1 min; c pauses 6 min in and stays paused. Then 4 min pass.
template <class Client>
std::string scenario(Client& c) {
  auto sid = str(c.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["a","b","c"]})")
                   ["session_id"]);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"start","task_id":"a"},
      {"op":"start","task_id":"b"},{"op":"start","task_id":"c"}])"));
  c.clock->advance(2min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"}])"));
  c.clock->advance(3min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"resume","task_id":"a"}])"));
  c.clock->advance(1min);
  // example_start() is 2025-12-14T09:45:32.123-05:00.
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"end","task_id":"a"},
      {"op":"correct","task_id":"b","end_time":"2025-12-14T09:46:32.123-05:00",
       "reason":"forgot to end it"},
      {"op":"pause","task_id":"c"}])"));
  c.clock->advance(4min);
  return sid;
}

/// The summary's active time per task (its runs' duration_ms summed).
template <class Client>
std::map<std::string, std::int64_t> summary_times(Client& c,
                                                  const std::string& sid) {
  auto s = c.ok("time_session_summary",
                R"({"session_id":")" + sid + R"(","include_task_details":true})");
  std::map<std::string, std::int64_t> out;
  for (const auto& t : s["tasks"].GetArray())
    out[str(t["task_id"])] += integer(t["duration_ms"]);
  return out;
}

template <class Client>
std::map<std::string, std::int64_t> stats_times(Client& c) {
  auto st = c.ok("time_stats", R"({"group_by":"task"})");
  std::map<std::string, std::int64_t> out;
  for (const auto& g : st["groups"].GetArray())
    out[str(g["key"])] = integer(g["task_time_ms"]);
  return out;
}

} // namespace

TEST_CASE("time_stats: paused and corrected runs count as the summary "
          "shows them, open and closed, journaled or not",
          "[session_stats][journal][issue17]") {
  test::temp_dir tmp;
  auto store = open_store(tmp.data());
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  journaled j{clock, *store, "local"};
  client mem;
  auto jsid = scenario(j);
  auto msid = scenario(mem);

  const std::map<std::string, std::int64_t> want{
    {"a", 180'000}, {"b", 60'000}, {"c", 360'000}};
  // Open: c paused, stored with its active time so far.
  CHECK(summary_times(j, jsid) == want);
  CHECK(stats_times(j) == want);
  CHECK(stats_times(mem) == want);
  for (auto by : {"milestone", "task"}) {
    auto args = std::string{R"({"group_by":")"} + by + "\"}";
    auto from_journal = j.ok("time_stats", args);
    auto from_memory = mem.ok("time_stats", args);
    CHECK(to_json(from_journal["totals"]) == to_json(from_memory["totals"]));
  }

  // c resumes: from then on it accrues again, in the journal's stats too.
  j.ok("time_tasks_edit", edit_args(jsid, R"([{"op":"resume","task_id":"c"}])"));
  clock->advance(2min);
  auto running = want;
  running["c"] += 120'000;
  CHECK(summary_times(j, jsid) == running);
  CHECK(stats_times(j) == running);

  // Closed: the close packs the runs the summary counts.
  j.ok("time_session_end", R"({"session_id":")" + jsid + "\"}");
  clock->advance(1h);
  CHECK(summary_times(j, jsid) == running);
  CHECK(stats_times(j) == running);
  auto closed = j.ok("time_stats", R"({"group_by":"task"})");
  const auto& totals = closed["totals"];
  CHECK(integer(totals["task_time_ms"]) == 180'000 + 60'000 + 480'000);
  CHECK(integer(totals["runs_completed"]) == 2);
  CHECK(integer(totals["runs_interrupted"]) == 1);
}
