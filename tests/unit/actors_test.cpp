// The actors on CAF's deterministic scheduler: nothing runs until the test
// says so, so message interleavings (e.g. a cancellation overtaking a reply)
// are reproduced exactly, and time comes from a fake clock.

#include "actors/transport.hpp"
#include "mcp/wire.hpp"

#include <caf/all.hpp>

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

// The shared actor fixture (actor_fixture.hpp) and JSON helpers.
using namespace ttm::test;

namespace {

const std::string initialize_2025_11_25
  = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"test","version":"1"}}})";

std::string call_get_current(int id, const std::string& zone) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id)
         + R"(,"method":"tools/call","params":{"name":"time_get_current",)"
           R"("arguments":{"timezone":")"
         + zone + R"("}}})";
}

struct fixture : actor_fixture {
  explicit fixture(std::size_t max_clients = 10,
                   caf::timespan idle_timeout = {})
    : actor_fixture(test_client_config(),
                    supervisor_config(max_clients, idle_timeout)) {
  }

  static actors::supervisor_config
  supervisor_config(std::size_t max_clients, caf::timespan idle_timeout) {
    actors::supervisor_config sup_cfg;
    sup_cfg.max_clients = max_clients;
    sup_cfg.mcp_idle_timeout = idle_timeout;
    return sup_cfg;
  }

  void send(const std::string& route, const std::string& json,
            const std::shared_ptr<collecting_sink>& sink) {
    caf::anon_send(transport, actors::inbound_atom::value, route,
                   mcp::decode(json), actors::sink_ptr{sink});
  }

  void open(const std::string& route, const std::string& json,
            const std::shared_ptr<collecting_sink>& sink,
            const std::string& principal = "local") {
    caf::anon_send(transport, actors::open_atom::value, route, principal,
                   mcp::decode(json), actors::sink_ptr{sink});
  }

  void forward(const std::string& route, const std::string& json,
               const std::shared_ptr<collecting_sink>& sink,
               const std::string& principal = "local") {
    caf::anon_send(transport, actors::forward_atom::value, route, principal,
                   mcp::decode(json), actors::sink_ptr{sink});
  }

  void end(const std::string& route,
           const std::shared_ptr<collecting_sink>& sink,
           const std::string& principal = "local") {
    caf::anon_send(transport, actors::end_atom::value, route, principal,
                   actors::sink_ptr{sink});
  }

  void eof(const std::string& route,
           const std::shared_ptr<collecting_sink>& sink) {
    caf::anon_send(transport, actors::eof_atom::value, route,
                   actors::sink_ptr{sink});
  }

  std::uint64_t active_clients() {
    return counted_clients();
  }

  /// Runs only the transport's jobs, leaving every other actor waiting.
  void run_transport_only() {
    run_only(transport);
  }

  /// The routes the transport holds.
  const std::unordered_map<std::string, actors::route_state>& routes() {
    return state().routes;
  }
};

} // namespace

TEST_CASE("actors: a new route gets a client actor admitted by the "
          "supervisor") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", initialize_2025_11_25, sink);
  f.send("a", call_get_current(2, "UTC"), sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  CHECK(parse(sink->lines[0])["result"]["protocolVersion"]
        == "2025-11-25");
  auto reply = parse(sink->lines[1]);
  CHECK(reply["id"] == 2);
  CHECK(reply["result"]["isError"] == false);
  CHECK(f.active_clients() == 1);
}

TEST_CASE("actors: tools read the injected clock") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", initialize_2025_11_25, sink);
  f.send("a", call_get_current(2, "America/New_York"), sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  auto reply = parse(sink->lines[1]);
  CHECK(std::string{reply["result"]["structuredContent"]["timestamp"]
                      .GetString()}
        == "2024-12-14T09:45:32.123-05:00");
  f.clock->advance(1h);
  f.send("a", call_get_current(3, "America/New_York"), sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 3);
  CHECK(std::string{parse(sink->lines[2])["result"]["structuredContent"]
                                         ["timestamp"]
                                           .GetString()}
        == "2024-12-14T10:45:32.123-05:00");
}

TEST_CASE("actors: each route has its own MCP session") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  auto b = std::make_shared<collecting_sink>();
  f.send("a", initialize_2025_11_25, a);
  f.send("b", R"({"jsonrpc":"2.0","id":5,"method":"tools/list"})", b);
  f.sched.run();
  REQUIRE(a->lines.size() == 1);
  REQUIRE(b->lines.size() == 1);
  auto reply = parse(b->lines[0]);
  CHECK(reply["error"]["code"] == -32600);
  CHECK(f.active_clients() == 2);
}

