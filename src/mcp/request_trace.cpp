#include "mcp/request_trace.hpp"

#include "log_batch.hpp"
#include "protocol/request_ids.hpp"

#include <chrono>

namespace ttm::mcp {

void request_trace::begin_frame(const protocol::trace_context& t,
                                domain::mono_time now) {
  // Assignments, not copies: the strings keep their capacity from frame
  // to frame.
  request_id = t.request_id;
  trace_id = t.trace_id;
  method.clear();
  tool.clear();
  outcome = {};
  error_code.clear();
  start = now;
  sync();
}

void request_trace::begin_message(const protocol::message& msg,
                                  domain::mono_time now) {
  method = msg.method;
  if (msg.method == "tools/call")
    tool = msg.name;
  else
    tool.clear();
  outcome = {};
  error_code.clear();
  start = now;
  sync();
}

void request_trace::tool_failed(std::string_view code) {
  outcome = "tool_error";
  error_code = code;
  sync();
}

void request_trace::sync() noexcept {
  fields.request_id = request_id;
  fields.trace_id = trace_id;
  fields.principal = principal;
  fields.method = method;
  fields.tool = tool;
  fields.outcome = outcome;
  fields.error_code = error_code;
  fields.duration_us = -1;
}

void complete_request(request_trace& t, std::string& reply,
                      domain::mono_time now, bool is_request) {
  if (t.outcome.empty()) {
    if (int code = protocol::error_code_of(reply); code != 0) {
      // A frame from an edge always has an id; one made by hand (unit
      // tests of the session) may not: then there is nothing to add.
      if (!t.request_id.empty())
        protocol::stamp_error(reply, t.request_id);
      t.outcome = "error";
      t.error_code = std::to_string(code);
    } else {
      t.outcome = "ok";
    }
  }
  auto lvl = is_request ? log::level::info : log::level::debug;
  if (log::enabled(lvl)) {
    t.sync();
    auto f = t.fields;
    f.duration_us = std::chrono::duration_cast<std::chrono::microseconds>(
                      now - t.start)
                      .count();
    log::write_batched(lvl, "mcp", "completed", f);
  }
  // Lines after the reply (the next message's claim) are not this one's.
  t.outcome = {};
  t.error_code.clear();
  t.sync();
}

std::string stamp_tool_error(request_trace& t, std::string_view structured) {
  // {"error":true,"error_code":"CODE",...}: encode_tool_error's shape.
  constexpr std::string_view head = R"({"error":true,"error_code":")";
  if (structured.substr(0, head.size()) == head) {
    auto end = structured.find('"', head.size());
    if (end != std::string_view::npos)
      t.tool_failed(structured.substr(head.size(), end - head.size()));
  } else {
    t.tool_failed("tool_error");
  }
  std::string out;
  if (t.request_id.empty() || structured.size() < 2
      || structured.back() != '}')
    return std::string{structured};
  out.reserve(structured.size() + t.request_id.size() + 20);
  out.append(structured.substr(0, structured.size() - 1));
  out += structured.size() > 2 ? ",\"request_id\":" : "\"request_id\":";
  out += protocol::json_quote(t.request_id);
  out += '}';
  return out;
}

} // namespace ttm::mcp
