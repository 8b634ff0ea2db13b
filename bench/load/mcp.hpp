#pragma once

// MCP messages: every request the bench sends is built here, and every reply
// is checked here.
//
// The request builder is the one place that knows a revision's message
// shapes. Revisions up to 2025-11-25 open an MCP session with initialize and
// name it by Mcp-Session-Id over HTTP. A later "modern era" mode (MCP
// 2026-07-28: no initialize, no protocol session, the revision and client
// info in each request's `_meta`) belongs behind `needs_initialize()` and in
// these builders; it is not implemented.

#include "channel.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttb::mcp {

/// Quotes `s` as a JSON string.
std::string json_quote(std::string_view s);

class request_builder {
public:
  explicit request_builder(std::string protocol_version);

  const std::string& protocol_version() const noexcept {
    return version_;
  }

  /// Whether a client starts with initialize + notifications/initialized
  /// (and, over HTTP, gets an Mcp-Session-Id). True for every revision this
  /// bench speaks.
  bool needs_initialize() const noexcept {
    return true;
  }

  std::string initialize(std::int64_t id) const;
  std::string initialized() const;
  std::string ping(std::int64_t id) const;
  /// tools/call with `args_json`, a JSON object's text, inserted verbatim.
  std::string tools_call(std::int64_t id, std::string_view tool,
                         std::string_view args_json) const;

  // -- arguments of the session tools (the spec's Pattern 1)
  static std::string session_start_args(std::string_view milestone_id,
                                        const std::vector<std::string>& tasks);
  static std::string task_args(std::string_view session_id,
                               std::string_view task_id);
  static std::string session_args(std::string_view session_id);

private:
  std::string version_;
  std::string initialize_tail_;
};

/// The task ids of a tracking session with `k` tasks: M2-001, M2-002, ...
std::vector<std::string> task_ids(std::size_t k);

using document_ptr = std::shared_ptr<rapidjson::Document>;

/// What a reply must be.
enum class want {
  result,        ///< any JSON-RPC result (initialize, ping)
  tool_ok,       ///< a tools/call result with isError absent or false
  tool_error,    ///< a tools/call result with isError true
  rpc_error,     ///< a JSON-RPC error
  notification,  ///< HTTP 202 (2xx) with no response; stdio: nothing
  session_end,   ///< HTTP DELETE: 2xx, or 405 (the server keeps sessions)
};

/// Checks the reply to the message with JSON-RPC `id` (0 for a
/// notification or DELETE) against `w`. Returns the response document for
/// result/tool kinds, and sets `error` when the reply is wrong: a transport
/// failure, an HTTP status other than 200 (202, 2xx/405 for the last two
/// kinds), a body that is neither JSON nor an SSE stream holding the
/// response, a wrong id, or a result/error that `w` does not allow.
document_ptr check_reply(const incoming& in, std::int64_t id, want w,
                         std::string& error);

/// The structured result of a tools/call response: structuredContent, or
/// else the first text content parsed as JSON (into `scratch`); nullptr when
/// neither is an object.
const rapidjson::Value* tool_payload(const rapidjson::Document& response,
                                     rapidjson::Document& scratch);

/// The string member `name` of `obj`, or nullptr.
const char* string_member(const rapidjson::Value& obj, const char* name);

} // namespace ttb::mcp
