#pragma once

// One request's observation (issue 31): its id and trace id (from its
// frame, protocol::trace_context), principal, MCP method, tool, start time
// on the injected monotonic clock, and outcome; finished in one place,
// `complete_request`, where the request's reply is produced.

#include "domain/clock.hpp"
#include "log.hpp"
#include "protocol/json_rpc.hpp"

#include <string>
#include <string_view>

namespace ttm::mcp {

struct request_trace {
  std::string request_id;
  std::string trace_id;
  std::string principal;
  /// The message being handled: its method and, for tools/call, its tool.
  std::string method;
  std::string tool;
  /// Empty until the request ends: "ok", "error" or "tool_error".
  std::string_view outcome;
  /// The JSON-RPC code (as text) or the tool's error_code.
  std::string error_code;
  domain::mono_time start{};
  /// Views of the members above, for the log (log::request_scope points
  /// here while the session works on the frame): refreshed by `sync`.
  log::fields fields;

  /// A frame starts: its ids; no message yet.
  void begin_frame(const protocol::trace_context& t, domain::mono_time now);
  /// A message of the frame starts (also the next of a batch).
  void begin_message(const protocol::message& msg, domain::mono_time now);
  /// The reply is a tool failure with this error_code (`isError: true`).
  void tool_failed(std::string_view code);
  /// Points `fields` at the members (after they or this object moved).
  void sync() noexcept;
};

/// THE completion point of a request (a message of a frame, or a frame
/// refused as a whole): the one place a reply is finished. Adds the
/// request id to a JSON-RPC error's `error.data.request_id`, settles the
/// outcome (a tool failure was noted by `tool_failed`), and writes the
/// completion line (info for requests and refused frames, debug for
/// notifications and responses, which get no reply). `reply` may be empty
/// (nothing to answer). Observers of finished requests (metrics) belong
/// here, beside the log line.
void complete_request(request_trace& t, std::string& reply,
                      domain::mono_time now, bool is_request);

/// Adds `"request_id"` to a tool failure's structuredContent (an object's
/// JSON text, as tools::encode_tool_error writes it) and notes the failure
/// in `t`; the result is what the reply carries.
std::string stamp_tool_error(request_trace& t, std::string_view structured);

} // namespace ttm::mcp
