// The shares of the tracking-session cap (issue 21 item 4), through the real
// actors on CAF's deterministic scheduler: one MCP session, or one
// principal, cannot take every slot; the refusal names the limit it hit;
// ended and expired sessions free a share; the global cap still reclaims.

#include "actors/transport.hpp"
#include "mcp/wire.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

using namespace ttm;
using namespace std::chrono_literals;
using namespace ttm::test;

namespace {

std::string initialize_request(int id) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"initialize","params":{)"
           R"("protocolVersion":"2025-11-25","capabilities":{},)"
           R"("clientInfo":{"name":"share-test","version":"1"}}})";
}

std::string tool_call(int id, const std::string& tool,
                      const std::string& args) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":")" + tool
         + R"(","arguments":)" + args + "}}";
}

std::string start_args(const std::string& milestone) {
  return R"({"milestone_id":")" + milestone + R"(","task_ids":["T1"]})";
}

std::string session_args(const std::string& id) {
  return R"({"session_id":")" + id + R"("})";
}

struct share_fixture : actor_fixture {
  share_fixture(std::size_t cap, std::size_t per_principal,
                std::size_t per_mcp_session)
    : actor_fixture(test_client_config(limits(cap)),
                    supervisor_config(cap, per_principal, per_mcp_session)) {
  }

  static domain::tracking_limits limits(std::size_t cap) {
    domain::tracking_limits l;
    l.max_sessions = cap;
    return l;
  }

  static actors::supervisor_config
  supervisor_config(std::size_t cap, std::size_t per_principal,
                    std::size_t per_mcp_session) {
    actors::supervisor_config c;
    c.max_sessions = cap;
    c.max_sessions_per_principal = per_principal;
    c.max_sessions_per_mcp_session = per_mcp_session;
    c.sweep_interval = std::chrono::minutes{10};
    return c;
  }

  std::shared_ptr<collecting_sink> sink(const std::string& route) {
    auto& s = sinks[route];
    if (!s)
      s = std::make_shared<collecting_sink>();
    return s;
  }

  /// Opens a 2025 HTTP-style route for `principal` (initialize).
  void open(const std::string& route, const std::string& principal) {
    auto s = sink(route);
    principals[route] = principal;
    caf::anon_send(transport, actors::open_atom::value, route, principal,
                   mcp::decode(initialize_request(next_id++)),
                   actors::sink_ptr{s});
    sched.run();
    REQUIRE(s->lines.size() == 1);
    REQUIRE(parse(s->lines.back()).HasMember("result"));
  }

  rapidjson::Document call(const std::string& route, const std::string& tool,
                           const std::string& args) {
    auto s = sink(route);
    auto before = s->lines.size();
    caf::anon_send(transport, actors::forward_atom::value, route,
                   principals[route],
                   mcp::decode(tool_call(next_id++, tool, args)),
                   actors::sink_ptr{s});
    sched.run();
    REQUIRE(s->lines.size() == before + 1);
    return parse(s->lines.back());
  }

  /// structuredContent of a tools/call reply, and whether it failed.
  static const rapidjson::Value& content(const rapidjson::Document& reply) {
    REQUIRE(reply.HasMember("result"));
    return reply["result"]["structuredContent"];
  }

  std::string start(const std::string& route, const std::string& milestone) {
    auto reply = call(route, "time_session_start", start_args(milestone));
    INFO(to_json(reply));
    REQUIRE(reply["result"]["isError"] == false);
    return str(content(reply)["session_id"]);
  }

  /// Starts one more session on `route`, which must be refused: returns
  /// the limit the error names (its `limit` field), after checking the
  /// message names it with its value.
  std::string refused(const std::string& route, std::size_t value) {
    auto reply = call(route, "time_session_start", start_args("X"));
    INFO(to_json(reply));
    REQUIRE(reply["result"]["isError"] == true);
    const auto& sc = content(reply);
    CHECK(str(sc["error_code"]) == "LIMIT_REACHED");
    auto limit = str(sc["limit"]);
    CHECK(contains(str(sc["message"]),
                   "The limit of " + std::to_string(value) + " "));
    CHECK(contains(str(sc["message"]), "(" + limit + ")"));
    return limit;
  }

