#include "journal/expiry.hpp"

#include "journal/codec.hpp"

namespace ttm::journal {

using namespace domain;

namespace {

std::int64_t ns(std::chrono::seconds s) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(s).count();
}

} // namespace

std::vector<storage::event>
expiry_events(const std::vector<storage::orphan>& orphans,
              const tracking_limits& limits, const clock_source& clock) {
  std::vector<storage::event> out;
  auto now = now_of(clock);
  auto now_ns = to_ns(now.wall);
  auto boot = clock.boot_id();
  for (const auto& o : orphans) {
    const char* reason = nullptr;
    if (now_ns - o.started_wall_ns > ns(limits.max_age))
      reason = "age";
    else if (now_ns - o.last_wall_ns > ns(limits.max_idle))
      reason = "idle";
    if (!reason)
      continue;
    change c;
    c.kind = change::session_expired;
    c.session_id = o.session_id;
    c.at = now;
    c.reason = reason;
    out.push_back(to_event(c, o.principal, boot));
    out.back().epoch = o.epoch;
    // A call through another server since the look for orphans reads the
    // session (a claim, which moves no epoch) but records the activity:
    // the journal, not this look, decides whether the limit has passed.
    out.back().if_due = true;
  }
  return out;
}

expiry_run expire_orphans(storage::store& store, const tracking_limits& limits,
                          const clock_source& clock, std::size_t batch) {
  expiry_run out;
  auto now_ns = to_ns(clock.wall_now());
  auto found = store.orphans_due(now_ns - ns(limits.max_age),
                                 now_ns - ns(limits.max_idle), batch);
  if (auto* err = std::get_if<storage::error>(&found)) {
    out.error = "cannot look for expired sessions: " + err->message;
    return out;
  }
  for (auto& ev : expiry_events(std::get<std::vector<storage::orphan>>(found),
                                limits, clock)) {
    auto r = store.append({ev});
    if (auto* err = std::get_if<storage::error>(&r)) {
      if (err->kind == storage::error_kind::fenced)
        continue; // written or called meanwhile: that server decides
      out.error = "cannot record an expiry: " + err->message;
      return out;
    }
    ++out.expired;
  }
  return out;
}

} // namespace ttm::journal
