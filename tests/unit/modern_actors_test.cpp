// The 2026-07-28 revision through the actors: the transport's `call`
// message (one client actor per principal, made on demand and not counted
// against max_clients), the isolation of principals' tracking sessions, and
// the transport's directory of tracking sessions (id -> owning route), which
// follows what client actors report. CAF's deterministic scheduler; time
// from a fake clock.

#include "actors/transport.hpp"
#include "mcp/wire.hpp"
#include "domain/ids.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

// The shared actor fixture (actor_fixture.hpp) and JSON helpers.
using namespace ttm::test;

namespace {

const std::string meta
  = R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

std::string modern_request(const std::string& method, int id,
                           const std::string& members = "") {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")"
         + method + R"(","params":{)" + members
         + (members.empty() ? "" : ",") + R"("_meta":)" + meta + "}}";
}

std::string modern_call(int id, const std::string& tool,
                        const std::string& args) {
  return modern_request("tools/call", id,
                        R"("name":")" + tool + R"(","arguments":)" + args);
}

std::string legacy_call(int id, const std::string& tool,
                        const std::string& args) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":")" + tool
         + R"(","arguments":)" + args + "}}";
}

const std::string initialize
  = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"test","version":"1"}}})";

const std::string start_args
  = R"({"milestone_id":"M1","task_ids":["T1"],"timezone":"UTC"})";

std::string session_args(const std::string& sid) {
  return R"({"session_id":")" + sid + R"(","include_task_details":false})";
}

struct modern_fixture : actor_fixture {
  struct options {
    std::size_t max_clients = 100;
    std::size_t max_sessions = 100;
    caf::timespan idle_timeout{0};
  };

  modern_fixture() : modern_fixture(options{}) {
  }

  explicit modern_fixture(options opt)
    : actor_fixture(client_config(opt), supervisor_config(opt)) {
  }

  static actors::client_config client_config(const options& opt) {
    domain::tracking_limits limits;
    limits.max_sessions = opt.max_sessions;
    return test_client_config(limits);
  }

  static actors::supervisor_config supervisor_config(const options& opt) {
    actors::supervisor_config sup_cfg;
    sup_cfg.max_clients = opt.max_clients;
    sup_cfg.max_sessions = opt.max_sessions;
    sup_cfg.mcp_idle_timeout = opt.idle_timeout;
    return sup_cfg;
  }

  std::shared_ptr<collecting_sink> sink() {
    return std::make_shared<collecting_sink>();
  }

  /// A 2026-07-28 request from `principal`: runs everything and returns
  /// the sink (its last line is the response).
  std::shared_ptr<collecting_sink> post(const std::string& principal,
                                    const std::string& json) {
    auto s = sink();
    caf::anon_send(transport, actors::call_atom::value, principal,
                   mcp::decode(json), actors::sink_ptr{s});
    sched.run();
    return s;
  }

  /// The one response to a request from `principal`.
  rapidjson::Document call(const std::string& principal,
                           const std::string& json) {
    auto s = post(principal, json);
    INFO("principal " << principal << ", request " << json);
    REQUIRE(s->refusals.empty());
    REQUIRE(s->done == 1);
    REQUIRE(s->lines.size() == s->notification_lines.size() + 1);
    return parse(s->lines.back());
  }

  /// A line on a 2025 route (`inbound`, like stdio): its one response.
  rapidjson::Document legacy(const std::string& route,
                             const std::string& json) {
    auto s = sink();
    caf::anon_send(transport, actors::inbound_atom::value, route,
                   mcp::decode(json), actors::sink_ptr{s});
    sched.run();
    INFO("route " << route << ", request " << json);
    REQUIRE(s->lines.size() == 1);
    return parse(s->lines.back());
  }

  /// Starts a tracking session for `principal` and returns its id.
  std::string start(const std::string& principal, int id = 100) {
    auto res = call(principal, modern_call(id, "time_session_start",
                                           start_args));
    REQUIRE(res.HasMember("result"));
    REQUIRE(res["result"]["isError"] == false);
    return str(res["result"]["structuredContent"]["session_id"]);
  }

  /// The error_code of a failed tool call, or "" for a success.
  static std::string tool_error(const rapidjson::Document& res) {
    REQUIRE(res.HasMember("result"));
    if (res["result"]["isError"] == false)
      return "";
    return str(res["result"]["structuredContent"]["error_code"]);
  }

  /// The route owning tracking session `id` per the directory ("" none).
  std::string owner_of(const std::string& id) {
    auto& dir = state().directory;
    auto i = dir.find(id);
    return i == dir.end() ? std::string{} : i->second;
  }
};

modern_fixture::options max_clients(std::size_t n) {
  modern_fixture::options opt;
  opt.max_clients = n;
  return opt;
}

} // namespace

TEST_CASE("modern actors: a principal's route key is no session id",
          "[modern_actors]") {
  CHECK(actors::principal_key("alice") == "principal alice");
  CHECK(actors::principal_key("token-0badc0de")
        != actors::principal_key("token-0badc0dd"));
  CHECK(contains(actors::principal_key("local"), " "));
}