  void end(const std::string& route, const std::string& id) {
    auto reply = call(route, "time_session_end", session_args(id));
    INFO(to_json(reply));
    REQUIRE(reply["result"]["isError"] == false);
  }

  std::map<std::string, std::shared_ptr<collecting_sink>> sinks;
  std::map<std::string, std::string> principals;
  int next_id = 1;
};

} // namespace

TEST_CASE("shares: one MCP session stops at its share while the global cap "
          "is not reached, another still starts, ending frees the share",
          "[shares]") {
  share_fixture f{10, 10, 2};
  f.open("a", "local");
  f.open("b", "local");
  auto a1 = f.start("a", "A1");
  f.start("a", "A2");
  CHECK(f.refused("a", 2) == "max_tracking_sessions_per_mcp_session");
  CHECK(f.slots() == 2);
  // Another MCP session of the same principal has its own share.
  f.start("b", "B1");
  f.start("b", "B2");
  CHECK(f.refused("b", 2) == "max_tracking_sessions_per_mcp_session");
  CHECK(f.slots() == 4);
  // An ended session keeps its slot (its summary stays readable) but no
  // longer counts against the share.
  f.end("a", a1);
  CHECK(f.slots() == 4);
  f.start("a", "A3");
  CHECK(f.slots() == 5);
  CHECK(f.refused("a", 2) == "max_tracking_sessions_per_mcp_session");
}

TEST_CASE("shares: one principal stops at its share over all its MCP "
          "sessions, another principal still starts",
          "[shares]") {
  share_fixture f{10, 3, 10};
  f.open("a1", "alice");
  f.open("a2", "alice");
  f.open("b1", "bob");
  auto s1 = f.start("a1", "A1");
  f.start("a1", "A2");
  f.start("a2", "A3");
  CHECK(f.refused("a2", 3) == "max_tracking_sessions_per_principal");
  CHECK(f.refused("a1", 3) == "max_tracking_sessions_per_principal");
  CHECK(f.slots() == 3);
  f.start("b1", "B1");
  f.start("b1", "B2");
  f.start("b1", "B3");
  CHECK(f.refused("b1", 3) == "max_tracking_sessions_per_principal");
  // Alice ends one: either of her MCP sessions may start again.
  f.end("a1", s1);
  f.start("a2", "A4");
  CHECK(f.refused("a1", 3) == "max_tracking_sessions_per_principal");
  // An MCP session that ends (DELETE) gives its principal its share back.
  auto d = std::make_shared<collecting_sink>();
  caf::anon_send(f.transport, actors::end_atom::value, std::string{"a1"},
                 std::string{"alice"}, actors::sink_ptr{d});
  f.sched.run();
  REQUIRE(d->closed == 1);
  f.start("a2", "A5");
  CHECK(f.refused("a2", 3) == "max_tracking_sessions_per_principal");
}

TEST_CASE("shares: sessions past their idle limit are expired to lift a "
          "share before refusing",
          "[shares]") {
  share_fixture f{10, 10, 1};
  f.open("a", "local");
  auto old = f.start("a", "A1");
  CHECK(f.refused("a", 1) == "max_tracking_sessions_per_mcp_session");
  f.clock->advance(4h + 1s); // past max_idle: due, not yet swept
  f.start("a", "A2");
  CHECK(f.slots() == 1);
  auto gone = f.call("a", "time_session_summary", session_args(old));
  CHECK(str(share_fixture::content(gone)["error_code"]) == "SESSION_EXPIRED");
}

TEST_CASE("shares: at the global cap the refusal names it, and ended "
          "sessions are still reclaimed to make room",
          "[shares]") {
  share_fixture f{3, 2, 2};
  f.open("a", "alice");
  f.open("b", "bob");
  f.open("c", "carol");
  auto a1 = f.start("a", "A1");
  f.start("a", "A2");
  f.start("b", "B1");
  // Carol is within both her shares: the global cap refuses her.
  CHECK(f.refused("c", 3) == "max_tracking_sessions");
  f.end("a", a1);
  f.start("c", "C1"); // reclaims a1's slot
  CHECK(f.slots() == 3);
  auto gone = f.call("a", "time_session_summary", session_args(a1));
  CHECK(str(share_fixture::content(gone)["error_code"]) == "SESSION_EXPIRED");
}

