// Tracking sessions across the actors: the supervisor's global slots (limit,
// expiry before refusal, reclaiming ended sessions, the periodic sweep), the
// client actor's frame queue while it waits for a slot, and the isolation of
// one MCP session's tracking sessions from another's. Everything runs on
// CAF's deterministic scheduler: expiry reads a fake clock, the sweep timer
// fires only when the test moves CAF's test clock.

#include "actors/transport.hpp"
#include "mcp/wire.hpp"
#include "domain/ids.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"
#include "tools_snapshot.hpp"
#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

// The shared actor fixture (actor_fixture.hpp) and JSON helpers.
using namespace ttm::test;

namespace {

std::string initialize_request(int id) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"initialize","params":{)"
           R"("protocolVersion":"2025-11-25","capabilities":{},)"
           R"("clientInfo":{"name":"tracking-test","version":"1"}}})";
}

std::string tool_call(int id, const std::string& tool,
                      const std::string& args) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":")" + tool
         + R"(","arguments":)" + args + "}}";
}

std::string session_start_args(const std::string& milestone) {
  return R"({"milestone_id":")" + milestone
         + R"(","task_ids":["T1","T2"],"timezone":"UTC"})";
}

std::string session_args(const std::string& session_id) {
  return R"({"session_id":")" + session_id
         + R"(","include_task_details":false})";
}

/// The `result` of a tools/call reply (fails the test on a JSON-RPC error).
const rapidjson::Value& result_of(const rapidjson::Document& reply) {
  INFO("reply: " << to_json(reply));
  const auto& res = result_object(reply);
  REQUIRE(res.HasMember("isError"));
  REQUIRE(res.HasMember("structuredContent"));
  return res;
}

/// The structuredContent of a successful call.
const rapidjson::Value& ok_content(const rapidjson::Document& reply) {
  const auto& res = result_of(reply);
  INFO("reply: " << to_json(reply));
  REQUIRE(res["isError"] == false);
  return res["structuredContent"];
}

/// The structuredContent of a failed call (isError true).
const rapidjson::Value& error_content(const rapidjson::Document& reply) {
  const auto& res = result_of(reply);
  INFO("reply: " << to_json(reply));
  REQUIRE(res["isError"] == true);
  const auto& sc = res["structuredContent"];
  REQUIRE(sc.HasMember("error_code"));
  REQUIRE(sc.HasMember("message"));
  return sc;
}

std::string error_code(const rapidjson::Document& reply) {
  return str(error_content(reply)["error_code"]);
}

struct tracking_fixture : actor_fixture {
  struct options {
    domain::tracking_limits limits;
    std::size_t max_clients = 100;
    caf::timespan sweep_interval = std::chrono::minutes{10};
  };

  tracking_fixture() : tracking_fixture(options{}) {
  }

  explicit tracking_fixture(options opt)
    : actor_fixture(test_client_config(opt.limits),
                    supervisor_config(opt)),
      sweep_interval(opt.sweep_interval) {
  }

  static actors::supervisor_config supervisor_config(const options& opt) {
    actors::supervisor_config sup_cfg;
    sup_cfg.max_clients = opt.max_clients;
    // As main() does: one configured limit for the supervisor and the quote.
    sup_cfg.max_sessions = opt.limits.max_sessions;
    sup_cfg.sweep_interval = opt.sweep_interval;
    return sup_cfg;
  }

  std::shared_ptr<collecting_sink> sink(const std::string& route) {
    auto& s = sinks[route];
    if (!s)
      s = std::make_shared<collecting_sink>();
    return s;
  }

  /// Hands one line to the transport on `route`; nothing runs yet.
  void send(const std::string& route, const std::string& json) {
    caf::anon_send(transport, actors::inbound_atom::value, route,
                   mcp::decode(json), actors::sink_ptr{sink(route)});
  }

