// The MCP session's frame state machine: one frame at a time, message by
// message, each dispatched through the method table (methods.cpp) or paused
// for a slot, the journal, a history query or a principal operation.

#include "mcp/session.hpp"

#include "domain/ids.hpp"
#include "domain/stats.hpp"
#include "journal/history.hpp"
#include "log.hpp"
#include "mcp/app_resource.hpp"
#include "mcp/handlers.hpp"
#include "protocol/modern.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>

namespace ttm::mcp {

using protocol::encode_error;
namespace ec = protocol;

namespace {

/// The modern era's name in messages (its first revision).
std::string modern_name() {
  return std::string{protocol::to_string(protocol::era::modern)};
}

void append(std::vector<std::string>& to, std::vector<std::string> from) {
  if (to.empty()) {
    to = std::move(from);
    return;
  }
  to.insert(to.end(), std::make_move_iterator(from.begin()),
            std::make_move_iterator(from.end()));
}

/// Takes the ids expired by the last calls, noting them for the directory.
std::vector<std::string> take_expired(domain::tracker& tracker,
                                      std::vector<std::string>& gone) {
  auto ids = tracker.take_expired();
  gone.insert(gone.end(), ids.begin(), ids.end());
  return ids;
}

/// `params.protocolVersion` of an initialize, for error data.
std::string requested_version(const protocol::message& msg) {
  rapidjson::Document params;
  if (!object_params(msg, params, "-").empty())
    return {};
  auto pv = params.FindMember("protocolVersion");
  if (pv == params.MemberEnd() || !pv->value.IsString())
    return {};
  return {pv->value.GetString(), pv->value.GetStringLength()};
}

/// A 2025-era request on a connection that speaks 2026-07-28.
std::string modern_connection_refusal(const protocol::message& msg) {
  // This connection speaks the modern era since its first request (stdio).
  if (msg.method == "initialize")
    return encode_error(
      msg.id, ec::unsupported_protocol_version,
      "Unsupported protocol version: this connection speaks " + modern_name()
        + " (per-request _meta) since its first request; initialize is not "
          "part of it",
      protocol::unsupported_version(requested_version(msg)).data_json);
  return invalid_params(
    msg.id, "this connection speaks " + modern_name()
              + " since its first request: every request needs params._meta "
                "with '"
              + std::string{protocol::meta_key::protocol_version} + "' and '"
              + std::string{protocol::meta_key::client_capabilities} + "'");
}

void handle_notification(const protocol::message& msg,
                         std::optional<protocol::era> era,
                         const std::string& client_name) {
  if (msg.method == "notifications/initialized") {
    // Nothing to unlock: we send the client no requests of our own.
    TTM_LOG(debug, "mcp", "client '" + client_name + "' is initialized");
    return;
  }
  if (era == protocol::era::modern
      && msg.method != "notifications/cancelled") {
    TTM_LOG(debug, "mcp", "ignored notification '" + msg.method
                            + "' (not part of " + modern_name() + ")");
    return;
  }
  if (msg.method == "notifications/cancelled") {
    // Calls run to completion before this actor reads its next message, so a
    // cancellation that reaches us names a call already answered; the
    // transport drops replies to calls cancelled while still in flight.
    TTM_LOG(debug, "mcp", "cancellation for a request no longer running");
    return;
  }
  TTM_LOG(debug, "mcp", "ignored notification '" + msg.method + "'");
}

/// The pause of `step` if it is a `T`.
template <class T>
const T* pause_of(const rpc_step& step) noexcept {
  return std::get_if<T>(&step.pause);
}

} // namespace

const std::string& rpc_step::slot_for() const noexcept {
  static const std::string none;
  const auto* p = pause_of<slot_pause>(*this);
  return p != nullptr ? p->session_id : none;
}

const std::vector<storage::event>& rpc_step::journal() const noexcept {
  static const std::vector<storage::event> none;
  const auto* p = pause_of<journal_pause>(*this);
  return p != nullptr ? p->events : none;
}

const storage::claim_request* rpc_step::claim() const noexcept {
  const auto* p = pause_of<claim_pause>(*this);
  return p != nullptr ? &p->request : nullptr;
}

const storage::list_query* rpc_step::history() const noexcept {
  const auto* p = pause_of<history_pause>(*this);
  return p != nullptr ? &p->query : nullptr;
}

const storage::principal_op* rpc_step::principal() const noexcept {
  const auto* p = pause_of<principal_pause>(*this);
  return p != nullptr ? &p->op : nullptr;
}

namespace {

std::pair<std::shared_ptr<const session_config>, session_identity>
split(session_config cfg) {
  session_identity own{std::move(cfg.principal), std::move(cfg.client_label),
                       std::move(cfg.storage_fault),
                       std::move(cfg.restored_state)};
  return {std::make_shared<const session_config>(std::move(cfg)),
          std::move(own)};
}

} // namespace

session::session(session_config cfg) : session(split(std::move(cfg))) {
}

session::session(
  std::pair<std::shared_ptr<const session_config>, session_identity> parts)
  : session(std::move(parts.first), std::move(parts.second)) {
}

session::session(std::shared_ptr<const session_config> server,
                 session_identity own)
  : cfg_(std::move(server)),
    principal_(std::move(own.principal)),
    client_label_(std::move(own.client_label)),
    last_active_(cfg_->clock->mono_now()) {
  trace_.principal = principal_;
  set_storage_fault(std::move(own.storage_fault));
  if (!own.restored_state.empty() && !restore(own.restored_state))
    TTM_LOG(warning, "mcp", "an MCP session's stored state was not "
                            "understood; it starts uninitialized");
}

session::tracking_part::tracking_part(const session_config& cfg,
                                      const std::string& principal,
                                      const std::string& client_label)
  : tracker(cfg.limits),
    // The boot the clock's monotonic times belong to, for the journal.
    claims(principal, cfg.journal ? cfg.clock->boot_id() : "",
           client_label) {
  if (cfg.journal)
    tracker.record_changes(true);
}

principal_prefs& session::prefs() {
  if (!prefs_)
    prefs_ = std::make_unique<principal_prefs>();
  return *prefs_;
}

const principal_prefs& session::prefs_view() const {
  static const principal_prefs none;
  return prefs_ ? *prefs_ : none;
}

session::tracking_part& session::tracking() {
  if (!tracking_)
    tracking_ = std::make_unique<tracking_part>(*cfg_, principal_,
                                                client_label_);
  return *tracking_;
}

std::chrono::nanoseconds session::idle_time() const {
  return cfg_->clock->mono_now() - last_active_;
}

rpc_step session::handle(const protocol::frame& in) {
  if (job_)
    throw std::logic_error("session::handle while a frame is paused");
  last_active_ = cfg_->clock->mono_now();
  trace_.begin_frame(in.trace, last_active_);
  auto in_scope = scope();
  rpc_output out;
  if (in.error_code != 0) {
    out.response = encode_error(protocol::request_id::make_null(),
                                in.error_code, in.error_message);
    complete_request(trace_, out.response, cfg_->clock->mono_now(), true);
    return finish_step(std::move(out));
  }
  if (in.batch && revision_ != protocol::batching_revision) {
    const std::string not_in = "Invalid Request: JSON-RPC batches are not "
                               "allowed in protocol revision ";
    out.response = encode_error(
      protocol::request_id::make_null(), ec::invalid_request,
      era_ == protocol::era::modern ? not_in + modern_name()
      : initialized()
        ? not_in + revision_ + " (only in "
            + std::string{protocol::batching_revision} + ")"
        : std::string{"Invalid Request: JSON-RPC batches are not allowed "
                      "before initialization"});
    complete_request(trace_, out.response, cfg_->clock->mono_now(), true);
    return finish_step(std::move(out));
  }
  job_ = std::make_unique<job>(*this);
  job_->frame = in;
  if (prefs_)
    prefs_->clear();
  return run_job();
}

void session::next_message(job& j) {
  ++j.next;
  j.claimed = false;
  j.fenced_retries = 0;
  j.verify.reset();
  j.verifying = false;
  j.force_load = false;
  j.prefs_checked = false;
  j.prefs_pending = false;
  if (prefs_)
    prefs_->clear();
  j.touched = false;
  j.previous_request.reset();
  j.started = false;
}

void session::complete(job& j, std::string reply) {
  const auto& msg = j.frame.messages[j.next];
  auto now = cfg_->clock->mono_now();
  complete_request(trace_, reply, now,
                   msg.kind == protocol::message::request
                     || msg.kind == protocol::message::invalid);
  observe_operation(msg, reply, now);
  if (!reply.empty())
    j.replies.push_back(std::move(reply));
}

rpc_step session::run_job() {
  auto& j = *job_;
  for (; j.next < j.frame.messages.size(); next_message(j)) {
    const auto& msg = j.frame.messages[j.next];
    if (!j.started) {
      j.started = true;
      trace_.begin_message(msg, cfg_->clock->mono_now());
    }
    if (!j.claimed) {
      j.claimed = true;
      if (auto req = claim_for(msg)) {
        // A copy this client holds runs at once: a write is checked by the
        // journal as it stores it, a read just before its reply goes out.
        if (req->known_epoch > 0 && !j.force_load) {
          j.verify = std::move(req);
        } else {
          rpc_step step;
          step.pause = claim_pause{std::move(*req)};
          return step;
        }
      }
    }
    if (!j.prefs_checked) {
      j.prefs_checked = true;
      if (principal_prefs::needs_zone(msg, *cfg_->registry)) {
        domain::principal_state st;
        const pref_entries* cached
          = cfg_->journal && prefs_ ? prefs_->cached(cfg_->clock->mono_now())
                                    : nullptr;
        if (cached != nullptr) {
          st.prefs = *cached; // read lately: no journal wait
        } else {
          j.prefs_pending = true;
          if (auto step = principal_step({}, st))
            return std::move(*step);
        }
        j.prefs_pending = false;
        prefs().take(cfg_->defaults, &st.prefs, cfg_->local_zone);
      }
    }
    std::string reply;
    // A rerun (its first reply dropped: fenced, or stale when verified)
    // starts with no outcome.
    trace_.outcome = {};
    trace_.error_code.clear();
    if (j.frame.batch && msg.kind == protocol::message::request
        && msg.method == "initialize")
      reply = encode_error(msg.id, ec::invalid_request,
                           "Invalid Request: initialize must not be part of "
                           "a batch");
    else
      reply = handle_message(msg, j.out.notifications);
    if (j.history) {
      auto filter = std::move(*j.history);
      j.history.reset();
      if (cfg_->journal) {
        rpc_step step;
        step.pause = history_pause{
          journal::to_list_query(filter, principal_, j.history_scope)};
        return step;
      }
      // --ephemeral: what this client holds is all there is.
      auto page = domain::list_held(tracked(), filter);
      if (filter.runs)
        domain::runs_held(tracked(), filter, domain::now_of(*cfg_->clock),
                          page);
      if (filter.kind != domain::history_kind::tracking)
        domain::list_focus_held(
          journal::to_focus_rows(board().memory().focus_of(principal_)),
          filter, page);
      history_answer answer{std::move(page), {}};
      auto then = std::exchange(j.after_history, {});
      reply = finish(j, [&](std::vector<std::string>& notes) {
        return then(answer, notes);
      });
    }
    if (j.principal) {
      auto op = std::move(*j.principal);
      j.principal.reset();
      domain::principal_state st;
      if (auto step = principal_step(std::move(op), st))
        return std::move(*step);
      auto then = std::exchange(j.after_principal, {});
      reply = finish(j, [&](std::vector<std::string>& notes) {
        return then(&st, {}, notes);
      });
    }
    if (j.paused.resume) {
      rpc_step step;
      step.pause = slot_pause{j.paused.slot_id};
      step.expired = take_expired(tracked(), tracking().gone);
      step.ended = tracked().take_ended();
      step.reopened = tracked().take_reopened();
      step.adopted = std::exchange(tracking().adopted, {});
      return step;
    }
    rpc_step step;
    if (j.verify && !tracked().has_changes()) {
      j.held_reply = std::move(reply);
      j.verifying = true;
      step.pause = claim_pause{std::move(*j.verify)};
      j.verify.reset();
      return step;
    }
    if (hold_for_journal(j, std::move(reply), step))
      return step;
  }
  auto out = std::move(j.out);
  if (!j.frame.batch) {
    if (!j.replies.empty())
      out.response = std::move(j.replies.front());
  } else if (!j.replies.empty()) {
    out.response = protocol::encode_batch(j.replies);
  }
  job_.reset();
  return finish_step(std::move(out));
}

rpc_step session::resume(const domain::slot_answer& slot) {
  if (!job_ || !job_->paused.resume)
    throw std::logic_error("session::resume without a paused call");
  last_active_ = cfg_->clock->mono_now();
  auto in_scope = scope();
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  auto paused = std::move(j.paused);
  j.paused = {};
  mode_ = mode_for(msg);
  std::string reply;
  try {
    auto ctx = j.view.tool_context(j.out.notifications);
    tracked().set_origin({j.paused_tool, client_label_});
    // A slot for a session held already: time_undo reopening it.
    if (slot.granted && tracked().find(paused.slot_id) != nullptr)
      tracking().reopen_granted.push_back(paused.slot_id);
    reply = call_reply(j.view, msg, j.paused_tool, paused.resume(slot, ctx),
                       j.out.notifications);
    if (slot.granted && tracked().find(paused.slot_id) != nullptr)
      tracking().created.push_back(paused.slot_id);
  } catch (const std::exception& e) {
    TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                            + ") failed: " + e.what());
    reply = encode_error(msg.id, ec::internal_error,
                         "Internal error while handling '" + msg.method
                           + "'");
  }
  return continue_with(j, std::move(reply));
}

