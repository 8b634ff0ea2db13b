#pragma once

// What a method handler may ask of the MCP session serving its request:
// the narrow interface between the method table's handlers (by area:
// tool_methods.cpp, resource_handlers.cpp, prompt_methods.cpp,
// completion_methods.cpp, lifecycle_methods.cpp) and the frame state
// machine (session.hpp), which implements it. Handlers are free functions
// of it, so they neither see nor change the frame, the journal's epochs or
// the preferences cache.

#include "domain/clock.hpp"
#include "domain/history.hpp"
#include "domain/principal_ops.hpp"
#include "mcp/results.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "tools/registry.hpp"

#include <rapidjson/document.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ttm::mcp {

/// A history query's answer: the page, or why the journal could not be
/// read (`error` not empty; `page` empty then).
struct history_answer {
  domain::history_page page;
  std::string error;
};

/// What a request does with its history page: returns the request's reply
/// (notifications go to `notes`).
using history_continuation = std::function<std::string(
  const history_answer& answer, std::vector<std::string>& notes)>;

/// What a request does with a principal operation's answer (`state`
/// nullptr: the journal could not run it, `error` says why): returns the
/// request's reply.
using principal_continuation = std::function<std::string(
  const domain::principal_state* state, const std::string& error,
  std::vector<std::string>& notes)>;

/// The server's parts a handler reads, the same for every request.
struct method_env {
  const tools::registry& registry;
  const domain::clock_source& clock;
  const server_info& info;
  /// IANA name of the host zone.
  const std::string& local_zone;
};

class method_context {
public:
  virtual method_env env() const = 0;

  /// The request being handled is of the modern era (2026-07-28): its
  /// results are stamped, its errors coded for it.
  virtual bool modern() const = 0;
  /// The client renders MCP Apps (declared io.modelcontextprotocol/ui: in
  /// initialize, or in this 2026-07-28 request's _meta): it is offered
  /// the view (app_resource.hpp).
  virtual bool ui_apps() const = 0;
  /// The negotiated 2025 revision; empty before `initialize`.
  virtual const std::string& revision() const noexcept = 0;
  /// The level the request's client log runs at; nullopt: no client log.
  virtual std::optional<protocol::log_level> log_level() const = 0;
  /// Adds a notifications/message when the client asked for that level.
  virtual void notify(std::vector<std::string>& notes,
                      protocol::log_level lvl, std::string text) const = 0;

  /// initialize: this client speaks `revision` of the 2025 era;
  /// `client_json`: its clientInfo and capabilities (a JSON object), kept
  /// with the MCP session in the journal.
  virtual void open(std::string revision, std::string client_name,
                    std::string client_json) = 0;
  /// logging/setLevel.
  virtual void set_log_level(protocol::log_level level) = 0;

  /// What a tool runs with (the caller's zone when it was read).
  virtual tools::tool_context tool_context(std::vector<std::string>& notes)
    = 0;
  /// Before a tools/call runs `tool`: records the caller's activity (once
  /// per message) and makes the tool the origin of the changes it makes.
  virtual void begin_call(const std::string& tool) = 0;
  /// `args` with the caller's locale and week start where `tool` takes
  /// them and they are left out; nullopt: `args` as they are.
  virtual std::optional<rapidjson::Document>
  with_preferences(const tools::tool& tool,
                   const rapidjson::Value& args) const = 0;

  /// The request waits for a global slot: `paused.resume` finishes the
  /// call (the handler returns an empty reply meanwhile).
  virtual void wait_for_slot(tools::call_result paused, std::string tool)
    = 0;
  /// Runs `filter` over the sessions of this client's principal in the
  /// era of the request, then `then`, whose return is the request's reply
  /// (the handler returns an empty reply meanwhile). With a journal the
  /// frame pauses while the journal actor reads; without one (--ephemeral)
  /// the sessions this client holds answer.
  virtual void query_history(domain::history_filter filter,
                             history_continuation then) = 0;
  /// Runs `op` for this client's principal (in the journal, or
  /// --ephemeral on the server's board), then `then`, as above.
  virtual void run_principal(domain::principal_op op,
                             principal_continuation then) = 0;

  /// The observation of the request being handled (its id for tool
  /// failures; request_trace.hpp).
  virtual request_trace* trace() const = 0;

protected:
  ~method_context() = default;
};

/// How a handler's plain (uncached) result is stamped.
inline result_stamp request_stamp(const method_context& ctx) {
  result_stamp s{ctx.modern() ? &ctx.env().info : nullptr, false};
  s.trace = ctx.trace();
  return s;
}

} // namespace ttm::mcp
