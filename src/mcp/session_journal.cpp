// The MCP session's side of the journal: the frame's pauses for a claim
// (checking or taking over the session a call names before it runs) and
// for a write, and what happens when the journal stores, refuses or fences
// it. The epochs and claims themselves are journal_claims'.

#include "mcp/session.hpp"

#include "domain/ids.hpp"
#include "journal/replay.hpp"
#include "log.hpp"
#include "mcp/handlers.hpp"

#include <algorithm>
#include <stdexcept>

namespace ttm::mcp {

namespace {

/// Moves a held session's last activity to the journal's record of it.
void touch_from(domain::tracker& tracker, const domain::clock_source& clock,
                const storage::stored_session& s) {
  // Calls through other servers that wrote nothing (reads) count as
  // activity too: the journal has the latest one, to the minute.
  if (s.last_wall_ns <= 0)
    return;
  auto now = domain::now_of(clock);
  auto ago = std::chrono::nanoseconds{domain::to_ns(now.wall)
                                      - s.last_wall_ns};
  if (ago.count() >= 0)
    tracker.touch(s.session_id, now.mono - ago);
}

} // namespace

bool session::hold_for_journal(job& j, std::string reply,
                               rpc_step& step) {
  // No tracker yet: nothing changed.
  auto changes = tracking_ ? tracking_->tracker.take_changes()
                           : std::vector<domain::change>{};
  if (changes.empty()) {
    complete(j, std::move(reply));
    return false;
  }
  j.held_reply = std::move(reply);
  j.held_updates = false;
  j.held_started.clear();
  j.held_expired.clear();
  for (const auto& c : changes) {
    if (c.kind != domain::change::session_expired)
      j.held_updates = true;
    else
      j.held_expired.push_back(c.session_id);
    if (c.kind == domain::change::session_started)
      j.held_started.push_back(c.session_id);
  }
  // Slots and ends are reported only once the journal decided: an end that
  // is undone must not make its session reclaimable.
  const auto& tool = j.next < j.frame.messages.size()
                      ? j.frame.messages[j.next].name
                      : std::string{};
  step.pause = journal_pause{claims().to_events(
    std::move(changes), tracked(),
    mode_.modern ? protocol::era::modern : protocol::era::legacy, tool,
    true)};
  step.adopted = std::exchange(tracking().adopted, {});
  return true;
}

std::optional<storage::claim_request>
session::claim_for(const protocol::message& msg) {
  if (!cfg_->journal)
    return std::nullopt;
  auto mode = mode_for(msg);
  // Requests the method table refuses anyway claim nothing.
  if (mode.modern ? era_ == protocol::era::legacy
                  : !initialized() || era_ == protocol::era::modern)
    return std::nullopt;
  // Only a call naming a session (by handle or key) claims one.
  if (msg.handle.empty() && msg.lookup.empty())
    return std::nullopt;
  return claims().claim_for(
    msg, mode.modern ? protocol::era::modern : protocol::era::legacy,
    tracked(), *cfg_->clock);
}

void session::take_over(const storage::stored_session& s) {
  const auto& id = s.session_id;
  bool had = tracked().find(id) != nullptr;
  if (had)
    tracked().drop(id);
  claims().forget(id);
  std::vector<std::string> problems;
  auto ids = journal::replay(tracked(), {s}, *cfg_->clock, cfg_->local_zone,
                             problems);
  for (const auto& p : problems)
    TTM_LOG(error, "journal", "cannot load " + p);
  if (ids.empty()) {
    // Expired (or unreadable): no longer held here.
    if (had) {
      tracking().released.push_back(id);
      tracking().gone.push_back(id);
    }
    return;
  }
  claims().hold(id, s.epoch);
  tracking().adopted.push_back(id);
  touch_from(tracked(), *cfg_->clock, s);
  if (!had)
    tracking().created.push_back(id);
  if (!had)
    TTM_LOG(info, "journal",
            "took over session " + domain::log_id(id) + " from the journal ("
              + (s.state == storage::session_state::open ? "open" : "ended")
              + ", epoch " + std::to_string(s.epoch) + ")");
  else
    TTM_LOG(debug, "journal",
            "session " + domain::log_id(id)
              + " reloaded: changed through another client (epoch "
              + std::to_string(s.epoch) + ")");
}

rpc_step session::resume_claim(const storage::claim_result& r,
                               const std::string& error) {
  if (!job_ || !job_->claimed || job_->next >= job_->frame.messages.size())
    throw std::logic_error("session::resume_claim without a paused claim");
  last_active_ = cfg_->clock->mono_now();
  auto in_scope = scope();
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  if (!error.empty()) {
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " not run, the journal cannot be read: "
                                + error);
    mode_ = mode_for(msg);
    j.held_reply.clear();
    complete(j, tool_error_reply(
      msg, request_stamp(j.view), "STORAGE_UNAVAILABLE",
      "The session journal cannot be read, so nothing was looked up or "
      "changed: "
        + error
        + ". time_get_current still works; retry once the server's storage "
          "is fixed (see its log)."));
    next_message(j);
    return run_job();
  }
  // Calls through other servers count as activity here too.
  if (r.outcome == storage::claim_result::current)
    touch_from(tracked(), *cfg_->clock, r.session);
  if (j.verifying) {
    j.verifying = false;
    if (r.outcome == storage::claim_result::current) {
      // The call ran on the latest state: its reply stands.
      complete(j, std::move(j.held_reply));
      j.held_reply.clear();
      next_message(j);
      return run_job();
    }
    // Changed through another server meanwhile: the reply is dropped and
    // the call runs again on the state loaded below.
    j.held_reply.clear();
  }
  switch (r.outcome) {
    case storage::claim_result::current:
      break;
    case storage::claim_result::loaded:
      if (r.previous_holder != 0 && r.previous_alive)
        TTM_LOG(debug, "journal",
                "session " + domain::log_id(r.session.session_id)
                  + " was last changed through another live server "
                    "(instance "
                  + std::to_string(r.previous_holder) + ")");
      take_over(r.session);
      break;
    case storage::claim_result::not_found:
      // Gone from the journal (purged) while this client held a copy.
      if (!msg.handle.empty() && tracked().find(msg.handle) != nullptr) {
        drop(msg.handle);
        tracking().released.push_back(msg.handle);
      }
      break;
  }
  return run_job();
}

