// A tracking session taken over by another MCP session of the same
// principal: moved between two trackers of one server as it is (its
// undo history with it), or read back from the journal; either way the
// new holder has the journal's state, whatever it does next.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "journaled_client.hpp"
#include "session_client.hpp"
#include "storage/sqlite_store.hpp"
#include "test_client_state.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;

namespace {

storage::store_ptr store_with_share(const std::string& dir,
                                    std::size_t per_principal) {
  storage::sqlite_options o{dir, storage::sync_mode::normal, "test"};
  o.max_open_per_principal = per_principal;
  auto r = storage::open_sqlite(o);
  REQUIRE(std::holds_alternative<storage::store_ptr>(r));
  return std::move(std::get<storage::store_ptr>(r));
}

/// Task `task`'s status and duration in a summary with details.
std::string task_state(const rapidjson::Document& summary,
                       const std::string& task) {
  for (const auto& t : summary["tasks"].GetArray())
    if (str(t["task_id"]) == task)
      return str(t["status"]) + "/"
             + (t.HasMember("duration_ms") && t["duration_ms"].IsNumber()
                  ? std::to_string(t["duration_ms"].GetInt64())
                  : std::string{"-"});
  return "absent";
}

} // namespace

TEST_CASE("tracker: a session extracted from one tracker and inserted in "
          "another is undone there, its steps acting on the new holder",
          "[tracking][takeover]") {
  domain::fake_clock clock{example_start()};
  domain::tracker from{domain::tracking_limits{}};
  domain::tracker to{domain::tracking_limits{}};
  from.record_changes(true);
  to.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a"};
  req.idempotency_key = "k";
  from.add("s", req, utc, domain::now_of(clock));
  clock.advance(1s);
  REQUIRE(std::holds_alternative<domain::task_started>(from.start_task(
    *from.find("s"), {"a", {}, {}, {}, {}}, domain::now_of(clock))));
  // In the middle of a change (not committed yet): not handed over.
  CHECK_FALSE(from.extract("s").has_value());
  from.take_changes();
  from.commit();
  clock.advance(1s);
  REQUIRE(from.end_session(*from.find("s"), domain::now_of(clock)));
  from.take_changes();
  from.take_ended();
  from.commit();

  auto moved = from.extract("s");
  REQUIRE(moved.has_value());
  CHECK(from.find("s") == nullptr);
  CHECK(from.find_by_key("k") == nullptr);
  CHECK_FALSE(from.extract("s").has_value());
  REQUIRE(to.insert(*moved));
  CHECK_FALSE(to.insert(*moved)); // one of that id is held already
  // Ended: reported as such, so that its slot counts as an ended one.
  CHECK(to.take_ended() == std::vector<std::string>{"s"});
  CHECK(to.find_by_key("k") == to.find("s"));

  // Undone on the new holder: the end, then the start of task a.
  REQUIRE(std::holds_alternative<domain::undone>(
    to.undo(*to.find("s"), domain::now_of(clock))));
  to.commit();
  CHECK_FALSE(to.find("s")->ended());
  REQUIRE(std::holds_alternative<domain::undone>(
    to.undo(*to.find("s"), domain::now_of(clock))));
  to.commit();
  CHECK(to.find("s")->tasks[0].runs.empty());
  CHECK(from.find("s") == nullptr);
}

TEST_CASE("a session taken over from the journal keeps its state when the "
          "new holder's next write is refused",
          "[journal][takeover]") {
  test::temp_dir dir;
  auto store = store_with_share(dir.data(), 1);
  auto clock = std::make_shared<domain::fake_clock>(test::test_now());
  journaled a{clock, *store, "alice"};
  journaled b{clock, *store, "alice"}; // another MCP session, same principal
  auto sid = str(a.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["t1","t2"]})")
                   ["session_id"]);
  a.ok("time_task_start",
       R"({"session_id":")" + sid + R"(","task_id":"t1"})");
  clock->advance(std::chrono::minutes{5});
  a.ok("time_task_end", R"({"session_id":")" + sid
                          + R"(","task_id":"t1","status":"completed"})");
  auto summary = [&](journaled& c) {
    return c.ok("time_session_summary",
                R"({"session_id":")" + sid
                  + R"(","include_task_details":true})");
  };
  CHECK(task_state(summary(a), "t1") == "completed/300000");
  // b takes it over (a read), then starts a session past alice's share of
  // one: the journal refuses it, and b undoes that start only.
  CHECK(task_state(summary(b), "t1") == "completed/300000");
  auto refused = b.run(tools_call(
    "time_session_start", R"({"milestone_id":"M2","task_ids":["x"]})", "99"));
  REQUIRE(refused.HasMember("result"));
  CHECK(refused["result"]["isError"].GetBool());
  CHECK(task_state(summary(b), "t1") == "completed/300000");
  CHECK(task_state(summary(a), "t1") == "completed/300000");
}
