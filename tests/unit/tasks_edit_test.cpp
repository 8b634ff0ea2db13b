// Issue 17: time_tasks_edit, the atomic bulk edit of a session's tasks
// (start, end, pause, resume, note, add, remove), on the fake clock; its
// one journal event, replayed after a restart.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "tools/session_common.hpp"

#include <catch2/catch.hpp>
#include "journaled_client.hpp"
#include "session_client.hpp"
#include "test_json.hpp"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <string>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;
using ttm::test::contains;
using ttm::test::str;
using ttm::test::to_json;

namespace {

/// The (latest) entry of task `id` in a summary's details.
const rapidjson::Value& entry(const rapidjson::Value& summary,
                              const std::string& id) {
  const rapidjson::Value* found = nullptr;
  for (const auto& t : summary["tasks"].GetArray())
    if (str(t["task_id"]) == id)
      found = &t;
  REQUIRE(found != nullptr);
  return *found;
}

} // namespace

TEST_CASE("tasks edit: a paused run accrues no time, its pauses are "
          "reported",
          "[tasks_edit][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  auto r = c.ok("time_tasks_edit",
                edit_args(sid, R"([{"op":"start","task_id":"a"},
                                   {"op":"start","task_id":"b"}])"));
  CHECK(integer(r["tasks_in_progress"]) == 2);
  c.clock->advance(10s);
  r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"}])"));
  CHECK(integer(r["operations"][0]["active_ms"]) == 10000);
  CHECK(boolean(r["operations"][0]["paused"]));
  CHECK_FALSE(boolean(r["operations"][0]["unchanged"]));
  c.clock->advance(5s);
  // Pausing again is harmless and says so.
  r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"}])"));
  CHECK(boolean(r["operations"][0]["unchanged"]));
  CHECK(integer(r["operations"][0]["active_ms"]) == 10000);
  c.clock->advance(5s);
  r = c.ok("time_tasks_edit",
           edit_args(sid, R"([{"op":"resume","task_id":"a"},
                              {"op":"resume","task_id":"b"}])"));
  CHECK_FALSE(boolean(r["operations"][0]["unchanged"]));
  CHECK(boolean(r["operations"][1]["unchanged"])); // b was running
  CHECK_FALSE(boolean(r["operations"][0]["paused"]));
  c.clock->advance(3s);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"end","task_id":"a"}])"));
  c.clock->advance(7s);
  auto s = c.ok("time_session_summary", summary_args(sid));
  const auto& a = entry(s, "a");
  CHECK(integer(a["duration_ms"]) == 13000); // 10 s + 3 s
  CHECK(integer(a["active_ms"]) == 13000);
  REQUIRE(a["pauses"].Size() == 1);
  CHECK(integer(a["pauses"][0]["duration_ms"]) == 10000);
  CHECK(str(a["pauses"][0]["start_time"]) == "2025-12-14T09:45:42.123-05:00");
  CHECK(str(a["pauses"][0]["end_time"]) == "2025-12-14T09:45:52.123-05:00");
  const auto& b = entry(s, "b");
  CHECK(integer(b["duration_ms"]) == 30000);
  CHECK_FALSE(b.HasMember("pauses"));
  CHECK(integer(s["task_time_ms"]) == 43000);
  CHECK(integer(s["busy_duration_ms"]) == 30000); // b ran throughout
  CHECK(integer(s["busy_duration_ms"]) <= integer(s["task_time_ms"]));
}

TEST_CASE("tasks edit: a run paused when it ends stops at its end",
          "[tasks_edit][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(4s);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"}])"));
  c.clock->advance(6s);
  auto e = c.ok("time_task_end", task_args(sid, "a"));
  CHECK(integer(e["duration_ms"]) == 4000);
  c.clock->advance(6s);
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK(integer(entry(s, "a")["pauses"][0]["duration_ms"]) == 6000);
  CHECK(integer(s["busy_duration_ms"]) == 4000);
  c.fails("time_tasks_edit", edit_args(sid, R"([{"op":"resume","task_id":"a"}])"),
          "TASK_NOT_RUNNING");
}