std::vector<std::string> session::drop_stale(
  const std::vector<std::pair<std::string, std::int64_t>>& asked,
  const std::vector<std::string>& stale) {
  auto out = claims().stale(asked, stale);
  for (const auto& id : out) {
    TTM_LOG(debug, "journal", "session " + domain::log_id(id)
                                + " changed through another server: copy "
                                  "let go of");
    drop(id);
  }
  return out;
}

void session::drop(const std::string& session_id) {
  if (!tracking_ || tracked().find(session_id) == nullptr)
    return;
  tracked().drop(session_id);
  claims().forget(session_id);
  tracking().gone.push_back(session_id);
}

void session::undo_held(job& j) {
  claims().abandon();
  tracked().rollback();
  // Sessions this call started are gone again: free their slots.
  for (const auto& id : j.held_started) {
    auto c = std::find(tracking().created.begin(), tracking().created.end(), id);
    if (c != tracking().created.end())
      tracking().created.erase(c);
    tracking().released.push_back(id);
    claims().forget(id);
  }
  j.held_started.clear();
}

rpc_step session::resume_journal(const storage::append_answer& answer) {
  if (!job_ || job_->next >= job_->frame.messages.size())
    throw std::logic_error("session::resume_journal without a paused "
                           "message");
  auto in_scope = scope();
  using storage::append_answer;
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  auto reply = std::move(j.held_reply);
  // Fenced: another server changed a session of this call (or used one
  // this call found idle) since this client's copy: nothing was written;
  // undo, forget an expiry the journal did not agree to, and run the call
  // again on the latest state (a few times at most).
  if (answer.kind == append_answer::fenced && j.fenced_retries < 5) {
    undo_held(j);
    for (const auto& id : j.held_expired)
      tracked().drop(id);
    j.held_expired.clear();
    TTM_LOG(debug, "journal", "request " + msg.id.json
                                + ": its session changed through another "
                                  "client meanwhile; running it again on "
                                  "the latest state");
    ++j.fenced_retries;
    j.claimed = false;
    j.force_load = true;
    j.verify.reset();
    return run_job();
  }
  if (answer.kind == append_answer::timed_out && j.held_updates) {
    // Nothing was written: undone here too, and said as a protocol error
    // (the request as a whole did not run, like a cancelled one).
    undo_held(j);
    TTM_LOG(warning, "journal", "request " + msg.id.json
                                  + " timed out, nothing changed: "
                                  + answer.error);
    mode_ = mode_for(msg);
    reply = request_timeout_reply(msg.id, answer.error);
  } else if (answer.kind == append_answer::stored || !j.held_updates) {
    if (answer.kind != append_answer::stored)
      TTM_LOG(info, "journal", "an expiry was not recorded (the journal "
                               "expires the session itself): "
                                 + answer.error);
    tracked().commit();
    // The epochs the sessions are at now, for those still held.
    if (answer.kind == append_answer::stored)
      claims().stored(tracked());
    else
      claims().abandon();
  } else if (answer.kind == append_answer::unknown) {
    // Committed but maybe not durable: kept here as the journal (and every
    // reader of it) holds it, and the client told the outcome is unknown,
    // not that nothing changed. The journal writes nothing more.
    tracked().commit();
    claims().stored(tracked());
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " has an unknown outcome: " + answer.error);
    mode_ = mode_for(msg);
    reply = tool_error_reply(
      msg, request_stamp(j.view), "STORAGE_UNAVAILABLE",
      "Outcome unknown: " + answer.error
        + ". The change may or may not be there after the restart: check "
          "before repeating it. Until then the server refuses changes; "
          "reads and time_get_current still work.");
  } else {
    undo_held(j);
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " refused, nothing changed: "
                                + answer.error);
    mode_ = mode_for(msg);
    if (answer.kind == append_answer::limit
        && answer.limit_option == "max_tracking_sessions_per_principal")
      reply = tool_error_reply(
        msg, request_stamp(j.view), "LIMIT_REACHED",
        "The limit of " + std::to_string(answer.limit_value)
          + " open tracking sessions per principal (" + answer.limit_option
          + ") is reached over all servers sharing this data directory. "
            "End sessions you no longer need with time_session_end: only "
            "open sessions count against this limit.",
        answer.limit_option);
    else if (answer.kind == append_answer::limit)
      reply = tool_error_reply(
        msg, request_stamp(j.view), "LIMIT_REACHED",
        "The limit of " + std::to_string(tracked().limits().max_sessions)
          + " open tracking sessions (max_tracking_sessions) is reached "
            "over all servers sharing this data directory. End sessions "
            "you no longer need with time_session_end: ended sessions make "
            "room for new ones.");
    else
      reply = tool_error_reply(
        msg, request_stamp(j.view), "STORAGE_UNAVAILABLE",
        "The session journal cannot record this change, so nothing was "
        "changed: "
          + (answer.kind == append_answer::fenced
               ? std::string{"its session kept being changed by another "
                             "client at the same moment"}
               : answer.error)
          + ". time_get_current still works; retry once the server's "
            "storage is fixed (see its log).");
  }
  j.held_started.clear();
  complete(j, std::move(reply));
  next_message(j);
  return run_job();
}

std::string request_timeout_reply(const protocol::request_id& id,
                                  std::string_view why) {
  return protocol::encode_error(
    id, protocol::request_timeout,
    "Request timed out (--request-timeout): " + std::string{why}
      + "; nothing was changed, so it is safe to send again");
}

std::optional<rpc_output> timed_out_frame(const protocol::frame& f,
                                          std::string_view why) {
  std::vector<std::string> replies;
  for (const auto& m : f.messages)
    if (m.kind == protocol::message::request)
      replies.push_back(request_timeout_reply(m.id, why));
  if (replies.empty())
    return std::nullopt;
  rpc_output out;
  out.response = f.batch ? protocol::encode_batch(replies)
                         : std::move(replies.front());
  return out;
}

std::vector<storage::event> session::take_journal() {
  if (!tracking_ || !tracked().recording())
    return {};
  // Only expiry happens outside a frame, and it has nothing to undo: a
  // paused frame's undo log (and the epochs it waits for) stay as they are.
  return claims().to_events(
    tracked().take_changes(), tracked(),
    mode_.modern ? protocol::era::modern : protocol::era::legacy, {}, false);
}

} // namespace ttm::mcp
