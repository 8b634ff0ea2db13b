// The journal through the actors with a real SQLite directory (issue 15):
// sessions taken over on use (stdio, HTTP reconnects, the other era), two
// servers on one directory (each sees the other's changes, one of two ends
// of a task wins), an idle MCP session's sessions left in the journal, a
// fenced sweep expiry, and a journal that cannot be opened.

#include "shared_dir_fixture.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace ttm;
using namespace ttm::test::shared_dir;
using domain::change;

TEST_CASE("journal: stdio takes a session over from the journal when a call "
          "names it, not at start-up") {
  shared_dir_fixture f;
  auto sid = f.seeded("local", protocol::era::legacy);
  auto init = f.inbound(init_request);
  CHECK(init->lines.size() == 1);
  CHECK(f.slots() == 0); // nothing adopted at start
  auto back = f.inbound(summary_call(1, sid));
  REQUIRE(f.code_of(*back) == "");
  CHECK(str(f.content(*back)["status"]) == "active");
  CHECK(f.slots() == 1);
  CHECK(f.state().directory.at(sid) == "stdio");
}

TEST_CASE("journal: over HTTP a session goes to an MCP session of its "
          "principal and era that names it, a newer MCP session of the same "
          "principal takes it over (a reconnect)") {
  shared_dir_fixture f;
  auto sid = f.seeded("alice", protocol::era::legacy);
  f.open("bob-1", "bob");
  CHECK(f.code_of(*f.forward("bob-1", summary_call(1, sid)))
        == "SESSION_NOT_FOUND");
  f.open("alice-1", "alice");
  CHECK(f.code_of(*f.forward("alice-1", summary_call(2, sid))) == "");
  CHECK(f.state().directory.at(sid) == "alice-1");
  f.open("alice-2", "alice");
  CHECK(f.code_of(*f.forward("alice-2", summary_call(3, sid))) == "");
  CHECK(f.state().directory.at(sid) == "alice-2");
  CHECK(f.slots() == 1); // moved, not counted twice
  CHECK(f.code_of(*f.forward("alice-1", summary_call(4, sid))) == "");
  CHECK(f.slots() == 1);
  // bob still gets nothing.
  CHECK(f.code_of(*f.forward("bob-1", summary_call(5, sid)))
        == "SESSION_NOT_FOUND");
}

TEST_CASE("journal: an idle MCP session ends though it holds a tracking "
          "session, which stays in the journal for its principal") {
  actors::supervisor_config sup;
  sup.mcp_idle_timeout = std::chrono::minutes{30};
  shared_dir_fixture f{sup};
  f.start();
  f.open_journal();
  f.open("alice-1", "alice");
  auto started = f.forward("alice-1", tools_call("time_session_start",
                                                 R"({"milestone_id":"M",)"
                                                 R"("task_ids":["a"]})",
                                                 1));
  REQUIRE(f.code_of(*started) == "");
  auto sid = str(f.content(*started)["session_id"]);
  f.clock->advance(std::chrono::minutes{31});
  f.sched.advance_time(std::chrono::minutes{31});
  f.sched.run();
  CHECK(f.state().routes.count("alice-1") == 0);
  CHECK(f.slots() == 0);
  f.open("alice-2", "alice");
  auto back = f.forward("alice-2", summary_call(2, sid));
  REQUIRE(f.code_of(*back) == "");
  CHECK(str(f.content(*back)["status"]) == "active");
  CHECK(f.slots() == 1);
}

TEST_CASE("journal: a 2026-07-28 session is not taken by a 2025 MCP session "
          "of the same principal") {
  shared_dir_fixture f;
  auto sid = f.seeded("alice", protocol::era::modern);
  f.open("alice-1", "alice");
  CHECK(f.code_of(*f.forward("alice-1", summary_call(1, sid)))
        == "SESSION_NOT_FOUND");
  CHECK(f.state().directory.count(sid) == 0);
  CHECK(f.slots() == 0);
}

