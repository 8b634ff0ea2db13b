#pragma once

// The server's method handlers, by area, as free functions of the narrow
// method_context (method_context.hpp): the flat table in methods.cpp names
// them. One .cpp per area: lifecycle_methods.cpp, tool_methods.cpp,
// resource_handlers.cpp, prompt_methods.cpp, completion_methods.cpp.

#include "mcp/method_context.hpp"
#include "tools/tool.hpp"

#include <string>
#include <vector>

namespace ttm::mcp {

struct method_call; // methods.hpp, which names these handlers

// -- lifecycle: initialize, ping, logging/setLevel, server/discover,
//    subscriptions/listen (lifecycle_methods.cpp) ----------------------------
std::string on_ping(method_context& ctx, const method_call& c);
std::string on_initialize(method_context& ctx, const method_call& c);
std::string on_set_level(method_context& ctx, const method_call& c);
std::string on_discover(method_context& ctx, const method_call& c);
std::string on_listen(method_context& ctx, const method_call& c);

// -- tools (tool_methods.cpp) ---------------------------------------------------
std::string on_tools_list(method_context& ctx, const method_call& c);
std::string on_tools_call(method_context& ctx, const method_call& c);

/// The tools/call response for a finished call of `tool_name`.
std::string call_reply(const method_context& ctx, const protocol::message& msg,
                       const std::string& tool_name, tools::call_result res,
                       std::vector<std::string>& notes);
/// A tool error reply for `msg`, made outside the tool (the journal could
/// not be read, a limit over all servers).
/// LIMIT_REACHED names `limit`, the option reached.
std::string tool_error_reply(
  const protocol::message& msg, result_stamp stamp, const std::string& code,
  const std::string& text,
  const std::string& limit = "max_tracking_sessions");

// -- resources (resource_handlers.cpp) ------------------------------------------
std::string on_resources_list(method_context& ctx, const method_call& c);
std::string on_resource_templates(method_context& ctx, const method_call& c);
std::string on_resources_read(method_context& ctx, const method_call& c);

// -- prompts (prompt_methods.cpp) -------------------------------------------------
std::string on_prompts_list(method_context& ctx, const method_call& c);
std::string on_prompts_get(method_context& ctx, const method_call& c);

// -- completion (completion_methods.cpp) ------------------------------------------
std::string on_complete(method_context& ctx, const method_call& c);

} // namespace ttm::mcp