TEST_CASE("tasks edit: a failing operation fails the call with its index "
          "and changes nothing",
          "[tasks_edit][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a","b","c"])");
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"start","task_id":"a"}])"));
  c.clock->advance(2s);
  auto before = to_json(c.ok("time_session_summary", summary_args(sid)));
  struct bad {
    const char* ops;
    const char* code;
    std::int64_t index;
  };
  for (const auto& [ops, code, index] : std::vector<bad>{
         {R"([{"op":"pause","task_id":"a"},{"op":"start","task_id":"b"},
              {"op":"end","task_id":"c"}])",
          "TASK_NOT_STARTED", 2},
         {R"([{"op":"add","task_id":"d"},{"op":"add","task_id":"d"}])",
          "TASK_EXISTS", 1},
         {R"([{"op":"note","task_id":"a","text":"x"},
              {"op":"remove","task_id":"a"}])",
          "TASK_ALREADY_STARTED", 1},
         {R"([{"op":"remove","task_id":"b"},{"op":"start","task_id":"b"}])",
          "TASK_NOT_IN_SESSION", 1},
         {R"([{"op":"end","task_id":"a"},{"op":"pause","task_id":"a"}])",
          "TASK_NOT_RUNNING", 1},
         {R"([{"op":"start","task_id":"zzz"}])", "TASK_NOT_IN_SESSION", 0},
         {R"([{"op":"pause","task_id":"a","status":"skipped"}])",
          "VALIDATION_ERROR", 0},
         {R"([{"op":"note","task_id":"a"}])", "VALIDATION_ERROR", 0},
       }) {
    INFO(ops);
    auto f = c.fails("time_tasks_edit", edit_args(sid, ops), code);
    CHECK(integer(f["operation_index"]) == index);
    CHECK(contains(str(f["message"]), "Operation " + std::to_string(index)));
    CHECK(to_json(c.ok("time_session_summary", summary_args(sid))) == before);
  }
  CHECK(c.state.tracker().find(sid)->tasks.size() == 3);
}

TEST_CASE("tasks edit: the schema bounds the operations and note text",
          "[tasks_edit][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  std::string many = "[";
  for (int i = 0; i < 101; ++i)
    many += std::string{i ? "," : ""} + R"({"op":"start","task_id":"a"})";
  many += "]";
  c.fails("time_tasks_edit", edit_args(sid, many), "VALIDATION_ERROR");
  c.fails("time_tasks_edit", edit_args(sid, "[]"), "VALIDATION_ERROR");
  c.fails("time_tasks_edit", edit_args(sid, R"([{"op":"jump","task_id":"a"}])"),
          "VALIDATION_ERROR");
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"note","task_id":"a","text":")"
                           + std::string(4097, 'x') + "\"}]"),
          "VALIDATION_ERROR");
  // 100 operations are fine; repeated starts are idempotent.
  many = "[";
  for (int i = 0; i < 100; ++i)
    many += std::string{i ? "," : ""} + R"({"op":"start","task_id":"a"})";
  many += "]";
  auto r = c.ok("time_tasks_edit", edit_args(sid, many));
  CHECK(r["operations"].Size() == 100);
  CHECK_FALSE(boolean(r["operations"][0]["unchanged"]));
  CHECK(boolean(r["operations"][99]["unchanged"]));
}

