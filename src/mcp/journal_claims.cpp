#include "mcp/journal_claims.hpp"

#include "journal/codec.hpp"
#include "journal/runs.hpp"

#include <algorithm>

namespace ttm::mcp {

journal_claims::journal_claims(std::string principal, std::string boot_id,
                               std::string client_label)
  : principal_(std::move(principal)),
    boot_id_(std::move(boot_id)),
    client_label_(std::move(client_label)) {}

std::optional<storage::claim_request>
journal_claims::claim_for(const protocol::message& msg, protocol::era era,
                          domain::tracker& tracker,
                          const domain::clock_source& clock) const {
  if (msg.kind != protocol::message::request
      || (msg.method != "tools/call" && msg.method != "resources/read")
      || (msg.handle.empty() && msg.lookup.empty()))
    return std::nullopt;
  storage::claim_request req;
  req.now_wall_ns = domain::to_ns(clock.wall_now());
  req.principal = principal_;
  req.scope = std::string{protocol::to_string(era)};
  if (!msg.handle.empty()) {
    req.session_id = msg.handle;
  } else if (const auto* held = tracker.find_by_key(msg.lookup)) {
    req.session_id = held->id;
  } else {
    req.idempotency_key = msg.lookup;
    req.since_wall_ns
      = domain::to_ns(clock.wall_now() - tracker.limits().max_age);
  }
  if (!req.session_id.empty()) {
    // Expired here: asked too, for the journal keeps it as history (read
    // only; SESSION_EXPIRED if it was purged since).
    // Ended sessions are checked too: time_undo through another server
    // may have reopened one (its epoch moved on).
    if (tracker.find(req.session_id) != nullptr)
      if (auto e = epochs_.find(req.session_id); e != epochs_.end())
        req.known_epoch = e->second;
  }
  return req;
}

std::vector<storage::event>
journal_claims::to_events(std::vector<domain::change> changes,
                          const domain::tracker& tracker, protocol::era era,
                          const std::string& tool, bool in_flight) {
  std::vector<storage::event> out;
  out.reserve(changes.size());
  // Each event carries the epoch its session will be at when it is
  // written (the store moves it on by one per event): the epoch this
  // client knows, then one more for each earlier event of the batch.
  epoch_map after; // built apart: current_epoch reads pending_ meanwhile
  for (const auto& c : changes) {
    out.push_back(journal::to_event(c, principal_, boot_id_, era,
                                    {client_label_, tool}));
    auto& ev = out.back();
    // Statistics count the runs as the summary does (journal/runs.hpp).
    if (const auto* s = tracker.find(c.session_id))
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
  if (in_flight)
    pending_ = std::move(after);
  return out;
}

void journal_claims::stored(const domain::tracker& tracker) {
  for (const auto& [id, epoch] : pending_)
    if (tracker.find(id) != nullptr)
      epochs_[id] = epoch;
  pending_.clear();
}

std::int64_t journal_claims::current_epoch(const std::string& id) const {
  // A write in flight moves it on (see pending_): what is sent meanwhile
  // (an expiry, a close) goes behind that write in the journal's mailbox,
  // so it is checked against the epoch the write leaves.
  if (auto p = pending_.find(id); p != pending_.end())
    return p->second;
  if (auto e = epochs_.find(id); e != epochs_.end())
    return e->second;
  return 0;
}

std::vector<std::pair<std::string, std::int64_t>>
journal_claims::held(const domain::tracker& tracker) const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (auto& id : tracker.open_ids())
    if (auto epoch = current_epoch(id); epoch > 0)
      out.emplace_back(std::move(id), epoch);
  return out;
}

std::vector<std::string> journal_claims::stale(
  const std::vector<std::pair<std::string, std::int64_t>>& asked,
  const std::vector<std::string>& stale) const {
  std::vector<std::string> out;
  for (const auto& id : stale) {
    auto a = std::find_if(asked.begin(), asked.end(),
                          [&](const auto& p) { return p.first == id; });
    auto e = epochs_.find(id);
    if (a == asked.end() || e == epochs_.end() || e->second != a->second)
      continue;
    out.push_back(id);
  }
  return out;
}

} // namespace ttm::mcp