rpc_step session::continue_with(job& j, std::string reply) {
  rpc_step step;
  if (hold_for_journal(j, std::move(reply), step))
    return step;
  next_message(j);
  return run_job();
}

std::string session::finish(
  job& j, const std::function<std::string(std::vector<std::string>&)>& run) {
  const auto& msg = j.frame.messages[j.next];
  mode_ = mode_for(msg);
  try {
    return run(j.out.notifications);
  } catch (const std::exception& e) {
    TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                            + ") failed: " + e.what());
    return encode_error(msg.id, ec::internal_error,
                        "Internal error while handling '" + msg.method + "'");
  }
}

rpc_step session::finish_step(rpc_output out) {
  rpc_step step;
  // No tracking part yet: nothing expired, ended, reopened or adopted.
  if (tracking_) {
    auto& t = *tracking_;
    step.expired = take_expired(t.tracker, t.gone);
    append(step.expired, std::exchange(t.released, {}));
    step.ended = t.tracker.take_ended();
    for (auto& id : std::exchange(t.reopen_granted, {}))
      if (const auto* s = t.tracker.find(id); s != nullptr && s->ended())
        step.ended.push_back(std::move(id));
    step.reopened = t.tracker.take_reopened();
    step.adopted = std::exchange(t.adopted, {});
    append(out.created, std::exchange(t.created, {}));
    append(out.gone, std::exchange(t.gone, {}));
  }
  if (std::exchange(state_changed_, false) && initialized()
      && era_ == protocol::era::legacy)
    out.mcp_state = state_json();
  step.output = std::move(out);
  return step;
}

