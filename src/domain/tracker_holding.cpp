// Which sessions a tracker holds, apart from tracking itself: letting one
// go without a trace, and moving one to another tracker of this process
// (another MCP session of the same principal took it over) as it is,
// instead of the other tracker reading it back from the journal.

#include "domain/tracking.hpp"

namespace ttm::domain {

std::unordered_map<std::string, tracking_session>::node_type
tracker::erase(const std::string& id) {
  auto i = sessions_.find(id);
  if (i == sessions_.end())
    return {};
  if (const auto& key = i->second.idempotency_key) {
    auto k = keys_.find(*key);
    if (k != keys_.end() && k->second == id)
      keys_.erase(k);
  }
  return sessions_.extract(i);
}

void tracker::drop(const std::string& id) {
  std::string gone = id; // `id` may be the session's own string
  erase(gone);
  expired_.erase(gone);
}

std::optional<tracking_session> tracker::extract(const std::string& id) {
  // Never in the middle of a change: its undo log points into the session.
  if (!undo_.empty() || !changes_.empty())
    return std::nullopt;
  auto node = erase(id);
  if (node.empty())
    return std::nullopt;
  return std::move(node.mapped());
}

bool tracker::insert(tracking_session s) {
  if (sessions_.count(s.id) > 0)
    return false;
  auto id = s.id;
  expired_.erase(id);
  // As a replay from the journal reports an ended session: its slot is
  // counted as ended, not open.
  if (s.ended())
    newly_ended_.push_back(id);
  if (s.idempotency_key)
    keys_[*s.idempotency_key] = id;
  sessions_.emplace(std::move(id), std::move(s));
  return true;
}

} // namespace ttm::domain