  void eof(const std::string& route) {
    caf::anon_send(transport, actors::eof_atom::value, route,
                   actors::sink_ptr{sink(route)});
  }

  /// Sends one request, runs everything, returns its one reply.
  rapidjson::Document call(const std::string& route, const std::string& json) {
    auto s = sink(route);
    auto before = s->lines.size();
    send(route, json);
    sched.run();
    INFO("route " << route << ", request " << json);
    REQUIRE(s->lines.size() == before + 1);
    return parse(s->lines.back());
  }

  rapidjson::Document call_tool(const std::string& route,
                                const std::string& tool,
                                const std::string& args) {
    auto id = next_id++;
    auto reply = call(route, tool_call(id, tool, args));
    CHECK(reply["id"] == id);
    return reply;
  }

  void initialize(const std::string& route) {
    auto reply = call(route, initialize_request(next_id++));
    INFO("reply: " << to_json(reply));
    REQUIRE(reply.HasMember("result"));
    REQUIRE(reply["result"]["protocolVersion"] == "2025-11-25");
    send(route, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    sched.run();
  }

  /// Starts a tracking session on `route`, which must be granted.
  std::string start_session(const std::string& route,
                            const std::string& milestone = "M1") {
    auto reply = call_tool(route, "time_session_start",
                           session_start_args(milestone));
    const auto& sc = ok_content(reply);
    CHECK(str(sc["milestone_id"]) == milestone);
    auto id = str(sc["session_id"]);
    REQUIRE(id.size() == 36);
    return id;
  }

  rapidjson::Document summary(const std::string& route,
                              const std::string& session_id) {
    return call_tool(route, "time_session_summary", session_args(session_id));
  }

  /// Client actors the supervisor admitted and still monitors.
  std::uint64_t clients() {
    return counted_clients();
  }

  /// Fires the supervisor's sweep timer once and runs what follows.
  void sweep_now() {
    REQUIRE(sched.advance_time(sweep_interval) == 1);
    sched.run();
  }

  caf::timespan sweep_interval;
  std::map<std::string, std::shared_ptr<collecting_sink>> sinks;
  int next_id = 1;
};

tracking_fixture::options with_max_sessions(std::size_t n) {
  tracking_fixture::options opt;
  opt.limits.max_sessions = n;
  return opt;
}

const std::string limit_of_2_message
  = "The limit of 2 open tracking sessions (max_tracking_sessions) is "
    "reached. End sessions you no longer need with time_session_end: ended "
    "sessions make room for new ones.";

} // namespace

TEST_CASE("tracking actors: the session beyond the global limit is refused "
          "with LIMIT_REACHED naming the limit",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(2)};
  f.initialize("a");
  auto s1 = f.start_session("a", "M1");
  auto s2 = f.start_session("a", "M2");
  CHECK(s1 != s2);
  REQUIRE(f.slots() == 2);

  auto refused = f.call_tool("a", "time_session_start",
                             session_start_args("M3"));
  const auto& err = error_content(refused);
  CHECK(err["error"] == true);
  CHECK(str(err["error_code"]) == "LIMIT_REACHED");
  CHECK(str(err["message"]) == limit_of_2_message);
  CHECK(contains(str(err["message"]), "limit of 2 "));
  CHECK_FALSE(err.HasMember("session_id"));
  CHECK(f.slots() == 2);

  // Another route is refused the same way: the limit is global.
  f.initialize("b");
  auto refused_b = f.call_tool("b", "time_session_start",
                               session_start_args("M4"));
  CHECK(error_code(refused_b) == "LIMIT_REACHED");
  CHECK(str(error_content(refused_b)["message"]) == limit_of_2_message);
  CHECK(f.slots() == 2);
  CHECK(f.clients() == 2);

  // The refusals changed nothing: both sessions are still open.
  CHECK(str(ok_content(f.summary("a", s1))["status"]) == "active");
  CHECK(str(ok_content(f.summary("a", s2))["status"]) == "active");
  CHECK(f.slots() == 2);
}