std::vector<std::string> session::expire_due() {
  if (!tracking_)
    return {};
  auto ids = tracked().expire_due(domain::now_of(*cfg_->clock));
  for (const auto& id : ids)
    TTM_LOG(info, "tracking",
            "session " + domain::log_id(id)
              + (tracked().remembers_expired(id)
                   ? " expired"
                   : " (ended) left memory; the journal keeps it"));
  tracking().gone.insert(tracking().gone.end(), ids.begin(), ids.end());
  return ids;
}

void session::evict(const std::string& session_id) {
  TTM_LOG(info, "tracking", "ended session " + domain::log_id(session_id)
                              + " dropped to make room for a new one");
  // With a journal this is a cache entry: it loads again, ended, when a
  // call names it (as in every other server). Without one it is gone.
  if (tracking_) {
    if (cfg_->journal)
      tracked().drop(session_id);
    else
      tracked().evict(session_id);
    claims().forget(session_id);
  }
  tracking().gone.push_back(session_id);
}

std::string session::handle_message(const protocol::message& msg,
                                    std::vector<std::string>& notes) {
  switch (msg.kind) {
    case protocol::message::invalid:
      return encode_error(msg.id, msg.error_code, msg.error_message);
    case protocol::message::malformed_notification:
      TTM_LOG(warning, "mcp", "ignored a malformed notification: "
                                + msg.error_message);
      return {};
    case protocol::message::response:
      // We never send requests to the client, so nothing waits for this.
      // One the codec could not read (nested too deep) is worth a warning.
      if (!msg.error_message.empty())
        TTM_LOG(warning, "mcp", "ignored a malformed response: "
                                  + msg.error_message);
      else
        TTM_LOG(debug, "mcp", "ignored a response from the client, id "
                                + msg.id.json);
      return {};
    case protocol::message::notification:
      handle_notification(msg, era_, client_name_);
      return {};
    case protocol::message::request:
      mode_ = mode_for(msg);
      try {
        if (!log::enabled(log::level::debug))
          return dispatch(msg, notes);
        auto started = cfg_->clock->mono_now();
        auto reply = dispatch(msg, notes);
        auto took = std::chrono::duration_cast<std::chrono::microseconds>(
          cfg_->clock->mono_now() - started);
        log::write(log::level::debug, "mcp",
                   "request " + msg.id.json + " " + msg.method
                     + (job_->paused.resume ? " waits for a session slot after "
                        : job_->history     ? " waits for the journal after "
                                            : " answered in ")
                     + std::to_string(took.count()) + " us");
        return reply;
      } catch (const std::exception& e) {
        TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                                + ") failed: " + e.what());
        return encode_error(msg.id, ec::internal_error,
                            "Internal error while handling '" + msg.method
                              + "'");
      }
  }
  return {};
}


