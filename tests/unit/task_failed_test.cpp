// Issue 20 item 3: `failed` as a time_task_end status (counted as
// tasks_failed wherever counts appear, stored in and replayed from the
// journal, older journals still replaying), and tool descriptions written
// for the model that reads them.

#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "session_client.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

/// The tool's description and every property description of its input
/// schema, as one text: what a model reads before calling it.
std::string text_of(const tools::registry& reg, const std::string& name) {
  const auto* t = reg.find(name);
  REQUIRE(t != nullptr);
  rapidjson::StringBuffer buf;
  tools::json_writer w{buf};
  t->write_definition(w);
  return buf.GetString();
}

storage::event event_of(storage::event_kind kind, std::int64_t second,
                        std::string payload, std::string task_id = "") {
  storage::event e;
  e.kind = kind;
  e.session_id = "old";
  e.principal = "local";
  e.task_id = std::move(task_id);
  e.at.wall_ns = (1'765'000'000LL + second) * 1'000'000'000LL;
  e.at.mono_ns = (1'000LL + second) * 1'000'000'000LL;
  e.at.boot_id = "fake-boot-1";
  e.payload = std::move(payload);
  return e;
}

/// A session as the journal held it before `failed` existed: the payloads
/// an older server wrote (no era, no idempotency key).
storage::stored_session older_session(const std::string& end_status) {
  using k = storage::event_kind;
  storage::stored_session s;
  s.session_id = "old";
  s.principal = "local";
  s.events = {
    event_of(k::session_started, 0,
             R"({"milestone_id":"M","task_ids":["a","b"],"metadata":{},)"
             R"("tags":[],"timezone":"UTC"})"),
    event_of(k::task_started, 1, R"({"metadata":{}})", "a"),
    event_of(k::task_ended, 3,
             R"({"status":")" + end_status + R"(","metadata":{}})", "a"),
    event_of(k::task_started, 4, R"({"metadata":{}})", "b"),
    event_of(k::task_ended, 5, R"({"status":"completed","metadata":{}})",
             "b"),
  };
  s.started_wall_ns = s.events.front().at.wall_ns;
  return s;
}

} // namespace

TEST_CASE("task failed: time_task_end records a failed run and every reply "
          "counts it as tasks_failed",
          "[session_tools][issue20]") {
  client c;
  auto sid = c.start_session(R"(["a","b","c"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(7s);
  auto ended = c.ok("time_task_end",
                    task_args(sid, "a", R"(,"status":"failed")"));
  CHECK(str(ended["status"]) == "failed");
  CHECK(integer(ended["duration_ms"]) == 7'000);
  CHECK(integer(ended["tasks_failed"]) == 1);
  CHECK(integer(ended["tasks_completed"]) == 0);
  CHECK(integer(ended["tasks_not_started"]) == 2);

  SECTION("a repeated end keeps the failed status") {
    auto again = c.ok("time_task_end",
                      task_args(sid, "a", R"(,"status":"completed")"));
    CHECK(boolean(again["already_ended"]));
    CHECK(str(again["status"]) == "failed");
    CHECK(integer(again["tasks_failed"]) == 1);
  }

  SECTION("a retry is a new run; the latest run's status counts") {
    auto started = c.ok("time_task_start", task_args(sid, "a"));
    CHECK(integer(started["run"]) == 2);
    CHECK(integer(started["tasks_failed"]) == 0);
    CHECK(integer(started["tasks_in_progress"]) == 1);
    c.clock->advance(2s);
    auto ok = c.ok("time_task_end", task_args(sid, "a"));
    CHECK(integer(ok["tasks_failed"]) == 0);
    CHECK(integer(ok["tasks_completed"]) == 1);
    auto sum = c.ok("time_session_summary", session_args(sid));
    CHECK(str(task_entry(sum, 0)["status"]) == "failed");
    CHECK(str(task_entry(sum, 1)["status"]) == "completed");
  }

  SECTION("summary and session end report it") {
    c.ok("time_task_start", task_args(sid, "b"));
    auto sum = c.ok("time_session_summary", session_args(sid));
    CHECK(integer(sum["tasks_failed"]) == 1);
    CHECK(integer(sum["tasks_in_progress"]) == 1);
    CHECK(str(task_entry(sum, 0)["status"]) == "failed");
    auto end = c.ok("time_session_end", session_args(sid));
    CHECK(integer(end["tasks_failed"]) == 1);
    CHECK(integer(end["tasks_interrupted"]) == 1);
    CHECK(integer(end["tasks_failed"]) + integer(end["tasks_completed"])
            + integer(end["tasks_skipped"]) + integer(end["tasks_interrupted"])
            + integer(end["tasks_in_progress"])
            + integer(end["tasks_not_started"])
          == integer(end["task_count"]));
  }
}

TEST_CASE("task failed: any other status is still a VALIDATION_ERROR",
          "[session_tools][issue20]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  auto err = c.fails("time_task_end",
                     task_args(sid, "a", R"(,"status":"error")"),
                     "VALIDATION_ERROR");
  auto msg = str(err["message"]);
  CHECK(msg.find("failed") != std::string::npos);
  // Nothing changed: the task still runs.
  auto sum = c.ok("time_session_summary", session_args(sid));
  CHECK(integer(sum["tasks_in_progress"]) == 1);
}

TEST_CASE("task failed: the journal stores 'failed' and replays it",
          "[journal][issue20]") {
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  tr.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a", "b"};
  tr.add("s", req, utc, domain::now_of(clock));
  auto* s = tr.find("s");
  domain::task_start_request ta;
  ta.task_id = "a";
  REQUIRE(std::holds_alternative<domain::task_started>(
    tr.start_task(*s, ta, domain::now_of(clock))));
  clock.advance(4s);
  REQUIRE(std::holds_alternative<domain::task_ended>(tr.end_task(
    *s, "a", domain::run_status::failed, {}, domain::now_of(clock))));
  storage::stored_session stored;
  stored.session_id = "s";
  stored.principal = "local";
  for (const auto& ch : tr.take_changes())
    stored.events.push_back(journal::to_event(ch, "local", clock.boot_id()));
  REQUIRE(stored.events.size() == 3);
  CHECK(stored.events[2].payload.find(R"("status":"failed")")
        != std::string::npos);

  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  auto ids = journal::replay(fresh, {stored}, clock, "UTC", problems);
  CHECK(problems.empty());
  REQUIRE(ids == std::vector<std::string>{"s"});
  const auto* back = fresh.find("s");
  REQUIRE(back != nullptr);
  REQUIRE(back->tasks[0].runs.size() == 1);
  CHECK(back->tasks[0].runs[0].status == domain::run_status::failed);
  CHECK(back->counts().failed == 1);
}

TEST_CASE("task failed: a journal written before 'failed' existed replays, "
          "and an unknown stored status is a problem, not a guess",
          "[journal][issue20]") {
  domain::fake_clock clock{example_start()};
  for (const char* status : {"completed", "skipped"}) {
    INFO("first task ended as " << status);
    domain::tracker fresh{domain::tracking_limits{}};
    std::vector<std::string> problems;
    auto ids = journal::replay(fresh, {older_session(status)}, clock, "UTC",
                               problems);
    CHECK(problems.empty());
    REQUIRE(ids == std::vector<std::string>{"old"});
    const auto* back = fresh.find("old");
    REQUIRE(back != nullptr);
    CHECK(std::string{domain::to_string(back->tasks[0].runs[0].status)}
          == status);
    CHECK(back->counts().failed == 0);
    CHECK(back->tasks[1].runs[0].status == domain::run_status::completed);
  }
  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  auto ids = journal::replay(fresh, {older_session("exploded")}, clock, "UTC",
                             problems);
  CHECK(ids.empty());
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("unknown task status 'exploded'")
        != std::string::npos);
}

TEST_CASE("tool descriptions: written for the model, without protocol "
          "internals",
          "[tools][issue20]") {
  auto reg = tools::make_registry({}, {"all"});
  auto start = text_of(*reg, "time_session_start");
  // No protocol revisions, principals or MCP plumbing in what a model reads.
  for (const auto& t : reg->tools()) {
    INFO("tool " << t.name());
    auto text = text_of(*reg, t.name());
    CHECK(text.find("2026-07-28") == std::string::npos);
    CHECK(text.find("principal") == std::string::npos);
    CHECK(text.find("MCP session") == std::string::npos);
  }
  // "Each once" next to re-runs, and tasks added later (issue 17).
  CHECK(start.find("new run") != std::string::npos);
  // 'local' is the user's preferred zone (issue 19), else the server's.
  for (const char* name : {"time_get_current", "time_session_start"}) {
    INFO("tool " << name);
    CHECK(text_of(*reg, name).find("the user's preferred zone, else the "
                                   "server's")
          != std::string::npos);
    CHECK(text_of(*reg, name).find("host's zone") == std::string::npos);
  }
  // Where a failed task goes.
  auto end = text_of(*reg, "time_task_end");
  CHECK(end.find("failed (retry: time_task_start") != std::string::npos);
  CHECK(end.find(R"("enum":["completed","skipped","failed"])")
        != std::string::npos);
  CHECK(text_of(*reg, "time_session_summary").find("tasks_failed")
        != std::string::npos);
}
