#pragma once

// Driving mcp::session without an actor system: one MCP session fed
// decoded frames, shared by the unit tests that do so.

#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "domain/clock.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_json.hpp"
#include <date/date.h>
#include <rapidjson/document.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

namespace ttm::test {

/// The instructions the sessions made by `session()` announce.
inline const std::string session_instructions
  = "Use time_get_current instead of guessing the date or time.";

/// 2025-12-14 14:45:32.123Z: 9:45:32 AM EST in the session's local zone.
inline domain::wall_time test_now() {
  using namespace std::chrono_literals;
  return date::sys_days{date::year{2025} / 12 / 14} + 14h + 45min + 32s
         + 123ms;
}

/// A fresh session in America/New_York; time from `clock` (default: a
/// fake clock at test_now()).
inline mcp::session
session(std::shared_ptr<domain::fake_clock> clock = nullptr) {
  if (!clock)
    clock = std::make_shared<domain::fake_clock>(test_now());
  return mcp::session{mcp::session_config{
    tools::make_registry({}, {"all"}), std::move(clock), "America/New_York",
    {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", session_instructions},
    domain::tracking_limits{}}};
}

/// Feeds one frame (JSON text) to the session; a new tracking session gets
/// its global slot at once, as the supervisor grants one below its limit.
inline mcp::rpc_output send(mcp::session& s,
                               const std::string& json) {
  auto step = s.handle(mcp::decode(json));
  while (step.waiting())
    step = s.resume(true);
  return std::move(step.output);
}

/// Feeds one frame that must be answered and returns the parsed response.
inline rapidjson::Document call(mcp::session& s,
                                const std::string& json) {
  auto out = send(s, json);
  INFO("request: " << json);
  REQUIRE_FALSE(out.response.empty());
  auto doc = parse(out.response);
  if (doc.IsObject())
    CHECK(str(doc["jsonrpc"]) == "2.0");
  return doc;
}

/// A 2025-era initialize request claiming `revision`.
inline std::string initialize_request(const std::string& revision,
                                      const std::string& id = "0") {
  return R"({"jsonrpc":"2.0","id":)" + id
         + R"(,"method":"initialize","params":{"protocolVersion":")" + revision
         + R"(","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})";
}

/// A request without `_meta`; `params` is JSON text (none if empty).
inline std::string request(const std::string& method,
                           const std::string& id = "1",
                           const std::string& params = "") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + "\""
         + (params.empty() ? "" : R"(,"params":)" + params) + "}";
}

/// Requires a JSON-RPC error with `code`; returns its message.
inline std::string error_message(const rapidjson::Value& res, int code) {
  INFO("response: " << to_json(res));
  REQUIRE(res.IsObject());
  REQUIRE(res.HasMember("error"));
  CHECK_FALSE(res.HasMember("result"));
  CHECK(res["error"]["code"].GetInt() == code);
  return str(res["error"]["message"]);
}

} // namespace ttm::test