TEST_CASE("modern actors: a principal's client actor is made on demand and "
          "not counted against max_clients",
          "[modern_actors]") {
  modern_fixture f{max_clients(1)};
  auto init = f.legacy("a", initialize);
  REQUIRE(init.HasMember("result"));
  CHECK(f.counted_clients() == 1);

  auto res = f.call("alice", modern_request("server/discover", 1));
  REQUIRE(res.HasMember("result"));
  CHECK(res["id"] == 1);
  CHECK(res["result"]["resultType"] == "complete");
  CHECK(f.counted_clients() == 1);
  auto key = actors::principal_key("alice");
  REQUIRE(f.state().routes.count(key) == 1);
  const auto& r = f.state().routes.at(key);
  CHECK(r.principal);
  CHECK(r.admitted);
  CHECK(static_cast<bool>(r.client));

  // A second principal, and tool calls, work too.
  auto bob = f.call("bob", modern_call(2, "time_get_current",
                                       R"({"timezone":"UTC"})"));
  CHECK(bob["result"]["isError"] == false);
  CHECK(bob["result"]["resultType"] == "complete");
  CHECK(f.counted_clients() == 1);

  // The cap still holds for MCP sessions.
  auto refused = f.legacy("b", R"({"jsonrpc":"2.0","id":"x","method":"ping"})");
  CHECK(refused["error"]["code"] == -32603);
  auto opened = f.sink();
  caf::anon_send(f.transport, actors::open_atom::value, std::string{"k2"},
                 std::string{"local"},
                 mcp::decode(initialize), actors::sink_ptr{opened});
  f.sched.run();
  REQUIRE(opened->refusals.size() == 1);
  CHECK(opened->refusals[0] == actors::route_refusal::busy);
  CHECK(f.counted_clients() == 1);
  // ... and principals are not in the way of a new one once "a" is gone.
  auto eof = f.sink();
  caf::anon_send(f.transport, actors::eof_atom::value, std::string{"a"},
                 actors::sink_ptr{eof});
  f.sched.run();
  CHECK(f.counted_clients() == 0);
  CHECK(f.legacy("c", initialize).HasMember("result"));
  CHECK(f.counted_clients() == 1);
  CHECK(f.call("alice", modern_request("tools/list", 3)).HasMember("result"));
}

