// The journal above storage: the tracker's change records and their undo,
// events and their replay (same boot and across a reboot), expiry of
// sessions no server holds, a client whose replies wait for the journal
// (and fail with STORAGE_UNAVAILABLE, changing nothing, or run again when
// fenced), and the journal actor's group commit on a real SQLite file.
// Through the actors with several servers: journal_shared_test.cpp.

#include "actor_fixture.hpp"
#include "actors/journal.hpp"
#include "journal/codec.hpp"
#include "journal/expiry.hpp"
#include "journal/replay.hpp"
#include "storage/sqlite_store.hpp"
#include "test_client_state.hpp"
#include "tools/session_common.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <unordered_map>

using namespace ttm;
using namespace std::chrono_literals;
using domain::change;

namespace {

using ttm::test::parse;
using ttm::test::str;

struct tracking_fixture {
  std::shared_ptr<domain::fake_clock> clock
    = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  domain::tracker tr{domain::tracking_limits{}};

  tracking_fixture() {
    tr.record_changes(true);
  }

  domain::zone utc() {
    return *domain::resolve_zone("UTC", "UTC").found;
  }

  domain::tracking_session& start(const std::string& id) {
    domain::session_request req;
    req.milestone_id = "M-" + id;
    req.milestone_name = "Milestone " + id;
    req.task_ids = {"a", "b", "c"};
    req.metadata = {{"repo", "x"}};
    req.tags = {"t1"};
    tr.add(id, req, utc(), domain::now_of(*clock));
    return *tr.find(id);
  }

  void start_task(domain::tracking_session& s, const std::string& task) {
    domain::task_start_request req;
    req.task_id = task;
    req.task_name = "Task " + task;
    req.metadata = {{"k", "v"}};
    auto r = tr.start_task(s, req, domain::now_of(*clock));
    REQUIRE(std::holds_alternative<domain::task_started>(r));
  }

  void end_task(domain::tracking_session& s, const std::string& task,
                domain::run_status status = domain::run_status::completed) {
    auto r = tr.end_task(s, task, status, {{"result", "ok"}},
                         domain::now_of(*clock));
    REQUIRE(std::holds_alternative<domain::task_ended>(r));
  }

  /// The session's events as the journal would store them.
  storage::stored_session stored(const std::string& id) {
    storage::stored_session s;
    s.session_id = id;
    s.principal = "local";
    for (const auto& c : tr.take_changes())
      if (c.session_id == id)
        s.events.push_back(journal::to_event(c, "local", clock->boot_id()));
    tr.commit();
    REQUIRE_FALSE(s.events.empty());
    s.started_wall_ns = s.events.front().at.wall_ns;
    return s;
  }
};

std::vector<change::kind_t> kinds(const std::vector<change>& cs) {
  std::vector<change::kind_t> out;
  for (const auto& c : cs)
    out.push_back(c.kind);
  return out;
}

using ttm::test::temp_dir;

} // namespace

TEST_CASE("journal: the tracker records each change once, none when off") {
  tracking_fixture f;
  auto& s = f.start("s1");
  f.start_task(s, "a");
  f.start_task(s, "a"); // idempotent: already running, nothing changes
  f.end_task(s, "a");
  f.end_task(s, "a"); // already ended: nothing changes
  f.tr.end_session(s, domain::now_of(*f.clock));
  CHECK(kinds(f.tr.take_changes())
        == std::vector<change::kind_t>{change::session_started,
                                       change::task_started,
                                       change::task_ended,
                                       change::session_ended});
  CHECK(f.tr.take_changes().empty());
  domain::tracker quiet{domain::tracking_limits{}};
  quiet.add("q", {"M", std::nullopt, {"a"}, {}, {}, std::nullopt}, f.utc(),
            domain::now_of(*f.clock));
  CHECK(quiet.take_changes().empty());
}