TEST_CASE("tasks edit: tasks join and leave mid-session, notes are kept "
          "with the run",
          "[tasks_edit][issue17]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  auto r = c.ok("time_tasks_edit",
                edit_args(sid, R"([{"op":"add","task_id":"new"},
                                   {"op":"remove","task_id":"b"},
                                   {"op":"start","task_id":"new",
                                    "task_name":"Found it"},
                                   {"op":"note","task_id":"new",
                                    "text":"discovered during a"}])"));
  CHECK(integer(r["task_count"]) == 2);
  CHECK(str(r["operations"][1]["task_status"]) == "removed");
  // A named task added; its runs take the name unless a start gives one.
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"add","task_id":"named",
                                              "task_name":"Named later"}])"));
  auto named = c.ok("time_session_summary", summary_args(sid));
  CHECK(str(entry(named, "named")["task_name"]) == "Named later");
  CHECK(str(entry(named, "named")["status"]) == "not_started");
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"start","task_id":"named"},
                                              {"op":"end","task_id":"named"}])"));
  named = c.ok("time_session_summary", summary_args(sid));
  CHECK(str(entry(named, "named")["task_name"]) == "Named later");
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"pause","task_id":"a","task_name":"x"}])"),
          "VALIDATION_ERROR");
  CHECK(str(r["operations"][2]["task_status"]) == "in_progress");
  CHECK(integer(r["tasks_in_progress"]) == 1);
  CHECK(integer(r["tasks_not_started"]) == 1);
  c.clock->advance(1s);
  c.ok("time_tasks_edit",
       edit_args(sid, R"([{"op":"end","task_id":"new","status":"completed",
                           "metadata":{"pr":"7"}},
                          {"op":"note","task_id":"new","text":"after"}])"));
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK(integer(s["task_count"]) == 3);
  const auto& t = entry(s, "new");
  CHECK(str(t["task_name"]) == "Found it");
  CHECK(str(t["completion_metadata"]["pr"]) == "7");
  REQUIRE(t["notes"].Size() == 2);
  CHECK(str(t["notes"][0]["text"]) == "discovered during a");
  CHECK(str(t["notes"][1]["time"]) == "2025-12-14T09:45:33.123-05:00");
  // The session's task limit applies to added tasks.
  client small{"2025-11-25", [] {
                 domain::tracking_limits l;
                 l.max_tasks_per_session = 2;
                 return l;
               }()};
  auto sid2 = small.start_session(R"(["a","b"])");
  small.fails("time_tasks_edit", edit_args(sid2, R"([{"op":"add","task_id":"c"}])"),
              "LIMIT_REACHED");
  // An ended session takes no edits.
  c.ok("time_session_end", session_args(sid));
  c.fails("time_tasks_edit", edit_args(sid, R"([{"op":"add","task_id":"z"}])"),
          "SESSION_ENDED");
}

TEST_CASE("tasks edit: one change per edit, replayed to the same session, a "
          "refused edit rolls back",
          "[tasks_edit][issue17][journal]") {
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  tr.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a", "b", "c"};
  tr.add("s", req, utc, domain::now_of(clock));
  auto& s = *tr.find("s");
  using op = domain::task_op;
  auto mk = [](op::kind_t k, std::string id) {
    op o;
    o.kind = k;
    o.task.task_id = std::move(id);
    return o;
  };
  clock.advance(1s);
  auto first = tr.edit_tasks(s, {mk(op::start, "a"), mk(op::start, "b"),
                                 mk(op::add, "d"), mk(op::remove, "c")},
                             domain::now_of(clock));
  REQUIRE(std::holds_alternative<std::vector<domain::op_done>>(first));
  clock.advance(2s);
  auto note = mk(op::note, "a");
  note.text = "why";
  auto end = mk(op::end, "b");
  end.status = domain::run_status::skipped;
  tr.edit_tasks(s, {mk(op::pause, "a"), note, end, mk(op::pause, "a")},
                domain::now_of(clock));
  clock.advance(3s);
  tr.edit_tasks(s, {mk(op::resume, "a")}, domain::now_of(clock));
  auto fix = mk(op::correct, "b");
  fix.run = 1;
  fix.start_time = s.start.wall + 500ms;
  fix.new_status = domain::run_status::failed;
  fix.text = "because";
  clock.advance(1s);
  auto fixed = tr.edit_tasks(s, {fix}, domain::now_of(clock));
  REQUIRE(std::holds_alternative<std::vector<domain::op_done>>(fixed));
  auto changes = tr.take_changes();
  REQUIRE(changes.size() == 5); // the start and one per edit
  CHECK(changes[1].kind == domain::change::tasks_edited);
  CHECK(changes[2].ops.size() == 3); // the repeated pause changed nothing
  storage::stored_session stored;
  stored.session_id = "s";
  stored.principal = "local";
  for (const auto& ch : changes)
    stored.events.push_back(journal::to_event(ch, "local", clock.boot_id()));
  CHECK(stored.events[1].kind == storage::event_kind::tasks_edited);
  clock.advance(4s);
  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  journal::replay(fresh, {stored}, clock, "UTC", problems);
  CHECK(problems.empty());
  auto now = domain::now_of(clock);
  auto enc = [&](const domain::tracking_session& x) {
    return tools::make_summary_schema(false)->encode(
      tools::summarize(x, now, true));
  };
  REQUIRE(fresh.find("s") != nullptr);
  CHECK(enc(*fresh.find("s")) == enc(s));
  CHECK(fresh.find("s")->bytes == s.bytes);

  // A journal refusal rolls the whole edit back.
  tr.commit();
  auto before = enc(s);
  tr.edit_tasks(s, {mk(op::end, "a"), mk(op::add, "e"), mk(op::remove, "d")},
                now);
  CHECK(enc(s) != before);
  tr.rollback();
  CHECK(enc(s) == before);
}

