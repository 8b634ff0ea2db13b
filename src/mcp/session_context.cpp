// The MCP session as its method handlers see it (method_context): the
// request's mode, the client's lifecycle, the tool context, and the
// waits a handler may ask for, which the frame state machine then runs.

#include "mcp/session.hpp"

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

method_env session::env() const {
  return {*cfg_.registry, *cfg_.clock, cfg_.info, cfg_.local_zone};
}

void session::notify(std::vector<std::string>& notes, protocol::log_level lvl,
                     std::string text) const {
  if (!mode_.level || lvl < *mode_.level)
    return;
  notes.push_back(log_notification(lvl, cfg_.info.name, text));
}

void session::open(std::string revision, std::string client_name) {
  revision_ = std::move(revision);
  era_ = protocol::era::legacy;
  client_name_ = std::move(client_name);
}

tools::tool_context
session::tool_context(std::vector<std::string>& notes) {
  // The caller's zone, when its preferences were read for this call.
  const std::string& zone
    = job_ && !prefs_.zone().empty() ? prefs_.zone() : cfg_.local_zone;
  return tools::tool_context{
    *cfg_.clock,
    zone,
    [this, &notes](protocol::log_level lvl, std::string text) {
      notify(notes, lvl, std::move(text));
    },
    tracker_,
    cfg_.defaults,
    job_ ? job_->previous_request : std::nullopt};
}

void session::begin_call(const std::string& tool) {
  if (!job_->touched) { // once per message: a fenced retry runs it again
    job_->touched = true;
    job_->previous_request
      = board().touch(cfg_.principal, cfg_.clock->wall_now());
  }
  // The audit trail: the changes this call makes are its tool's.
  tracker_.set_origin({tool, cfg_.client_label});
}

void session::wait_for_slot(tools::call_result paused, std::string tool) {
  // Finished by resume() once the supervisor answered.
  job_->paused = std::move(paused);
  job_->paused_tool = std::move(tool);
}

void session::query_history(domain::history_filter filter,
                            history_continuation then) {
  if (!job_)
    throw std::logic_error("session::query_history outside a request");
  // The era of the request: a listed id is one this caller can name.
  job_->history = std::move(filter);
  job_->history_scope = std::string{protocol::to_string(
    mode_.modern ? protocol::era::modern : protocol::era::legacy)};
  job_->after_history = std::move(then);
}

void session::run_principal(domain::principal_op op,
                            principal_continuation then) {
  // Run by the frame once the handler returned (the journal, or the board).
  job_->principal = std::move(op);
  job_->after_principal = std::move(then);
}

} // namespace ttm::mcp