TEST_CASE("journal: rollback undoes each kind of change, newest first") {
  tracking_fixture f;
  auto& s = f.start("s1");
  f.start_task(s, "a");
  f.tr.take_changes();
  f.tr.commit();
  auto bytes = s.bytes;

  SECTION("a task start") {
    f.start_task(s, "b");
    f.tr.rollback();
    CHECK(s.tasks[1].runs.empty());
    CHECK(s.bytes == bytes);
  }
  SECTION("a task end") {
    f.clock->advance(5s);
    f.end_task(s, "a");
    f.tr.rollback();
    const auto& run = s.tasks[0].runs.back();
    CHECK_FALSE(run.end.has_value());
    CHECK(run.status == domain::run_status::in_progress);
    CHECK(run.completion_metadata.empty());
    CHECK(s.bytes == bytes);
  }
  SECTION("a session end, with its interrupted run") {
    CHECK(f.tr.end_session(s, domain::now_of(*f.clock)));
    f.tr.rollback();
    CHECK_FALSE(s.ended());
    CHECK(s.tasks[0].runs.back().status == domain::run_status::in_progress);
    CHECK(f.tr.take_ended().empty());
  }
  SECTION("a session start, and a task started in it") {
    auto& s2 = f.start("s2");
    f.start_task(s2, "c");
    f.tr.rollback();
    CHECK(f.tr.find("s2") == nullptr);
    CHECK(f.tr.find("s1") != nullptr);
  }
  CHECK(f.tr.take_changes().empty());
}

TEST_CASE("journal: replay in the same boot rebuilds the session exactly") {
  tracking_fixture f;
  auto& s = f.start("s1");
  f.clock->advance(2s);
  f.start_task(s, "a");
  f.clock->advance(3s);
  f.end_task(s, "a", domain::run_status::skipped);
  f.start_task(s, "b");
  f.clock->advance(1s);
  auto saved = f.stored("s1");
  const auto& orig = *f.tr.find("s1");

  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  auto ids = journal::replay(fresh, {saved}, *f.clock, "UTC", problems);
  CHECK(problems.empty());
  REQUIRE(ids == std::vector<std::string>{"s1"});
  const auto* back = fresh.find("s1");
  REQUIRE(back != nullptr);
  CHECK(back->milestone_id == orig.milestone_id);
  CHECK(back->milestone_name == orig.milestone_name);
  CHECK(back->metadata == orig.metadata);
  CHECK(back->tags == orig.tags);
  CHECK(back->tz.name() == orig.tz.name());
  CHECK(back->start.wall == orig.start.wall);
  CHECK(back->start.mono == orig.start.mono);
  CHECK(back->bytes == orig.bytes);
  REQUIRE(back->tasks.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    INFO("task " << k);
    const auto& a = orig.tasks[k];
    const auto& b = back->tasks[k];
    REQUIRE(a.runs.size() == b.runs.size());
    for (std::size_t r = 0; r < a.runs.size(); ++r) {
      CHECK(b.runs[r].status == a.runs[r].status);
      CHECK(b.runs[r].task_name == a.runs[r].task_name);
      CHECK(b.runs[r].metadata == a.runs[r].metadata);
      CHECK(b.runs[r].completion_metadata == a.runs[r].completion_metadata);
      CHECK(b.runs[r].start.mono == a.runs[r].start.mono);
      CHECK(b.runs[r].start.boot == 0);
      CHECK(b.runs[r].end.has_value() == a.runs[r].end.has_value());
    }
  }
  // Idle time counts from the last event (task b's start), not from now.
  CHECK(back->last_activity == back->tasks[1].runs.back().start.mono);
  // Replay records nothing: it is not a change.
  CHECK(fresh.take_changes().empty());
  auto sum = tools::summarize(*back, domain::now_of(*f.clock), true);
  CHECK(sum.duration_source == "monotonic");
  CHECK(sum.total_duration_ms == 6000);
}