TEST_CASE("actors: the supervisor refuses clients beyond the cap") {
  fixture f{1};
  auto a = std::make_shared<collecting_sink>();
  auto b = std::make_shared<collecting_sink>();
  f.send("a", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", a);
  f.sched.run();
  f.send("b", R"({"jsonrpc":"2.0","id":"x","method":"ping"})", b);
  f.sched.run();
  REQUIRE(a->lines.size() == 1);
  CHECK(parse(a->lines[0])["result"].IsObject());
  REQUIRE(b->lines.size() == 1);
  auto refused = parse(b->lines[0]);
  CHECK(refused["id"] == "x");
  CHECK(refused["error"]["code"] == -32603);
  CHECK(std::string{refused["error"]["message"].GetString()}.find("limit")
        != std::string::npos);
  CHECK(b->closed == 1);
  CHECK(f.active_clients() == 1);
  // Once the first client is gone, a new one is admitted.
  f.eof("a", a);
  f.sched.run();
  CHECK(a->closed == 1);
  CHECK(f.active_clients() == 0);
  auto c = std::make_shared<collecting_sink>();
  f.send("c", R"({"jsonrpc":"2.0","id":2,"method":"ping"})", c);
  f.sched.run();
  REQUIRE(c->lines.size() == 1);
  CHECK(parse(c->lines[0])["result"].IsObject());
}

TEST_CASE("actors: a call cancelled while in flight gets no response") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", initialize_2025_11_25, sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 1);
  // The transport forwards the call and reads the cancellation before the
  // client actor gets to run: the reply that follows must be dropped.
  f.send("a", call_get_current(7, "UTC"), sink);
  f.send("a",
         R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
         R"("params":{"requestId":7,"reason":"user"}})",
         sink);
  f.run_transport_only();
  f.sched.run();
  CHECK(sink->lines.size() == 1);
  // A cancellation naming a call already answered changes nothing.
  f.send("a", call_get_current(8, "UTC"), sink);
  f.sched.run();
  f.send("a",
         R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
         R"("params":{"requestId":8}})",
         sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  CHECK(parse(sink->lines[1])["id"] == 8);
  // And a later request reusing id 7 is answered normally.
  f.send("a", call_get_current(7, "UTC"), sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 3);
  CHECK(parse(sink->lines[2])["id"] == 7);
}

TEST_CASE("actors: end of input closes the route after in-flight replies") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", initialize_2025_11_25, sink);
  f.send("a", call_get_current(2, "UTC"), sink);
  f.eof("a", sink);
  // The transport handles all three messages before the client answers.
  f.run_transport_only();
  CHECK(sink->closed == 0);
  f.sched.run();
  CHECK(sink->lines.size() == 2);
  CHECK(sink->closed == 1);
  CHECK(f.active_clients() == 0);
}

TEST_CASE("actors: end of input on an unknown route closes its sink") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.eof("nobody", sink);
  f.sched.run();
  CHECK(sink->closed == 1);
  CHECK(sink->lines.empty());
}

TEST_CASE("actors: frame-level errors are answered on the route") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", "this is not json", sink);
  f.send("a", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  auto err = parse(sink->lines[0]);
  CHECK(err["id"].IsNull());
  CHECK(err["error"]["code"] == -32700);
  CHECK(parse(sink->lines[1])["id"] == 1);
}

TEST_CASE("actors: shutting down the transport ends its client actors") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sink);
  f.send("b", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sink);
  f.sched.run();
  CHECK(f.active_clients() == 2);
  caf::anon_send_exit(f.transport, caf::exit_reason::user_shutdown);
  f.sched.run();
  CHECK(f.active_clients() == 0);
}

