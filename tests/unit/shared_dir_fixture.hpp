#pragma once

// A server (transport, supervisor, journal actors) on a real SQLite
// directory, on CAF's deterministic scheduler, and more servers on the same
// directory: the fixture of the journal tests through the actors
// (journal_shared_test.cpp, journal_handover_test.cpp).

#include "actor_fixture.hpp"
#include "actors/journal.hpp"
#include "journal/codec.hpp"
#include "storage/sqlite_store.hpp"
#include "session_client.hpp"
#include "test_client_state.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <unordered_map>

namespace ttm::test::shared_dir {

using domain::change;
using ttm::test::parse;
using ttm::test::str;
using ttm::test::temp_dir;

inline std::string tools_call(const std::string& name,
                              const std::string& args, int id) {
  return ttm::test::session_client::tools_call(name, args,
                                              std::to_string(id));
}

inline const std::string init_request
  = ttm::test::initialize_request("2025-11-25");

inline std::string summary_call(int id, const std::string& sid) {
  return tools_call("time_session_summary",
                    R"({"session_id":")" + sid
                      + R"(","include_task_details":false})",
                    id);
}

/// Writes one open session, started by `principal` in `era`, to a journal
/// in `dir`, as a server that has exited since would have.
inline std::string seed_journal(const std::filesystem::path& dir,
                                const std::string& principal,
                                protocol::era era,
                                const domain::fake_clock& clock) {
  auto opened = storage::open_sqlite(
    {dir.string(), storage::sync_mode::normal, "seed"});
  REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
  auto& store = *std::get<storage::store_ptr>(opened);
  change c;
  c.kind = change::session_started;
  c.session_id = "11111111-2222-4333-8444-555555555555";
  c.at = domain::now_of(clock);
  c.session.milestone_id = "M-seed";
  c.session.task_ids = {"a", "b"};
  c.zone_name = "UTC";
  auto r = store.append({journal::to_event(c, principal, clock.boot_id(),
                                          era)});
  REQUIRE(std::holds_alternative<storage::ok>(r));
  return c.session_id;
}

/// A second server process on the fixture's directory: its own
/// supervisor, journal (its own store instance) and transport.
struct server {
  actors::supervisor_actor supervisor;
  actors::journal_actor journal;
  actors::transport_actor transport;
};

/// The fixture's transport, replaced by one with a journal on a real SQLite
/// directory, on CAF's deterministic scheduler; `second()` adds another
/// server on the same directory.
struct shared_dir_fixture : ttm::test::actor_fixture {
  temp_dir dir;
  actors::journal_actor journal;
  std::vector<server> others;

  explicit shared_dir_fixture(actors::supervisor_config sup = {})
    : actor_fixture(ttm::test::test_client_config(), sup) {
  }

  /// While true, the journal's open fails as for a corrupt file.
  std::shared_ptr<bool> broken = std::make_shared<bool>(false);
  /// The stores' max_open_per_principal (0: none).
  std::size_t principal_share = 0;

  actors::journal_actor spawn_journal() {
    actors::journal_config jc;
    auto path = dir.path().string();
    jc.open = [path, broken = broken, share = principal_share]()
      -> storage::result<storage::store_ptr> {
      if (*broken)
        return storage::error{storage::error_kind::corrupt,
                              "the test broke " + path};
      storage::sqlite_options o{path, storage::sync_mode::normal, "t"};
      o.max_age = domain::tracking_limits{}.max_age;
      o.max_idle = domain::tracking_limits{}.max_idle;
      o.max_open_per_principal = share;
      return storage::open_sqlite(o);
    };
    jc.clock = clock;
    return sys.spawn(actors::journal_behavior, jc);
  }

  actors::transport_actor spawn_transport(actors::supervisor_actor sup,
                                          actors::journal_actor j) {
    actors::transport_config tc;
    tc.client = ttm::test::test_client_config();
    tc.client.clock = clock;
    tc.client.journal = true;
    tc.supervisor = std::move(sup);
    tc.journal = std::move(j);
    return sys.spawn(actors::transport_behavior, std::move(tc));
  }

  void start() {
    journal = spawn_journal();
    caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
    transport = spawn_transport(supervisor, journal);
    sched.run();
  }

  void open_journal() {
    caf::anon_send(journal, actors::open_atom::value, transport);
    sched.run();
  }

  /// A journal holding one open session of `principal` in `era` (see
  /// seed_journal), this fixture's server started on it; the session id.
  std::string seeded(const std::string& principal, protocol::era era) {
    auto sid = seed_journal(dir.path(), principal, era, *clock);
    start();
    open_journal();
    return sid;
  }

  /// Server A starts a session (task a); 3 h later server B reads it.
  std::string started_then_read_elsewhere() {
    start();
    open_journal();
    auto& b = second();
    inbound(init_request);
    inbound(init_request, b.transport);
    auto started = inbound(tools_call(
      "time_session_start", R"({"milestone_id":"M","task_ids":["a"]})", 1));
    REQUIRE(code_of(*started) == "");
    auto sid = str(content(*started)["session_id"]);
    clock->advance(std::chrono::hours{3});
    REQUIRE(code_of(*inbound(summary_call(2, sid), b.transport)) == "");
    return sid;
  }

  /// Another server on the directory, its journal open.
  server& second() {
    server s;
    s.supervisor = sys.spawn(actors::supervisor_behavior,
                             actors::supervisor_config{});
    s.journal = spawn_journal();
    s.transport = spawn_transport(s.supervisor, s.journal);
    caf::anon_send(s.journal, actors::open_atom::value, s.transport);
    sched.run();
    others.push_back(std::move(s));
    return others.back();
  }

  ~shared_dir_fixture() {
    for (auto& s : others) {
      caf::anon_send_exit(s.transport, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(s.supervisor, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(s.journal, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
    sched.run();
  }

  using sink = ttm::test::collecting_sink;

  /// A stdio-like frame to `to` (the fixture's transport by default).
  std::shared_ptr<sink> inbound(const std::string& json,
                                actors::transport_actor to = {}) {
    auto s = std::make_shared<sink>();
    caf::anon_send(to ? to : transport, actors::inbound_atom::value,
                   std::string{"stdio"}, mcp::decode(json),
                   actors::sink_ptr{s});
    sched.run();
    return s;
  }

  /// The principal each route was opened by: `forward` sends as it.
  std::unordered_map<std::string, std::string> opened_by;

  std::shared_ptr<sink> open(const std::string& key,
                             const std::string& principal) {
    auto s = std::make_shared<sink>();
    opened_by[key] = principal;
    caf::anon_send(transport, actors::open_atom::value, key, principal,
                   mcp::decode(init_request), actors::sink_ptr{s});
    sched.run();
    return s;
  }

  std::shared_ptr<sink> forward(const std::string& key,
                                const std::string& json) {
    auto s = std::make_shared<sink>();
    caf::anon_send(transport, actors::forward_atom::value, key,
                   opened_by[key], mcp::decode(json), actors::sink_ptr{s});
    sched.run();
    return s;
  }

  /// The structuredContent of a tool reply.
  static rapidjson::Document content(const sink& s) {
    REQUIRE(s.lines.size() == 1);
    auto d = parse(s.lines[0]);
    rapidjson::Document out;
    out.CopyFrom(d["result"]["structuredContent"], out.GetAllocator());
    return out;
  }

  /// The error_code of a tool reply, or "" for success.
  static std::string code_of(const sink& s) {
    auto sc = content(s);
    return sc.HasMember("error_code") ? str(sc["error_code"]) : "";
  }
};

} // namespace ttm::test::shared_dir