TEST_CASE("journal: across a reboot, spans of one boot stay monotonic and "
          "spans across it come from the wall clock") {
  tracking_fixture f;
  auto& s = f.start("s1");
  f.start_task(s, "a");
  f.clock->advance(90s);
  f.end_task(s, "a");
  f.start_task(s, "b");
  f.clock->advance(30s);
  auto saved = f.stored("s1");
  // Down for 10 minutes, then the machine comes back: a new boot id and a
  // monotonic clock near zero; meanwhile the wall clock was stepped back by
  // NTP by 1 s (only the wall clock sees that).
  f.clock->reboot("fake-boot-2", 20s);
  f.clock->advance(10min);
  f.clock->step_wall(-1s);

  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  journal::replay(fresh, {saved}, *f.clock, "UTC", problems);
  CHECK(problems.empty());
  const auto* back = fresh.find("s1");
  REQUIRE(back != nullptr);
  auto now = domain::now_of(*f.clock);
  auto sum = tools::summarize(*back, now, true);
  CHECK(sum.duration_source == "wall_clock");
  REQUIRE(sum.tasks.has_value());
  const auto& a = (*sum.tasks)[0];
  const auto& b = (*sum.tasks)[1];
  CHECK(a.duration_source == "monotonic");
  CHECK(a.duration_ms == 90'000); // both ends in the first boot
  CHECK(b.duration_source == "wall_clock");
  // 30 s before the shutdown + 10 min down - the 1 s wall step.
  CHECK(b.duration_ms == 30'000 + 600'000 - 1'000);
  CHECK(sum.total_duration_ms == 120'000 + 600'000 - 1'000);
  CHECK(std::string{(*sum.tasks)[2].status} == "not_started");
  CHECK_FALSE((*sum.tasks)[2].duration_source.has_value());
  // Ending the task now: its duration is a wall-clock one too.
  auto* live = fresh.find("s1");
  auto ended = fresh.end_task(*live, "b", domain::run_status::completed, {},
                              now);
  REQUIRE(std::holds_alternative<domain::task_ended>(ended));
  const auto* run = std::get<domain::task_ended>(ended).run;
  CHECK(std::string{domain::duration_source(run->start, *run->end)}
        == "wall_clock");
}

TEST_CASE("journal: a session whose events cannot be read is skipped") {
  tracking_fixture f;
  f.start("good");
  auto good = f.stored("good");
  auto bad = good;
  bad.session_id = "bad";
  bad.events.front().payload = "{not json";
  auto no_start = good;
  no_start.session_id = "headless";
  no_start.events.erase(no_start.events.begin());
  no_start.events.push_back(no_start.events.empty() ? good.events.front()
                                                    : no_start.events.back());
  no_start.events.front().kind = storage::event_kind::task_started;
  domain::tracker fresh{domain::tracking_limits{}};
  std::vector<std::string> problems;
  auto ids = journal::replay(fresh, {bad, good, no_start}, *f.clock, "UTC",
                            problems);
  CHECK(ids == std::vector<std::string>{"good"});
  CHECK(problems.size() == 2);
  CHECK(fresh.find("bad") == nullptr);
  CHECK(fresh.find("headless") == nullptr);
}

TEST_CASE("journal: an expired session replays as history: read only, its "
          "running runs interrupted at the expiry") {
  tracking_fixture f;
  auto& s = f.start("s1");
  f.start_task(s, "a");
  f.clock->advance(2s);
  f.end_task(s, "a");
  f.start_task(s, "b");
  f.clock->advance(domain::tracking_limits{}.max_idle + 1s);
  auto at = domain::now_of(*f.clock);
  REQUIRE(f.tr.expire_due(at) == std::vector<std::string>{"s1"});
  auto saved = f.stored("s1");
  REQUIRE(saved.events.back().kind == storage::event_kind::session_expired);
  saved.state = storage::session_state::expired;
  f.clock->advance(1h); // read later: its times stay the expiry's

  // A journaled client that expired it itself reads it back.
  domain::tracker fresh{domain::tracking_limits{}};
  fresh.record_changes(true);
  fresh.remember_expired("s1");
  std::vector<std::string> problems;
  auto ids = journal::replay(fresh, {saved}, *f.clock, "UTC", problems);
  CHECK(problems.empty());
  REQUIRE(ids == std::vector<std::string>{"s1"});
  CHECK_FALSE(fresh.remembers_expired("s1"));
  const auto* back = fresh.find("s1");
  REQUIRE(back != nullptr);
  CHECK(back->expired == std::optional<std::string>{"idle"});
  REQUIRE(back->end.has_value());
  CHECK(back->end->wall == at.wall);
  CHECK(back->tasks[0].runs[0].status == domain::run_status::completed);
  CHECK(back->tasks[1].runs[0].status == domain::run_status::interrupted);
  CHECK(back->tasks[1].runs[0].end->wall == at.wall);
  // A call reads it (no second expiry recorded)...
  auto used = fresh.use("s1", domain::now_of(*f.clock));
  REQUIRE(std::holds_alternative<domain::tracking_session*>(used));
  CHECK(fresh.take_changes().empty());
  auto sum = tools::summarize(*back, domain::now_of(*f.clock), true);
  CHECK(sum.status == "expired");
  CHECK(sum.tasks_interrupted == 1);
  CHECK(sum.total_duration_ms
        == std::chrono::duration_cast<std::chrono::milliseconds>(
             domain::tracking_limits{}.max_idle + 3s)
             .count());
  // ...and a write hears why it cannot change it.
  auto err = fresh.expired_error(*back);
  CHECK(err.code == "SESSION_EXPIRED");
  CHECK(ttm::test::contains(err.message, "it was idle past the idle limit"));
  CHECK(ttm::test::contains(
    err.message, "time_session_summary and time_session_report still read it"));
}


TEST_CASE("journal: sessions no server holds expire by the wall clock, each "
          "at its epoch") {
  tracking_fixture f;
  auto now = domain::to_ns(f.clock->wall_now());
  auto h = [](long long n) { return n * 3'600'000'000'000LL; };
  std::vector<storage::orphan> orphans{
    {"fresh", "alice", 3, now - h(1), now - h(1)},
    {"idle", "alice", 1, now - h(6), now - h(5)},
    {"old", "bob", 7, now - h(25), now - 1},
  };
  auto events = journal::expiry_events(orphans, domain::tracking_limits{},
                                       *f.clock);
  REQUIRE(events.size() == 2);
  for (const auto& e : events) {
    CHECK(e.kind == storage::event_kind::session_expired);
    CHECK(e.if_due); // stands only if the journal agrees it is due
  }
  CHECK(events[0].session_id == "idle");
  CHECK(events[0].principal == "alice");
  CHECK(events[0].epoch == 1);
  CHECK(events[0].payload == R"({"reason":"idle"})");
  CHECK(events[1].session_id == "old");
  CHECK(events[1].epoch == 7);
  CHECK(events[1].payload == R"({"reason":"age"})");
  CHECK(events[1].at.wall_ns == now);
}

namespace {

/// A client_state whose replies wait for the journal.
mcp::session journaled_session(
  std::shared_ptr<domain::fake_clock> clock) {
  actors::client_config cfg{tools::make_registry({}, {"all"}), std::move(clock),
                            "America/New_York",
                            {"time-tracker-mcp", "Time Tracker MCP", "0.1.0",
                             ttm::test::session_instructions},
                            domain::tracking_limits{}};
  cfg.journal = true;
  cfg.principal = "alice";
  return mcp::session{std::move(cfg)};
}

std::string tools_call(const std::string& name, const std::string& args,
                       int id) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":")" + name
         + R"(","arguments":)" + args + "}}";
}