TEST_CASE("actors: initialize cannot be cancelled") {
  fixture f;
  auto sink = std::make_shared<collecting_sink>();
  f.send("a", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", sink);
  f.sched.run();
  // MCP forbids cancelling initialize; a client that tries anyway still gets
  // the response, so it knows the session is initialized.
  f.send("a", initialize_2025_11_25, sink);
  f.send("a",
         R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
         R"("params":{"requestId":1}})",
         sink);
  f.run_transport_only();
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  CHECK(parse(sink->lines[1])["result"]["protocolVersion"] == "2025-11-25");
}

// -- routes opened explicitly (HTTP: initialize creates the MCP session) -----

namespace {

const std::string ping_1 = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";

} // namespace

TEST_CASE("actors: forward reaches only routes that were opened") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  f.forward("k1", ping_1, a);
  f.sched.run();
  CHECK(a->lines.empty());
  REQUIRE(a->refusals.size() == 1);
  CHECK(a->refusals[0] == actors::route_refusal::unknown_route);
  CHECK(a->done == 0);
  CHECK(f.active_clients() == 0);

  auto b = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, b);
  f.sched.run();
  REQUIRE(b->lines.size() == 1);
  CHECK(parse(b->lines[0])["result"]["protocolVersion"] == "2025-11-25");
  CHECK(b->done == 1);
  auto c = std::make_shared<collecting_sink>();
  f.forward("k1", call_get_current(2, "UTC"), c);
  f.sched.run();
  REQUIRE(c->lines.size() == 1);
  CHECK(parse(c->lines[0])["result"]["isError"] == false);
  CHECK(c->refusals.empty());
  CHECK(f.active_clients() == 1);
}

TEST_CASE("actors: a route answers only the principal that opened it") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a, "alice");
  f.sched.run();
  REQUIRE(a->lines.size() == 1);
  auto start = std::make_shared<collecting_sink>();
  f.forward("k1",
            R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{)"
            R"("name":"time_session_start","arguments":{)"
            R"("milestone_id":"M","task_ids":["T1"]}}})",
            start, "alice");
  f.sched.run();
  REQUIRE(start->lines.size() == 1);
  CHECK(parse(start->lines[0])["result"]["isError"] == false);
  CHECK(f.slots() == 1);

  // Bob, with Alice's route key: refused exactly like a key never issued,
  // for a frame and for an end; nothing reaches Alice's client actor.
  auto bob = std::make_shared<collecting_sink>();
  f.forward("k1", call_get_current(3, "UTC"), bob, "bob");
  f.end("k1", bob, "bob");
  auto unknown = std::make_shared<collecting_sink>();
  f.forward("k9", call_get_current(3, "UTC"), unknown, "bob");
  f.end("k9", unknown, "bob");
  f.sched.run();
  CHECK(bob->lines.empty());
  CHECK(bob->done == 0);
  CHECK(bob->closed == 0);
  CHECK(bob->refusals == unknown->refusals);
  CHECK(bob->refusals
        == std::vector<actors::route_refusal>{
          actors::route_refusal::unknown_route,
          actors::route_refusal::unknown_route});
  // A principal named like a prefix or with other case is another one.
  auto other = std::make_shared<collecting_sink>();
  f.forward("k1", ping_1, other, "Alice");
  f.forward("k1", ping_1, other, "alic");
  f.sched.run();
  CHECK(other->refusals.size() == 2);
  CHECK(other->lines.empty());

  // Alice's session and her tracking session are untouched.
  CHECK(f.active_clients() == 1);
  CHECK(f.slots() == 1);
  auto again = std::make_shared<collecting_sink>();
  f.forward("k1", call_get_current(4, "UTC"), again, "alice");
  f.sched.run();
  REQUIRE(again->lines.size() == 1);
  CHECK(parse(again->lines[0])["result"]["isError"] == false);
  auto d = std::make_shared<collecting_sink>();
  f.end("k1", d, "alice");
  f.sched.run();
  CHECK(d->closed == 1);
  CHECK(d->refusals.empty());
  CHECK(f.active_clients() == 0);
}

TEST_CASE("actors: open beyond the session cap is refused as busy") {
  fixture f{1};
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.sched.run();
  auto b = std::make_shared<collecting_sink>();
  f.open("k2", initialize_2025_11_25, b);
  f.sched.run();
  CHECK(b->lines.empty());
  REQUIRE(b->refusals.size() == 1);
  CHECK(b->refusals[0] == actors::route_refusal::busy);
  CHECK(b->closed == 0);
  CHECK(f.active_clients() == 1);
  // The refused route does not exist.
  auto c = std::make_shared<collecting_sink>();
  f.forward("k2", ping_1, c);
  f.sched.run();
  REQUIRE(c->refusals.size() == 1);
  CHECK(c->refusals[0] == actors::route_refusal::unknown_route);
}

