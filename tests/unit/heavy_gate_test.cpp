// mcp::heavy_gate, the bound on one principal's heavy calls at once over
// HTTP (issue 34 item 5): the class alone, then through the client actors
// on CAF's deterministic scheduler, where what waits for a worker runs
// only at `sched.run()`.

#include "edge/http_inline.hpp"
#include "mcp/heavy_gate.hpp"
#include "mcp/wire.hpp"

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::test;

TEST_CASE("heavy gate: a principal's calls past its share wait, in order, "
          "other principals' do not",
          "[heavy_gate]") {
  mcp::heavy_gate gate{1};
  std::vector<int> woken;
  int a1 = 0, a2 = 0, a3 = 0, b1 = 0;
  CHECK(gate.enter("a", &a1, [&] { woken.push_back(1); }));
  CHECK_FALSE(gate.enter("a", &a2, [&] { woken.push_back(2); }));
  CHECK_FALSE(gate.enter("a", &a3, [&] { woken.push_back(3); }));
  CHECK(gate.enter("b", &b1, [&] { woken.push_back(9); })); // its own share
  CHECK(gate.load("a") == std::pair<std::size_t, std::size_t>{1, 2});

  gate.leave("a", &a3); // gone while it waited: nobody is woken
  CHECK(woken.empty());
  gate.leave("a", &a1); // done: the next in line runs
  CHECK(woken == std::vector<int>{2});
  CHECK(gate.load("a") == std::pair<std::size_t, std::size_t>{1, 0});
  gate.leave("a", &a2);
  gate.leave("b", &b1);
  CHECK(gate.load("a") == std::pair<std::size_t, std::size_t>{0, 0});
  CHECK(woken == std::vector<int>{2});
}

TEST_CASE("heavy gate: a principal's share leaves a worker to others",
          "[heavy_gate]") {
  CHECK(mcp::heavy_gate::share_for(1) == 1);
  CHECK(mcp::heavy_gate::share_for(2) == 1);
  CHECK(mcp::heavy_gate::share_for(4) == 3);
}

namespace {

const std::string initialize
  = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
    R"("protocolVersion":"2025-11-25","capabilities":{},)"
    R"("clientInfo":{"name":"test","version":"1"}}})";

std::string call(const std::string& tool, const std::string& args) {
  return R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":")"
         + tool + R"(","arguments":)" + args + "}}";
}

const std::string summary_call
  = call("time_session_summary",
         R"({"session_id":"00000000-0000-4000-8000-000000000000"})");
const std::string light_call = call("time_get_current", R"({"timezone":"UTC"})");

actors::client_config gated_config(std::shared_ptr<mcp::heavy_gate> gate) {
  auto cfg = test_client_config();
  cfg.heavy_calls = std::move(gate);
  return cfg;
}

struct gated : actor_fixture {
  std::shared_ptr<mcp::heavy_gate> gate;

  explicit gated(std::shared_ptr<mcp::heavy_gate> g)
    : actor_fixture(gated_config(g), {}), gate(std::move(g)) {
  }

  /// What an HTTP I/O thread does with a frame on route `key`.
  void send_inline(const std::string& key, const std::string& json,
                   const std::shared_ptr<collecting_sink>& sink) {
    edge::send_inline(transport, actors::inbound_atom::value, key,
                      mcp::decode(json), actors::sink_ptr{sink});
  }
};

} // namespace

TEST_CASE("heavy gate: two MCP sessions of one principal run one heavy "
          "call at a time, a light call does not wait",
          "[heavy_gate]") {
  gated f{std::make_shared<mcp::heavy_gate>(1)};
  std::vector<std::shared_ptr<collecting_sink>> sinks;
  for (const char* key : {"a", "b", "c"}) {
    sinks.push_back(std::make_shared<collecting_sink>());
    caf::anon_send(f.transport, actors::inbound_atom::value,
                   std::string{key}, mcp::decode(initialize),
                   actors::sink_ptr{sinks.back()});
  }
  f.sched.run();
  auto a = sinks[0], b = sinks[1], c = sinks[2];
  REQUIRE(a->lines.size() == 1);
  REQUIRE(b->lines.size() == 1);

  f.send_inline("a", summary_call, a); // held for a worker, its turn now
  f.send_inline("b", summary_call, b); // the principal's share is taken
  CHECK(f.gate->load("local") == std::pair<std::size_t, std::size_t>{1, 1});
  f.send_inline("c", light_call, c);
  REQUIRE(c->lines.size() == 2); // answered on the I/O thread at once

  // One worker turn at a time: a's summary runs and leaves; b's then.
  while (f.sched.try_run_once()) {
    if (a->lines.size() == 2 && b->lines.size() == 1)
      CHECK(f.gate->load("local").second == 0); // b woken, a gone
  }
  REQUIRE(a->lines.size() == 2);
  REQUIRE(b->lines.size() == 2);
  CHECK(parse(b->lines[1])["result"]["structuredContent"]["error_code"]
        == "SESSION_NOT_FOUND");
  CHECK(f.gate->load("local") == std::pair<std::size_t, std::size_t>{0, 0});
}
