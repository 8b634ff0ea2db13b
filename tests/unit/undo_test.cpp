// Issue 17 item 3: time_undo reverts a session's most recent change (a
// start, an end, a whole bulk edit, the session's end), back through its
// last 50; the journal marks what was undone, so a restart recovers the
// same session, and records who made each change (the audit trail).

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "journal/codec.hpp"

#include <catch2/catch.hpp>
#include "journaled_client.hpp"
#include "session_client.hpp"
#include "test_json.hpp"

#include <sqlite3.h>

#include <chrono>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;
using ttm::test::contains;
using ttm::test::str;
using ttm::test::to_json;

namespace {

/// Rows of one SQL query on the journal file, as "a|b|c" lines.
std::vector<std::string> query(const std::string& file,
                               const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr)
          == SQLITE_OK);
  std::vector<std::string> rows;
  auto cb = [](void* out, int n, char** v, char**) {
    std::string row;
    for (int i = 0; i < n; ++i)
      row += (i ? "|" : "") + std::string{v[i] ? v[i] : "NULL"};
    static_cast<std::vector<std::string>*>(out)->push_back(row);
    return 0;
  };
  char* err = nullptr;
  auto rc = sqlite3_exec(db, sql.c_str(), cb, &rows, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
  return rows;
}

} // namespace

TEST_CASE("undo: each change is reverted in turn, newest first, back to "
          "the session's start",
          "[undo][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  auto now_summary = [&] { return to_json(c.ok("time_session_summary",
                                               summary_args(sid))); };
  // Summaries are compared at one instant: the clock stands still below.
  std::vector<std::string> states{now_summary()};
  c.ok("time_task_start", task_args(sid, "a"));
  states.push_back(now_summary());
  c.ok("time_task_end", task_args(sid, "a"));
  states.push_back(now_summary());
  c.ok("time_tasks_edit",
       edit_args(sid, R"([{"op":"start","task_id":"b"},
                          {"op":"add","task_id":"c"},
                          {"op":"note","task_id":"b","text":"n"}])"));
  states.push_back(now_summary());
  c.ok("time_session_end", session_args(sid));
  states.push_back(now_summary());

  auto u = c.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "session_ended");
  CHECK(u["reopened"].GetBool());
  CHECK(str(u["status"]) == "active");
  CHECK(u["undoable_left"].GetInt() == 3);
  CHECK(contains(str(u["description"]), "active again"));
  CHECK(now_summary() == states[3]);

  u = c.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "tasks_edited");
  CHECK(u["undone"]["operation_count"].GetInt() == 3);
  CHECK(u["task_count"].GetInt() == 2); // the added task is gone again
  CHECK_FALSE(u["reopened"].GetBool());
  CHECK(now_summary() == states[2]);

  u = c.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "task_ended");
  CHECK(str(u["undone"]["task_id"]) == "a");
  CHECK(u["tasks_in_progress"].GetInt() == 1);
  CHECK(now_summary() == states[1]);

  u = c.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "task_started");
  CHECK(u["undoable_left"].GetInt() == 0);
  CHECK(now_summary() == states[0]);

  auto none = c.fails("time_undo", session_args(sid), "NOTHING_TO_UNDO");
  CHECK(contains(str(none["message"]), "never its start"));
  // Changes go on after an undo, and are undone in turn.
  c.ok("time_task_start", task_args(sid, "b"));
  CHECK(str(c.ok("time_undo", session_args(sid))["undone"]["task_id"]) == "b");
}

TEST_CASE("undo: repeated starts and ends that changed nothing are not "
          "changes, a failed call is not one either",
          "[undo][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.ok("time_task_start", task_args(sid, "a")); // already running
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"resume","task_id":"a"}])"));
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"pause","task_id":"a"},
                             {"op":"end","task_id":"zzz"}])"),
          "TASK_NOT_IN_SESSION");
  auto u = c.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "task_started");
  c.fails("time_undo", session_args(sid), "NOTHING_TO_UNDO");
}

