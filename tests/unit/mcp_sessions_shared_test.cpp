// Issue 32 item 2: MCP sessions of the 2025 eras kept in the journal, so
// that any server on a data directory answers any Mcp-Session-Id. Two
// "servers" (each its own supervisor, journal actor with its own store
// instance, and transport) on one SQLite directory, on CAF's
// deterministic scheduler; time from the fixture's fake clock.

#include "actor_fixture.hpp"
#include "actors/journal.hpp"
#include "storage/change_signal.hpp"
#include "storage/pg_listener.hpp"
#include "storage/pg_store.hpp"
#include "storage/sqlite_store.hpp"
#include "test_client_state.hpp"
#include "test_json.hpp"

#include "temp_dir.hpp"
#include "pg_server_script.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>

#include <libpq-fe.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace ttm;

namespace {

using ttm::test::collecting_sink;
using ttm::test::parse;
using ttm::test::str;
using ttm::test::temp_dir;

const std::string init = ttm::test::initialize_request("2025-06-18");

std::string get_current(int id) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":"time_get_current",)"
           R"("arguments":{"timezone":"UTC"}}})";
}

std::string set_level(int id, const char* level) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"logging/setLevel","params":{"level":")" + level
         + "\"}}";
}

/// The PostgreSQL of ctest unit.storage_pg (tests/scripts/storage_pg.sh),
/// or null: the [.pg] cases need it.
const char* pg_uri() {
  auto* v = std::getenv("TTM_TEST_PG_URI");
  return v && *v ? v : nullptr;
}

struct node {
  actors::supervisor_actor supervisor;
  actors::journal_actor journal;
  actors::transport_actor transport;
  /// On PostgreSQL: the node's own change signal and its listener.
  storage::change_signal_ptr signal;
  std::shared_ptr<storage::pg_listener> listener;
};

/// Waits (bounded) until `done` holds: for a notification's delivery, or
/// a listener's connection, which take real time on another thread.
bool eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 1000; ++i) {
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  return done();
}

/// First base of the fixture: a [.pg] case run without a server fails here,
/// before any actor is spawned (a REQUIRE failing inside spawn_node left
/// the nodes' actors running, and the actor system's end waited for them).
struct pg_required {
  explicit pg_required(bool pg) {
    if (pg && pg_uri() == nullptr)
      FAIL("a [.pg] case needs TTM_TEST_PG_URI: ctest -R unit.storage_pg "
           "runs them with a server of its own");
  }
};

struct two_nodes : pg_required, ttm::test::actor_fixture {
  temp_dir dir;
  /// With the directory's change signal (as HTTP servers on SQLite map it):
  /// frames on a stored session skip the journal until a record changes.
  storage::change_signal_ptr signal;
  node a;
  node b;

  /// On PostgreSQL (one schema per directory) instead, each node with its
  /// listener and change signal, as HTTP servers there.
  bool on_pg = false;

  explicit two_nodes(std::size_t max_clients_b = 10, bool with_signal = false,
                     bool pg = false)
    : pg_required(pg), actor_fixture(ttm::test::test_client_config(), {}),
      on_pg(pg) {
    if (with_signal && !on_pg)
      signal = open_signal();
    caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
    a = spawn_node(10);
    b = spawn_node(max_clients_b);
    sched.run();
  }