TEST_CASE("tracking actors: at the limit, sessions past max_idle are expired "
          "to make room before refusing",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(2)};
  f.initialize("a");
  f.initialize("b");
  auto sa = f.start_session("a", "MA");
  auto sb = f.start_session("b", "MB");
  REQUIRE(f.slots() == 2);

  // At exactly max_idle nothing is due yet: still refused.
  f.clock->advance(4h);
  CHECK(error_code(f.call_tool("a", "time_session_start",
                               session_start_args("M3")))
        == "LIMIT_REACHED");
  CHECK(f.slots() == 2);

  // One second later both are due; nobody called them, but the supervisor
  // asks every owner to expire what is due before it decides.
  f.clock->advance(1s);
  auto fresh = f.start_session("a", "M3");
  CHECK(fresh != sa);
  CHECK(fresh != sb);
  CHECK(f.slots() == 1);

  auto expired_a = f.summary("a", sa);
  CHECK(error_code(expired_a) == "SESSION_EXPIRED");
  CHECK(contains(str(error_content(expired_a)["message"]),
                 "Session '" + sa + "' has expired"));
  auto expired_b = f.summary("b", sb);
  CHECK(error_code(expired_b) == "SESSION_EXPIRED");
  CHECK(contains(str(error_content(expired_b)["message"]),
                 "Session '" + sb + "' has expired"));
  CHECK(str(ok_content(f.summary("a", fresh))["status"]) == "active");
  // One slot is left: the next start is granted, the one after refused.
  f.start_session("b", "M4");
  CHECK(f.slots() == 2);
  CHECK(error_code(f.call_tool("b", "time_session_start",
                               session_start_args("M5")))
        == "LIMIT_REACHED");
  CHECK(f.slots() == 2);
}

TEST_CASE("tracking actors: at the limit, the earliest-ended session is "
          "reclaimed and then answers SESSION_EXPIRED to its owner",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(2)};
  f.initialize("a");
  f.initialize("b");
  auto s1 = f.start_session("a", "M1");
  auto s2 = f.start_session("a", "M2");
  REQUIRE(f.slots() == 2);

  auto ended = f.call_tool("a", "time_session_end", session_args(s1));
  CHECK(str(ok_content(ended)["status"]) == "ended");
  CHECK(ok_content(ended)["already_ended"] == false);
  // An ended session still holds its slot until room is needed.
  CHECK(f.slots() == 2);
  CHECK(str(ok_content(f.summary("a", s1))["status"]) == "ended");

  // Route b needs room: s1 (ended) is reclaimed, s2 (open) is kept.
  auto s3 = f.start_session("b", "M3");
  CHECK(f.slots() == 2);
  auto gone = f.summary("a", s1);
  CHECK(error_code(gone) == "SESSION_EXPIRED");
  CHECK(contains(str(error_content(gone)["message"]),
                 "Session '" + s1 + "' has expired"));
  CHECK(str(ok_content(f.summary("a", s2))["status"]) == "active");
  CHECK(str(ok_content(f.summary("b", s3))["status"]) == "active");

  // Nothing ended: open sessions are never reclaimed.
  CHECK(error_code(f.call_tool("a", "time_session_start",
                               session_start_args("M4")))
        == "LIMIT_REACHED");
  CHECK(f.slots() == 2);

  // s3 ends before s2: s3 is reclaimed first, s2 next.
  CHECK(str(ok_content(f.call_tool("b", "time_session_end",
                                   session_args(s3)))["status"])
        == "ended");
  CHECK(str(ok_content(f.call_tool("a", "time_session_end",
                                   session_args(s2)))["status"])
        == "ended");
  auto s4 = f.start_session("a", "M4");
  CHECK(error_code(f.summary("b", s3)) == "SESSION_EXPIRED");
  CHECK(str(ok_content(f.summary("a", s2))["status"]) == "ended");
  auto s5 = f.start_session("b", "M5");
  CHECK(error_code(f.summary("a", s2)) == "SESSION_EXPIRED");
  CHECK(str(ok_content(f.summary("a", s4))["status"]) == "active");
  CHECK(str(ok_content(f.summary("b", s5))["status"]) == "active");
  CHECK(f.slots() == 2);
}