TEST_CASE("journal: two servers on one directory: each call sees the other's "
          "changes, and two ends of one task end it once") {
  shared_dir_fixture f;
  f.start();
  f.open_journal();
  auto& b = f.second();
  f.inbound(init_request);
  f.inbound(init_request, b.transport);
  auto started = f.inbound(tools_call(
    "time_session_start", R"({"milestone_id":"M","task_ids":["a","b"]})", 1));
  REQUIRE(f.code_of(*started) == "");
  auto sid = str(f.content(*started)["session_id"]);
  auto task = [&](const char* tool, const char* task_id, int id) {
    return tools_call(tool,
                      R"({"session_id":")" + sid + R"(","task_id":")"
                        + task_id + R"("})",
                      id);
  };
  REQUIRE(f.code_of(*f.inbound(task("time_task_start", "a", 2))) == "");
  // Server B sees task a running, and starts b.
  auto seen = f.inbound(summary_call(3, sid), b.transport);
  REQUIRE(f.code_of(*seen) == "");
  CHECK(f.content(*seen)["tasks_in_progress"].GetInt() == 1);
  REQUIRE(f.code_of(*f.inbound(task("time_task_start", "b", 4), b.transport))
          == "");
  // Both servers end task b at once: exactly one ends it.
  auto s1 = std::make_shared<ttm::test::collecting_sink>();
  auto s2 = std::make_shared<ttm::test::collecting_sink>();
  caf::anon_send(f.transport, actors::inbound_atom::value,
                 std::string{"stdio"},
                 mcp::decode(task("time_task_end", "b", 5)),
                 actors::sink_ptr{s1});
  caf::anon_send(b.transport, actors::inbound_atom::value,
                 std::string{"stdio"},
                 mcp::decode(task("time_task_end", "b", 6)),
                 actors::sink_ptr{s2});
  f.sched.run();
  REQUIRE(f.code_of(*s1) == "");
  REQUIRE(f.code_of(*s2) == "");
  auto e1 = f.content(*s1)["already_ended"].GetBool();
  auto e2 = f.content(*s2)["already_ended"].GetBool();
  CHECK(e1 != e2);
  // Server A sees b ended once, and a still running.
  auto last = f.inbound(summary_call(7, sid));
  REQUIRE(f.code_of(*last) == "");
  CHECK(f.content(*last)["tasks_in_progress"].GetInt() == 1);
  CHECK(f.content(*last)["tasks_completed"].GetInt() == 1);
}

TEST_CASE("journal: a server whose copy of a session idled out while "
          "another server used it does not call it expired") {
  shared_dir_fixture f;
  auto sid = f.started_then_read_elsewhere();
  // Server A's copy has seen no call for 4 h: its sweep expires it, the
  // journal fences that (B holds it), and A forgets it expired.
  f.clock->advance(std::chrono::hours{1} + std::chrono::seconds{1});
  f.sched.advance_time(std::chrono::hours{4} + std::chrono::seconds{1});
  f.sched.run();
  auto later = f.inbound(summary_call(3, sid));
  REQUIRE(f.code_of(*later) == "");
  CHECK(str(f.content(*later)["status"]) == "active");
}

TEST_CASE("journal: a call on a copy that looks idle, while another server "
          "used the session, runs again on the latest state") {
  shared_dir_fixture f;
  auto sid = f.started_then_read_elsewhere();
  // No sweep in between: server A's next call finds its copy idle for 4 h,
  // expires it, and the journal refuses that expiry (B read it an hour ago).
  f.clock->advance(std::chrono::hours{1} + std::chrono::seconds{1});
  auto later = f.inbound(summary_call(3, sid));
  REQUIRE(f.code_of(*later) == "");
  CHECK(str(f.content(*later)["status"]) == "active");
  // And stays usable there.
  REQUIRE(f.code_of(*f.inbound(tools_call(
            "time_task_start",
            R"({"session_id":")" + sid + R"(","task_id":"a"})", 4)))
          == "");
}

