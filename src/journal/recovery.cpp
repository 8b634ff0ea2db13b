#include "journal/recovery.hpp"

#include "journal/codec.hpp"

namespace ttm::journal {

using namespace domain;

std::vector<storage::event>
expire_recovered(std::vector<storage::stored_session>& sessions,
                 const tracking_limits& limits, const clock_source& clock) {
  std::vector<storage::event> out;
  auto now = now_of(clock);
  auto now_ns = to_ns(now.wall);
  auto boot = clock.boot_id();
  auto ns = [](std::chrono::seconds s) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(s).count();
  };
  for (auto& s : sessions) {
    if (s.state == storage::session_state::expired)
      continue;
    auto last = s.events.empty() ? s.started_wall_ns
                                 : s.events.back().at.wall_ns;
    const char* reason = nullptr;
    if (now_ns - s.started_wall_ns > ns(limits.max_age))
      reason = "age";
    else if (now_ns - last > ns(limits.max_idle))
      reason = "idle";
    if (!reason)
      continue;
    // Closed in the journal already (ended): nothing to record.
    if (s.state == storage::session_state::open) {
      change c;
      c.kind = change::session_expired;
      c.session_id = s.session_id;
      c.at = now;
      c.reason = reason;
      out.push_back(to_event(c, s.principal, boot));
    }
    s.state = storage::session_state::expired;
    s.events.clear();
  }
  return out;
}

recovery recover(storage::store& store, const tracking_limits& limits,
                 const clock_source& clock) {
  recovery out;
  auto loaded = store.load_open();
  if (auto* err = std::get_if<storage::error>(&loaded)) {
    out.error = "cannot read the session journal: " + err->message;
    return out;
  }
  out.sessions = std::move(
    std::get<std::vector<storage::stored_session>>(loaded));
  // Ended sessions stay readable (summary, a repeated end) until their age
  // limit, as in memory: the most recent ones, at most a slot each.
  storage::history_query recent;
  recent.since_wall_ns = to_ns(clock.wall_now() - limits.max_age);
  recent.limit = limits.max_sessions;
  recent.with_events = true;
  auto history = store.history(recent);
  if (auto* list = std::get_if<std::vector<storage::stored_session>>(&history))
    for (auto& s : *list)
      if (s.state == storage::session_state::ended)
        out.sessions.push_back(std::move(s));
  auto expired = expire_recovered(out.sessions, limits, clock);
  out.expired = expired.size();
  if (!expired.empty()) {
    auto r = store.append(expired);
    if (auto* err = std::get_if<storage::error>(&r))
      out.error = "cannot record the expiry of recovered sessions: "
                  + err->message;
  }
  return out;
}

} // namespace ttm::journal