TEST_CASE("undo: reaches back through the last 50 changes, undone ones "
          "included, older ones are final",
          "[undo][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  for (int k = 0; k < 30; ++k) {
    c.ok("time_task_start", task_args(sid, "a"));
    c.ok("time_task_end", task_args(sid, "a"));
  }
  for (int k = 0; k < 50; ++k) {
    INFO("undo " << k);
    auto u = c.ok("time_undo", session_args(sid));
    CHECK(u["undoable_left"].GetInt() == 49 - k);
  }
  auto final = c.fails("time_undo", session_args(sid), "NOTHING_TO_UNDO");
  CHECK(contains(str(final["message"]), "last 50 changes"));
  // 10 changes stand; a new change is undoable, the older ones stay final.
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK(s["tasks"].Size() == 5); // 5 runs: 10 changes
  c.ok("time_task_start", task_args(sid, "a"));
  CHECK(c.ok("time_undo", session_args(sid))["undoable_left"].GetInt() == 0);
  c.fails("time_undo", session_args(sid), "NOTHING_TO_UNDO");
}

TEST_CASE("undo: another client's session and unknown ids are refused as "
          "the other session tools refuse them",
          "[undo][issue17]") {
  client c;
  c.fails("time_undo", session_args("0f0e0d0c-0b0a-4908-8706-050403020100"),
          "SESSION_NOT_FOUND");
  c.fails("time_undo", R"({})", "VALIDATION_ERROR");
}

TEST_CASE("undo: a journal refusal puts the undone change back",
          "[undo][issue17]") {
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  tr.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a"};
  tr.add("s", req, utc, domain::now_of(clock));
  auto& s = *tr.find("s");
  clock.advance(1s);
  REQUIRE(std::holds_alternative<domain::task_started>(
    tr.start_task(s, {"a", {}, {}, {}, {}}, domain::now_of(clock))));
  clock.advance(1s);
  tr.end_session(s, domain::now_of(clock));
  tr.take_changes();
  tr.take_ended();
  tr.commit();
  auto u = tr.undo(s, domain::now_of(clock));
  REQUIRE(std::holds_alternative<domain::undone>(u));
  CHECK_FALSE(tr.find("s")->ended());
  auto changes = tr.take_changes();
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].kind == domain::change::change_undone);
  CHECK(changes[0].undone_kind == domain::change::session_ended);
  tr.rollback(); // the journal refused the undo
  REQUIRE(tr.find("s")->ended());
  CHECK(tr.take_reopened().empty());
  CHECK(domain::tracker::undoable_left(*tr.find("s")) == 2);
  // Accepted this time: the supervisor hears that it is open again.
  REQUIRE(std::holds_alternative<domain::undone>(
    tr.undo(*tr.find("s"), domain::now_of(clock))));
  tr.commit();
  CHECK(tr.take_reopened() == std::vector<std::string>{"s"});
}

TEST_CASE("undo: a session past its age limit is not reopened",
          "[undo][issue17]") {
  // Journaled, an ended session outlives its age limit (the journal keeps
  // it); reopened, it would expire at once, so its end stands.
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  tr.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a"};
  tr.add("s", req, utc, domain::now_of(clock));
  tr.end_session(*tr.find("s"), domain::now_of(clock));
  tr.take_changes();
  tr.commit();
  clock.advance(25h);
  auto r = tr.undo(*tr.find("s"), domain::now_of(clock));
  REQUIRE(std::holds_alternative<domain::tracking_error>(r));
  CHECK(std::get<domain::tracking_error>(r).code == "LIMIT_REACHED");
  CHECK(tr.find("s")->ended());
  CHECK_FALSE(tr.has_changes());
}