TEST_CASE("tasks edit: the edit is journaled and a restarted server recovers "
          "it",
          "[tasks_edit][issue17][journal]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  std::string sid;
  std::string before;
  {
    auto store = open_store(dir.path().string());
    journaled c{clock, *store, "local"};
    auto start = c.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["a","b"]})");
    sid = str(start["session_id"]);
    c.ok("time_tasks_edit",
         edit_args(sid, R"([{"op":"start","task_id":"a"},
                            {"op":"add","task_id":"c","task_name":"Cee"},
                            {"op":"note","task_id":"a","text":"n"}])"));
    clock->advance(5s);
    c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"}])"));
    clock->advance(5s);
    before = to_json(c.ok("time_session_summary", summary_args(sid)));
  }
  auto store = open_store(dir.path().string());
  journaled again{clock, *store, "local"};
  auto after = to_json(again.ok("time_session_summary", summary_args(sid)));
  CHECK(after == before);
  CHECK(contains(after, R"("active_ms":5000)"));
}

TEST_CASE("tasks edit: a journal of the previous schema opens, migrates and "
          "takes bulk edits",
          "[tasks_edit][issue17][journal][storage]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  std::string sid;
  {
    auto store = open_store(dir.path().string());
    journaled c{clock, *store, "local"};
    sid = str(c.ok("time_session_start",
                   R"({"milestone_id":"M","task_ids":["a","b"]})")["session_id"]);
    c.ok("time_task_start", task_args(sid, "a"));
  }
  // Schema 5 had the same tables but for one column.
  auto journal = (dir.path() / "journal.sqlite3").string();
  REQUIRE(std::filesystem::exists(journal));
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(journal.c_str(), &db) == SQLITE_OK);
    // Schema 7 added events.undone_by (time_undo).
    CHECK(sqlite3_exec(db,
                       "ALTER TABLE events DROP COLUMN undone_by;"
                       " PRAGMA user_version = 5",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
  }
  clock->advance(2s);
  {
    auto store = open_store(dir.path().string());
    journaled c{clock, *store, "local"};
    c.ok("time_tasks_edit",
         edit_args(sid, R"([{"op":"pause","task_id":"a"},
                            {"op":"add","task_id":"c"}])"));
  }
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(journal.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr)
            == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int(st, 0) == storage::journal_schema_version);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  clock->advance(3s);
  auto store = open_store(dir.path().string());
  journaled c{clock, *store, "local"};
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK(integer(s["task_count"]) == 3);
  CHECK(integer(entry(s, "a")["active_ms"]) == 2000);
}