TEST_CASE("shares: a share as large as the cap is no share: the global "
          "limit is named",
          "[shares]") {
  share_fixture f{2, 50, 20};
  f.open("a", "local");
  f.start("a", "A1");
  f.start("a", "A2");
  CHECK(f.refused("a", 2) == "max_tracking_sessions");
}

TEST_CASE("shares: a session reopened by time_undo counts against its share "
          "again",
          "[shares][undo]") {
  share_fixture f{10, 10, 2};
  f.open("a", "local");
  auto a1 = f.start("a", "A1");
  f.start("a", "A2");
  f.end("a", a1); // a1 no longer counts
  auto undo = f.call("a", "time_undo", session_args(a1));
  INFO(to_json(undo));
  REQUIRE(undo["result"]["isError"] == false);
  CHECK(share_fixture::content(undo)["reopened"] == true);
  // Open again: the share is full again.
  CHECK(f.refused("a", 2) == "max_tracking_sessions_per_mcp_session");
  f.end("a", a1);
  f.start("a", "A3");
  CHECK(f.slots() == 3);
}

namespace {

/// time_undo of `id`'s end, which must be refused: returns the limit the
/// error names, after checking it reads as a start's refusal does.
std::string undo_refused(share_fixture& f, const std::string& route,
                         const std::string& id, std::size_t value) {
  auto reply = f.call(route, "time_undo", session_args(id));
  INFO(to_json(reply));
  REQUIRE(reply["result"]["isError"] == true);
  const auto& sc = share_fixture::content(reply);
  CHECK(str(sc["error_code"]) == "LIMIT_REACHED");
  auto limit = str(sc["limit"]);
  CHECK(contains(str(sc["message"]),
                 "The limit of " + std::to_string(value) + " "));
  CHECK(contains(str(sc["message"]), "(" + limit + ")"));
  CHECK(contains(str(sc["message"]), "End sessions you no longer need"));
  return limit;
}

/// The session's status as time_session_summary reads it.
std::string status_of(share_fixture& f, const std::string& route,
                      const std::string& id) {
  auto reply = f.call(route, "time_session_summary", session_args(id));
  INFO(to_json(reply));
  REQUIRE(reply["result"]["isError"] == false);
  return str(share_fixture::content(reply)["status"]);
}

} // namespace

TEST_CASE("shares: time_undo cannot reopen a session past its MCP "
          "session's share, refused, nothing changes",
          "[shares][undo]") {
  share_fixture f{10, 10, 2};
  f.open("a", "local");
  auto a1 = f.start("a", "A1");
  f.start("a", "A2");
  f.end("a", a1);
  auto a3 = f.start("a", "A3"); // a1 ended: room for a3
  CHECK(undo_refused(f, "a", a1, 2) == "max_tracking_sessions_per_mcp_session");
  CHECK(status_of(f, "a", a1) == "ended");
  CHECK(f.refused("a", 2) == "max_tracking_sessions_per_mcp_session");
  // The refused undo left a1 ended, so ending a3 makes room for it.
  f.end("a", a3);
  auto undo = f.call("a", "time_undo", session_args(a1));
  INFO(to_json(undo));
  REQUIRE(undo["result"]["isError"] == false);
  CHECK(share_fixture::content(undo)["reopened"] == true);
  CHECK(status_of(f, "a", a1) == "active");
  CHECK(f.refused("a", 2) == "max_tracking_sessions_per_mcp_session");
}

TEST_CASE("shares: time_undo cannot reopen a session past its principal's "
          "share",
          "[shares][undo]") {
  share_fixture f{10, 2, 10};
  f.open("a1", "alice");
  f.open("a2", "alice");
  f.open("b1", "bob");
  auto s1 = f.start("a1", "A1");
  f.end("a1", s1);
  f.start("a2", "A2");
  f.start("a2", "A3");
  CHECK(undo_refused(f, "a1", s1, 2) == "max_tracking_sessions_per_principal");
  CHECK(status_of(f, "a1", s1) == "ended");
  // Another principal is not held back by it.
  f.start("b1", "B1");
}
