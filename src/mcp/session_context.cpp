// The MCP session as its method handlers see it (method_context): the
// request's mode, the client's lifecycle, the tool context, and the
// waits a handler may ask for, which the frame state machine then runs.

#include "mcp/session.hpp"

#include "mcp/app_resource.hpp"

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

method_env session::handler_view::env() const {
  const auto& cfg = *s_->cfg_;
  return {*cfg.registry, *cfg.clock, cfg.info, cfg.local_zone};
}

bool session::handler_view::modern() const {
  return s_->mode_.modern;
}

bool session::handler_view::ui_apps() const {
  return s_->mode_.ui;
}

const std::string& session::handler_view::revision() const noexcept {
  return s_->revision_;
}

std::optional<protocol::log_level> session::handler_view::log_level() const {
  return s_->mode_.level;
}

void session::handler_view::notify(std::vector<std::string>& notes,
                                   protocol::log_level lvl,
                                   std::string text) const {
  const auto& level = s_->mode_.level;
  if (!level || lvl < *level)
    return;
  notes.push_back(log_notification(lvl, s_->cfg_->info.name, text));
}

void session::handler_view::open(std::string revision,
                                 std::string client_name,
                                 std::string client_json) {
  s_->revision_ = std::move(revision);
  s_->era_ = protocol::era::legacy;
  s_->client_name_ = std::move(client_name);
  s_->client_json_ = std::move(client_json);
  s_->client_ui_ = client_json_declares_ui(s_->client_json_);
  s_->state_changed_ = true;
}

void session::handler_view::set_log_level(protocol::log_level level) {
  s_->client_log_level_ = level;
  s_->state_changed_ = true;
}

tools::tool_context
session::handler_view::tool_context(std::vector<std::string>& notes) {
  // The caller's zone, when its preferences were read for this call.
  const auto& prefs = s_->prefs_view();
  const std::string& zone
    = !prefs.zone().empty() ? prefs.zone() : s_->cfg_->local_zone;
  tools::tool_context ctx{
    *s_->cfg_->clock,
    zone,
    [this, &notes](protocol::log_level lvl, std::string text) {
      notify(notes, lvl, std::move(text));
    },
    s_->tracked(),
    s_->cfg_->defaults,
    s_->job_ ? s_->job_->previous_request : std::nullopt,
    !prefs.locale().empty() ? prefs.locale() : s_->cfg_->defaults.locale};
  ctx.ui_view = s_->mode_.ui;
  return ctx;
}

void session::handler_view::begin_call(const std::string& tool) {
  auto& j = *s_->job_;
  if (!j.touched) { // once per message: a fenced retry runs it again
    j.touched = true;
    j.previous_request
      = s_->board().touch(s_->principal_, s_->cfg_->clock->wall_now());
  }
  // The audit trail: the changes this call makes are its tool's.
  s_->tracked().set_origin({tool, s_->client_label_});
}

std::optional<rapidjson::Document>
session::handler_view::with_preferences(const tools::tool& tool,
                                        const rapidjson::Value& args) const {
  return s_->prefs_view().with_preferences(tool, args);
}

void session::handler_view::wait_for_slot(tools::call_result paused,
                                          std::string tool) {
  // Finished by resume() once the supervisor answered.
  s_->job_->paused = std::move(paused);
  s_->job_->paused_tool = std::move(tool);
}

void session::handler_view::query_history(domain::history_filter filter,
                                          history_continuation then) {
  if (!s_->job_)
    throw std::logic_error("session::query_history outside a request");
  auto& j = *s_->job_;
  // The era of the request: a listed id is one this caller can name.
  j.history = std::move(filter);
  j.history_scope = std::string{protocol::to_string(
    s_->mode_.modern ? protocol::era::modern : protocol::era::legacy)};
  j.after_history = std::move(then);
}

void session::handler_view::run_principal(domain::principal_op op,
                                          principal_continuation then) {
  // Run by the frame once the handler returned (the journal, or the board).
  s_->job_->principal = std::move(op);
  s_->job_->after_principal = std::move(then);
}

request_trace* session::handler_view::trace() const {
  return &s_->trace_;
}

} // namespace ttm::mcp