  ~two_nodes() {
    for (auto* n : {&a, &b}) {
      caf::anon_send_exit(n->transport, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(n->supervisor, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(n->journal, caf::exit_reason::user_shutdown);
    }
    sched.run();
  }

  node spawn_node(std::size_t max_clients) {
    node n;
    actors::supervisor_config sup;
    sup.max_clients = max_clients;
    n.supervisor = sys.spawn(actors::supervisor_behavior, sup);
    actors::journal_config jc;
    jc.open = [this] { return open_store("mcp-sessions-test"); };
    jc.clock = clock;
    jc.mcp_idle_timeout = std::chrono::minutes{30};
    auto sig = signal;
    if (on_pg) {
      n.signal = sig = storage::change_signal::in_memory();
      REQUIRE(sig != nullptr);
      n.listener = std::make_shared<storage::pg_listener>(pg_options(""),
                                                          sig);
      REQUIRE(eventually([&] { return sig->listening(); }));
    }
    jc.mcp_changes = sig;
    n.journal = sys.spawn(actors::journal_behavior, jc);
    actors::transport_config tc;
    tc.client = ttm::test::test_client_config();
    tc.client.clock = clock;
    tc.client.journal = true;
    tc.supervisor = n.supervisor;
    tc.journal = n.journal;
    if (sig)
      actors::set_mcp_recheck(tc, sig, jc.mcp_idle_timeout);
    n.transport = sys.spawn(actors::transport_behavior, std::move(tc));
    caf::anon_send(n.journal, actors::open_atom::value, n.transport);
    return n;
  }

  std::shared_ptr<collecting_sink> open(node& n, const std::string& key,
                                        const std::string& principal) {
    auto s = std::make_shared<collecting_sink>();
    caf::anon_send(n.transport, actors::open_atom::value, key, principal,
                   mcp::decode(init), actors::sink_ptr{s});
    sched.run();
    return s;
  }

  std::shared_ptr<collecting_sink> forward(node& n, const std::string& key,
                                           const std::string& principal,
                                           const std::string& json) {
    auto s = std::make_shared<collecting_sink>();
    caf::anon_send(n.transport, actors::forward_atom::value, key, principal,
                   mcp::decode(json), actors::sink_ptr{s});
    sched.run();
    return s;
  }

  std::shared_ptr<collecting_sink> end(node& n, const std::string& key,
                                       const std::string& principal) {
    auto s = std::make_shared<collecting_sink>();
    caf::anon_send(n.transport, actors::end_atom::value, key, principal,
                   actors::sink_ptr{s});
    sched.run();
    return s;
  }

  actors::transport_state& state_of(node& n) {
    auto* ptr = dynamic_cast<transport_impl*>(
      caf::actor_cast<caf::abstract_actor*>(n.transport));
    REQUIRE(ptr != nullptr);
    return ptr->state;
  }

  /// The signal file mapped once more, as another process maps it.
  storage::change_signal_ptr open_signal() {
    std::string why;
    auto s = storage::change_signal::open(
      (dir.path() / "mcp_sessions.signal").string(), why);
    INFO(why);
    REQUIRE(s != nullptr);
    return s;
  }

  storage::pg_options pg_options(const std::string& instance) const {
    REQUIRE(pg_uri() != nullptr);
    storage::pg_options o;
    o.conninfo = pg_uri();
    o.schema = "m_" + std::to_string(std::hash<std::string>{}(
                        dir.path().string()));
    o.instance = instance;
    return o;
  }

  storage::result<storage::store_ptr> open_store(const char* instance) {
    if (on_pg)
      return storage::open_postgresql(pg_options(instance));
    return storage::open_sqlite(
      {dir.path().string(), storage::sync_mode::normal, instance});
  }

  /// The MCP session as the journal has it (a store of its own).
  std::optional<storage::mcp_session_record> stored(const std::string& id) {
    auto st = open_store("inspect");
    REQUIRE(std::holds_alternative<storage::store_ptr>(st));
    auto r = std::get<storage::store_ptr>(st)->get_mcp_session(id);
    REQUIRE(std::holds_alternative<std::optional<storage::mcp_session_record>>(
      r));
    return std::get<std::optional<storage::mcp_session_record>>(r);
  }
};

/// Removes MCP session `id` from the journal the way no server does: without
/// bumping the change signal.
void remove_unsignalled(two_nodes& f, const std::string& id) {
  if (f.on_pg) {
    // No server deletes without notifying: SQL of our own.
    PGconn* c = PQconnectdb(pg_uri());
    REQUIRE(PQstatus(c) == CONNECTION_OK);
    auto sql = "DELETE FROM " + f.pg_options("").schema
               + ".mcp_sessions WHERE id = '" + id + "'";
    PGresult* r = PQexec(c, sql.c_str());
    INFO(PQresultErrorMessage(r));
    CHECK(PQresultStatus(r) == PGRES_COMMAND_OK);
    CHECK(std::string{PQcmdTuples(r)} == "1");
    PQclear(r);
    PQfinish(c);
    return;
  }
  auto st = storage::open_sqlite(
    {f.dir.path().string(), storage::sync_mode::normal, "behind"});
  REQUIRE(std::holds_alternative<storage::store_ptr>(st));
  auto r = std::get<storage::store_ptr>(st)->remove_mcp_session(id);
  REQUIRE(std::holds_alternative<bool>(r));
  REQUIRE(std::get<bool>(r));
}

/// The response (last line) of a sink: a result, not an error.
rapidjson::Document result_of(const collecting_sink& s) {
  REQUIRE(!s.lines.empty());
  auto d = parse(s.lines.back());
  INFO(s.lines.back());
  REQUIRE(d.HasMember("result"));
  return d;
}

} // namespace

TEST_CASE("mcp sessions: initialized on one server, served by another with "
          "its revision, principal and log level, and DELETE there ends it for "
          "both",
          "[actors][issue32]") {
  bool with_signal = GENERATE(false, true);
  two_nodes f{10, with_signal};
  const std::string key = "0123456789abcdef0123456789abcdef";
  auto init_reply = f.open(f.a, key, "alice");
  REQUIRE(init_reply->lines.size() == 1);
  CHECK(str(parse(init_reply->lines[0])["result"]["protocolVersion"])
        == "2025-06-18");
  // Stored before the reply went out.
  auto rec = f.stored(key);
  REQUIRE(rec.has_value());
  CHECK(rec->principal == "alice");
  auto state = parse(rec->state);
  CHECK(str(state["revision"]) == "2025-06-18");
  CHECK(str(state["client"]["clientInfo"]["name"]) == "test");
  CHECK_FALSE(state.HasMember("log_level"));

  // B never saw the id: it restores the session from the journal.
  auto on_b = f.forward(f.b, key, "alice", get_current(2));
  result_of(*on_b);
  CHECK(on_b->notification_lines.empty()); // no log level yet
  REQUIRE(f.state_of(f.b).routes.count(key) == 1);
  CHECK(f.state_of(f.b).routes.at(key).stored);

  // Another principal naming it gets what an unknown id gets, on B too.
  auto stranger = f.forward(f.b, key, "mallory", get_current(3));
  REQUIRE(stranger->refusals.size() == 1);
  CHECK(stranger->refusals[0] == actors::route_refusal::unknown_route);
  auto never = f.forward(f.b, "ffffffffffffffffffffffffffffffff", "alice",
                         get_current(3));
  REQUIRE(never->refusals.size() == 1);
  CHECK(never->refusals[0] == actors::route_refusal::unknown_route);

  // logging/setLevel on A holds on B, which had restored it before.
  result_of(*f.forward(f.a, key, "alice", set_level(4, "debug")));
  CHECK(str(parse(f.stored(key)->state)["log_level"]) == "debug");
  auto logged = f.forward(f.b, key, "alice", get_current(5));
  result_of(*logged);
  CHECK_FALSE(logged->notification_lines.empty());

  // DELETE on B: A, which issued it, answers 404 from now on.
  auto ended = f.end(f.b, key, "alice");
  CHECK(ended->closed == 1);
  CHECK(ended->refusals.empty());
  CHECK_FALSE(f.stored(key).has_value());
  auto after = f.forward(f.a, key, "alice", get_current(6));
  REQUIRE(after->refusals.size() == 1);
  CHECK(after->refusals[0] == actors::route_refusal::unknown_route);
  CHECK(f.state_of(f.a).routes.count(key) == 0);
}

TEST_CASE("mcp sessions: DELETE on the server that never saw the id, by its "
          "principal only",
          "[actors][issue32]") {
  two_nodes f;
  const std::string key = "00000000000000000000000000000001";
  f.open(f.a, key, "alice");
  auto wrong = f.end(f.b, key, "mallory");
  REQUIRE(wrong->refusals.size() == 1);
  CHECK(f.stored(key).has_value());
  auto ended = f.end(f.b, key, "alice");
  CHECK(ended->closed == 1);
  CHECK_FALSE(f.stored(key).has_value());
  auto gone = f.end(f.b, key, "alice");
  REQUIRE(gone->refusals.size() == 1);
  CHECK(gone->refusals[0] == actors::route_refusal::unknown_route);
}

TEST_CASE("mcp sessions: an idle one is removed from the journal by a "
          "server's sweep, and is unknown everywhere after",
          "[actors][issue32]") {
  bool with_signal = GENERATE(false, true);
  two_nodes f{10, with_signal};
  const std::string key = "00000000000000000000000000000002";
  f.open(f.a, key, "alice");
  result_of(*f.forward(f.b, key, "alice", get_current(2)));
  // In use through B: its use is recorded (at most once a minute), so A's
  // sweep keeps it.
  f.clock->advance(std::chrono::minutes{20});
  result_of(*f.forward(f.b, key, "alice", get_current(3)));
  f.clock->advance(std::chrono::minutes{20});
  caf::anon_send(f.a.journal, actors::sweep_atom::value);
  f.sched.run();
  REQUIRE(f.stored(key).has_value());
  // Unused past the idle timeout (30 min, plus a minute of coalescing).
  f.clock->advance(std::chrono::minutes{12});
  caf::anon_send(f.b.journal, actors::sweep_atom::value);
  caf::anon_send(f.a.journal, actors::sweep_atom::value);
  f.sched.run();
  CHECK_FALSE(f.stored(key).has_value());
  auto after = f.forward(f.b, key, "alice", get_current(4));
  REQUIRE(after->refusals.size() == 1);
  CHECK(after->refusals[0] == actors::route_refusal::unknown_route);
}

TEST_CASE("mcp sessions: with the directory's change signal, frames on a "
          "stored session skip the journal until a server changes its record "
          "or the re-check interval passes",
          "[actors][issue32]") {
  two_nodes f{10, true};
  const std::string key = "00000000000000000000000000000005";
  f.open(f.a, key, "alice");
  result_of(*f.forward(f.a, key, "alice", get_current(2))); // read once
  // Removed behind the signal's back (no server does that): A does not
  // ask, so its copy answers.
  remove_unsignalled(f, key);
  result_of(*f.forward(f.a, key, "alice", get_current(3)));
  // Any server's change of a record in its slot (here: another process's
  // mapping of the file): the next frame asks, and finds it gone.
  f.open_signal()->bump(storage::change_signal::slot_of(key));
  auto gone = f.forward(f.a, key, "alice", get_current(4));
  REQUIRE(gone->refusals.size() == 1);
  CHECK(gone->refusals[0] == actors::route_refusal::unknown_route);

  // Without a change, the re-check interval (30 s here) bounds the copy's
  // life, and keeps the session's use recorded.
  const std::string other = "00000000000000000000000000000006";
  f.open(f.a, other, "alice");
  result_of(*f.forward(f.a, other, "alice", get_current(5)));
  remove_unsignalled(f, other);
  f.clock->advance(std::chrono::seconds{29});
  result_of(*f.forward(f.a, other, "alice", get_current(6)));
  f.clock->advance(std::chrono::seconds{1});
  auto expired = f.forward(f.a, other, "alice", get_current(7));
  REQUIRE(expired->refusals.size() == 1);
  CHECK(expired->refusals[0] == actors::route_refusal::unknown_route);
}

TEST_CASE("mcp sessions: a server at its cap of MCP sessions answers a "
          "restored one busy, as a new one",
          "[actors][issue32]") {
  two_nodes f{1};
  f.open(f.b, "00000000000000000000000000000003", "bob");
  const std::string key = "00000000000000000000000000000004";
  f.open(f.a, key, "alice");
  auto busy = f.forward(f.b, key, "alice", get_current(2));
  REQUIRE(busy->refusals.size() == 1);
  CHECK(busy->refusals[0] == actors::route_refusal::busy);
  CHECK(f.stored(key).has_value()); // still A's, and B's once it has room
  result_of(*f.forward(f.a, key, "alice", get_current(3)));
}

TEST_CASE("mcp sessions: the session state round-trips through the journal's "
          "JSON",
          "[mcp][issue32]") {
  auto s = ttm::test::session();
  ttm::test::call(s, init);
  auto out = ttm::test::send(s, set_level(2, "debug"));
  REQUIRE_FALSE(out.mcp_state.empty());
  auto json = s.state_json();
  CHECK(json == out.mcp_state);
  // A call that changes nothing of it sends nothing.
  CHECK(ttm::test::send(s, get_current(3)).mcp_state.empty());

  auto copy = ttm::test::session();
  REQUIRE(copy.restore(json));
  CHECK(copy.revision() == "2025-06-18");
  CHECK(copy.initialized());
  CHECK(copy.state_json() == json);
  auto reply = ttm::test::send(copy, get_current(4));
  CHECK_FALSE(reply.notifications.empty()); // the debug level came along
  auto bad = ttm::test::session();
  CHECK_FALSE(bad.restore("{}"));
  CHECK_FALSE(bad.restore(R"({"revision":"2025-06-18","log_level":"loud"})"));
  CHECK_FALSE(bad.initialized());
}

namespace {

/// Waits until node `n` heard of a change to `key` since its slot's count
/// was `before` (another node's NOTIFY, delivered to its listener).
void heard_of(node& n, const std::string& key, std::uint64_t before) {
  auto slot = storage::change_signal::slot_of(key);
  REQUIRE(eventually([&] { return n.signal->load(slot) != before; }));
}

std::uint64_t count_of(node& n, const std::string& key) {
  return n.signal->load(storage::change_signal::slot_of(key));
}

} // namespace

TEST_CASE("mcp sessions on postgresql: a node serves a known MCP session "
          "from its copy until another node's change is notified (DELETE, "
          "setLevel); while it is not listening every copy is stale",
          "[.pg][issue32]") {
  two_nodes f{10, true, true};
  const std::string key = "00000000000000000000000000000007";
  // (B hears of the initialize too; a copy made before that is read again
  // once: waited for here, so that what follows is exact.)
  auto before = count_of(f.b, key);
  f.open(f.a, key, "alice");
  heard_of(f.b, key, before);
  result_of(*f.forward(f.b, key, "alice", get_current(2))); // restored
  // The cache-hit case: B reads nothing. Removed behind every listener's
  // back (no server does that), B's copy still answers.
  remove_unsignalled(f, key);
  result_of(*f.forward(f.b, key, "alice", get_current(3)));
  result_of(*f.forward(f.b, key, "alice", get_current(4)));

  // logging/setLevel on A: B's next frame has the new level.
  const std::string other = "00000000000000000000000000000008";
  before = count_of(f.b, other);
  f.open(f.a, other, "alice");
  heard_of(f.b, other, before);
  result_of(*f.forward(f.b, other, "alice", get_current(5)));
  before = count_of(f.b, other);
  result_of(*f.forward(f.a, other, "alice", set_level(6, "debug")));
  heard_of(f.b, other, before);
  auto logged = f.forward(f.b, other, "alice", get_current(7));
  result_of(*logged);
  CHECK_FALSE(logged->notification_lines.empty());

  // DELETE on A: B's next request gets what an unknown id gets (404).
  before = count_of(f.b, other);
  auto ended = f.end(f.a, other, "alice");
  CHECK(ended->closed == 1);
  heard_of(f.b, other, before);
  auto gone = f.forward(f.b, other, "alice", get_current(8));
  REQUIRE(gone->refusals.size() == 1);
  CHECK(gone->refusals[0] == actors::route_refusal::unknown_route);

  // PostgreSQL restarted: B's listener lost its connection, so what was
  // notified meanwhile went unheard. No copy is trusted until it listens
  // again, and none made before then after: B asks, and finds `key` gone.
  REQUIRE(ttm::test::pg_server_script("stop") == 0);
  CHECK(eventually([&] { return !f.b.signal->listening(); }));
  REQUIRE(ttm::test::pg_server_script("start") == 0);
  REQUIRE(eventually([&] { return f.b.signal->listening(); }));
  CHECK(f.b.listener->listens() >= 2);
  // B's journal finds its own connection lost at its first call (an id it
  // does not know, answered as unknown) and reconnects at the next.
  const std::string unknown = "ffffffffffffffffffffffffffffffff";
  for (int id : {10, 11})
    CHECK(f.forward(f.b, unknown, "alice", get_current(id))->refusals.size()
          == 1);
  auto stale = f.forward(f.b, key, "alice", get_current(9));
  REQUIRE(stale->refusals.size() == 1);
  CHECK(stale->refusals[0] == actors::route_refusal::unknown_route);
}