TEST_CASE("journal: while the journal cannot be opened, a session it holds "
          "answers STORAGE_UNAVAILABLE, not SESSION_NOT_FOUND, it opens "
          "without a restart once the fault clears") {
  shared_dir_fixture f;
  auto sid = seed_journal(f.dir.path(), "local", protocol::era::legacy,
                          *f.clock);
  *f.broken = true;
  f.start();
  f.inbound(init_request);
  f.open_journal();
  auto held = f.inbound(summary_call(1, sid));
  REQUIRE(held->lines.size() == 1);
  CHECK(f.code_of(*held) == "STORAGE_UNAVAILABLE");
  CHECK(parse(held->lines[0])["result"]["isError"].GetBool());
  // Nothing can start either: it could not be recorded.
  auto started = f.inbound(tools_call(
    "time_session_start", R"({"milestone_id":"M2","task_ids":["x"]})", 2));
  CHECK(f.code_of(*started) == "STORAGE_UNAVAILABLE");
  CHECK(f.slots() == 0);
  // The first retry, a second later, still fails.
  f.sched.advance_time(std::chrono::seconds{1});
  f.sched.run();
  CHECK(f.code_of(*f.inbound(summary_call(3, sid))) == "STORAGE_UNAVAILABLE");
  // The fault clears: the next retry (2 s after the first) opens the
  // journal and the session is back, as it was.
  *f.broken = false;
  f.sched.advance_time(std::chrono::seconds{1});
  f.sched.run();
  CHECK(f.code_of(*f.inbound(summary_call(4, sid))) == "STORAGE_UNAVAILABLE");
  f.sched.advance_time(std::chrono::seconds{1});
  f.sched.run();
  auto back = f.inbound(summary_call(5, sid));
  REQUIRE(f.code_of(*back) == "");
  CHECK(str(f.content(*back)["status"]) == "active");
  CHECK(f.state().directory.at(sid) == "stdio");
  // An id that never existed is SESSION_NOT_FOUND again.
  CHECK(f.code_of(*f.inbound(
          summary_call(6, "99999999-2222-4333-8444-555555555555")))
        == "SESSION_NOT_FOUND");
}

TEST_CASE("journal: over HTTP, while the journal cannot be opened, no "
          "principal is told another's session never existed") {
  shared_dir_fixture f;
  auto sid = seed_journal(f.dir.path(), "alice", protocol::era::legacy,
                          *f.clock);
  *f.broken = true;
  f.start();
  f.open_journal();
  f.open("bob-1", "bob");
  CHECK(f.code_of(*f.forward("bob-1", summary_call(1, sid)))
        == "STORAGE_UNAVAILABLE");
  *f.broken = false;
  f.sched.advance_time(std::chrono::seconds{1});
  f.sched.run();
  // Open: the route opened during the fault hears it cleared.
  CHECK(f.code_of(*f.forward("bob-1", summary_call(2, sid)))
        == "SESSION_NOT_FOUND");
  f.open("alice-1", "alice");
  CHECK(f.code_of(*f.forward("alice-1", summary_call(3, sid))) == "");
}

TEST_CASE("journal: ended sessions read from the journal past the cap give "
          "their slots back: history does not pile up in memory") {
  actors::supervisor_config sup;
  sup.max_sessions = 3;
  shared_dir_fixture f{sup};
  f.start();
  f.open_journal();
  // Another server (its own cap) starts and ends six sessions.
  auto& b = f.second();
  f.inbound(init_request, b.transport);
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    auto started = f.inbound(tools_call("time_session_start",
                                        R"({"milestone_id":"M","task_ids":["a"]})",
                                        10 + i),
                             b.transport);
    REQUIRE(f.code_of(*started) == "");
    ids.push_back(str(f.content(*started)["session_id"]));
    REQUIRE(f.code_of(*f.inbound(tools_call("time_session_end",
                                            R"({"session_id":")" + ids.back()
                                              + R"("})",
                                            20 + i),
                                 b.transport))
            == "");
  }
  // This server reads each of them: each takes a slot, and the ended ones
  // before it make room.
  f.inbound(init_request);
  int n = 30;
  for (const auto& id : ids) {
    auto back = f.inbound(summary_call(n++, id));
    REQUIRE(f.code_of(*back) == "");
    CHECK(str(f.content(*back)["status"]) == "ended");
    CHECK(f.slots() <= 3);
  }
  // An evicted one loads again when named.
  CHECK(f.code_of(*f.inbound(summary_call(n++, ids.front()))) == "");
  CHECK(f.slots() <= 3);
}

