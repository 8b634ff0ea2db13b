#include "mcp/operation.hpp"

#include "mcp/methods.hpp"

#include <array>

namespace ttm::mcp {

namespace {

constexpr std::string_view other = "_OTHER";

/// Notifications a client sends that MCP defines (the rest are "_OTHER").
constexpr std::array<std::string_view, 5> known_notifications{
  "notifications/initialized", "notifications/cancelled",
  "notifications/progress", "notifications/roots/list_changed",
  "notifications/message"};

bool is_code_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The tool error's `error_code` in a tools/call result, else empty. The
/// text block before structuredContent holds it escaped (\"error_code\"),
/// so the first unescaped key after "structuredContent" is the result's.
std::string_view tool_error_code(std::string_view reply) {
  auto sc = reply.find("\"structuredContent\":{");
  if (sc == std::string_view::npos)
    return {};
  constexpr std::string_view key = "\"error_code\":\"";
  auto k = reply.find(key, sc);
  if (k == std::string_view::npos)
    return {};
  auto b = k + key.size();
  auto e = b;
  while (e < reply.size() && e - b <= 48 && is_code_char(reply[e]))
    ++e;
  if (e == b || e >= reply.size() || reply[e] != '"')
    return {};
  return reply.substr(b, e - b);
}

} // namespace

std::string error_type_of(std::string_view reply,
                          const protocol::request_id& id, bool tool_call) {
  // Every reply starts {"jsonrpc":"2.0","id":ID, then "error" or "result".
  constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)";
  constexpr std::string_view error = R"(,"error":{"code":)";
  auto idj = id.json_or_null();
  auto at = head.size() + idj.size();
  if (reply.size() < at || reply.compare(0, head.size(), head) != 0)
    return {};
  if (reply.compare(at, error.size(), error) == 0) {
    auto b = at + error.size();
    auto e = b;
    while (e < reply.size() && e - b < 12
           && (reply[e] == '-' || (reply[e] >= '0' && reply[e] <= '9')))
      ++e;
    return std::string{reply.substr(b, e - b)};
  }
  // A tool error: isError comes after structuredContent, near the end (only
  // the 2026-07-28 stamp follows it, which never says "isError"): found
  // from the end in a few hundred bytes at most.
  constexpr std::string_view is_error = "\"isError\":";
  auto ie = tool_call ? reply.rfind(is_error) : std::string_view::npos;
  if (ie == std::string_view::npos
      || reply.compare(ie + is_error.size(), 4, "true") != 0)
    return {};
  auto code = tool_error_code(reply.substr(0, ie));
  return code.empty() ? std::string{"tool_error"} : std::string{code};
}

operation describe(const protocol::message& msg, std::string_view reply,
                   const tools::registry& registry) {
  operation op;
  op.method = other;
  if (msg.kind == protocol::message::request) {
    const auto& table = server_methods();
    if (const auto* m = table.find(msg.method, protocol::era::legacy))
      op.method = m->name;
    else if (const auto* m2 = table.find(msg.method, protocol::era::modern))
      op.method = m2->name;
    if (op.method == "tools/call") {
      const auto* t = registry.find(msg.name);
      op.tool = t != nullptr ? std::string_view{t->name()} : other;
    }
  } else {
    for (auto n : known_notifications)
      if (msg.method == n)
        op.method = n;
  }
  if (!reply.empty())
    op.error_type = error_type_of(reply, msg.id, !op.tool.empty());
  return op;
}

} // namespace ttm::mcp