TEST_CASE("tracking actors: the periodic sweep frees sessions past max_age "
          "without any client call",
          "[tracking_actors]") {
  tracking_fixture::options opt;
  opt.limits.max_age = 2h; // below max_idle (4 h): only age applies here
  opt.sweep_interval = 10min;
  tracking_fixture f{opt};
  f.initialize("a");
  auto s = f.start_session("a");
  REQUIRE(f.slots() == 1);

  // A sweep at exactly max_age finds nothing due.
  f.clock->advance(2h);
  f.sweep_now();
  CHECK(f.slots() == 1);

  // Past max_age, nothing happens until the sweep timer fires again.
  f.clock->advance(1s);
  CHECK(f.sched.advance_time(9min) == 0);
  f.sched.run();
  CHECK(f.slots() == 1);
  CHECK(f.sched.advance_time(1min) == 1);
  f.sched.run();
  CHECK(f.slots() == 0);

  auto reply = f.summary("a", s);
  CHECK(error_code(reply) == "SESSION_EXPIRED");
  CHECK(contains(str(error_content(reply)["message"]),
                 "Session '" + s + "' has expired"));
  CHECK(f.slots() == 0);
  // The timer keeps re-arming itself.
  CHECK(f.sched.advance_time(10min) == 1);
  f.sched.run();
  CHECK(f.slots() == 0);
}

