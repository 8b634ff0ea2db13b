// --request-timeout at the journal actor: an append past its deadline before
// its transaction begins is answered `timed_out` and writes nothing; one
// whose wait for another connection's write lock outlasts its deadline is
// rolled back and answered the same. Driven by CAF's test scheduler and a
// fake clock; the lock is a real second SQLite connection.

#include "actor_fixture.hpp"
#include "actors/journal.hpp"
#include "mcp/wire.hpp"
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

TEST_CASE("request timeout: a client's write and the request queued behind "
          "it, both past their deadline: -32051, nothing runs",
          "[request_timeout]") {
  fixture f;
  auto supervisor
    = f.sys->spawn(actors::supervisor_behavior, actors::supervisor_config{});
  actors::transport_config tc;
  tc.client = ttm::test::test_client_config();
  tc.client.clock = f.clock;
  tc.client.journal = true;
  tc.client.request_timeout = 1s;
  tc.supervisor = supervisor;
  tc.journal = f.journal;
  auto transport = f.sys->spawn(actors::transport_behavior, std::move(tc));
  f.sched->run();
  auto sink = std::make_shared<ttm::test::collecting_sink>();
  auto send = [&](const std::string& json) {
    caf::anon_send(transport, actors::inbound_atom::value, std::string{"stdio"},
                   mcp::decode(json), actors::sink_ptr{sink});
  };
  send(ttm::test::initialize_request("2025-11-25"));
  f.sched->run();
  REQUIRE(sink->lines.size() == 1);
  send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"time_session_start","arguments":{"milestone_id":"M","task_ids":["a"]}}})");
  send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  // Run until the write's append waits in the journal's batch (the ping is
  // queued behind the write at its client by then); then both wait past
  // their deadline.
  auto& journal = dynamic_cast<caf::stateful_actor<
    actors::journal_state, actors::journal_actor::base>*>(
                    caf::actor_cast<caf::abstract_actor*>(f.journal))
                    ->state;
  while (journal.batch.empty())
    REQUIRE(f.sched->try_run_once());
  f.clock->advance(2s);
  f.sched->run();
  REQUIRE(sink->lines.size() == 3);
  INFO(sink->lines[1] << "\n" << sink->lines[2]);
  for (std::size_t i = 1; i < 3; ++i) {
    auto d = ttm::test::parse(sink->lines[i]);
    CHECK(d["id"].GetInt() == static_cast<int>(i));
    CHECK(d["error"]["code"].GetInt() == -32051);
  }
  CHECK(sink->lines[1].find("session journal") != std::string::npos);
  CHECK(sink->lines[2].find("behind this client's earlier requests")
        != std::string::npos);
  CHECK(f.stored() == 0);
  caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  f.sched->run();
}