/// The journal's latest state of the session `started` began, at `epoch`:
/// then each task event of `tasks` (task_started or task_ended, completed).
storage::claim_result
loaded_at(const storage::event& started, std::int64_t epoch,
          std::vector<std::pair<storage::event_kind, std::string>> tasks) {
  storage::claim_result r;
  r.outcome = storage::claim_result::loaded;
  r.session.session_id = started.session_id;
  r.session.principal = started.principal;
  r.session.epoch = epoch;
  r.session.events.push_back(started);
  for (auto& [kind, task_id] : tasks) {
    auto ev = started;
    ev.kind = kind;
    ev.task_id = task_id;
    ev.payload = kind == storage::event_kind::task_ended
                   ? R"({"status":"completed","metadata":{}})"
                   : R"({"metadata":{}})";
    r.session.events.push_back(std::move(ev));
  }
  return r;
}

/// The journal's answer to a claim of a session this client holds.
storage::claim_result still_current() {
  storage::claim_result r;
  r.outcome = storage::claim_result::current;
  return r;
}

/// Runs a call to its journal step (its session checked with the journal
/// first, still current), answers the journal with `error` (empty: stored)
/// and returns the step; the events the call wrote are in `events`.
mcp::rpc_step call_with_journal(mcp::session& s,
                                   const std::string& json,
                                   const std::string& error,
                                   std::vector<storage::event>& events) {
  auto step = s.handle(mcp::decode(json));
  if (step.claim())
    step = s.resume_claim(still_current(), "");
  if (step.principal()) // no timezone: the caller's preferences (none) first
    step = s.resume_principal({}, "");
  if (!step.slot_for().empty())
    step = s.resume(true);
  REQUIRE_FALSE(step.journal().empty());
  CHECK(step.slot_for().empty());
  events = step.journal();
  // Nothing is answered, and no slot news leaves, before the journal says.
  CHECK(step.output.response.empty());
  CHECK(step.ended.empty());
  using storage::append_answer;
  return s.resume_journal(error.empty()
                            ? append_answer{}
                            : append_answer{append_answer::failed, error});
}

const rapidjson::Value& sc_of(const rapidjson::Document& d) {
  return d["result"]["structuredContent"];
}

} // namespace