TEST_CASE("tracking actors: a session used every hour outlives max_idle, one "
          "left alone for max_idle + 1 s expires",
          "[tracking_actors]") {
  tracking_fixture f; // max_idle 4 h, max_age 24 h
  f.initialize("a");
  auto used = f.start_session("a", "USED");
  auto idle = f.start_session("a", "IDLE");
  auto swept = f.start_session("a", "SWEPT");
  REQUIRE(f.slots() == 3);

  for (int hour = 1; hour <= 4; ++hour) {
    f.clock->advance(1h);
    auto reply = f.summary("a", used);
    INFO("hour " << hour);
    const auto& sc = ok_content(reply);
    CHECK(str(sc["status"]) == "active");
    CHECK(sc["total_duration_ms"].GetInt64() == hour * 3'600'000LL);
  }
  // Idle for exactly 4 h: not yet due.
  f.sweep_now();
  CHECK(f.slots() == 3);

  f.clock->advance(1s);
  auto reply = f.summary("a", idle);
  CHECK(error_code(reply) == "SESSION_EXPIRED");
  // The client tells the supervisor: the slot is free at once.
  CHECK(f.slots() == 2);
  // The other idle one goes with the next sweep.
  f.sweep_now();
  CHECK(f.slots() == 1);
  CHECK(error_code(f.summary("a", swept)) == "SESSION_EXPIRED");

  f.clock->advance(1h);
  auto last = f.summary("a", used);
  const auto& sc = ok_content(last);
  CHECK(str(sc["status"]) == "active");
  CHECK(sc["total_duration_ms"].GetInt64() == 5 * 3'600'000LL + 1'000);
  CHECK(f.slots() == 1);
}

TEST_CASE("tracking actors: another route presenting a session id gets the "
          "same SESSION_NOT_FOUND as for an id never issued",
          "[tracking_actors]") {
  tracking_fixture f;
  f.initialize("a");
  f.initialize("b");
  auto owned = f.start_session("a");
  auto never = domain::make_uuid_v4();
  REQUIRE(never != owned);
  REQUIRE(never.size() == owned.size());

  const std::string placeholder = "<SESSION_ID>";
  auto compare = [&](const std::string& tool, const std::string& args_of_owned,
                     const std::string& args_of_never) {
    INFO("tool " << tool);
    auto foreign = f.call_tool("b", tool, args_of_owned);
    auto unknown = f.call_tool("b", tool, args_of_never);
    const auto& fe = error_content(foreign);
    const auto& ue = error_content(unknown);
    CHECK(str(fe["error_code"]) == "SESSION_NOT_FOUND");
    CHECK(str(ue["error_code"]) == "SESSION_NOT_FOUND");
    CHECK(str(fe["message"])
          == "You have no tracking session '" + owned
               + "'; use the session_id that "
                 "time_session_start returned.");
    CHECK(replace_all(str(fe["message"]), owned, placeholder)
          == replace_all(str(ue["message"]), never, placeholder));
    // The whole result (content text, structuredContent, flags) matches.
    CHECK(replace_all(to_json(foreign["result"]), owned, placeholder)
          == replace_all(to_json(unknown["result"]), never, placeholder));
  };
  compare("time_session_summary", session_args(owned), session_args(never));
  compare("time_task_start",
          R"({"session_id":")" + owned + R"(","task_id":"T1"})",
          R"({"session_id":")" + never + R"(","task_id":"T1"})");
  compare("time_task_end",
          R"({"session_id":")" + owned + R"(","task_id":"T1"})",
          R"({"session_id":")" + never + R"(","task_id":"T1"})");
  compare("time_session_end", session_args(owned), session_args(never));

  // Route b touched nothing: the session is still open and its task idle.
  auto details = f.call_tool(
    "a", "time_session_summary",
    R"({"session_id":")" + owned + R"(","include_task_details":true})");
  const auto& sc = ok_content(details);
  CHECK(str(sc["status"]) == "active");
  CHECK(sc["tasks_in_progress"] == 0);
  CHECK(sc["tasks_not_started"] == 2);
  CHECK(f.slots() == 1);

  // Once expired for its owner, it is still merely unknown to route b.
  f.clock->advance(4h + 1s);
  CHECK(error_code(f.summary("a", owned)) == "SESSION_EXPIRED");
  compare("time_session_summary", session_args(owned), session_args(never));
}

TEST_CASE("tracking actors: frames behind a session start wait for the "
          "supervisor and are answered in order",
          "[tracking_actors]") {
  SECTION("a slot is free") {
    tracking_fixture f;
    f.initialize("a");
    auto sink = f.sink("a");
    auto before = sink->lines.size();
    f.send("a", tool_call(10, "time_session_start", session_start_args("M1")));
    f.send("a", R"({"jsonrpc":"2.0","id":11,"method":"tools/list"})");
    f.send("a", R"({"jsonrpc":"2.0","id":12,"method":"ping"})");
    // Until the supervisor answers, the client answers nothing: the later
    // frames are queued behind the paused session start.
    f.run_all_but_supervisor();
    CHECK(sink->lines.size() == before);
    f.sched.run();
    REQUIRE(sink->lines.size() == before + 3);
    auto start = parse(sink->lines[before]);
    CHECK(start["id"] == 10);
    CHECK(str(ok_content(start)["milestone_id"]) == "M1");
    auto list = parse(sink->lines[before + 1]);
    CHECK(list["id"] == 11);
    REQUIRE(list["result"]["tools"].IsArray());
    // Every tool (--toolsets all): the reviewed snapshot's.
    CHECK(list["result"]["tools"].Size()
          == test::snapshot_tool_names("all").size());
    auto ping = parse(sink->lines[before + 2]);
    CHECK(ping["id"] == 12);
    CHECK(to_json(ping["result"]) == "{}");
    CHECK(f.slots() == 1);
  }
  SECTION("two starts back to back, then a ping") {
    tracking_fixture f;
    f.initialize("a");
    auto sink = f.sink("a");
    auto before = sink->lines.size();
    f.send("a", tool_call(20, "time_session_start", session_start_args("M1")));
    f.send("a", tool_call(21, "time_session_start", session_start_args("M2")));
    f.send("a", R"({"jsonrpc":"2.0","id":22,"method":"ping"})");
    f.sched.run();
    REQUIRE(sink->lines.size() == before + 3);
    auto first = parse(sink->lines[before]);
    auto second = parse(sink->lines[before + 1]);
    CHECK(first["id"] == 20);
    CHECK(str(ok_content(first)["milestone_id"]) == "M1");
    CHECK(second["id"] == 21);
    CHECK(str(ok_content(second)["milestone_id"]) == "M2");
    CHECK(parse(sink->lines[before + 2])["id"] == 22);
    CHECK(f.slots() == 2);
  }
  SECTION("the supervisor is full and must ask every owner first") {
    tracking_fixture f{with_max_sessions(1)};
    f.initialize("a");
    f.initialize("b");
    f.start_session("b");
    auto sink = f.sink("a");
    auto before = sink->lines.size();
    f.send("a", tool_call(30, "time_session_start", session_start_args("M1")));
    f.send("a", R"({"jsonrpc":"2.0","id":31,"method":"tools/list"})");
    f.send("a", R"({"jsonrpc":"2.0","id":32,"method":"ping"})");
    f.run_all_but_supervisor();
    CHECK(sink->lines.size() == before);
    f.sched.run();
    REQUIRE(sink->lines.size() == before + 3);
    auto refused = parse(sink->lines[before]);
    CHECK(refused["id"] == 30);
    CHECK(error_code(refused) == "LIMIT_REACHED");
    CHECK(parse(sink->lines[before + 1])["id"] == 31);
    CHECK(parse(sink->lines[before + 2])["id"] == 32);
    CHECK(f.slots() == 1);
  }
}

TEST_CASE("tracking actors: a client actor's end frees its slots",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(3)};
  f.initialize("a");
  f.start_session("a", "M1");
  f.start_session("a", "M2");
  REQUIRE(f.slots() == 2);
  REQUIRE(f.clients() == 1);

  SECTION("its route is closed with eof") {
    f.eof("a");
    f.sched.run();
    CHECK(f.sink("a")->closed == 1);
  }
  SECTION("it exits on its own (e.g. a crash)") {
    caf::anon_send_exit(f.client_of("a"), caf::exit_reason::kill);
    f.sched.run();
  }
  SECTION("eof arrives while a session start waits for its slot") {
    // The route closes once the start is answered; the slot granted to it
    // goes with the client actor too.
    auto sink = f.sink("a");
    auto before = sink->lines.size();
    f.send("a", tool_call(40, "time_session_start", session_start_args("M3")));
    f.eof("a");
    f.sched.run();
    REQUIRE(sink->lines.size() == before + 1);
    auto reply = parse(sink->lines[before]);
    CHECK(reply["id"] == 40);
    CHECK(str(ok_content(reply)["milestone_id"]) == "M3");
    CHECK(sink->closed == 1);
  }
  CHECK(f.slots() == 0);
  CHECK(f.clients() == 0);
  // The freed slots serve a new route.
  f.initialize("b");
  f.start_session("b", "M5");
  f.start_session("b", "M6");
  f.start_session("b", "M7");
  CHECK(f.slots() == 3);
}

