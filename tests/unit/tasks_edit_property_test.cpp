// Issue 17 item 6: invariants of the task lifecycle over random bulk-edit
// sequences (fixed seed, a few thousand sequences): active time within a
// run's wall span; busy <= task time <= tasks x session span; consistent
// counts; a failing edit changes nothing; the journal's events replay to
// the same summary; undo of any prefix restores the earlier summary byte
// for byte, and so does the journal, its undone events skipped.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "tools/session_common.hpp"

#include <catch2/catch.hpp>
#include "session_client.hpp"

#include <chrono>
#include <random>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

namespace {

using op = domain::task_op;

std::string encode(const domain::tracking_session& s, domain::instant now) {
  static const auto schema = tools::make_summary_schema(false);
  return schema->encode(tools::summarize(s, now, true));
}

/// One random operation on the tasks "t0".."t5" ("t5" mostly absent).
op random_op(std::mt19937& rng, const domain::tracking_session& s,
             domain::instant now) {
  op o;
  o.kind = static_cast<op::kind_t>(rng() % 8);
  o.task.task_id = "t" + std::to_string(rng() % 6);
  if (o.kind == op::end)
    o.status = static_cast<domain::run_status>(1 + rng() % 3);
  if (o.kind == op::note)
    o.text = "n";
  if (o.kind == op::correct) {
    o.text = "r";
    o.run = rng() % 3;
    auto span = std::max<std::int64_t>(
      1, std::chrono::duration_cast<std::chrono::milliseconds>(now.wall
                                                               - s.start.wall)
           .count());
    auto at = [&] {
      return s.start.wall
             + std::chrono::milliseconds{static_cast<std::int64_t>(
               rng() % static_cast<std::uint64_t>(span + 1000))};
    };
    switch (rng() % 3) {
      case 0:
        o.start_time = at();
        break;
      case 1:
        o.end_time = at();
        break;
      default:
        o.new_status = domain::run_status::skipped;
        break;
    }
  }
  return o;
}

void check_invariants(const domain::tracking_session& s, domain::instant now) {
  auto end = s.end ? s.end->mono : now.mono;
  std::int64_t sum = 0;
  for (const auto& t : s.tasks)
    for (const auto& r : t.runs) {
      auto active = r.duration(end);
      auto stop = r.end ? r.end->mono : end;
      auto span = stop > r.start.mono
                    ? std::chrono::duration_cast<std::chrono::milliseconds>(
                        stop - r.start.mono)
                    : 0ms;
      REQUIRE(active <= span);
      REQUIRE(active.count() >= 0);
      sum += active.count();
    }
  auto totals = s.task_totals(end);
  REQUIRE(totals.task_time.count() == sum);
  REQUIRE(totals.busy <= totals.task_time);
  auto c = s.counts();
  REQUIRE(c.completed + c.skipped + c.failed + c.in_progress + c.interrupted
            + c.not_started
          == s.tasks.size());
}

} // namespace

