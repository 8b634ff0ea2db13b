// Issue 20 item 10: tools/call of an unknown tool is JSON-RPC -32602 whose
// message names the tool asked for and lists the tools there are.

#include "session_client.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace ttm;
using namespace ttm::test::session_client;

TEST_CASE("unknown tool: the -32602 message lists the available tools",
          "[mcp][issue20]") {
  client c;
  auto res = c.rpc(c.call_json("time_get_past", "{}"));
  auto msg = rpc_error(res, -32602);
  CHECK(msg.find("unknown tool 'time_get_past'") != std::string::npos);
  for (const auto& t : c.registry->tools()) {
    INFO("tool " << t.name());
    CHECK(msg.find(t.name()) != std::string::npos);
  }
  CHECK(msg.find("available tools are: time_get_current, time_session_start")
        != std::string::npos);
}

TEST_CASE("unknown tool: a long name is clipped on a character boundary",
          "[mcp][issue20]") {
  client c;
  std::string name;
  for (int i = 0; i < 100; ++i)
    name += "\xc3\xa9"; // é, two bytes each
  auto res = c.rpc(c.call_json(name, "{}"));
  auto msg = rpc_error(res, -32602);
  // 64 bytes = 32 whole characters, then "...".
  std::string clipped;
  for (int i = 0; i < 32; ++i)
    clipped += "\xc3\xa9";
  CHECK(msg.find("'" + clipped + "...'") != std::string::npos);
  CHECK(msg.find(name) == std::string::npos);
}