TEST_CASE("tracking actors: twenty clients at once each get a session and "
          "see only their own",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(100)};
  constexpr int n = 20;
  auto route = [](int i) { return "r" + std::to_string(i); };
  for (int i = 0; i < n; ++i) {
    f.send(route(i), initialize_request(1));
    f.send(route(i), tool_call(2, "time_session_start",
                               session_start_args("M" + std::to_string(i))));
  }
  f.sched.run();
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    auto sink = f.sink(route(i));
    INFO("route " << route(i));
    REQUIRE(sink->lines.size() == 2);
    auto reply = parse(sink->lines[1]);
    CHECK(reply["id"] == 2);
    const auto& sc = ok_content(reply);
    CHECK(str(sc["milestone_id"]) == "M" + std::to_string(i));
    ids.push_back(str(sc["session_id"]));
  }
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == n);
  CHECK(f.slots() == n);
  CHECK(f.clients() == n);

  for (int i = 0; i < n; ++i) {
    INFO("route " << route(i));
    auto own_reply = f.summary(route(i), ids[i]);
    const auto& own = ok_content(own_reply);
    CHECK(str(own["session_id"]) == ids[i]);
    CHECK(str(own["milestone_id"]) == "M" + std::to_string(i));
    auto other = ids[(i + 1) % n];
    auto foreign = f.summary(route(i), other);
    CHECK(error_code(foreign) == "SESSION_NOT_FOUND");
    CHECK(str(error_content(foreign)["message"])
          == "You have no tracking session '" + other
               + "'; use the session_id that "
                 "time_session_start returned.");
  }
  CHECK(f.slots() == n);
}

