// The MCP session's side of the journal: checking or taking over the
// session a call names before it runs (claims), the epochs its writes
// carry, and what happens when the journal stores, refuses or fences them.

#include "mcp/session.hpp"

#include "domain/ids.hpp"
#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "journal/runs.hpp"
#include "log.hpp"

#include <algorithm>
#include <stdexcept>

namespace ttm::mcp {

bool session::hold_for_journal(job& j, std::string reply,
                               rpc_step& step) {
  auto changes = tracker_.take_changes();
  if (changes.empty()) {
    if (!reply.empty())
      j.replies.push_back(std::move(reply));
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
  step.journal = to_events(std::move(changes), pending_epochs_, tool);
  step.adopted = std::exchange(adopted_, {});
  return true;
}

std::vector<storage::event>
session::to_events(std::vector<domain::change> changes, epoch_map& next_epochs,
                   const std::string& tool) {
  std::vector<storage::event> out;
  out.reserve(changes.size());
  // The era of the request that made them: only a client of that era
  // takes a session over.
  const auto era = mode_.modern ? protocol::era::modern : protocol::era::legacy;
  // Each event carries the epoch its session will be at when it is
  // written (the store moves it on by one per event): the epoch this
  // client knows, then one more for each earlier event of the batch.
  epoch_map after; // built apart: `next_epochs` may be pending_epochs_
  for (const auto& c : changes) {
    out.push_back(journal::to_event(c, cfg_.principal, boot_id_, era,
                                    {cfg_.client_label, tool}));
    auto& ev = out.back();
    // Statistics count the runs as the summary does (journal/runs.hpp).
    if (const auto* s = tracker_.find(c.session_id))
      ev.runs = journal::runs_to_store(*s, c);
    auto& next = after[c.session_id];
    if (c.kind == domain::change::session_started) {
      next = 1;
      continue;
    }
    if (next == 0)
      next = current_epoch(c.session_id);
    ev.epoch = next++;
    if (c.kind == domain::change::session_expired) {
      // A limit's expiry stands only if the journal agrees it is due.
      ev.if_due = c.reason == "age" || c.reason == "idle";
      epochs_.erase(c.session_id);
    }
  }
  next_epochs = std::move(after);
  return out;
}

std::optional<storage::claim_request>
session::claim_for(const protocol::message& msg) {
  if (!cfg_.journal || msg.kind != protocol::message::request
      || (msg.method != "tools/call" && msg.method != "resources/read")
      || (msg.handle.empty() && msg.lookup.empty()))
    return std::nullopt;
  auto mode = mode_for(msg);
  // Requests the method table refuses anyway claim nothing.
  if (mode.modern ? era_ == protocol::era::legacy
                  : !initialized() || era_ == protocol::era::modern)
    return std::nullopt;
  storage::claim_request req;
  req.now_wall_ns = domain::to_ns(cfg_.clock->wall_now());
  req.principal = cfg_.principal;
  req.scope = std::string{protocol::to_string(
    mode.modern ? protocol::era::modern : protocol::era::legacy)};
  if (!msg.handle.empty()) {
    req.session_id = msg.handle;
  } else if (const auto* held = tracker_.find_by_key(msg.lookup)) {
    req.session_id = held->id;
  } else {
    req.idempotency_key = msg.lookup;
    req.since_wall_ns = domain::to_ns(cfg_.clock->wall_now()
                                      - tracker_.limits().max_age);
  }
  if (!req.session_id.empty()) {
    // Expired here, and the journal agreed (a fenced expiry is forgotten):
    // SESSION_EXPIRED without asking.
    if (tracker_.remembers_expired(req.session_id))
      return std::nullopt;
    // Ended sessions are checked too: time_undo through another server
    // may have reopened one (its epoch moved on).
    if (tracker_.find(req.session_id) != nullptr)
      if (auto e = epochs_.find(req.session_id); e != epochs_.end())
        req.known_epoch = e->second;
  }
  return req;
}

void session::take_over(const storage::stored_session& s) {
  const auto& id = s.session_id;
  bool had = tracker_.find(id) != nullptr;
  if (had)
    tracker_.drop(id);
  epochs_.erase(id);
  std::vector<std::string> problems;
  auto ids = journal::replay(tracker_, {s}, *cfg_.clock, cfg_.local_zone,
                             problems);
  for (const auto& p : problems)
    TTM_LOG(error, "journal", "cannot load " + p);
  if (ids.empty()) {
    // Expired (or unreadable): no longer held here.
    if (had) {
      released_.push_back(id);
      gone_.push_back(id);
    }
    return;
  }
  epochs_[id] = s.epoch;
  adopted_.push_back(id);
  touch_from(s);
  if (!had)
    created_.push_back(id);
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
  last_active_ = cfg_.clock->mono_now();
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  if (!error.empty()) {
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " not run, the journal cannot be read: "
                                + error);
    mode_ = mode_for(msg);
    j.held_reply.clear();
    j.replies.push_back(tool_error_reply(
      msg, "STORAGE_UNAVAILABLE",
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
    touch_from(r.session);
  if (j.verifying) {
    j.verifying = false;
    if (r.outcome == storage::claim_result::current) {
      // The call ran on the latest state: its reply stands.
      if (!j.held_reply.empty())
        j.replies.push_back(std::move(j.held_reply));
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
      if (!msg.handle.empty() && tracker_.find(msg.handle) != nullptr) {
        drop(msg.handle);
        released_.push_back(msg.handle);
      }
      break;
  }
  return run_job();
}

void session::touch_from(const storage::stored_session& s) {
  // Calls through other servers that wrote nothing (reads) count as
  // activity too: the journal has the latest one, to the minute.
  if (s.last_wall_ns <= 0)
    return;
  auto now = domain::now_of(*cfg_.clock);
  auto ago = std::chrono::nanoseconds{domain::to_ns(now.wall)
                                      - s.last_wall_ns};
  if (ago.count() >= 0)
    tracker_.touch(s.session_id, now.mono - ago);
}

std::int64_t session::current_epoch(const std::string& id) const {
  // A write in flight moves it on (see pending_epochs_): what is sent
  // meanwhile (an expiry, a close) goes behind that write in the journal's
  // mailbox, so it is checked against the epoch the write leaves.
  if (auto p = pending_epochs_.find(id); p != pending_epochs_.end())
    return p->second;
  if (auto e = epochs_.find(id); e != epochs_.end())
    return e->second;
  return 0;
}

std::vector<std::pair<std::string, std::int64_t>> session::held() const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (auto& id : tracker_.open_ids())
    if (auto epoch = current_epoch(id); epoch > 0)
      out.emplace_back(std::move(id), epoch);
  return out;
}

std::vector<std::string> session::drop_stale(
  const std::vector<std::pair<std::string, std::int64_t>>& asked,
  const std::vector<std::string>& stale) {
  std::vector<std::string> out;
  for (const auto& id : stale) {
    auto a = std::find_if(asked.begin(), asked.end(),
                          [&](const auto& p) { return p.first == id; });
    auto e = epochs_.find(id);
    if (a == asked.end() || e == epochs_.end() || e->second != a->second)
      continue;
    TTM_LOG(debug, "journal", "session " + domain::log_id(id)
                                + " changed through another server: copy "
                                  "let go of");
    drop(id);
    out.push_back(id);
  }
  return out;
}

void session::drop(const std::string& session_id) {
  if (tracker_.find(session_id) == nullptr)
    return;
  tracker_.drop(session_id);
  epochs_.erase(session_id);
  gone_.push_back(session_id);
}

void session::undo_held(job& j) {
  pending_epochs_.clear();
  tracker_.rollback();
  // Sessions this call started are gone again: free their slots.
  for (const auto& id : j.held_started) {
    auto c = std::find(created_.begin(), created_.end(), id);
    if (c != created_.end())
      created_.erase(c);
    released_.push_back(id);
    epochs_.erase(id);
  }
  j.held_started.clear();
}

rpc_step session::resume_journal(const storage::append_answer& answer) {
  if (!job_ || job_->next >= job_->frame.messages.size())
    throw std::logic_error("session::resume_journal without a paused "
                           "message");
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
      tracker_.drop(id);
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
  if (answer.kind == append_answer::stored || !j.held_updates) {
    if (answer.kind != append_answer::stored)
      TTM_LOG(info, "journal", "an expiry was not recorded (the journal "
                               "expires the session itself): "
                                 + answer.error);
    tracker_.commit();
    // The epochs the sessions are at now, for those still held.
    if (answer.kind == append_answer::stored)
      for (const auto& [id, epoch] : pending_epochs_)
        if (tracker_.find(id) != nullptr)
          epochs_[id] = epoch;
    pending_epochs_.clear();
  } else {
    undo_held(j);
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " refused, nothing changed: "
                                + answer.error);
    mode_ = mode_for(msg);
    if (answer.kind == append_answer::limit
        && answer.limit_option == "max_tracking_sessions_per_principal")
      reply = tool_error_reply(
        msg, "LIMIT_REACHED",
        "The limit of " + std::to_string(answer.limit_value)
          + " open tracking sessions per principal (" + answer.limit_option
          + ") is reached over all servers sharing this data directory. "
            "End sessions you no longer need with time_session_end: only "
            "open sessions count against this limit.",
        answer.limit_option);
    else if (answer.kind == append_answer::limit)
      reply = tool_error_reply(
        msg, "LIMIT_REACHED",
        "The limit of " + std::to_string(tracker_.limits().max_sessions)
          + " open tracking sessions (max_tracking_sessions) is reached "
            "over all servers sharing this data directory. End sessions "
            "you no longer need with time_session_end: ended sessions make "
            "room for new ones.");
    else
      reply = tool_error_reply(
        msg, "STORAGE_UNAVAILABLE",
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
  if (!reply.empty())
    j.replies.push_back(std::move(reply));
  next_message(j);
  return run_job();
}

std::vector<storage::event> session::close_all() {
  tracker_.close_all(domain::now_of(*cfg_.clock), "closed");
  return take_journal();
}

std::vector<storage::event> session::take_journal() {
  if (!tracker_.recording())
    return {};
  // Only expiry happens outside a frame, and it has nothing to undo: a
  // paused frame's undo log (and the epochs it waits for) stay as they are.
  epoch_map unused;
  return to_events(tracker_.take_changes(), unused);
}

} // namespace ttm::mcp