TEST_CASE("journal: a client's reply waits for the journal, and a refused "
          "write changes nothing") {
  auto clock = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  auto s = journaled_session(clock);
  ttm::test::call(s, ttm::test::initialize_request("2025-06-18"));
  std::vector<storage::event> events;

  auto started = call_with_journal(
    s,
    tools_call("time_session_start",
               R"({"milestone_id":"M","task_ids":["a","b"]})", 1),
    "", events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == storage::event_kind::session_started);
  CHECK(events[0].principal == "alice");
  CHECK(events[0].at.boot_id == clock->boot_id());
  auto doc = parse(started.output.response);
  auto sid = str(sc_of(doc)["session_id"]);
  CHECK(events[0].session_id == sid);
  CHECK(started.output.created == std::vector<std::string>{sid});

  SECTION("a refused task start: STORAGE_UNAVAILABLE, the task not started") {
    auto step = call_with_journal(
      s,
      tools_call("time_task_start",
                 R"({"session_id":")" + sid + R"(","task_id":"a"})", 2),
      "storage full: disk full", events);
    auto d = parse(step.output.response);
    CHECK(d["result"]["isError"].GetBool());
    CHECK(str(sc_of(d)["error_code"]) == "STORAGE_UNAVAILABLE");
    CHECK(ttm::test::contains(str(sc_of(d)["message"]), "disk full"));
    CHECK(s.tracker().find(sid)->tasks[0].runs.empty());
    // The next attempt, stored, works as if the first never happened.
    auto again = call_with_journal(
      s,
      tools_call("time_task_start",
                 R"({"session_id":")" + sid + R"(","task_id":"a"})", 3),
      "", events);
    auto d2 = parse(again.output.response);
    CHECK_FALSE(d2["result"]["isError"].GetBool());
    CHECK(sc_of(d2)["already_running"].GetBool() == false);
    CHECK(s.tracker().find(sid)->tasks[0].runs.size() == 1);
  }
  SECTION("a refused session start frees its slot and is not in the "
          "directory") {
    auto step = call_with_journal(
      s,
      tools_call("time_session_start", R"({"milestone_id":"M2","task_ids":[]})",
                 2),
      "storage io: gone", events);
    auto d = parse(step.output.response);
    CHECK(str(sc_of(d)["error_code"]) == "STORAGE_UNAVAILABLE");
    CHECK(s.tracker().size() == 1);
    CHECK(step.output.created.empty());
    REQUIRE(step.expired.size() == 1);
    CHECK(step.expired[0] == events[0].session_id);
  }
  SECTION("a refused session end leaves it open and not reclaimable") {
    call_with_journal(s,
                      tools_call("time_task_start",
                                 R"({"session_id":")" + sid
                                   + R"(","task_id":"b"})",
                                 2),
                      "", events);
    auto step = call_with_journal(
      s, tools_call("time_session_end", R"({"session_id":")" + sid + R"("})", 3),
      "storage locked: busy", events);
    CHECK(str(sc_of(parse(step.output.response))["error_code"])
          == "STORAGE_UNAVAILABLE");
    CHECK(step.ended.empty());
    const auto* live = s.tracker().find(sid);
    CHECK_FALSE(live->ended());
    CHECK(live->tasks[1].runs.back().status
          == domain::run_status::in_progress);
  }
  SECTION("a read waits only for the journal's check that the session is "
          "current; time_get_current never waits") {
    auto step = s.handle(mcp::decode(
      tools_call("time_session_summary", R"({"session_id":")" + sid + R"("})",
                 2)));
    REQUIRE(step.claim());
    CHECK(step.claim()->session_id == sid);
    CHECK(step.claim()->principal == "alice");
    CHECK(step.claim()->scope == "2025");
    CHECK(step.claim()->known_epoch == 1);
    step = s.resume_claim(still_current(), "");
    CHECK_FALSE(step.waiting());
    CHECK_FALSE(step.output.response.empty());
    auto now = s.handle(mcp::decode(
      tools_call("time_get_current", R"({"timezone":"UTC"})", 3)));
    CHECK_FALSE(now.waiting());
  }
  SECTION("a read whose copy is stale runs again on the state loaded by "
          "its check") {
    auto step = s.handle(mcp::decode(
      tools_call("time_session_summary", R"({"session_id":")" + sid + R"("})",
                 2)));
    REQUIRE(step.claim());
    CHECK(step.output.response.empty()); // held until the check
    auto latest = loaded_at(events[0], 2,
                            {{storage::event_kind::task_started, "b"}});
    step = s.resume_claim(latest, "");
    CHECK_FALSE(step.waiting());
    auto d = parse(step.output.response);
    CHECK(sc_of(d)["tasks_in_progress"].GetInt() == 1);
    CHECK(str(sc_of(d)["tasks"][1]["status"]) == "in_progress");
  }
  SECTION("a write on a held copy runs at once; fenced (another server "
          "changed the session meanwhile), it runs again on the latest "
          "state") {
    auto step = s.handle(mcp::decode(tools_call(
      "time_task_start", R"({"session_id":")" + sid + R"(","task_id":"a"})",
      2)));
    CHECK_FALSE(step.claim()); // the journal checks the epoch as it stores
    REQUIRE_FALSE(step.journal().empty());
    CHECK(step.journal()[0].epoch == 1);
    // Meanwhile another server started task a and ended it: the journal's
    // latest state, at epoch 3.
    auto latest = loaded_at(events[0], 3,
                            {{storage::event_kind::task_started, "a"},
                             {storage::event_kind::task_ended, "a"}});
    step = s.resume_journal({storage::append_answer::fenced, "fenced"});
    REQUIRE(step.claim());
    CHECK(step.claim()->known_epoch == 1);
    step = s.resume_claim(latest, "");
    // Task a ended elsewhere: starting it again is a new run, at epoch 3.
    REQUIRE_FALSE(step.journal().empty());
    CHECK(step.journal()[0].kind == storage::event_kind::task_started);
    CHECK(step.journal()[0].epoch == 3);
    step = s.resume_journal({});
    auto d = parse(step.output.response);
    CHECK_FALSE(d["result"]["isError"].GetBool());
    CHECK(sc_of(d)["run"].GetInt() == 2);
    CHECK(s.tracker().find(sid)->tasks[0].runs.size() == 2);
  }
  SECTION("an expiry sent while a write is in flight goes behind it, at "
          "the epoch it leaves") {
    auto step = s.handle(mcp::decode(tools_call(
      "time_task_start", R"({"session_id":")" + sid + R"(","task_id":"a"})",
      2)));
    REQUIRE_FALSE(step.journal().empty());
    CHECK(step.journal()[0].epoch == 1);
    // The supervisor's sweep finds it past its age meanwhile.
    clock->advance(domain::tracking_limits{}.max_age + std::chrono::seconds{1});
    CHECK(s.expire_due() == std::vector<std::string>{sid});
    auto expiring = s.take_journal();
    REQUIRE(expiring.size() == 1);
    CHECK(expiring[0].kind == storage::event_kind::session_expired);
    CHECK(expiring[0].epoch == 2);
  }
  SECTION("a start beyond the directory's limit answers LIMIT_REACHED and "
          "frees its slot") {
    auto step = s.handle(mcp::decode(tools_call(
      "time_session_start", R"({"milestone_id":"M2","task_ids":[]})", 2)));
    // The caller's zone preference was read for the first start, within
    // prefs_cache_ttl: no journal read now, the slot first.
    REQUIRE_FALSE(step.principal());
    step = s.resume(true);
    REQUIRE_FALSE(step.journal().empty());
    auto id = step.journal()[0].session_id;
    step = s.resume_journal({storage::append_answer::limit, "limit"});
    auto d = parse(step.output.response);
    CHECK(str(sc_of(d)["error_code"]) == "LIMIT_REACHED");
    CHECK(s.tracker().find(id) == nullptr);
    CHECK(step.expired == std::vector<std::string>{id});
  }
  SECTION("a write past its --request-timeout is error -32051 and changes "
          "nothing") {
    auto step = s.handle(mcp::decode(tools_call(
      "time_task_start", R"({"session_id":")" + sid + R"(","task_id":"a"})",
      2)));
    REQUIRE_FALSE(step.journal().empty());
    step = s.resume_journal(
      {storage::append_answer::timed_out, "it waited for the journal"});
    auto d = parse(step.output.response);
    CHECK(d["id"].GetInt() == 2);
    CHECK(d["error"]["code"].GetInt() == -32051);
    CHECK(str(d["error"]["message"]).find("it waited for the journal; "
                                          "nothing was changed")
          != std::string::npos);
    CHECK(s.tracker().find(sid)->tasks[0].runs.empty());
    // The same call again runs from the same state.
    step = s.handle(mcp::decode(tools_call(
      "time_task_start", R"({"session_id":")" + sid + R"(","task_id":"a"})",
      3)));
    REQUIRE_FALSE(step.journal().empty());
    CHECK(step.journal()[0].epoch == 1);
  }
  SECTION("a write whose sync failed is STORAGE_UNAVAILABLE with an "
          "unknown outcome, not 'nothing was changed', and kept as the "
          "journal holds it") {
    auto step = s.handle(mcp::decode(tools_call(
      "time_task_start", R"({"session_id":")" + sid + R"(","task_id":"a"})",
      2)));
    REQUIRE_FALSE(step.journal().empty());
    step = s.resume_journal(
      {storage::append_answer::unknown, "written but not durable"});
    auto d = parse(step.output.response);
    CHECK(str(sc_of(d)["error_code"]) == "STORAGE_UNAVAILABLE");
    auto text = step.output.response;
    CHECK(text.find("Outcome unknown: written but not durable")
          != std::string::npos);
    CHECK(text.find("nothing was changed") == std::string::npos);
    CHECK_FALSE(s.tracker().find(sid)->tasks[0].runs.empty());
  }
}

