#pragma once

// The session tools' test client: one mcp::session on a fake clock, driven
// by JSON-RPC lines, every tool result checked against the tool's output
// schema. Shared by the unit tests of the session tools.

#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_ids.hpp"
#include "test_json.hpp"
#include <date/date.h>
#include <rapidjson/document.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ttm::test::session_client {

using namespace std::chrono_literals;
using mcp::rpc_step;
using ttm::test::parse;
using ttm::test::str;
using ttm::test::to_json;

/// 2025-12-14 14:45:32.123Z: the spec's session start, 9:45:32 AM EST.
inline domain::wall_time example_start() {
  return date::sys_days{date::year{2025} / 12 / 14} + 14h + 45min + 32s
         + 123ms;
}

using ttm::test::is_uuid_v4;

inline std::vector<std::string> strings(const rapidjson::Value& v) {
  REQUIRE(v.IsArray());
  std::vector<std::string> out;
  for (const auto& x : v.GetArray())
    out.push_back(str(x));
  return out;
}

inline std::int64_t integer(const rapidjson::Value& v) {
  REQUIRE(v.IsInt64());
  return v.GetInt64();
}

inline bool boolean(const rapidjson::Value& v) {
  REQUIRE(v.IsBool());
  return v.GetBool();
}

inline std::string initialize_request(const std::string& revision) {
  return R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":")"
         + revision
         + R"(","capabilities":{},"clientInfo":{"name":"test","version":"1"}}})";
}

inline std::string tools_call(const std::string& name, const std::string& args_json,
                       const std::string& id) {
  return R"({"jsonrpc":"2.0","id":)" + id
         + R"(,"method":"tools/call","params":{"name":")" + name
         + R"(","arguments":)" + args_json + "}}";
}

/// A tool result as the client sees it.
struct reply {
  bool is_error = false;
  rapidjson::Document sc; ///< structuredContent
};

/// Checks a tools/call result: one text content equal to structuredContent
/// (byte for byte), structuredContent valid against the tool's output
/// schema, and isError agreeing with the "error" flag.
inline reply check_tool_result(const rapidjson::Value& result,
                        const tools::registry& registry,
                        const std::string& tool_name) {
  INFO("tool: " << tool_name << "\nresult: " << to_json(result));
  REQUIRE(result.IsObject());
  const auto* t = registry.find(tool_name);
  REQUIRE(t != nullptr);
  reply r;
  r.is_error = boolean(result["isError"]);
  REQUIRE(result.HasMember("structuredContent"));
  const auto& sc = result["structuredContent"];
  REQUIRE(sc.IsObject());
  REQUIRE(result["content"].IsArray());
  REQUIRE(result["content"].Size() == 1);
  CHECK(str(result["content"][0]["type"]) == "text");
  auto text = str(result["content"][0]["text"]);
  CHECK(text == to_json(sc));
  CHECK(parse(text) == sc);
  CHECK(t->check_output(text) == "");
  if (r.is_error) {
    CHECK(boolean(sc["error"]));
    CHECK_FALSE(str(sc["error_code"]).empty());
    CHECK_FALSE(str(sc["message"]).empty());
  } else if (sc.HasMember("error")) {
    CHECK_FALSE(boolean(sc["error"]));
  }
  r.sc.CopyFrom(sc, r.sc.GetAllocator());
  return r;
}

/// One MCP client (mcp::session) on a fake clock.
struct client {
  std::shared_ptr<domain::fake_clock> clock;
  tools::registry_ptr registry;
  mcp::session state;
  int next_id = 1;

