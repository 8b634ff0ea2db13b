// Unit tests for the tracking domain alone: duration formatting, session ids
// and the tracker (sessions, tasks, runs, expiry, counts, overlap totals).
// Time moves only through fake_clock.

#include "domain/clock.hpp"
#include "domain/ids.hpp"
#include "domain/time_format.hpp"
#include "domain/tracking.hpp"
#include "domain/zones.hpp"

#include <catch2/catch.hpp>
#include "test_ids.hpp"
#include <date/date.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <variant>
#include <vector>

using namespace ttm::domain;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {

/// 2025-12-14 14:45:32.123Z (9:45:32 AM EST), the spec's example start.
wall_time example_start() {
  return date::sys_days{date::year{2025} / 12 / 14} + 14h + 45min + 32s
         + 123ms;
}

zone new_york() {
  auto r = resolve_zone("America/New_York", "UTC");
  REQUIRE(r.found.has_value());
  return *r.found;
}

using ttm::test::is_uuid_v4;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Both return copies: the outcome passed in is usually a temporary.
template <class T>
tracking_error error_of(const tracking_outcome<T>& res) {
  REQUIRE(std::holds_alternative<tracking_error>(res));
  return std::get<tracking_error>(res);
}

template <class T>
T value_of(const tracking_outcome<T>& res) {
  if (const auto* err = std::get_if<tracking_error>(&res))
    FAIL("unexpected " << err->code << ": " << err->message);
  return std::get<T>(res);
}

std::vector<std::string> ids(std::initializer_list<const char*> xs) {
  return {xs.begin(), xs.end()};
}

std::vector<std::string> numbered_ids(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 1; i <= n; ++i)
    out.push_back("T-" + std::to_string(i));
  return out;
}

/// A tracker on a fake clock, with helpers that read the clock for every
/// call like the tools do.
struct fixture {
  fake_clock clock{example_start()};
  tracker tr;

  explicit fixture(tracking_limits limits = {}) : tr(limits) {
  }

  instant now() const {
    return now_of(clock);
  }

  tracking_session& open(const std::string& id,
                         std::vector<std::string> task_ids) {
    session_request req;
    req.milestone_id = "M2";
    req.task_ids = std::move(task_ids);
    REQUIRE_FALSE(tr.check(req).has_value());
    tr.add(id, std::move(req), new_york(), now());
    return session(id);
  }

  tracking_session& session(const std::string& id) {
    return *value_of(tr.use(id, now()));
  }

  tracking_outcome<tracking_session*> use(const std::string& id) {
    return tr.use(id, now());
  }

  tracking_outcome<task_started> start(tracking_session& s,
                                       const std::string& task_id,
                                       const char* name = nullptr) {
    task_start_request req;
    req.task_id = task_id;
    if (name != nullptr)
      req.task_name = name;
    return tr.start_task(s, std::move(req), now());
  }

  tracking_outcome<task_ended> end(tracking_session& s,
                                   const std::string& task_id,
                                   run_status status = run_status::completed,
                                   string_map metadata = {}) {
    return tr.end_task(s, task_id, status, std::move(metadata), now());
  }
};

/// The invariants every session keeps, whatever happened to it.
void check_invariants(const tracking_session& s) {
  auto c = s.counts();
  CHECK(c.completed + c.skipped + c.in_progress + c.interrupted
          + c.not_started
        == s.tasks.size());
  CHECK(c.remaining() == c.not_started);
  CHECK(s.task_index.size() == s.tasks.size());
  for (const auto& t : s.tasks)
    for (std::size_t i = 0; i < t.runs.size(); ++i) {
      CHECK(t.runs[i].number == i + 1);
      // Only the current run may still be running.
      if (i + 1 < t.runs.size())
        CHECK(t.runs[i].end.has_value());
      CHECK((t.runs[i].status == run_status::in_progress)
            == !t.runs[i].end.has_value());
    }
}

struct expected_counts {
  std::size_t completed, skipped, in_progress, interrupted, not_started;
};

void check_counts(const tracking_session& s, expected_counts want) {
  check_invariants(s);
  auto c = s.counts();
  CHECK(c.completed == want.completed);
  CHECK(c.skipped == want.skipped);
  CHECK(c.in_progress == want.in_progress);
  CHECK(c.interrupted == want.interrupted);
  CHECK(c.not_started == want.not_started);
  CHECK(c.remaining() == want.not_started);
}

} // namespace

// -- format_duration / format_duration_iso ------------------------------------