TEST_CASE("actors: end closes a route and its client actor") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.sched.run();
  CHECK(f.active_clients() == 1);
  auto d = std::make_shared<collecting_sink>();
  f.end("k1", d);
  f.sched.run();
  CHECK(d->closed == 1);
  CHECK(d->refusals.empty());
  CHECK(f.active_clients() == 0);
  auto b = std::make_shared<collecting_sink>();
  f.forward("k1", ping_1, b);
  f.end("k1", b);
  f.sched.run();
  REQUIRE(b->refusals.size() == 2);
  CHECK(b->refusals[0] == actors::route_refusal::unknown_route);
  CHECK(b->refusals[1] == actors::route_refusal::unknown_route);
  CHECK(b->closed == 0);
}

TEST_CASE("actors: notifications reach the sink as notifications, before "
          "the response") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.forward("k1",
            R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel",)"
            R"("params":{"level":"debug"}})",
            a);
  f.forward("k1", call_get_current(3, "UTC"), a);
  f.sched.run();
  REQUIRE(a->lines.size() >= 4);
  REQUIRE(!a->notification_lines.empty());
  for (auto i : a->notification_lines) {
    CHECK(parse(a->lines[i])["method"] == "notifications/message");
    CHECK(i < a->lines.size() - 1);
  }
  CHECK(parse(a->lines.back())["id"] == 3);
}

// -- MCP-session idle timeout and client actors that end on their own --------

namespace {

const std::string session_start_1
  = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{)"
    R"("name":"time_session_start","arguments":{"milestone_id":"M1",)"
    R"("task_ids":["T1"],"timezone":"UTC"}}})";

} // namespace

TEST_CASE("actors: an opened route idle past the timeout is ended by the "
          "supervisor's sweep") {
  fixture f{10, std::chrono::minutes{30}};
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.sched.run();
  CHECK(f.active_clients() == 1);
  // 29 minutes: still there; the request restarts the idle time.
  f.clock->advance(std::chrono::minutes{29});
  f.sweep();
  f.forward("k1", ping_1, a);
  f.sched.run();
  CHECK(a->refusals.empty());
  REQUIRE(a->lines.size() == 2);
  CHECK(f.active_clients() == 1);
  f.clock->advance(std::chrono::minutes{29});
  f.sweep();
  CHECK(f.active_clients() == 1);
  CHECK(f.routes().count("k1") == 1);
  // 30 minutes after the last request: the client actor ends itself, and
  // the transport forgets its route.
  f.clock->advance(std::chrono::minutes{1});
  f.sweep();
  CHECK(f.active_clients() == 0);
  CHECK(f.routes().empty());
  auto b = std::make_shared<collecting_sink>();
  f.forward("k1", ping_1, b);
  f.sched.run();
  CHECK(b->lines.empty());
  REQUIRE(b->refusals.size() == 1);
  CHECK(b->refusals[0] == actors::route_refusal::unknown_route);
  // The sweep goes on for routes opened later.
  auto c = std::make_shared<collecting_sink>();
  f.open("k2", initialize_2025_11_25, c);
  f.sched.run();
  f.clock->advance(std::chrono::minutes{30});
  f.sweep();
  CHECK(f.routes().empty());
}

TEST_CASE("actors: a route whose frame waits longer than the idle timeout "
          "is not ended") {
  fixture f{10, std::chrono::minutes{30}};
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.sched.run();
  REQUIRE(a->lines.size() == 1);
  auto client = f.client_of("k1");
  // The session start reaches the client actor; the sweep is queued at the
  // supervisor before the client's slot request, so the supervisor sends
  // `idle` before it answers, while the frame is paused.
  f.forward("k1", session_start_1, a);
  f.forward("k1", ping_1, a); // queued behind the paused start
  f.run_transport_only();
  REQUIRE(f.sched.trigger_timeouts() == 1);
  f.run_only(client);
  CHECK(a->lines.size() == 1);
  f.clock->advance(std::chrono::minutes{30});
  f.sched.run();
  REQUIRE(a->lines.size() == 3);
  CHECK(parse(a->lines[1])["id"] == 2);
  CHECK(parse(a->lines[1])["result"]["isError"] == false);
  CHECK(parse(a->lines[2])["id"] == 1);
  CHECK(f.routes().count("k1") == 1);
  CHECK(f.active_clients() == 1);
  // Its resumption counts as activity: the next sweep keeps it too.
  f.sweep();
  CHECK(f.routes().count("k1") == 1);
  CHECK(f.active_clients() == 1);
}