TEST_CASE("journal: a retention under an hour is kept, and the purge runs "
          "every half retention, at most daily") {
  using namespace std::chrono;
  actors::journal_config jc;
  // Before: --history-retention 90s became hours{0}, "keep forever".
  actors::set_retention(jc, seconds{90});
  CHECK(jc.retention == seconds{90});
  CHECK(jc.purge_interval == caf::timespan{seconds{45}});
  actors::set_retention(jc, seconds{1});
  CHECK(jc.purge_interval == caf::timespan{seconds{1}});
  actors::set_retention(jc, hours{24 * 90});
  CHECK(jc.retention == hours{24 * 90});
  CHECK(jc.purge_interval == caf::timespan{hours{24}});
  actors::set_retention(jc, seconds{0}); // forever: nothing to purge
  CHECK(jc.retention.count() == 0);
}

TEST_CASE("journal: the journal actor stores appends, several per "
          "transaction, and reports a missing store") {
  temp_dir dir;
  caf::actor_system_config cfg;
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto& sched = dynamic_cast<caf::scheduler::test_coordinator&>(
    sys.scheduler());
  auto clock = std::make_shared<domain::fake_clock>(ttm::test::test_now());

  auto event_of = [&](const std::string& id) {
    change c;
    c.kind = change::session_started;
    c.session_id = id;
    c.at = domain::now_of(*clock);
    c.session.milestone_id = "M-" + id;
    c.zone_name = "UTC";
    return journal::to_event(c, "local", clock->boot_id());
  };

  auto append_three = [&](actors::journal_actor journal) {
    auto answers = std::make_shared<std::vector<storage::append_answer>>();
    std::vector<std::vector<storage::event>> batches;
    for (auto id : {"s1", "s2", "s3"})
      batches.push_back({event_of(id)});
    // A spawn argument: CAF 0.17 dereferences a null tuple for an actor
    // without any (UBSan flags it).
    sys.spawn(
      [=](caf::event_based_actor* self, int) {
        for (const auto& b : batches)
          self->request(journal, caf::infinite, actors::append_atom::value, b)
            .then([=](const storage::append_answer& r) {
              answers->push_back(r);
            });
      },
      0);
    sched.run();
    return *answers;
  };
  auto state_of = [](const actors::journal_actor& journal) -> auto& {
    auto* ptr = dynamic_cast<
      caf::stateful_actor<actors::journal_state, actors::journal_actor::base>*>(
      caf::actor_cast<caf::abstract_actor*>(journal));
    REQUIRE(ptr != nullptr);
    return ptr->state;
  };

  SECTION("three appends queued together share one transaction") {
    auto opened = storage::open_sqlite({dir.path().string(),
                                        storage::sync_mode::normal, "test"});
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    std::shared_ptr<storage::store> store
      = std::move(std::get<storage::store_ptr>(opened));
    actors::journal_config jc;
    jc.store = store;
    jc.clock = clock;
    auto journal = sys.spawn(actors::journal_behavior, jc);
    sched.run();
    auto answers = append_three(journal);
    REQUIRE(answers.size() == 3);
    for (const auto& a : answers)
      CHECK(a.kind == storage::append_answer::stored);
    CHECK(state_of(journal).commits == 1);
    CHECK(state_of(journal).events == 3);
    storage::history_query all;
    auto open = store->history(all);
    REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(open));
    CHECK(std::get<std::vector<storage::stored_session>>(open).size() == 3);
    SECTION("one bad append fails alone") {
      auto again = append_three(journal); // the ids exist already
      CHECK(again.size() == 3);
      for (const auto& a : again) {
        CHECK(a.kind == storage::append_answer::failed);
        CHECK_FALSE(a.error.empty());
      }
      std::vector<storage::event> fine{event_of("s4")};
      auto answers2
        = std::make_shared<std::vector<storage::append_answer>>();
      auto dup = std::vector<storage::event>{event_of("s1")};
      sys.spawn(
        [=](caf::event_based_actor* self, int) {
          for (const auto& b : {dup, fine})
            self->request(journal, caf::infinite, actors::append_atom::value,
                          b)
              .then([=](const storage::append_answer& r) {
                answers2->push_back(r);
              });
        },
        0);
      sched.run();
      REQUIRE(answers2->size() == 2);
      CHECK((*answers2)[0].kind == storage::append_answer::failed);
      CHECK((*answers2)[1].kind == storage::append_answer::stored);
    }
    caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
    sched.run();
  }
  SECTION("no store: every append gets the reason") {
    actors::journal_config jc;
    jc.unavailable = "the session journal is unavailable (corrupt): X";
    jc.clock = clock;
    auto journal = sys.spawn(actors::journal_behavior, jc);
    sched.run();
    auto answers = append_three(journal);
    REQUIRE(answers.size() == 3);
    for (const auto& a : answers)
      CHECK(a.error == jc.unavailable);
    caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
    sched.run();
  }
}