TEST_CASE("tracking: format_duration reads like a stopwatch in two units",
          "[tracking]") {
  // The spec's examples.
  CHECK(format_duration(154'333ms) == "2 minutes 34 seconds");
  CHECK(format_duration(73'666ms) == "1 minute 13 seconds");
  CHECK(format_duration(29'667ms) == "29 seconds");
  CHECK(format_duration(706'333ms) == "11 minutes 46 seconds");
  CHECK(format_duration(1h + 5min) == "1 hour 5 minutes");
  CHECK(format_duration(0ms) == "0 seconds");
  // Truncated to whole seconds, never rounded up.
  CHECK(format_duration(999ms) == "0 seconds");
  CHECK(format_duration(59'999ms) == "59 seconds");
  // Singular and plural.
  CHECK(format_duration(1s) == "1 second");
  CHECK(format_duration(2s) == "2 seconds");
  CHECK(format_duration(1min) == "1 minute");
  CHECK(format_duration(1min + 1s) == "1 minute 1 second");
  CHECK(format_duration(2min) == "2 minutes");
  CHECK(format_duration(1h) == "1 hour");
  CHECK(format_duration(2h + 1min) == "2 hours 1 minute");
  CHECK(format_duration(24h) == "1 day");
  CHECK(format_duration(27h) == "1 day 3 hours");
  CHECK(format_duration(48h + 1h) == "2 days 1 hour");
  // Only the two largest units: the third is dropped, not rounded in.
  CHECK(format_duration(1h + 5min + 59s) == "1 hour 5 minutes");
  CHECK(format_duration(26h + 59min) == "1 day 2 hours");
  // A zero second unit is left out together with what follows it.
  CHECK(format_duration(1h + 5s) == "1 hour");
  CHECK(format_duration(24h + 5min) == "1 day");
  // Negative durations cannot come from a monotonic clock; still sane.
  CHECK(format_duration(-1ms) == "0 seconds");
  CHECK(format_duration(-90s) == "0 seconds");
}

TEST_CASE("tracking: format_duration_iso never folds hours into days",
          "[tracking]") {
  CHECK(format_duration_iso(154'333ms) == "PT2M34S");
  CHECK(format_duration_iso(1h + 5min) == "PT1H5M");
  CHECK(format_duration_iso(0ms) == "PT0S");
  CHECK(format_duration_iso(999ms) == "PT0S");
  CHECK(format_duration_iso(25h) == "PT25H");
  CHECK(format_duration_iso(24h + 1s) == "PT24H1S");
  CHECK(format_duration_iso(1h) == "PT1H");
  CHECK(format_duration_iso(1h + 5s) == "PT1H5S");
  CHECK(format_duration_iso(30s) == "PT30S");
  CHECK(format_duration_iso(706'333ms) == "PT11M46S");
  CHECK(format_duration_iso(-5s) == "PT0S");
}

// -- ids ----------------------------------------------------------------------

TEST_CASE("tracking: session ids are random version 4 UUIDs", "[tracking]") {
  // The checker itself must be able to fail.
  CHECK(is_uuid_v4("1b4e28ba-2fa1-4d2f-883f-0016d3cca427"));
  CHECK_FALSE(is_uuid_v4("1b4e28ba-2fa1-3d2f-883f-0016d3cca427"));  // v3
  CHECK_FALSE(is_uuid_v4("1b4e28ba-2fa1-4d2f-c83f-0016d3cca427"));  // variant
  CHECK_FALSE(is_uuid_v4("1B4E28BA-2FA1-4D2F-883F-0016D3CCA427"));  // upper
  CHECK_FALSE(is_uuid_v4("1b4e28ba2fa1-4d2f-883f-0016d3cca427-"));  // dashes
  CHECK_FALSE(is_uuid_v4("1b4e28ba-2fa1-4d2f-883f-0016d3cca42"));   // short
  std::set<std::string> seen;
  std::vector<std::set<char>> digits(36); // what each position took
  for (int i = 0; i < 1000; ++i) {
    auto id = make_uuid_v4();
    INFO("id: " << id);
    REQUIRE(is_uuid_v4(id));
    seen.insert(id);
    for (std::size_t k = 0; k < id.size(); ++k)
      digits[k].insert(id[k]);
  }
  CHECK(seen.size() == 1000);
  // Every random digit varies (a stuck byte would not); the chance that one
  // takes a single value in 1000 draws is below 10^-1000.
  for (std::size_t k = 0; k < 36; ++k) {
    INFO("position " << k);
    if (k == 8 || k == 13 || k == 18 || k == 23 || k == 14)
      CHECK(digits[k].size() == 1);
    else if (k == 19)
      CHECK(digits[k] == std::set<char>{'8', '9', 'a', 'b'});
    else
      CHECK(digits[k].size() > 8);
  }
}

// -- check / add / use --------------------------------------------------------

TEST_CASE("tracking: check refuses duplicate task ids and too many tasks",
          "[tracking]") {
  tracking_limits limits;
  limits.max_tasks_per_session = 3;
  tracker tr{limits};
  session_request req;
  req.milestone_id = "M2";

  SECTION("duplicates are a validation error naming the id") {
    req.task_ids = ids({"M2-001", "M2-002", "M2-001"});
    auto err = tr.check(req);
    REQUIRE(err.has_value());
    CHECK(err->code == "VALIDATION_ERROR");
    CHECK(contains(err->message, "'M2-001'"));
  }
  SECTION("exactly the limit is fine, one more is LIMIT_REACHED") {
    req.task_ids = ids({"a", "b", "c"});
    CHECK_FALSE(tr.check(req).has_value());
    req.task_ids.push_back("d");
    auto err = tr.check(req);
    REQUIRE(err.has_value());
    CHECK(err->code == "LIMIT_REACHED");
    CHECK(contains(err->message, "max_tasks_per_session"));
    CHECK(contains(err->message, "the limit is 3 tasks"));
    CHECK(contains(err->message, "4 given"));
  }
  SECTION("no tasks at all is a valid session") {
    CHECK_FALSE(tr.check(req).has_value());
  }
  CHECK(tr.size() == 0); // check never adds
}

TEST_CASE("tracking: add registers the tasks in order and use finds them",
          "[tracking]") {
  fixture f;
  session_request req;
  req.milestone_id = "M2";
  req.milestone_name = "Commit + Lifecycle";
  req.task_ids = ids({"M2-002", "M2-001", "M2-003"});
  req.metadata = {{"branch", "main"}, {"author", "ai"}};
  req.tags = ids({"milestone:2"});
  const auto& s = f.tr.add("s-1", req, new_york(), f.now());
  CHECK(f.tr.size() == 1);
  CHECK(s.id == "s-1");
  CHECK(s.milestone_id == "M2");
  CHECK(s.milestone_name == std::optional<std::string>{"Commit + Lifecycle"});
  CHECK(s.tz.name() == "America/New_York");
  CHECK(s.metadata == req.metadata);
  CHECK(s.tags == req.tags);
  REQUIRE(s.tasks.size() == 3);
  CHECK(s.tasks[0].id == "M2-002");
  CHECK(s.tasks[1].id == "M2-001");
  CHECK(s.tasks[2].id == "M2-003");
  CHECK(s.task_index.at("M2-003") == 2);
  CHECK(s.start.wall == example_start());
  CHECK_FALSE(s.ended());
  check_counts(s, {0, 0, 0, 0, 3});
  CHECK(f.tr.find("s-1") == &s);
  CHECK(f.tr.find("s-2") == nullptr);
  CHECK(value_of(f.use("s-1")) == &s);
}

TEST_CASE("tracking: an unknown session id is SESSION_NOT_FOUND",
          "[tracking]") {
  fixture f;
  f.open("known", {});
  const auto& err = error_of(f.use("a1b2c3d4-e5f6-4890-abcd-ef1234567890"));
  CHECK(err.code == "SESSION_NOT_FOUND");
  CHECK(contains(err.message, "'a1b2c3d4-e5f6-4890-abcd-ef1234567890'"));
  CHECK(err.suggestions.empty());
  CHECK(f.tr.take_expired().empty());
}

// -- expiry -------------------------------------------------------------------

TEST_CASE("tracking: a session expires after max_idle without calls",
          "[tracking]") {
  fixture f; // max_idle 4 h, max_age 24 h
  f.open("s", ids({"a"}));
  f.clock.advance(4h - 1ms);
  REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  // That call counted as activity: the idle time starts again.
  f.clock.advance(4h - 1ms);
  REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  f.clock.advance(4h + 1ms);
  const auto& err = error_of(f.use("s"));
  CHECK(err.code == "SESSION_EXPIRED");
  CHECK(contains(err.message, "'s'"));
  // The cause, not every possible one.
  CHECK(contains(err.message, "idle past the idle limit (4 hours"));
  CHECK_FALSE(contains(err.message, "1 day"));
  CHECK(f.tr.size() == 0);
  CHECK(f.tr.find("s") == nullptr);
  CHECK(f.tr.take_expired() == ids({"s"}));
  CHECK(f.tr.take_expired().empty());
  // Still remembered as expired, not reported as expired again.
  CHECK(error_of(f.use("s")).code == "SESSION_EXPIRED");
  CHECK(f.tr.take_expired().empty());
}

TEST_CASE("tracking: a session expires after max_age however active it is",
          "[tracking]") {
  fixture f;
  f.open("s", ids({"a"}));
  for (int i = 0; i < 7; ++i) { // 21 h of calls every 3 h
    f.clock.advance(3h);
    REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  }
  f.clock.advance(3h - 1ms); // 24 h - 1 ms old
  REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  f.clock.advance(2ms); // 24 h + 1 ms old, idle for 2 ms only
  CHECK(error_of(f.use("s")).code == "SESSION_EXPIRED");
}

TEST_CASE("tracking: expiry follows the monotonic clock, not the wall clock",
          "[tracking]") {
  fixture f;
  f.open("s", ids({"a"}));
  f.clock.step_wall(48h); // someone sets the date two days ahead
  REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  f.clock.set_wall(example_start() - 72h);
  REQUIRE(std::holds_alternative<tracking_session*>(f.use("s")));
  CHECK(f.tr.size() == 1);
}

TEST_CASE("tracking: expired ids are remembered up to remembered_expired",
          "[tracking]") {
  tracking_limits limits;
  limits.remembered_expired = 3;
  fixture f{limits};
  f.open("first", {});
  f.clock.advance(5h);
  CHECK(error_of(f.use("first")).code == "SESSION_EXPIRED");
  for (int i = 1; i <= 3; ++i) {
    auto id = "other-" + std::to_string(i);
    f.open(id, {});
    f.clock.advance(5h);
    CHECK(error_of(f.use(id)).code == "SESSION_EXPIRED");
    INFO("after " << i << " other sessions expired");
    // The memory holds the 3 most recent: the first goes with the third.
    CHECK(error_of(f.use("first")).code
          == (i < 3 ? "SESSION_EXPIRED" : "SESSION_NOT_FOUND"));
  }
  for (auto id : {"other-1", "other-2", "other-3"})
    CHECK(error_of(f.use(id)).code == "SESSION_EXPIRED");
}

TEST_CASE("tracking: expire_due removes and returns only the due sessions",
          "[tracking]") {
  fixture f;
  f.open("old-1", {});
  f.open("old-2", {});
  f.clock.advance(3h);
  f.open("fresh", {});
  f.clock.advance(2h); // old ones idle 5 h, fresh 2 h
  auto due = f.tr.expire_due(now_of(f.clock));
  std::sort(due.begin(), due.end());
  CHECK(due == ids({"old-1", "old-2"}));
  CHECK(f.tr.size() == 1);
  CHECK(f.tr.find("fresh") != nullptr);
  CHECK(f.tr.expire_due(now_of(f.clock)).empty());
  // Returned directly, so not queued for take_expired again.
  CHECK(f.tr.take_expired().empty());
  CHECK(error_of(f.use("old-1")).code == "SESSION_EXPIRED");
  CHECK(error_of(f.use("old-2")).code == "SESSION_EXPIRED");
  CHECK(std::holds_alternative<tracking_session*>(f.use("fresh")));
}

TEST_CASE("tracking: evict drops an ended session and remembers it as expired",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a"}));
  REQUIRE(f.tr.end_session(s, f.now()));
  CHECK(f.tr.take_ended() == ids({"s"}));
  f.tr.evict("s");
  CHECK(f.tr.size() == 0);
  CHECK(error_of(f.use("s")).code == "SESSION_EXPIRED");
  f.tr.evict("never-existed"); // harmless
  CHECK(error_of(f.use("never-existed")).code == "SESSION_NOT_FOUND");
}

// -- tasks --------------------------------------------------------------------

TEST_CASE("tracking: start_task is idempotent while the task runs",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a", "b"}));
  f.clock.advance(10s);
  const auto& first = value_of(f.start(s, "a", "first name"));
  CHECK_FALSE(first.already_running);
  REQUIRE(first.run != nullptr);
  CHECK(first.run->number == 1);
  auto started = first.run->start;
  CHECK(started.wall == example_start() + 10s);

  f.clock.advance(30s);
  const auto& again = value_of(f.start(s, "a", "second name"));
  CHECK(again.already_running);
  CHECK(again.task == first.task);
  CHECK(again.run == first.run);
  REQUIRE(s.tasks[0].runs.size() == 1);
  const auto& run = s.tasks[0].runs[0];
  CHECK(run.start.wall == started.wall);
  CHECK(run.start.mono == started.mono);
  // The repeated call changed nothing, not even the name.
  CHECK(run.task_name == std::optional<std::string>{"first name"});
  CHECK(run.duration(f.clock.mono_now()) == 30s);
  check_counts(s, {0, 0, 1, 0, 1});
}

TEST_CASE("tracking: a task started again after it ended gets a new run",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a"}));
  value_of(f.start(s, "a"));
  f.clock.advance(20s);
  value_of(f.end(s, "a", run_status::completed, {{"files", "x.cpp"}}));
  check_counts(s, {1, 0, 0, 0, 0});
  f.clock.advance(5s);
  const auto& second = value_of(f.start(s, "a", "retry"));
  CHECK_FALSE(second.already_running);
  CHECK(second.run->number == 2);
  check_counts(s, {0, 0, 1, 0, 0});
  REQUIRE(s.tasks[0].runs.size() == 2);
  const auto& run1 = s.tasks[0].runs[0];
  CHECK(run1.status == run_status::completed);
  CHECK(run1.duration(f.clock.mono_now()) == 20s);
  CHECK(run1.completion_metadata == string_map{{"files", "x.cpp"}});
  CHECK(s.tasks[0].current() == &s.tasks[0].runs[1]);
  f.clock.advance(7s);
  const auto& ended = value_of(f.end(s, "a", run_status::skipped));
  CHECK(ended.run->number == 2);
  CHECK(ended.run->duration(f.clock.mono_now()) == 7s);
  check_counts(s, {0, 1, 0, 0, 0});
}

TEST_CASE("tracking: max_runs_per_task bounds the runs of one task",
          "[tracking]") {
  tracking_limits limits;
  limits.max_runs_per_task = 2;
  fixture f{limits};
  auto& s = f.open("s", ids({"a"}));
  for (int i = 0; i < 2; ++i) {
    value_of(f.start(s, "a"));
    f.clock.advance(1s);
    if (i == 1) // at the limit, a running task is still idempotent
      CHECK(value_of(f.start(s, "a")).already_running);
    value_of(f.end(s, "a"));
  }
  const auto& err = error_of(f.start(s, "a"));
  CHECK(err.code == "LIMIT_REACHED");
  CHECK(contains(err.message, "max_runs_per_task"));
  CHECK(contains(err.message, "the limit is 2 runs"));
  CHECK(s.tasks[0].runs.size() == 2);
  check_counts(s, {1, 0, 0, 0, 0});
}

TEST_CASE("tracking: end_task of a task outside the session lists its tasks",
          "[tracking]") {
  fixture f;
  SECTION("up to 20 tasks are suggested") {
    auto& s = f.open("s", numbered_ids(20));
    const auto& err = error_of(f.end(s, "T-21"));
    CHECK(err.code == "TASK_NOT_IN_SESSION");
    CHECK(err.suggestions == numbered_ids(20));
    CHECK(contains(err.message, "'T-21'"));
    CHECK(contains(err.message, "T-1, T-2, T-3"));
    // start_task names unknown tasks the same way.
    const auto& start_err = error_of(f.start(s, "T-21"));
    CHECK(start_err.code == "TASK_NOT_IN_SESSION");
    CHECK(start_err.suggestions == numbered_ids(20));
  }
  SECTION("more than 20 are not") {
    auto& s = f.open("s", numbered_ids(21));
    const auto& err = error_of(f.end(s, "T-22"));
    CHECK(err.code == "TASK_NOT_IN_SESSION");
    CHECK(err.suggestions.empty());
    CHECK(contains(err.message, "21 tasks"));
    CHECK_FALSE(contains(err.message, "T-1,"));
  }
  SECTION("a session without tasks says so") {
    auto& s = f.open("s", {});
    const auto& err = error_of(f.start(s, "x"));
    CHECK(err.code == "TASK_NOT_IN_SESSION");
    CHECK(err.suggestions.empty());
    CHECK(contains(err.message, "no tasks"));
  }
}

TEST_CASE("tracking: ending a task never started is TASK_NOT_STARTED",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a", "b"}));
  const auto& err = error_of(f.end(s, "b"));
  CHECK(err.code == "TASK_NOT_STARTED");
  CHECK(contains(err.message, "'b'"));
  CHECK(contains(err.message, "time_task_start"));
  CHECK(s.tasks[1].runs.empty());
  check_counts(s, {0, 0, 0, 0, 2});
}

TEST_CASE("tracking: ending a task twice changes nothing the second time",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a"}));
  value_of(f.start(s, "a"));
  f.clock.advance(154'333ms);
  const auto& first = value_of(
    f.end(s, "a", run_status::completed, {{"files_created", "A.cs"}}));
  CHECK_FALSE(first.already_ended);
  auto end_at = first.run->end;
  REQUIRE(end_at.has_value());

  f.clock.advance(1min);
  const auto& again = value_of(
    f.end(s, "a", run_status::skipped, {{"files_created", "B.cs"}}));
  CHECK(again.already_ended);
  CHECK(again.run == first.run);
  const auto& run = s.tasks[0].runs.at(0);
  CHECK(run.status == run_status::completed);
  CHECK(run.end->wall == end_at->wall);
  CHECK(run.end->mono == end_at->mono);
  CHECK(run.completion_metadata == string_map{{"files_created", "A.cs"}});
  CHECK(run.duration(f.clock.mono_now()) == 154'333ms);
  check_counts(s, {1, 0, 0, 0, 0});
}

TEST_CASE("tracking: end_session interrupts running runs and happens once",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"done", "running", "idle"}));
  value_of(f.start(s, "done"));
  value_of(f.start(s, "running"));
  f.clock.advance(10s);
  value_of(f.end(s, "done"));
  f.clock.advance(5s);
  REQUIRE(f.tr.end_session(s, f.now()));
  CHECK(s.ended());
  CHECK(s.end->wall == example_start() + 15s);
  CHECK(f.tr.take_ended() == ids({"s"}));
  const auto& done = s.tasks[0].runs.at(0);
  const auto& running = s.tasks[1].runs.at(0);
  CHECK(done.status == run_status::completed);
  CHECK(done.duration(f.clock.mono_now()) == 10s);
  CHECK(running.status == run_status::interrupted);
  REQUIRE(running.end.has_value());
  CHECK(running.end->wall == example_start() + 15s);
  CHECK(running.duration(f.clock.mono_now()) == 15s);
  check_counts(s, {1, 0, 0, 1, 1});

  f.clock.advance(1h);
  CHECK_FALSE(f.tr.end_session(s, f.now()));
  CHECK(s.end->wall == example_start() + 15s);
  CHECK(s.elapsed(f.clock.mono_now()) == 15s);
  CHECK(running.duration(f.clock.mono_now()) == 15s);
  CHECK(f.tr.take_ended().empty());
}

TEST_CASE("tracking: task calls on an ended session are SESSION_ENDED",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a", "b"}));
  value_of(f.start(s, "a"));
  REQUIRE(f.tr.end_session(s, f.now()));
  for (const char* task : {"a", "b", "nope"}) {
    INFO("task: " << task);
    const auto& start_err = error_of(f.start(s, task));
    CHECK(start_err.code == "SESSION_ENDED");
    CHECK(contains(start_err.message, "'s'"));
    CHECK(error_of(f.end(s, task)).code == "SESSION_ENDED");
  }
  // The session itself is still there for summaries.
  CHECK(value_of(f.use("s")) == &s);
  check_counts(s, {0, 0, 0, 1, 1});
}

TEST_CASE("tracking: counts stay consistent through a whole milestone",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"t1", "t2", "t3", "t4", "t5"}));
  check_counts(s, {0, 0, 0, 0, 5});
  value_of(f.start(s, "t1"));
  check_counts(s, {0, 0, 1, 0, 4});
  value_of(f.start(s, "t2")); // parallel
  check_counts(s, {0, 0, 2, 0, 3});
  value_of(f.start(s, "t1")); // idempotent
  check_counts(s, {0, 0, 2, 0, 3});
  value_of(f.end(s, "t1"));
  check_counts(s, {1, 0, 1, 0, 3});
  value_of(f.end(s, "t1")); // repeated
  check_counts(s, {1, 0, 1, 0, 3});
  value_of(f.end(s, "t2", run_status::skipped));
  check_counts(s, {1, 1, 0, 0, 3});
  error_of(f.end(s, "t3")); // never started
  check_counts(s, {1, 1, 0, 0, 3});
  error_of(f.start(s, "t9")); // not in session
  check_counts(s, {1, 1, 0, 0, 3});
  value_of(f.start(s, "t2")); // skipped task retried
  check_counts(s, {1, 0, 1, 0, 3});
  value_of(f.end(s, "t2"));
  check_counts(s, {2, 0, 0, 0, 3});
  value_of(f.start(s, "t3"));
  value_of(f.start(s, "t4"));
  check_counts(s, {2, 0, 2, 0, 1});
  value_of(f.end(s, "t3"));
  check_counts(s, {3, 0, 1, 0, 1});
  REQUIRE(f.tr.end_session(s, f.now()));
  check_counts(s, {3, 0, 0, 1, 1});
}

// -- durations ----------------------------------------------------------------

TEST_CASE("tracking: task_totals separate busy time from summed task time",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a", "b"}));
  auto mono = [&] { return f.clock.mono_now(); };

  SECTION("overlapping runs: 0-10 s and 5-15 s") {
    value_of(f.start(s, "a"));
    f.clock.advance(5s);
    value_of(f.start(s, "b"));
    f.clock.advance(5s);
    value_of(f.end(s, "a"));
    f.clock.advance(5s);
    value_of(f.end(s, "b"));
    f.clock.advance(1h); // idle time after the runs counts nowhere
    auto t = s.task_totals(mono());
    CHECK(t.busy == 15s);
    CHECK(t.task_time == 20s);
  }
  SECTION("disjoint runs: 0-10 s and 20-25 s") {
    value_of(f.start(s, "a"));
    f.clock.advance(10s);
    value_of(f.end(s, "a"));
    f.clock.advance(10s);
    value_of(f.start(s, "b"));
    f.clock.advance(5s);
    value_of(f.end(s, "b"));
    auto t = s.task_totals(mono());
    CHECK(t.busy == 15s);
    CHECK(t.task_time == 15s);
  }
  SECTION("nested runs: 0-20 s around 5-10 s") {
    value_of(f.start(s, "a"));
    f.clock.advance(5s);
    value_of(f.start(s, "b"));
    f.clock.advance(5s);
    value_of(f.end(s, "b"));
    f.clock.advance(10s);
    value_of(f.end(s, "a"));
    auto t = s.task_totals(mono());
    CHECK(t.busy == 20s);
    CHECK(t.task_time == 25s);
  }
  SECTION("runs of the same task count separately") {
    value_of(f.start(s, "a"));
    f.clock.advance(4s);
    value_of(f.end(s, "a"));
    f.clock.advance(6s);
    value_of(f.start(s, "a"));
    f.clock.advance(3s);
    value_of(f.end(s, "a"));
    auto t = s.task_totals(mono());
    CHECK(t.busy == 7s);
    CHECK(t.task_time == 7s);
  }
  SECTION("running runs count up to now") {
    value_of(f.start(s, "a"));
    f.clock.advance(5s);
    value_of(f.start(s, "b"));
    f.clock.advance(2s); // a: 7 s so far, b: 2 s so far
    auto t = s.task_totals(mono());
    CHECK(t.busy == 7s);
    CHECK(t.task_time == 9s);
    f.clock.advance(3s);
    t = s.task_totals(mono());
    CHECK(t.busy == 10s);
    CHECK(t.task_time == 15s);
  }
  SECTION("nothing ran") {
    f.clock.advance(1h);
    auto t = s.task_totals(mono());
    CHECK(t.busy == 0ms);
    CHECK(t.task_time == 0ms);
  }
}

TEST_CASE("tracking: durations come from the monotonic clock only",
          "[tracking]") {
  fixture f;
  auto& s = f.open("s", ids({"a"}));
  f.clock.advance(1min);
  value_of(f.start(s, "a"));
  f.clock.advance(10min);
  f.clock.step_wall(-1h); // NTP or a person sets the clock back an hour
  f.clock.advance(5min + 250ms);
  const auto& ended = value_of(f.end(s, "a"));
  CHECK(ended.run->duration(f.clock.mono_now()) == 15min + 250ms);
  // The wall-clock record keeps what the wall clock said.
  CHECK(ended.run->start.wall == example_start() + 1min);
  CHECK(ended.run->end->wall == example_start() + 16min + 250ms - 1h);
  CHECK(s.elapsed(f.clock.mono_now()) == 16min + 250ms);
  auto t = s.task_totals(f.clock.mono_now());
  CHECK(t.busy == 15min + 250ms);
  CHECK(t.task_time == 15min + 250ms);
  CHECK(format_duration(ended.run->duration(f.clock.mono_now()))
        == "15 minutes");
}

TEST_CASE("tracking: a session's elapsed time stops at its end", "[tracking]") {
  fixture f;
  auto& s = f.open("s", {});
  f.clock.advance(706'333ms);
  CHECK(s.elapsed(f.clock.mono_now()) == 706'333ms);
  REQUIRE(f.tr.end_session(s, f.now()));
  f.clock.advance(2h);
  CHECK(s.elapsed(f.clock.mono_now()) == 706'333ms);
}

TEST_CASE("tracking: a session's ids, names and metadata have a byte budget",
          "[tracking]") {
  tracking_limits limits;
  limits.max_session_bytes = 100;
  fixture f{limits};
  SECTION("at the start") {
    session_request req;
    req.milestone_id = "M2";
    req.task_ids = ids({"T1"});
    req.metadata = {{"k", std::string(95, 'x')}}; // 2 + 2 + 1 + 95 = 100
    CHECK_FALSE(f.tr.check(req).has_value());
    req.metadata[0].second += "x";
    auto err = f.tr.check(req);
    REQUIRE(err.has_value());
    CHECK(err->code == "LIMIT_REACHED");
    CHECK(err->message.find("101 bytes") != std::string::npos);
    CHECK(err->message.find("max_session_bytes") != std::string::npos);
  }
  SECTION("task runs and completion metadata count, and a refused call "
          "changes nothing") {
    auto& s = f.open("s1", ids({"T1", "T2"})); // 2 + 4 bytes
    CHECK(s.bytes == 6);
    task_start_request req;
    req.task_id = "T1";
    req.metadata = {{"k", std::string(93, 'x')}}; // 94: total 100
    auto ok = f.tr.start_task(s, req, f.now());
    REQUIRE(std::holds_alternative<task_started>(ok));
    CHECK(s.bytes == 100);
    auto refused = f.tr.end_task(s, "T1", run_status::completed,
                                 {{"a", "b"}}, f.now());
    REQUIRE(std::holds_alternative<tracking_error>(refused));
    CHECK(std::get<tracking_error>(refused).code == "LIMIT_REACHED");
    CHECK(s.tasks[0].runs.back().status == run_status::in_progress);
    CHECK(s.bytes == 100);
    // Ending without metadata still works.
    auto ended = f.tr.end_task(s, "T1", run_status::completed, {}, f.now());
    REQUIRE(std::holds_alternative<task_ended>(ended));
    task_start_request more;
    more.task_id = "T2";
    more.task_name = "n";
    auto over = f.tr.start_task(s, more, f.now());
    REQUIRE(std::holds_alternative<tracking_error>(over));
    CHECK(std::get<tracking_error>(over).code == "LIMIT_REACHED");
    CHECK(s.tasks[1].runs.empty());
  }
}

TEST_CASE("tracking: each pause and note counts against the byte budget, "
          "so a pause/resume loop ends in LIMIT_REACHED",
          "[tracking]") {
  // Before: pauses cost nothing and notes only their text, so a loop of
  // 100-operation pause/resume edits grew one session (the server's memory,
  // every summary of it) without limit (tests/abuse, edits_100).
  tracking_limits limits;
  limits.max_session_bytes = 6 + 10 * tracking_limits::entry_bytes;
  fixture f{limits};
  auto& s = f.open("s1", ids({"T1", "T2"})); // 2 + 4 bytes
  task_start_request start;
  start.task_id = "T1";
  REQUIRE(std::holds_alternative<task_started>(f.tr.start_task(s, start, f.now())));
  using op = task_op;
  auto mk = [](op::kind_t k, const std::string& id) {
    op o;
    o.kind = k;
    o.task.task_id = id;
    return o;
  };
  auto note = mk(op::note, "T1");
  note.text = "why";
  REQUIRE(std::holds_alternative<std::vector<op_done>>(
    f.tr.edit_tasks(s, {note}, f.now())));
  CHECK(s.bytes == 6 + 3 + tracking_limits::entry_bytes);
  int pauses = 0;
  for (int i = 0; i < 100; ++i) {
    auto r = f.tr.edit_tasks(s, {mk(op::pause, "T1")}, f.now());
    if (!std::holds_alternative<std::vector<op_done>>(r)) {
      auto* failed = std::get_if<edit_failure>(&r);
      REQUIRE(failed != nullptr);
      CHECK(failed->error.code == "LIMIT_REACHED");
      CHECK(failed->error.message.find("notes and pauses")
            != std::string::npos);
      break;
    }
    ++pauses;
    REQUIRE(std::holds_alternative<std::vector<op_done>>(
      f.tr.edit_tasks(s, {mk(op::resume, "T1")}, f.now())));
  }
  CHECK(pauses == 8); // 6 + 3 + 64 + 8 * 64 <= 6 + 640 < 6 + 3 + 64 + 9 * 64
  CHECK(s.tasks[0].runs.back().pauses.size() == 8);
  CHECK(s.bytes == 6 + 3 + 9 * tracking_limits::entry_bytes);
}

TEST_CASE("tracking: a metadata key given twice is refused", "[tracking]") {
  fixture f;
  session_request req;
  req.milestone_id = "M2";
  req.metadata = {{"k", "1"}, {"k", "2"}};
  auto err = f.tr.check(req);
  REQUIRE(err.has_value());
  CHECK(err->code == "VALIDATION_ERROR");
  CHECK(err->message.find("'k'") != std::string::npos);
  auto& s = f.open("s1", ids({"T1"}));
  task_start_request start;
  start.task_id = "T1";
  start.metadata = {{"a", "1"}, {"a", "1"}};
  auto refused = f.tr.start_task(s, start, f.now());
  REQUIRE(std::holds_alternative<tracking_error>(refused));
  CHECK(std::get<tracking_error>(refused).code == "VALIDATION_ERROR");
  CHECK(s.tasks[0].runs.empty());
  start.metadata.pop_back();
  REQUIRE(std::holds_alternative<task_started>(
    f.tr.start_task(s, start, f.now())));
  auto end_refused = f.tr.end_task(s, "T1", run_status::completed,
                                   {{"x", "1"}, {"x", "2"}}, f.now());
  REQUIRE(std::holds_alternative<tracking_error>(end_refused));
  CHECK(s.tasks[0].runs.back().status == run_status::in_progress);
}