TEST_CASE("undo: journaled, the undone events are marked, the row is "
          "reopened, and a restarted server recovers the same session",
          "[undo][issue17][journal]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  auto file = (dir.path() / "journal.sqlite3").string();
  std::string sid;
  std::string before;
  std::string report;
  std::string report_args;
  {
    auto store = open_store(dir.path().string());
    journaled c{clock, *store, "alice"};
    sid = str(c.ok("time_session_start",
                   R"({"milestone_id":"M","task_ids":["a","b"]})")
                ["session_id"]);
    report_args = R"({"session_id":")" + sid + R"(","format":"json"})";
    clock->advance(2s);
    c.ok("time_task_start", task_args(sid, "a"));
    clock->advance(2s);
    c.ok("time_tasks_edit",
         edit_args(sid, R"([{"op":"end","task_id":"a"},
                            {"op":"add","task_id":"c"}])"));
    clock->advance(2s);
    c.ok("time_session_end", session_args(sid));
    CHECK(query(file, "SELECT state, tasks_total, runs IS NOT NULL FROM "
                      "sessions")
          == std::vector<std::string>{"ended|3|1"});
    clock->advance(2s);
    auto u = c.ok("time_undo", session_args(sid));
    CHECK(u["reopened"].GetBool());
    CHECK(query(file, "SELECT state, closed_wall_ns IS NULL, runs IS NULL "
                      "FROM sessions")
          == std::vector<std::string>{"open|1|1"});
    u = c.ok("time_undo", session_args(sid));
    CHECK(str(u["undone"]["change"]) == "tasks_edited");
    CHECK(query(file, "SELECT tasks_total FROM sessions")
          == std::vector<std::string>{"2"});
    // Each undo marks one event; its own event says what it reverted.
    CHECK(query(file, "SELECT kind, undone_by IS NOT NULL FROM events "
                      "ORDER BY seq")
          == std::vector<std::string>{"session_started|0", "task_started|0",
                                      "tasks_edited|1", "session_ended|1",
                                      "change_undone|0", "change_undone|0"});
    CHECK(query(file, "SELECT json_extract(payload, '$.undid.kind') FROM "
                      "events WHERE kind = 'change_undone' ORDER BY seq")
          == std::vector<std::string>{"session_ended", "tasks_edited"});
    // The audit trail: who (principal, MCP session), through which tool.
    CHECK(query(file, "SELECT json_extract(payload, '$.by.principal'),"
                      " json_extract(payload, '$.by.tool') FROM events"
                      " ORDER BY seq")
          == std::vector<std::string>{
            "alice|time_session_start", "alice|time_task_start",
            "alice|time_tasks_edit", "alice|time_session_end",
            "alice|time_undo", "alice|time_undo"});
    before = to_json(c.ok("time_session_summary", summary_args(sid)));
    report = str(c.ok("time_session_report", report_args)["report"]);
    CHECK(contains(report, R"("change": "change_undone")"));
    CHECK(contains(report, R"("undid": "session_ended")"));
  }
  auto store = open_store(dir.path().string());
  journaled again{clock, *store, "alice"};
  CHECK(to_json(again.ok("time_session_summary", summary_args(sid)))
        == before);
  // The audit trail comes back from the journal, undone lines included.
  CHECK(str(again.ok("time_session_report", report_args)["report"])
        == report);
  // The chain goes on after the restart: the start of a is next.
  auto u = again.ok("time_undo", session_args(sid));
  CHECK(str(u["undone"]["change"]) == "task_started");
  CHECK(u["undoable_left"].GetInt() == 0);
  // Statistics and lists skip the undone events: nothing ran.
  CHECK(query(dir.path().string() + "/journal.sqlite3",
              "SELECT count(*) FROM events WHERE undone_by IS NULL AND kind"
              " IN ('task_started', 'task_ended', 'tasks_edited')")
        == std::vector<std::string>{"0"});
}

TEST_CASE("undo: an end undone through another client is seen by the "
          "client that ended the session",
          "[undo][issue17][journal]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  auto store = open_store(dir.path().string());
  journaled a{clock, *store, "alice"};
  journaled b{clock, *store, "alice"};
  auto sid = str(a.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["x"]})")
                   ["session_id"]);
  a.ok("time_task_start", task_args(sid, "x"));
  clock->advance(3s);
  CHECK(str(a.ok("time_session_end", session_args(sid))["status"]) == "ended");
  // b loads the ended session from the journal and reopens it.
  CHECK(b.ok("time_undo", session_args(sid))["reopened"].GetBool());
  // a's copy is stale: its next call loads the session again.
  auto s = a.ok("time_session_summary", summary_args(sid));
  CHECK(str(s["status"]) == "active");
  CHECK(s["tasks_in_progress"].GetInt() == 1);
  // And a can go on with it: end the task, undo that.
  a.ok("time_task_end", task_args(sid, "x"));
  CHECK(str(b.ok("time_undo", session_args(sid))["undone"]["change"])
        == "task_ended");
  // Another principal cannot undo it: not found, as for every tool.
  journaled mallory{clock, *store, "mallory"};
  auto res = mallory.run(tools_call("time_undo", session_args(sid), "9"));
  CHECK(contains(to_json(res), "SESSION_NOT_FOUND"));
}
