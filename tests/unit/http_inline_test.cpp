// The HTTP I/O thread runs the actors its request wakes (edge/http_inline.hpp)
// but never a heavy call (tools::cost): on CAF's deterministic scheduler,
// what the I/O thread's unit did not run waits for `sched.run()`, so the
// test sees exactly which call ran inline and which was left to a worker.

#include "edge/http_inline.hpp"
#include "mcp/cost.hpp"
#include "mcp/wire.hpp"

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"
#include "test_json.hpp"

#include <memory>
#include <string>

using namespace ttm;
using namespace ttm::test;

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

struct fixture : actor_fixture {
  fixture() : actor_fixture(test_client_config(), {}) {
  }

  /// What an HTTP I/O thread does with a frame on route `key`.
  void send_inline(const std::string& key, const std::string& json,
                   const std::shared_ptr<collecting_sink>& sink) {
    edge::send_inline(transport, actors::inbound_atom::value, key,
                      mcp::decode(json), actors::sink_ptr{sink});
  }
};

} // namespace

TEST_CASE("http inline: a light call runs on the I/O thread, a heavy one "
          "waits for a worker while others are answered",
          "[http_inline]") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  auto b = std::make_shared<collecting_sink>();
  for (auto& [key, sink] : {std::pair{"a", a}, std::pair{"b", b}})
    caf::anon_send(f.transport, actors::inbound_atom::value,
                   std::string{key}, mcp::decode(initialize),
                   actors::sink_ptr{sink});
  f.sched.run();
  REQUIRE(a->lines.size() == 1);
  REQUIRE(b->lines.size() == 1);

  f.send_inline("a", summary_call, a);
  CHECK(a->lines.size() == 1); // held for a worker: nothing ran it yet
  f.send_inline("b", light_call, b);
  REQUIRE(b->lines.size() == 2); // answered by the I/O thread itself
  CHECK(parse(b->lines[1])["result"]["isError"] == false);
  CHECK(a->lines.size() == 1); // the summary still waits

  f.sched.run(); // the workers' turn
  REQUIRE(a->lines.size() == 2);
  auto reply = parse(a->lines[1]);
  CHECK(reply["id"] == 2);
  CHECK(reply["result"]["structuredContent"]["error_code"]
        == "SESSION_NOT_FOUND");
}

TEST_CASE("http inline: frames that arrive behind a held call wait for it",
          "[http_inline]") {
  fixture f;
  auto a = std::make_shared<collecting_sink>();
  caf::anon_send(f.transport, actors::inbound_atom::value, std::string{"a"},
                 mcp::decode(initialize), actors::sink_ptr{a});
  f.sched.run();
  f.send_inline("a", summary_call, a);
  f.send_inline("a", light_call, a); // same MCP session: in order
  CHECK(a->lines.size() == 1);
  f.sched.run();
  REQUIRE(a->lines.size() == 3);
  CHECK(parse(a->lines[1])["result"]["structuredContent"]["error_code"]
        == "SESSION_NOT_FOUND");
  CHECK(parse(a->lines[2])["result"]["isError"] == false);
}

TEST_CASE("http inline: the cost of a frame comes from the tools' "
          "declarations",
          "[http_inline]") {
  auto reg = tools::make_registry({}, {"all"});
  auto heavy = [&](const std::string& json) {
    return mcp::heavy_frame(mcp::decode(json), *reg);
  };
  for (const char* tool :
       {"time_session_summary", "time_session_end", "time_session_report",
        "time_session_list", "time_stats", "time_tasks_edit", "time_undo"})
    CHECK(heavy(call(tool, "{}")));
  for (const char* tool : {"time_get_current", "time_task_start",
                           "time_convert", "no_such_tool"})
    CHECK_FALSE(heavy(call(tool, "{}")));
  CHECK(heavy(R"({"jsonrpc":"2.0","id":3,"method":"resources/read","params":)"
              R"({"uri":"time-tracker://sessions/x/report.md"}})"));
  CHECK_FALSE(heavy(R"({"jsonrpc":"2.0","id":3,"method":"resources/list"})"));
  // A batch is as heavy as its heaviest request.
  CHECK(heavy("[" + light_call + "," + summary_call + "]"));
  // A notification is never run as a call.
  CHECK_FALSE(heavy(R"({"jsonrpc":"2.0","method":"tools/call","params":)"
                    R"({"name":"time_stats"}})"));
}