TEST_CASE("journal: two servers receiving the same keyed time_session_start "
          "at once make one session, the later gets it with already_started",
          "[issue34]") {
  shared_dir_fixture f;
  f.start();
  f.open_journal();
  auto& b = f.second();
  f.inbound(init_request);
  f.inbound(init_request, b.transport);
  const auto start = tools_call(
    "time_session_start",
    R"({"milestone_id":"M","task_ids":["a"],"idempotency_key":"once"})", 1);
  // Both look the key up before either writes.
  auto s1 = std::make_shared<ttm::test::collecting_sink>();
  auto s2 = std::make_shared<ttm::test::collecting_sink>();
  caf::anon_send(f.transport, actors::inbound_atom::value,
                 std::string{"stdio"}, mcp::decode(start),
                 actors::sink_ptr{s1});
  caf::anon_send(b.transport, actors::inbound_atom::value,
                 std::string{"stdio"}, mcp::decode(start),
                 actors::sink_ptr{s2});
  f.sched.run();
  REQUIRE(f.code_of(*s1) == "");
  REQUIRE(f.code_of(*s2) == "");
  auto one = f.content(*s1);
  auto two = f.content(*s2);
  CHECK(str(one["session_id"]) == str(two["session_id"]));
  CHECK(one["already_started"].GetBool() != two["already_started"].GetBool());
  auto opened = storage::open_sqlite(
    {f.dir.path().string(), storage::sync_mode::normal, "check"});
  REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
  auto all = std::get<storage::store_ptr>(opened)->history({});
  REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(all));
  CHECK(std::get<std::vector<storage::stored_session>>(all).size() == 1);
  // Each server goes on with it: a task started through one is seen by the
  // other.
  auto sid = str(one["session_id"]);
  REQUIRE(f.code_of(*f.inbound(tools_call(
            "time_task_start",
            R"({"session_id":")" + sid + R"(","task_id":"a"})", 2),
            b.transport))
          == "");
  auto seen = f.inbound(summary_call(3, sid));
  REQUIRE(f.code_of(*seen) == "");
  CHECK(f.content(*seen)["tasks_in_progress"].GetInt() == 1);
}

TEST_CASE("journal: over HTTP two MCP sessions of one principal retrying a "
          "keyed time_session_start at once make one session",
          "[issue34]") {
  shared_dir_fixture f;
  f.start();
  f.open_journal();
  f.open("alice-1", "alice");
  f.open("alice-2", "alice");
  const auto start = tools_call(
    "time_session_start",
    R"({"milestone_id":"M","task_ids":["a"],"idempotency_key":"retry"})", 1);
  auto send = [&](const std::string& key) {
    auto s = std::make_shared<ttm::test::collecting_sink>();
    caf::anon_send(f.transport, actors::forward_atom::value, key,
                   f.opened_by[key], mcp::decode(start), actors::sink_ptr{s});
    return s;
  };
  auto s1 = send("alice-1");
  auto s2 = send("alice-2");
  f.sched.run();
  REQUIRE(f.code_of(*s1) == "");
  REQUIRE(f.code_of(*s2) == "");
  auto one = f.content(*s1);
  auto two = f.content(*s2);
  CHECK(str(one["session_id"]) == str(two["session_id"]));
  CHECK(one["already_started"].GetBool() != two["already_started"].GetBool());
  CHECK(f.slots() == 1);
}

TEST_CASE("journal: a principal's share of open sessions counts over every "
          "server on the directory: LIMIT_REACHED names the option",
          "[issue34]") {
  shared_dir_fixture f;
  f.principal_share = 2;
  f.start();
  f.open_journal();
  f.inbound(init_request);
  auto start = [](int id) {
    return tools_call("time_session_start",
                      R"({"milestone_id":"M","task_ids":["a"]})", id);
  };
  auto first = f.inbound(start(1));
  REQUIRE(f.code_of(*first) == "");
  REQUIRE(f.code_of(*f.inbound(start(2))) == "");
  // Another server (as a stdio server started after the first): its own
  // supervisor counts none of them.
  auto& b = f.second();
  f.inbound(init_request, b.transport);
  auto refused = f.inbound(start(3), b.transport);
  REQUIRE(f.code_of(*refused) == "LIMIT_REACHED");
  auto sc = f.content(*refused);
  CHECK(str(sc["limit"]) == "max_tracking_sessions_per_principal");
  CHECK(str(sc["message"]).find("The limit of 2 open tracking sessions per "
                                "principal (max_tracking_sessions_per_"
                                "principal) is reached")
        != std::string::npos);
  // Ending one through the first server makes room for the second.
  auto sid = str(f.content(*first)["session_id"]);
  REQUIRE(f.code_of(*f.inbound(tools_call("time_session_end",
                                          R"({"session_id":")" + sid
                                            + R"("})",
                                          4)))
          == "");
  CHECK(f.code_of(*f.inbound(start(5), b.transport)) == "");
  CHECK(f.code_of(*f.inbound(start(6))) == "LIMIT_REACHED");
}