session::request_mode
session::mode_for(const protocol::message& msg) const {
  request_mode m;
  m.modern = msg.meta.claimed && era_ != protocol::era::legacy;
  m.level = m.modern ? protocol::parse_log_level(msg.meta.log_level)
                     : client_log_level_;
  m.ui = m.modern ? request_declares_ui(msg.params_value.get()) : client_ui_;
  return m;
}

std::string session::dispatch(const protocol::message& msg,
                              std::vector<std::string>& notes) {
  if (mode_.modern) {
    if (auto r = protocol::check_modern_request(msg))
      return encode_error(msg.id, r->code, r->message, r->data_json);
    // A valid modern request decides an undecided connection (stdio).
    era_ = protocol::era::modern;
  } else if (era_ == protocol::era::modern) {
    return modern_connection_refusal(msg);
  }
  const auto era = mode_.modern ? protocol::era::modern : protocol::era::legacy;
  const method* m = server_methods().find(msg.method, era);
  if (era == protocol::era::legacy) {
    if (!initialized()
        && (m == nullptr || m->life == lifecycle::after_initialize))
      return encode_error(msg.id, ec::invalid_request,
                          "Server not initialized: the first request must be "
                          "'initialize' (got '"
                            + msg.method + "')");
    if (m != nullptr && m->life == lifecycle::opens_session && initialized())
      return encode_error(msg.id, ec::invalid_request,
                          "Invalid Request: this session is already "
                          "initialized (revision "
                            + revision_ + ")");
  }
  if (m == nullptr)
    return encode_error(msg.id, ec::method_not_found,
                        "Method not found: '" + msg.method + "'");
  rapidjson::Document params;
  // The params as the frame parsed them, when they are what the method
  // takes as they are: no second parse.
  const result_stamp stamp{mode_.modern ? &cfg_->info : nullptr, m->cacheable};
  if (m->decode == nullptr && msg.params_value != nullptr
      && msg.params_value->IsObject())
    return m->handle(job_->view,
                     method_call{msg, *msg.params_value, notes, stamp});
  auto problem = m->decode != nullptr ? m->decode(msg, params)
                 : !m->params_error.empty()
                   ? object_params(msg, params, m->params_error)
                   : std::string{};
  if (!problem.empty())
    return invalid_params(msg.id, problem);
  return m->handle(job_->view, method_call{msg, params, notes, stamp});
}

} // namespace ttm::mcp
