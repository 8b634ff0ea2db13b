// --request-timeout at the journal actor: an append past its deadline before
// its transaction begins is answered `timed_out` and writes nothing; one
// whose wait for another connection's write lock outlasts its deadline is
// rolled back and answered the same. Driven by CAF's test scheduler and a
// fake clock; the lock is a real second SQLite connection.

#include "actors/journal.hpp"
#include "journal/codec.hpp"
#include "storage/sqlite_store.hpp"
#include "test_client_state.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sqlite3.h>

using namespace ttm;
using namespace std::chrono_literals;
using domain::change;

namespace {

struct fixture {
  ttm::test::temp_dir dir;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::scheduler::test_coordinator* sched = nullptr;
  std::shared_ptr<domain::fake_clock> clock
    = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  std::shared_ptr<storage::store> store;
  actors::journal_actor journal;

  fixture() {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.console-verbosity", caf::atom("quiet"));
    sys = std::make_unique<caf::actor_system>(cfg);
    sched = &dynamic_cast<caf::scheduler::test_coordinator&>(sys->scheduler());
    auto opened = storage::open_sqlite(
      {dir.path().string(), storage::sync_mode::normal, "test"});
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    store = std::move(std::get<storage::store_ptr>(opened));
    actors::journal_config jc;
    jc.store = store;
    jc.clock = clock;
    journal = sys->spawn(actors::journal_behavior, jc);
    sched->run();
  }

  ~fixture() {
    caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
    sched->run();
  }

  std::vector<storage::event> start_of(const std::string& id) {
    change c;
    c.kind = change::session_started;
    c.session_id = id;
    c.at = domain::now_of(*clock);
    c.session.milestone_id = "M-" + id;
    c.zone_name = "UTC";
    return {journal::to_event(c, "local", clock->boot_id())};
  }

  std::int64_t in(std::chrono::nanoseconds d) const {
    return domain::to_ns(clock->mono_now()) + d.count();
  }

  /// Sends the appends (events, deadline) together; `before_run` happens
  /// after they are sent and before the journal handles them.
  template <class F>
  std::vector<storage::append_answer>
  append(std::vector<std::pair<std::string, std::int64_t>> appends,
         F before_run) {
    auto answers = std::make_shared<std::vector<storage::append_answer>>();
    std::vector<std::pair<std::vector<storage::event>, std::int64_t>> msgs;
    for (const auto& [id, deadline] : appends)
      msgs.emplace_back(start_of(id), deadline);
    auto j = journal;
    sys->spawn(
      [=](caf::event_based_actor* self, int) {
        for (const auto& [events, deadline] : msgs)
          self
            ->request(j, caf::infinite, actors::append_atom::value, events,
                      deadline)
            .then([=](const storage::append_answer& r) {
              answers->push_back(r);
            });
      },
      0);
    // The requests are sent; the journal has not run yet.
    sched->run_once();
    before_run();
    sched->run();
    return *answers;
  }

  std::size_t stored() {
    storage::history_query all;
    auto r = store->history(all);
    REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(r));
    return std::get<std::vector<storage::stored_session>>(r).size();
  }
};

} // namespace

TEST_CASE("request timeout: an append queued past its deadline writes "
          "nothing", "[request_timeout]") {
  fixture f;
  // Two appends queued together; the clock moves past the first's
  // deadline before the journal gets to them.
  auto answers = f.append({{"late", f.in(1s)}, {"fine", f.in(10s)}},
                          [&] { f.clock->advance(2s); });
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].kind == storage::append_answer::timed_out);
  CHECK(answers[0].error.find("--request-timeout") != std::string::npos);
  CHECK(answers[1].kind == storage::append_answer::stored);
  CHECK(f.stored() == 1);
  // Deadline 0: none, however long it waited.
  answers = f.append({{"patient", 0}}, [&] { f.clock->advance(1h); });
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].kind == storage::append_answer::stored);
  CHECK(f.stored() == 2);
}

TEST_CASE("request timeout: a write lock held by another connection past "
          "the deadline: rolled back, timed out", "[request_timeout]") {
  fixture f;
  sqlite3* other = nullptr;
  auto path = (f.dir.path() / "journal.sqlite3").string();
  REQUIRE(sqlite3_open(path.c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr)
          == SQLITE_OK);
  // The journal waits for the lock at most until the deadline (50 ms of
  // real time: SQLite's busy handler sleeps), not its 2 s busy timeout.
  auto t0 = std::chrono::steady_clock::now();
  auto answers = f.append({{"blocked", f.in(50ms)}}, [] {});
  auto waited = std::chrono::steady_clock::now() - t0;
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].kind == storage::append_answer::timed_out);
  CHECK(waited >= 50ms);
  CHECK(waited < 1500ms);
  REQUIRE(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr)
          == SQLITE_OK);
  sqlite3_close(other);
  CHECK(f.stored() == 0);
  // The bound ends with the flush: a write without a deadline waits as
  // before, and goes through once the lock is free.
  answers = f.append({{"after", 0}}, [] {});
  REQUIRE(answers.size() == 1);
  CHECK(answers[0].kind == storage::append_answer::stored);
  CHECK(f.stored() == 1);
}