TEST_CASE("tasks edit: correcting a forgotten end, and the checks on a "
          "correction",
          "[tasks_edit][issue17]") {
  client c; // starts 2025-12-14T09:45:32.123-05:00
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(10min);
  // The agent forgot to end 'a' at 09:50:32.123; it ran 5 minutes.
  auto r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"a","end_time":"2025-12-14T09:50:32.123-05:00",
      "reason":"forgot to end it"}])"));
  CHECK(str(r["operations"][0]["task_status"]) == "completed");
  CHECK(integer(r["operations"][0]["active_ms"]) == 300000);
  auto s = c.ok("time_session_summary", summary_args(sid));
  const auto& a = entry(s, "a");
  CHECK(integer(a["duration_ms"]) == 300000);
  CHECK(str(a["duration_source"]) == "corrected");
  CHECK(str(a["end_time"]) == "2025-12-14T09:50:32.123-05:00");
  REQUIRE(a["corrections"].Size() == 1);
  const auto& trail = a["corrections"][0];
  CHECK(str(trail["reason"]) == "forgot to end it");
  CHECK(str(trail["status_before"]) == "in_progress");
  CHECK(trail["end_time_before"].IsNull());
  CHECK(str(trail["start_time_before"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(trail["time"]) == "2025-12-14T09:55:32.123-05:00");
  CHECK(integer(s["busy_duration_ms"]) == 300000);

  // A second run of 'a', then its start moved earlier and its status set.
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(1min);
  c.ok("time_task_end", task_args(sid, "a"));
  r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"a","run":2,"start_time":"2025-12-14T14:52:32.123Z",
      "status":"failed","reason":"it started earlier and failed"}])"));
  CHECK(integer(r["operations"][0]["active_ms"]) == 240000);
  CHECK(str(r["operations"][0]["task_status"]) == "failed");

  auto before = to_json(c.ok("time_session_summary", summary_args(sid)));
  struct bad {
    const char* op;
    const char* code;
  };
  for (const auto& [op, code] : std::vector<bad>{
         // overlaps run 1 (09:45:32-09:50:32)
         {R"("run":2,"start_time":"2025-12-14T09:49:00-05:00")",
          "INVALID_CORRECTION"},
         // in the future (now is 09:56:32.123)
         {R"("run":2,"end_time":"2025-12-14T10:30:00-05:00")",
          "INVALID_CORRECTION"},
         // end before start
         {R"("run":1,"end_time":"2025-12-14T09:45:00-05:00")",
          "INVALID_CORRECTION"},
         {R"("run":3,"status":"skipped")", "INVALID_CORRECTION"},
         // not a time in any form the tools read
         {R"("run":1,"end_time":"teatime")", "VALIDATION_ERROR"},
         // read (midnight), but before the run's start
         {R"("run":1,"end_time":"yesterday")", "INVALID_CORRECTION"},
       }) {
    INFO(op);
    c.fails("time_tasks_edit",
            edit_args(sid, std::string{R"([{"op":"correct","task_id":"a",)"}
                             + op + R"(,"reason":"r"}])"),
            code);
    CHECK(to_json(c.ok("time_session_summary", summary_args(sid))) == before);
  }
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"correct","task_id":"a","status":"failed"}])"),
          "VALIDATION_ERROR"); // no reason
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"correct","task_id":"b","status":"failed",
                               "reason":"r"}])"),
          "TASK_NOT_STARTED");
  // A running run's status changes only with an end.
  c.ok("time_task_start", task_args(sid, "b"));
  c.fails("time_tasks_edit",
          edit_args(sid, R"([{"op":"correct","task_id":"b","status":"failed",
                               "reason":"r"}])"),
          "INVALID_CORRECTION");
}