TEST_CASE("tasks edit property: invariants hold over random bulk edits, "
          "failures change nothing, the journal replays every state",
          "[tasks_edit][issue17][property]") {
  std::mt19937 rng{17};
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  int failures = 0;
  int applied = 0;
  int undone_total = 0;
  for (int seq = 0; seq < 2000; ++seq) {
    domain::fake_clock clock{test::session_client::example_start()};
    domain::tracker tr{[] {
      domain::tracking_limits l;
      l.max_tasks_per_session = 6;
      l.max_runs_per_task = 4;
      return l;
    }()};
    tr.record_changes(true);
    domain::session_request req;
    req.milestone_id = "M";
    req.task_ids = {"t0", "t1", "t2", "t3", "t4"};
    tr.add("s", req, utc, domain::now_of(clock));
    auto& s = *tr.find("s");
    std::vector<domain::change> journal = tr.take_changes();
    tr.commit();
    // The session after each change, for the undo chain below.
    std::vector<domain::tracking_session> states{s};
    int steps = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < steps; ++k) {
      clock.advance(std::chrono::milliseconds{rng() % 5000});
      auto now = domain::now_of(clock);
      std::vector<op> ops;
      auto n = 1 + rng() % 4;
      for (std::size_t j = 0; j < n; ++j)
        ops.push_back(random_op(rng, s, now));
      auto before = encode(s, now);
      auto r = tr.edit_tasks(s, ops, now);
      if (std::holds_alternative<domain::edit_failure>(r)) {
        ++failures;
        REQUIRE(encode(s, now) == before);
        REQUIRE_FALSE(tr.has_changes());
      } else {
        ++applied;
        if (tr.has_changes())
          states.push_back(s);
      }
      for (auto& ch : tr.take_changes())
        journal.push_back(std::move(ch));
      tr.commit();
      check_invariants(s, now);
    }
    if (rng() % 4 == 0) {
      clock.advance(1s);
      tr.end_session(s, domain::now_of(clock));
      states.push_back(s);
      for (auto& ch : tr.take_changes())
        journal.push_back(std::move(ch));
      tr.commit();
    }
    // Busy time within tasks x span; replay reproduces the session.
    clock.advance(std::chrono::milliseconds{rng() % 3000});
    auto now = domain::now_of(clock);
    check_invariants(s, now);
    auto span = s.elapsed(now.mono);
    REQUIRE(s.task_totals(s.end ? s.end->mono : now.mono).task_time
            <= span * static_cast<long>(s.tasks.size()));
    storage::stored_session stored;
    stored.session_id = "s";
    stored.principal = "local";
    for (const auto& ch : journal)
      stored.events.push_back(journal::to_event(ch, "local", clock.boot_id()));
    domain::tracker fresh{tr.limits()};
    std::vector<std::string> problems;
    journal::replay(fresh, {stored}, clock, "UTC", problems);
    INFO("sequence " << seq);
    REQUIRE(problems.empty());
    REQUIRE(fresh.find("s") != nullptr);
    REQUIRE(encode(*fresh.find("s"), now) == encode(s, now));

    // Undo of any prefix restores the earlier summary byte for byte, and
    // the journal (its undone events skipped) replays to it.
    auto undos = rng() % states.size();
    for (std::size_t k = 0; k < undos; ++k) {
      auto u = tr.undo(s, now);
      REQUIRE(std::holds_alternative<domain::undone>(u));
      const auto& earlier = states[states.size() - 2 - k];
      REQUIRE(encode(s, now) == encode(earlier, now));
      REQUIRE(s.bytes == earlier.bytes);
      REQUIRE(s.tasks.size() == earlier.tasks.size());
      for (auto& ch : tr.take_changes())
        journal.push_back(std::move(ch));
      tr.commit();
      check_invariants(s, now);
      ++undone_total;
    }
    if (undos + 1 == states.size()) {
      auto nothing = tr.undo(s, now);
      REQUIRE(std::holds_alternative<domain::tracking_error>(nothing));
      REQUIRE(std::get<domain::tracking_error>(nothing).code
              == "NOTHING_TO_UNDO");
    }
    storage::stored_session after;
    after.session_id = "s";
    after.principal = "local";
    for (const auto& ch : journal) {
      after.events.push_back(journal::to_event(ch, "local", clock.boot_id()));
      // What the journal does: the latest standing change is undone.
      if (ch.kind != domain::change::change_undone)
        continue;
      for (auto e = after.events.rbegin(); e != after.events.rend(); ++e)
        if (storage::undoable(e->kind) && !e->undone) {
          e->undone = true;
          break;
        }
    }
    domain::tracker again{tr.limits()};
    journal::replay(again, {after}, clock, "UTC", problems);
    REQUIRE(problems.empty());
    REQUIRE(again.find("s") != nullptr);
    REQUIRE(encode(*again.find("s"), now) == encode(s, now));
    REQUIRE(domain::tracker::undoable_left(*again.find("s"))
            == domain::tracker::undoable_left(s));
  }
  CHECK(undone_total > 500);
  // The generator exercises both outcomes.
  CHECK(failures > 1000);
  CHECK(applied > 1000);
}
