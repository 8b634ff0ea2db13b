// Issue 32 item 2: the Mcp-Param-* rule of 2026-07-28 (SEP-2243): a
// tools/call's headers for the arguments its tool declares x-mcp-header on
// must agree with the body (edge/http_param_headers.hpp).

#include "edge/http_param_headers.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

using namespace ttm;

namespace {

std::optional<std::string> check(const edge::param_headers& sent,
                                 const char* args_json) {
  rapidjson::Document d;
  d.Parse(args_json);
  REQUIRE(d.IsObject());
  return edge::param_mismatch(sent, {{"session_id", "Session-Id"}}, &d);
}

} // namespace

TEST_CASE("http: Mcp-Param-Session-Id must repeat arguments.session_id",
          "[http][issue32]") {
  const char* with = R"({"session_id":"abc-1"})";
  CHECK_FALSE(check({{"Session-Id", "abc-1"}}, with));
  CHECK_FALSE(check({{"session-id", "abc-1"}}, with)); // names: any case
  CHECK_FALSE(check({{"Session-Id", "=?base64?YWJjLTE=?="}}, with));
  CHECK_FALSE(check({}, R"({"other":1})"));
  CHECK_FALSE(check({}, R"({"session_id":null})"));
  auto missing = check({}, with);
  REQUIRE(missing);
  CHECK(*missing == "the Mcp-Param-Session-Id header is missing; it must "
                    "repeat arguments.session_id ('abc-1')");
  auto other = check({{"Session-Id", "abc-2"}}, with);
  REQUIRE(other);
  CHECK(*other == "Mcp-Param-Session-Id header value 'abc-2' does not match "
                  "body value 'abc-1'");
  auto extra = check({{"Session-Id", "abc-1"}}, R"({})");
  REQUIRE(extra);
  CHECK(extra->find("present but arguments.session_id is not")
        != std::string::npos);
  auto bad = check({{"Session-Id", "=?base64?!!?="}}, with);
  REQUIRE(bad);
  CHECK(bad->find("not valid =?base64?...?= text") != std::string::npos);
  // Another Mcp-Param header is not this rule's business.
  CHECK_FALSE(check({{"Region", "x"}, {"Session-Id", "abc-1"}}, with));
}

TEST_CASE("tools: every tool that takes a session_id declares x-mcp-header "
          "Session-Id on it, and only those",
          "[tools][issue32]") {
  auto reg = tools::make_registry({}, {"all"});
  std::size_t with_id = 0;
  for (const auto& t : reg->tools()) {
    bool takes_id = t.input_schema_json().find("\"session_id\"")
                    != std::string::npos;
    const auto* mirrored = reg->mirrored_params(t.name());
    INFO(t.name());
    if (takes_id) {
      ++with_id;
      REQUIRE(mirrored != nullptr);
      CHECK(*mirrored
            == tools::registry::header_params{{"session_id", "Session-Id"}});
    } else {
      CHECK(mirrored == nullptr);
    }
  }
  CHECK(with_id == 7);
  CHECK(reg->mirrored_params("no_such_tool") == nullptr);
}