TEST_CASE("estimates: per task and in total, and the forecast of an active "
          "session",
          "[tasks_edit][issue17][estimates]") {
  client c;
  auto sid = str(c.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["a","b","c","d"],
                          "estimates":{"a":"10","b":"PT20M"}})")["session_id"]);
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(12min);
  c.ok("time_task_end", task_args(sid, "a"));
  c.ok("time_task_start", task_args(sid, "b"));
  c.clock->advance(5min);
  auto s = c.ok("time_session_summary", summary_args(sid));
  REQUIRE(s["estimates"].Size() == 2);
  CHECK(str(s["estimates"][0]["task_id"]) == "a");
  CHECK(integer(s["estimates"][0]["estimate_ms"]) == 600000);
  CHECK(integer(s["estimates"][0]["actual_ms"]) == 720000);
  CHECK(integer(s["estimates"][0]["difference_ms"]) == 120000);
  CHECK(integer(s["estimates"][1]["actual_ms"]) == 300000);
  CHECK(integer(s["estimate_total_ms"]) == 1800000);
  CHECK(integer(s["estimate_actual_ms"]) == 1020000);
  CHECK(integer(s["estimate_difference_ms"]) == -780000);
  // b: 15 of its 20 minutes left; c and d: the median of the completed
  // tasks (a: 12 minutes) each.
  const auto& f = s["forecast"];
  CHECK(integer(f["remaining_ms"]) == (15 + 12 + 12) * 60000);
  CHECK(str(f["basis"]) == "estimates_and_median");
  CHECK(integer(f["tasks_left"]) == 3);
  CHECK(str(f["remaining"]) == "39 minutes");
  CHECK(str(f["message"])
        == "On track to complete in approximately 39 minutes (3 tasks "
           "left).");
  CHECK(str(f["projected_end_time"]) == "2025-12-14T10:41:32.123-05:00");
  // An added task brings its estimate.
  c.ok("time_tasks_edit",
       edit_args(sid, R"([{"op":"add","task_id":"e","estimate":"PT1M30S"}])"));
  s = c.ok("time_session_summary", summary_args(sid));
  CHECK(s["estimates"].Size() == 3);
  CHECK(integer(s["forecast"]["remaining_ms"]) == (15 + 12 + 12) * 60000 + 90000);
  // Ended: no forecast; the estimates stay.
  auto e = c.ok("time_session_end", session_args(sid));
  CHECK_FALSE(e.HasMember("forecast"));
  CHECK(e["estimates"].Size() == 3);
  // Bad estimates are refused.
  c.fails("time_session_start",
          R"({"milestone_id":"M","task_ids":["a"],"estimates":{"z":"5"}})",
          "VALIDATION_ERROR");
  c.fails("time_session_start",
          R"({"milestone_id":"M","task_ids":["a"],"estimates":{"a":"P1M"}})",
          "VALIDATION_ERROR");
  c.fails("time_session_start",
          R"({"milestone_id":"M","task_ids":["a"],"estimates":{"a":"soon"}})",
          "VALIDATION_ERROR");
}

TEST_CASE("estimates: no forecast without a basis, estimates survive the "
          "journal",
          "[tasks_edit][issue17][estimates][journal]") {
  client c;
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK_FALSE(s.HasMember("forecast"));
  CHECK_FALSE(s.HasMember("estimates"));
  c.clock->advance(3min);
  c.ok("time_task_end", task_args(sid, "a"));
  s = c.ok("time_session_summary", summary_args(sid));
  CHECK(str(s["forecast"]["basis"]) == "median");
  CHECK(integer(s["forecast"]["remaining_ms"]) == 180000);

  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  std::string id;
  std::string before;
  {
    auto store = open_store(dir.path().string());
    journaled j{clock, *store, "local"};
    id = str(j.ok("time_session_start",
                  R"({"milestone_id":"M","task_ids":["a"],
                      "estimates":{"a":"7"}})")["session_id"]);
    j.ok("time_tasks_edit",
         edit_args(id, R"([{"op":"add","task_id":"b","estimate":"3"}])"));
    before = to_json(j.ok("time_session_summary", summary_args(id)));
  }
  auto store = open_store(dir.path().string());
  journaled j{clock, *store, "local"};
  auto after = to_json(j.ok("time_session_summary", summary_args(id)));
  CHECK(after == before);
  CHECK(contains(after, R"("estimate_total_ms":600000)"));
}

