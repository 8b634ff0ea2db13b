// The actors on CAF's deterministic scheduler: nothing runs until the test
// says so, so message interleavings (e.g. a cancellation overtaking a reply)
// are reproduced exactly, and time comes from a fake clock.

#include "actors/client.hpp"
#include "actors/supervisor.hpp"
#include "actors/transport.hpp"
#include "domain/clock.hpp"
#include "log.hpp"
#include "tools/registry.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <catch2/catch.hpp>
#include "test_json.hpp"
#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;

using ttm::test::parse;

namespace {

// Keep stderr quiet in test runs: info lines from the actors are noise here.
const bool quiet_logs = (log::set_threshold(log::level::warning), true);

struct collecting_sink final : actors::reply_sink {
  std::vector<std::string> lines;
  int closed = 0;
  void deliver(std::string json) override {
    lines.push_back(std::move(json));
  }
  void close() override {
    ++closed;
  }
};

caf::actor_system_config& testing_config(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  return cfg;
}

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

struct fixture {
  explicit fixture(std::size_t max_clients = 10)
    : sys(testing_config(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
      clock(std::make_shared<domain::fake_clock>(
        domain::wall_time{std::chrono::milliseconds{1734187532123}})) {
    actors::client_config client;
    client.registry = tools::make_registry();
    client.clock = clock;
    client.local_zone = "America/New_York";
    client.info = {"time-tracker-mcp", "Time Tracker MCP", "0.0.0", "test"};
    actors::supervisor_config sup_cfg;
    sup_cfg.max_clients = max_clients;
    supervisor = sys.spawn(actors::supervisor_behavior, sup_cfg);
    transport = sys.spawn(actors::transport_behavior,
                          actors::transport_config{client, supervisor});
    sched.run();
  }

  ~fixture() {
    caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    sched.run();
  }

  void send(const std::string& route, const std::string& json,
            const std::shared_ptr<collecting_sink>& sink) {
    caf::anon_send(transport, actors::inbound_atom::value, route,
                   protocol::decode(json), actors::sink_ptr{sink});
  }

  void eof(const std::string& route,
           const std::shared_ptr<collecting_sink>& sink) {
    caf::anon_send(transport, actors::eof_atom::value, route,
                   actors::sink_ptr{sink});
  }

  std::uint64_t active_clients() {
    caf::scoped_actor self{sys};
    auto handle = self->request(supervisor, caf::infinite,
                                actors::count_atom::value);
    sched.run();
    std::uint64_t n = 999;
    handle.receive([&](std::uint64_t x) { n = x; },
                   [&](caf::error&) { FAIL("count request failed"); });
    return n;
  }

  /// Runs only the transport's jobs, leaving every other actor waiting.
  void run_transport_only() {
    auto* ptr = dynamic_cast<caf::resumable*>(
      caf::actor_cast<caf::abstract_actor*>(transport));
    sched.run_jobs_filtered([=](caf::resumable* job) { return job == ptr; });
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::shared_ptr<domain::fake_clock> clock;
  actors::supervisor_actor supervisor;
  actors::transport_actor transport;
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