TEST_CASE("modern actors: principals are served with max_clients 0",
          "[modern_actors]") {
  modern_fixture f{max_clients(0)};
  auto refused = f.legacy("a", R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
  CHECK(refused["error"]["code"] == -32603);
  CHECK(f.call("alice", modern_request("tools/list", 1)).HasMember("result"));
  CHECK(f.counted_clients() == 0);
}

TEST_CASE("modern actors: one principal's calls share a client actor and "
          "its tracking sessions",
          "[modern_actors]") {
  modern_fixture f;
  auto sid = f.start("alice", 1);
  auto key = actors::principal_key("alice");
  auto actor = f.state().routes.at(key).client;
  auto summary = f.call("alice", modern_call(2, "time_session_summary",
                                             session_args(sid)));
  CHECK(modern_fixture::tool_error(summary) == "");
  CHECK(summary["result"]["structuredContent"]["status"] == "active");
  CHECK(f.state().routes.at(key).client == actor);
  CHECK(f.state().routes.size() == 1);
  CHECK(f.slots() == 1);

  SECTION("notifications come as notifications, before the response") {
    auto s = f.post("alice", modern_request("subscriptions/listen", 3,
                                            R"("notifications":{})"));
    REQUIRE(s->lines.size() == 2);
    CHECK(s->notification_lines == std::vector<std::size_t>{0});
    CHECK(parse(s->lines[0])["method"]
          == "notifications/subscriptions/acknowledged");
    CHECK(parse(s->lines[1])["id"] == 3);
    CHECK(s->done == 1);
  }
}

TEST_CASE("modern actors: another principal's tracking session is "
          "SESSION_NOT_FOUND, byte for byte as an id never issued",
          "[modern_actors]") {
  modern_fixture f;
  auto sid = f.start("alice", 1);
  auto never = domain::make_uuid_v4();
  REQUIRE(never != sid);
  for (std::string tool : {"time_session_summary", "time_task_start",
                           "time_task_end", "time_session_end"}) {
    INFO("tool: " << tool);
    auto args = [&](const std::string& id) {
      return tool == "time_task_start" || tool == "time_task_end"
               ? R"({"session_id":")" + id + R"(","task_id":"T1"})"
               : session_args(id);
    };
    auto foreign = f.post("bob", modern_call(2, tool, args(sid)));
    auto unknown = f.post("bob", modern_call(2, tool, args(never)));
    REQUIRE(foreign->lines.size() == 1);
    REQUIRE(unknown->lines.size() == 1);
    CHECK(modern_fixture::tool_error(parse(foreign->lines[0]))
          == "SESSION_NOT_FOUND");
    CHECK(replace_all(foreign->lines[0], sid, "<id>")
          == replace_all(unknown->lines[0], never, "<id>"));
  }
  // Bob touched nothing of Alice's.
  auto summary = f.call("alice", modern_call(3, "time_session_summary",
                                             session_args(sid)));
  CHECK(summary["result"]["structuredContent"]["status"] == "active");
  CHECK(f.owner_of(sid) == actors::principal_key("alice"));
  CHECK(f.state().routes.at(actors::principal_key("bob")).owned.empty());

  SECTION("a 2025 MCP session and a principal do not see each other's") {
    REQUIRE(f.legacy("L", initialize).HasMember("result"));
    auto from_legacy = f.legacy("L", legacy_call(4, "time_session_summary",
                                                 session_args(sid)));
    CHECK(modern_fixture::tool_error(from_legacy) == "SESSION_NOT_FOUND");
    auto lres = f.legacy("L", legacy_call(5, "time_session_start",
                                          start_args));
    auto lsid = str(lres["result"]["structuredContent"]["session_id"]);
    CHECK(f.owner_of(lsid) == "L");
    auto from_alice = f.call("alice", modern_call(6, "time_session_summary",
                                                  session_args(lsid)));
    CHECK(modern_fixture::tool_error(from_alice) == "SESSION_NOT_FOUND");
  }
}

TEST_CASE("modern actors: the directory follows created and gone tracking "
          "sessions",
          "[modern_actors]") {
  modern_fixture::options opt;
  opt.max_sessions = 1;
  modern_fixture f{opt};
  auto alice = actors::principal_key("alice");
  auto bob = actors::principal_key("bob");
  auto s1 = f.start("alice", 1);
  CHECK(f.owner_of(s1) == alice);
  CHECK(f.state().routes.at(alice).owned.count(s1) == 1);

  SECTION("a refused start adds nothing") {
    auto refused = f.call("bob", modern_call(2, "time_session_start",
                                             start_args));
    CHECK(modern_fixture::tool_error(refused) == "LIMIT_REACHED");
    CHECK(f.state().directory.size() == 1);
  }
  SECTION("expired: gone once the owner answers the call that finds it") {
    f.clock->advance(4h + 1s);
    auto res = f.call("alice", modern_call(2, "time_session_summary",
                                           session_args(s1)));
    CHECK(modern_fixture::tool_error(res) == "SESSION_EXPIRED");
    CHECK(f.owner_of(s1).empty());
    CHECK(f.state().routes.at(alice).owned.empty());
  }
  SECTION("evicted to make room: gone with the owner's next reply") {
    auto ended = f.call("alice", modern_call(2, "time_session_end",
                                             session_args(s1)));
    CHECK(modern_fixture::tool_error(ended) == "");
    CHECK(f.owner_of(s1) == alice);
    auto s2 = f.start("bob", 3);
    CHECK(f.owner_of(s2) == bob);
    CHECK(f.slots() == 1);
    f.call("alice", modern_request("tools/list", 4));
    CHECK(f.owner_of(s1).empty());
    CHECK(f.state().directory.size() == 1);
  }
  SECTION("a closed 2025 route takes its entries along") {
    auto ended = f.call("alice", modern_call(2, "time_session_end",
                                             session_args(s1)));
    REQUIRE(modern_fixture::tool_error(ended) == "");
    REQUIRE(f.legacy("k", initialize).HasMember("result"));
    auto lres = f.legacy("k", legacy_call(3, "time_session_start",
                                          start_args));
    auto lsid = str(lres["result"]["structuredContent"]["session_id"]);
    CHECK(f.owner_of(lsid) == "k");
    auto eof = f.sink();
    caf::anon_send(f.transport, actors::eof_atom::value, std::string{"k"},
                   actors::sink_ptr{eof});
    f.sched.run();
    CHECK(eof->closed == 1);
    CHECK(f.owner_of(lsid).empty());
  }
}

TEST_CASE("modern actors: an idle principal's client actor ends, the next "
          "call makes a new one",
          "[modern_actors]") {
  modern_fixture::options opt;
  opt.idle_timeout = 30min;
  modern_fixture f{opt};
  auto key = actors::principal_key("alice");
  REQUIRE(f.call("alice", modern_request("tools/list", 1)).HasMember("result"));
  auto first = f.state().routes.at(key).client;
  f.clock->advance(30min);
  f.sweep();
  CHECK(f.state().routes.count(key) == 0);
  auto res = f.call("alice", modern_request("tools/list", 2));
  CHECK(res["result"]["resultType"] == "complete");
  REQUIRE(f.state().routes.count(key) == 1);
  CHECK(f.state().routes.at(key).client != first);

  SECTION("not while it holds a tracking session") {
    auto sid = f.start("alice", 3);
    auto holder = f.state().routes.at(key).client;
    f.clock->advance(31min);
    f.sweep();
    REQUIRE(f.state().routes.count(key) == 1);
    CHECK(f.state().routes.at(key).client == holder);
    auto summary = f.call("alice", modern_call(4, "time_session_summary",
                                               session_args(sid)));
    CHECK(modern_fixture::tool_error(summary) == "");
  }
}