TEST_CASE("tasks edit: the history (time_session_list, time_stats) counts "
          "what bulk edits did",
          "[tasks_edit][issue17][journal][history]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  auto store = open_store(dir.path().string());
  journaled j{clock, *store, "local"};
  auto id = str(j.ok("time_session_start",
                     R"({"milestone_id":"M","task_ids":["a","b"]})")["session_id"]);
  j.ok("time_tasks_edit",
       edit_args(id, R"([{"op":"start","task_id":"a"},{"op":"add","task_id":"c"},
                         {"op":"start","task_id":"b"},{"op":"add","task_id":"d"}])"));
  clock->advance(1min);
  j.ok("time_tasks_edit",
       edit_args(id, R"([{"op":"end","task_id":"a"},{"op":"remove","task_id":"d"},
                         {"op":"end","task_id":"b","status":"skipped"},
                         {"op":"start","task_id":"c"}])"));
  clock->advance(1min);
  auto list = j.ok("time_session_list", "{}");
  REQUIRE(list["sessions"].Size() == 1);
  CHECK(integer(list["sessions"][0]["task_count"]) == 3);
  CHECK(integer(list["sessions"][0]["tasks_completed"]) == 1);
  auto stats = j.ok("time_stats", R"({"group_by":"task"})");
  CHECK(integer(stats["totals"]["run_count"]) == 3);
  CHECK(integer(stats["totals"]["task_time_ms"]) == 180'000); // a, b, c: 1 min
}

TEST_CASE("tasks edit: a correction reads the times every tool reads (a "
          "local time in the session's zone, relative forms) and may "
          "backdate a run before its session, moving the session's start",
          "[tasks_edit][issue29]") {
  client c; // starts 2025-12-14T09:45:32.123-05:00, New York
  auto sid = c.start_session(R"(["a","b"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(10min);
  // A local time, read in the session's zone.
  auto r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"a","end_time":"2025-12-14T09:50:32.123",
      "reason":"forgot to end it"}])"));
  CHECK(integer(r["operations"][0]["active_ms"]) == 300000);
  // A relative form: b started 2 minutes ago, really 4 minutes ago.
  c.ok("time_task_start", task_args(sid, "b"));
  c.clock->advance(2min);
  r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"b","start_time":"4 minutes ago",
      "reason":"started earlier"}])"));
  CHECK(integer(r["operations"][0]["active_ms"]) == 240000);
  // Backdating: 'a' really began at 09:00, before the session did; the
  // session's start moves with it.
  r = c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"a","start_time":"9am",
      "reason":"began before the session was started"}])"));
  CHECK(integer(r["operations"][0]["active_ms"]) == 3032123);
  auto s = c.ok("time_session_summary", summary_args(sid));
  CHECK(str(s["start_time"]) == "2025-12-14T09:00:00.000-05:00");
  CHECK(str(entry(s, "a")["start_time"]) == "2025-12-14T09:00:00.000-05:00");
  // Undone, the session starts where it did.
  c.ok("time_undo", R"({"session_id":")" + sid + R"("})");
  s = c.ok("time_session_summary", summary_args(sid));
  CHECK(str(s["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  // Still refused: the future, and a text no tool reads.
  c.fails("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
      "task_id":"a","start_time":"in 5 minutes","reason":"r"}])"),
          "INVALID_CORRECTION");
}

TEST_CASE("tasks edit: a backdated session start is journaled: replayed "
          "after a restart and shown by the history",
          "[tasks_edit][issue29][journal]") {
  test::temp_dir dir;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  std::string sid;
  std::string before;
  {
    auto store = open_store(dir.path().string());
    journaled c{clock, *store, "local"};
    auto start = c.ok("time_session_start",
                      R"({"milestone_id":"M","task_ids":["a"]})");
    sid = str(start["session_id"]);
    c.ok("time_task_start", task_args(sid, "a"));
    clock->advance(5min);
    c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct",
        "task_id":"a","start_time":"1 hour ago","reason":"backdated"}])"));
    before = to_json(c.ok("time_session_summary", summary_args(sid)));
    INFO(before);
    CHECK(contains(before, R"("busy_duration_ms":3600000)"));
    auto list = c.ok("time_session_list", "{}");
    CHECK(str(list["sessions"][0]["start_time"])
          == str(c.ok("time_session_summary", summary_args(sid))["start_time"]));
  }
  auto store = open_store(dir.path().string());
  journaled again{clock, *store, "local"};
  CHECK(to_json(again.ok("time_session_summary", summary_args(sid)))
        == before);
}