  explicit client(std::string revision = "2025-11-25",
                  domain::tracking_limits limits = {},
                  std::string local_zone = "America/New_York",
                  domain::wall_time start = example_start(),
                  std::shared_ptr<domain::fake_clock> shared_clock = nullptr)
    : clock(shared_clock ? std::move(shared_clock)
                         : std::make_shared<domain::fake_clock>(start)),
      registry(tools::make_registry(limits, {"all"})),
      state(mcp::session_config{
        registry, clock, std::move(local_zone),
        {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", "instructions"},
        limits}) {
    auto step = state.handle(mcp::decode(initialize_request(revision)));
    REQUIRE_FALSE(step.waiting());
    auto res = parse(step.output.response);
    REQUIRE(res.HasMember("result"));
    REQUIRE(state.revision() == revision);
  }

  /// Starts on a frame; the caller answers any slot request.
  rpc_step step(const std::string& json) {
    return state.handle(mcp::decode(json));
  }

  /// Sends a frame, granting every slot asked for (the supervisor below
  /// its limit), and parses the response.
  rapidjson::Document rpc(const std::string& json) {
    auto s = step(json);
    while (s.waiting())
      s = state.resume(true);
    INFO("request: " << json);
    REQUIRE_FALSE(s.output.response.empty());
    return parse(s.output.response);
  }

  std::string call_json(const std::string& tool_name,
                        const std::string& args_json) {
    return tools_call(tool_name, args_json, std::to_string(next_id++));
  }

  /// Calls a tool and returns its checked result.
  reply call(const std::string& tool_name, const std::string& args_json) {
    auto res = rpc(call_json(tool_name, args_json));
    INFO("call: " << tool_name << " " << args_json << "\nresponse: "
                  << to_json(res));
    REQUIRE(res.HasMember("result"));
    CHECK_FALSE(res.HasMember("error"));
    return check_tool_result(res["result"], *registry, tool_name);
  }

  /// Calls a tool that must succeed; returns its structuredContent.
  rapidjson::Document ok(const std::string& tool_name,
                         const std::string& args_json) {
    auto r = call(tool_name, args_json);
    INFO("call: " << tool_name << " " << args_json << "\nreply: "
                  << to_json(r.sc));
    REQUIRE_FALSE(r.is_error);
    return std::move(r.sc);
  }

  /// Calls a tool that must fail with `code`; returns its structuredContent.
  rapidjson::Document fails(const std::string& tool_name,
                            const std::string& args_json,
                            const std::string& code) {
    auto r = call(tool_name, args_json);
    INFO("call: " << tool_name << " " << args_json << "\nreply: "
                  << to_json(r.sc));
    REQUIRE(r.is_error);
    CHECK(str(r.sc["error_code"]) == code);
    return std::move(r.sc);
  }

  /// Starts a session and returns its id.
  std::string start_session(const std::string& task_ids_json,
                            const std::string& extra = "") {
    auto sc = ok("time_session_start", R"({"milestone_id":"M2","task_ids":)"
                                         + task_ids_json + extra + "}");
    return str(sc["session_id"]);
  }
};

inline std::string session_args(const std::string& sid,
                         const std::string& extra = "") {
  return R"({"session_id":")" + sid + "\"" + extra + "}";
}

/// time_tasks_edit's arguments; `ops` is the JSON array of operations.
inline std::string edit_args(const std::string& sid, const std::string& ops) {
  return R"({"session_id":")" + sid + R"(","operations":)" + ops + "}";
}

/// time_session_summary's arguments, with the per-task details.
inline std::string summary_args(const std::string& sid) {
  return R"({"session_id":")" + sid + R"(","include_task_details":true})";
}

inline std::string task_args(const std::string& sid, const std::string& task,
                      const std::string& extra = "") {
  return R"({"session_id":")" + sid + R"(","task_id":")" + task + "\"" + extra
         + "}";
}

/// Requires a JSON-RPC error with `code`; returns its message.
inline std::string rpc_error(const rapidjson::Value& res, int code) {
  REQUIRE(res.IsObject());
  REQUIRE(res.HasMember("error"));
  CHECK_FALSE(res.HasMember("result"));
  CHECK(res["error"]["code"].GetInt() == code);
  return str(res["error"]["message"]);
}

inline const rapidjson::Value& task_entry(const rapidjson::Value& summary,
                                   std::size_t i) {
  REQUIRE(summary["tasks"].IsArray());
  REQUIRE(summary["tasks"].Size() > i);
  return summary["tasks"][static_cast<rapidjson::SizeType>(i)];
}

} // namespace ttm::test::session_client