TEST_CASE("tracking actors: twenty clients racing for ten slots: exactly ten "
          "are granted",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(10)};
  constexpr int n = 20;
  auto route = [](int i) { return "r" + std::to_string(i); };
  for (int i = 0; i < n; ++i) {
    f.send(route(i), initialize_request(1));
    f.send(route(i), tool_call(2, "time_session_start",
                               session_start_args("M" + std::to_string(i))));
  }
  f.sched.run();
  int granted = 0;
  int refused = 0;
  for (int i = 0; i < n; ++i) {
    auto sink = f.sink(route(i));
    INFO("route " << route(i));
    REQUIRE(sink->lines.size() == 2);
    auto reply = parse(sink->lines[1]);
    const auto& res = result_of(reply);
    if (res["isError"] == false) {
      ++granted;
    } else {
      ++refused;
      CHECK(error_code(reply) == "LIMIT_REACHED");
      CHECK(contains(str(error_content(reply)["message"]),
                     "The limit of 10 open tracking sessions"));
    }
  }
  CHECK(granted == 10);
  CHECK(refused == 10);
  CHECK(f.slots() == 10);
}

TEST_CASE("tracking actors: a client actor that ends while its session start "
          "waits for room gets no slot",
          "[tracking_actors]") {
  tracking_fixture f{with_max_sessions(1)};
  f.initialize("a");
  f.initialize("b");
  auto sb = f.start_session("b");
  REQUIRE(f.slots() == 1);
  f.clock->advance(4h + 1s); // sb is due: room can be made
  auto client_a = f.client_of("a");
  auto job_of = [](const auto& handle) {
    return dynamic_cast<caf::resumable*>(
      caf::actor_cast<caf::abstract_actor*>(handle));
  };
  auto* a_job = job_of(client_a);
  auto* t_job = job_of(f.transport);
  auto* s_job = job_of(f.supervisor);
  f.send("a", tool_call(50, "time_session_start", session_start_args("M")));
  f.sched.run_jobs_filtered(
    [=](caf::resumable* j) { return j == t_job || j == a_job; });
  // Full: the supervisor asks b to expire what is due ...
  f.sched.run_jobs_filtered([=](caf::resumable* j) { return j == s_job; });
  // ... and a ends before b answers.
  caf::anon_send_exit(client_a, caf::exit_reason::kill);
  f.sched.run_jobs_filtered([=](caf::resumable* j) { return j == a_job; });
  f.sched.run();
  CHECK(f.clients() == 1);
  CHECK(f.slots() == 0);
  CHECK(error_code(f.summary("b", sb)) == "SESSION_EXPIRED");
  auto reply = f.call_tool("b", "time_session_start",
                           session_start_args("M2"));
  CHECK(result_of(reply)["isError"] == false);
  CHECK(f.slots() == 1);
}