TEST_CASE("journal: a session the journal says expired: summary and report "
          "read it, writes answer SESSION_EXPIRED with the cause") {
  auto clock = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  auto s = journaled_session(clock);
  ttm::test::call(s, ttm::test::initialize_request("2025-06-18"));
  std::vector<storage::event> events;
  call_with_journal(s,
                    tools_call("time_session_start",
                               R"({"milestone_id":"M","task_ids":["a","b"]})",
                               1),
                    "", events);
  REQUIRE(events.size() == 1);
  auto sid = events[0].session_id;
  // Expired by another server past its age limit, task a running.
  auto expired = loaded_at(events[0], 3,
                           {{storage::event_kind::task_started, "a"}});
  auto ex = events[0];
  ex.kind = storage::event_kind::session_expired;
  ex.payload = R"({"reason":"age"})";
  ex.at.wall_ns += 90'000'000'000LL;
  ex.at.mono_ns += 90'000'000'000LL;
  expired.session.events.push_back(ex);
  expired.session.state = storage::session_state::expired;
  clock->advance(2min);

  auto answer = [&](const std::string& json) {
    auto step = s.handle(mcp::decode(json));
    for (int k = 0; k < 4 && step.output.response.empty(); ++k) {
      if (step.claim())
        step = s.resume_claim(expired, "");
      else if (step.principal())
        step = s.resume_principal({}, "");
      else
        break;
    }
    REQUIRE_FALSE(step.output.response.empty());
    return parse(step.output.response);
  };
  auto sum = answer(
    tools_call("time_session_summary", R"({"session_id":")" + sid + R"("})",
               2));
  REQUIRE_FALSE(sum["result"]["isError"].GetBool());
  CHECK(str(sc_of(sum)["status"]) == "expired");
  CHECK(sc_of(sum)["tasks_interrupted"].GetInt() == 1);
  CHECK(sc_of(sum)["total_duration_ms"].GetInt64() == 90'000);
  auto report = answer(tools_call(
    "time_session_report", R"({"session_id":")" + sid + R"(","format":"json"})",
    3));
  REQUIRE_FALSE(report["result"]["isError"].GetBool());
  CHECK(str(sc_of(report)["status"]) == "expired");
  for (const auto& [name, args] :
       std::vector<std::pair<std::string, std::string>>{
         {"time_task_end", R"(","task_id":"a"})"},
         {"time_task_start", R"(","task_id":"b"})"},
         {"time_session_end", R"("})"},
         {"time_undo", R"("})"}}) {
    INFO(name);
    auto d = answer(
      tools_call(name, R"({"session_id":")" + sid + args, 4));
    CHECK(d["result"]["isError"].GetBool());
    CHECK(str(sc_of(d)["error_code"]) == "SESSION_EXPIRED");
    CHECK(ttm::test::contains(str(sc_of(d)["message"]),
                              "passed the age limit"));
  }
}
