// Unit tests for the MCP method table (src/mcp/methods.hpp): era gating,
// unknown methods, the capabilities derived from what is registered, and a
// session dispatching through it.

#include "mcp/methods.hpp"
#include "mcp/session.hpp"
#include "protocol/error_codes.hpp"
#include "protocol/modern.hpp"

#include <catch2/catch.hpp>
#include "test_client_state.hpp"
#include "test_json.hpp"

#include <stdexcept>
#include <string>

using namespace ttm;
using protocol::era;
using namespace ttm::test;

namespace {

std::string capabilities(const mcp::method_table& t) {
  rapidjson::StringBuffer buf;
  mcp::json_writer w{buf};
  t.write_capabilities(w);
  return buf.GetString();
}

mcp::method named(std::string_view name, mcp::eras in,
                  mcp::capability implies = mcp::capability::none) {
  mcp::method m;
  m.name = name;
  m.in = in;
  m.implies = implies;
  return m;
}

const std::string modern_meta
  = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

std::string modern(const std::string& method, const std::string& id = "1") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method
         + R"(","params":{)" + modern_meta + "}}";
}

} // namespace

TEST_CASE("methods: the server's table gates methods by era",
          "[mcp][methods]") {
  const auto& t = mcp::server_methods();
  for (auto name : {"ping", "initialize", "logging/setLevel"}) {
    INFO(name);
    CHECK(t.find(name, era::legacy) != nullptr);
    CHECK(t.find(name, era::modern) == nullptr);
  }
  for (auto name : {"server/discover", "subscriptions/listen"}) {
    INFO(name);
    CHECK(t.find(name, era::legacy) == nullptr);
    CHECK(t.find(name, era::modern) != nullptr);
  }
  for (auto name : {"tools/call", "tools/list", "prompts/list", "prompts/get",
                    "resources/list", "resources/templates/list",
                    "resources/read", "completion/complete"}) {
    INFO(name);
    CHECK(t.find(name, era::legacy) != nullptr);
    CHECK(t.find(name, era::modern) != nullptr);
  }
  for (auto name : {"resources/subscribe", "sampling/createMessage", "",
                    "tools/List"}) {
    INFO(name);
    CHECK(t.find(name, era::legacy) == nullptr);
    CHECK(t.find(name, era::modern) == nullptr);
  }
  for (const auto& m : t.methods()) {
    INFO(m.name);
    CHECK(m.handle != nullptr);
  }
}

TEST_CASE("methods: the modern methods are those the envelope check admits",
          "[mcp][methods]") {
  // protocol::check_modern_request refuses other methods before dispatch
  // (the HTTP edge answers 404 from it): its list must match the table.
  for (const auto& m : mcp::server_methods().methods()) {
    INFO(m.name);
    CHECK(protocol::is_modern_method(m.name)
          == mcp::in_era(m.in, era::modern));
  }
}

TEST_CASE("methods: capabilities are derived from the registrations",
          "[mcp][methods]") {
  // What initialize and server/discover announce today, byte for byte.
  CHECK(capabilities(mcp::server_methods())
        == R"({"completions":{},"logging":{},"prompts":{"listChanged":false},)"
           R"("resources":{"listChanged":false},"tools":{"listChanged":false}})");

  mcp::method_table t;
  CHECK(capabilities(t) == "{}");
  t.add(named("tools/list", mcp::eras::both, mcp::capability::tools));
  CHECK(capabilities(t) == R"({"tools":{"listChanged":false}})");
  // A second method of a capability announces it once.
  t.add(named("tools/call", mcp::eras::both, mcp::capability::tools));
  t.add(named("ping", mcp::eras::legacy));
  CHECK(capabilities(t) == R"({"tools":{"listChanged":false}})");
  // A later resource or prompt is one registration; the order stays fixed.
  t.add(named("resources/list", mcp::eras::both, mcp::capability::resources));
  t.add(named("prompts/list", mcp::eras::both, mcp::capability::prompts));
  t.add(named("logging/setLevel", mcp::eras::legacy,
              mcp::capability::logging));
  CHECK(capabilities(t)
        == R"({"logging":{},"prompts":{"listChanged":false},)"
           R"("resources":{"listChanged":false},)"
           R"("tools":{"listChanged":false}})");
}

TEST_CASE("methods: a table refuses a name registered twice",
          "[mcp][methods]") {
  mcp::method_table t;
  t.add(named("tools/list", mcp::eras::legacy));
  CHECK_THROWS_AS(t.add(named("tools/list", mcp::eras::modern)),
                  std::logic_error);
  CHECK(t.find("tools/list", era::modern) == nullptr);
}

TEST_CASE("methods: unknown methods and methods of the other era get -32601",
          "[mcp][methods]") {
  SECTION("2025 session") {
    auto s = session();
    call(s, initialize_request("2025-11-25"));
    for (std::string m : {"resources/subscribe", "server/discover",
                          "subscriptions/listen", "nope"}) {
      auto res = call(s, request(m, "7"));
      CHECK(error_message(res, protocol::method_not_found)
            == "Method not found: '" + m + "'");
      CHECK(to_json(res["id"]) == "7");
    }
  }
  SECTION("2026-07-28 requests") {
    // Refused as they arrive (protocol::check_modern_request): the era
    // stays undecided.
    auto s = session();
    for (std::string m : {"resources/subscribe", "nope"}) {
      auto res = call(s, modern(m, "8"));
      CHECK(error_message(res, protocol::method_not_found)
            == "Method not found: '" + m + "'");
    }
    for (std::string m : {"ping", "logging/setLevel", "initialize"}) {
      auto res = call(s, modern(m, "8"));
      CHECK(error_message(res, protocol::method_not_found)
            == "Method not found: '" + m
                 + "' is not part of protocol revision 2026-07-28");
    }
    CHECK_FALSE(s.current_era().has_value());
    call(s, modern("tools/list", "9"));
    CHECK(s.current_era() == era::modern);
  }
  SECTION("before initialize, an unknown method is refused as uninitialized") {
    auto s = session();
    auto res = call(s, request("nope"));
    CHECK(error_message(res, protocol::invalid_request)
          == "Server not initialized: the first request must be "
             "'initialize' (got 'nope')");
    CHECK_FALSE(s.current_era().has_value());
  }
}

TEST_CASE("methods: initialize announces the derived capabilities",
          "[mcp][methods]") {
  auto s = session();
  auto out = send(s, initialize_request("2025-11-25"));
  CHECK(out.response.find(
          R"("capabilities":{"completions":{},"logging":{},)"
          R"("prompts":{"listChanged":false},"resources":{"listChanged":false},)"
          R"("tools":{"listChanged":false}})")
        != std::string::npos);
  auto d = session();
  auto discovered = send(d, modern("server/discover"));
  CHECK(discovered.response.find(
          R"("capabilities":{"completions":{},"logging":{},)"
          R"("prompts":{"listChanged":false},"resources":{"listChanged":false},)"
          R"("tools":{"listChanged":false}})")
        != std::string::npos);
}
