#pragma once

// What one answered MCP message was, in bounded terms: its method and tool
// as the server knows them (anything else is "_OTHER"), and how it failed,
// read off its encoded reply. For the operation metrics (and the request
// log line beside them); nothing here depends on the caller.

#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <string>
#include <string_view>

namespace ttm::mcp {

struct operation {
  /// The method if this server serves it (or a notification it knows),
  /// else "_OTHER".
  std::string_view method;
  /// tools/call: the tool if the registry has it, else "_OTHER"; other
  /// methods: empty.
  std::string_view tool;
  /// Empty: it succeeded. Else the JSON-RPC error code ("-32602"), the
  /// tool's error_code ("SESSION_NOT_FOUND") or "tool_error" (isError
  /// without a readable code).
  std::string error_type;
};

/// Describes `msg`, answered with `reply` (empty: none, a notification).
operation describe(const protocol::message& msg, std::string_view reply,
                   const tools::registry& registry);

/// The error type of an encoded reply to the request `id` (see
/// operation::error_type); empty for a success. `tool_call`: a tools/call
/// reply, whose result may be a tool error (isError).
std::string error_type_of(std::string_view reply,
                          const protocol::request_id& id, bool tool_call);

} // namespace ttm::mcp