TEST_CASE("actors: the stdio route never idles out") {
  fixture f{10, std::chrono::minutes{30}};
  auto sink = std::make_shared<collecting_sink>();
  f.send("stdio", initialize_2025_11_25, sink);
  f.sched.run();
  for (int i = 0; i < 4; ++i) {
    f.clock->advance(std::chrono::hours{1});
    f.sweep();
  }
  CHECK(f.active_clients() == 1);
  // Still the same, initialized MCP session.
  f.send("stdio", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", sink);
  f.sched.run();
  REQUIRE(sink->lines.size() == 2);
  CHECK(parse(sink->lines[1])["result"]["tools"].IsArray());
  CHECK(sink->closed == 0);
}

TEST_CASE("actors: a client actor that ends on its own takes its route "
          "along") {
  SECTION("stdio: a request in flight gets -32603, the eof sink is closed") {
    fixture f;
    auto sink = std::make_shared<collecting_sink>();
    f.send("stdio", initialize_2025_11_25, sink);
    f.sched.run();
    auto client = f.client_of("stdio");
    // The exit is in the client's mailbox before the request: CAF bounces
    // the request when the actor ends.
    caf::anon_send_exit(client, caf::exit_reason::kill);
    f.send("stdio", R"({"jsonrpc":"2.0","id":5,"method":"ping"})", sink);
    f.eof("stdio", sink);
    f.run_transport_only();
    f.sched.run();
    REQUIRE(sink->lines.size() == 2);
    auto err = parse(sink->lines[1]);
    CHECK(err["id"] == 5);
    CHECK(err["error"]["code"] == -32603);
    CHECK(sink->done == 2);
    CHECK(sink->closed == 1);
    CHECK(f.routes().empty());
    CHECK(f.active_clients() == 0);
  }
  SECTION("HTTP: a paused frame and one queued behind it get -32603, later "
          "frames find no route") {
    fixture f;
    auto a = std::make_shared<collecting_sink>();
    f.open("k1", initialize_2025_11_25, a);
    f.sched.run();
    auto client = f.client_of("k1");
    f.forward("k1", session_start_1, a);
    f.forward("k1", R"({"jsonrpc":"2.0","id":3,"method":"ping"})", a);
    f.run_all_but_supervisor();
    CHECK(a->lines.size() == 1);
    caf::anon_send_exit(client, caf::exit_reason::kill);
    f.sched.run();
    REQUIRE(a->lines.size() == 3);
    CHECK(parse(a->lines[1])["id"] == 2);
    CHECK(parse(a->lines[1])["error"]["code"] == -32603);
    CHECK(parse(a->lines[2])["id"] == 3);
    CHECK(parse(a->lines[2])["error"]["code"] == -32603);
    CHECK(a->done == 3);
    CHECK(f.routes().empty());
    CHECK(f.active_clients() == 0);
    auto b = std::make_shared<collecting_sink>();
    f.forward("k1", ping_1, b);
    f.sched.run();
    REQUIRE(b->refusals.size() == 1);
    CHECK(b->refusals[0] == actors::route_refusal::unknown_route);
  }
}

TEST_CASE("actors: an MCP session holding tracking sessions outlives the "
          "MCP idle timeout, it idles out once they expired") {
  fixture f{10, std::chrono::minutes{30}};
  auto a = std::make_shared<collecting_sink>();
  f.open("k1", initialize_2025_11_25, a);
  f.forward("k1",
            R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{)"
            R"("name":"time_session_start","arguments":{)"
            R"("milestone_id":"M1","task_ids":["T1"]}}})",
            a);
  f.sched.run();
  REQUIRE(a->lines.size() == 2);
  CHECK(parse(a->lines[1])["result"]["isError"] == false);
  // Two hours without a request: the MCP session stays, because a task may
  // run that long while the agent works elsewhere.
  for (int i = 0; i < 4; ++i) {
    f.clock->advance(std::chrono::minutes{30});
    f.sweep();
  }
  CHECK(f.active_clients() == 1);
  CHECK(f.routes().count("k1") == 1);
  // Past the tracking session's idle limit (4 h) it expires, and with it
  // the reason to keep the MCP session.
  f.clock->advance(std::chrono::hours{2} + std::chrono::seconds{1});
  f.sweep(); // expires the tracking session
  f.sweep(); // the client, now holding none, ends itself
  CHECK(f.active_clients() == 0);
  CHECK(f.routes().empty());
}
