// The journal actor's MCP sessions (declared in journal.hpp, detail).

#include "actors/journal.hpp"

#include "domain/ids.hpp"
#include "log.hpp"

#include <algorithm>
#include <chrono>

namespace ttm::actors::detail {

namespace {

std::int64_t now_ns(const journal_state& st) {
  return domain::to_ns(st.cfg.clock->wall_now());
}

/// How often a session's use is recorded at most: a minute, or half the
/// idle timeout when that is shorter (so that a session in use is never
/// taken for idle).
std::int64_t touch_interval_ns(const journal_state& st) {
  using namespace std::chrono;
  auto interval = duration_cast<nanoseconds>(minutes{1});
  if (st.cfg.mcp_idle_timeout.count() > 0)
    interval = std::min<nanoseconds>(interval, st.cfg.mcp_idle_timeout / 2);
  return interval.count();
}

std::string why(const storage::error& e) {
  return std::string{storage::to_string(e.kind)} + ": " + e.message;
}

/// After a committed change to MCP session `id`, before anyone hears of
/// it: servers holding a copy of its record ask the journal again.
void changed(journal_state& st, const std::string& id) {
  if (st.cfg.mcp_changes)
    st.cfg.mcp_changes->bump(storage::change_signal::slot_of(id));
}

} // namespace

bool mcp_put(journal_state& st, storage::mcp_session_record r) {
  if (!st.cfg.store)
    return false;
  r.created_wall_ns = r.last_wall_ns = now_ns(st);
  auto res = st.cfg.store->put_mcp_session(r);
  if (auto* err = std::get_if<storage::error>(&res)) {
    TTM_LOG(warning, "journal",
            "MCP session " + domain::log_id(r.id)
              + " not kept in the journal (only this server answers it): "
              + why(*err));
    return false;
  }
  changed(st, r.id); // a state changed (logging/setLevel) or a new id
  return true;
}

mcp_session_reply mcp_get(journal_state& st, const std::string& id) {
  mcp_session_reply out;
  if (!st.cfg.store) {
    out.error = "the session journal is not open";
    return out;
  }
  auto res = st.cfg.store->get_mcp_session(id);
  if (auto* err = std::get_if<storage::error>(&res)) {
    out.error = why(*err);
    return out;
  }
  out.record = std::move(std::get<std::optional<
                           storage::mcp_session_record>>(res));
  auto now = now_ns(st);
  if (out.record && now - out.record->last_wall_ns >= touch_interval_ns(st)) {
    auto t = st.cfg.store->touch_mcp_sessions({id}, now);
    if (auto* err = std::get_if<storage::error>(&t))
      TTM_LOG(debug, "journal", "MCP session use not recorded: " + why(*err));
    else
      ++st.mcp_touches;
  }
  return out;
}

bool mcp_end(journal_state& st, const std::string& id) {
  if (!st.cfg.store)
    return false;
  auto res = st.cfg.store->remove_mcp_session(id);
  if (auto* err = std::get_if<storage::error>(&res)) {
    TTM_LOG(warning, "journal", "MCP session " + domain::log_id(id)
                                  + " not removed from the journal: "
                                  + why(*err));
    return false;
  }
  bool removed = std::get<bool>(res);
  if (removed)
    changed(st, id);
  return removed;
}

void mcp_sweep(journal_state& st) {
  if (!st.cfg.store || st.cfg.mcp_idle_timeout.count() <= 0)
    return;
  // Idle past the timeout by the journal's record, which runs up to one
  // coalescing interval behind the session's real use.
  auto cutoff = now_ns(st)
                - std::chrono::nanoseconds{st.cfg.mcp_idle_timeout}.count()
                - touch_interval_ns(st);
  auto due = st.cfg.store->mcp_sessions_due(cutoff, 1000);
  if (auto* err = std::get_if<storage::error>(&due)) {
    TTM_LOG(debug, "journal", "MCP session expiry skipped: " + why(*err));
    return;
  }
  std::size_t removed = 0;
  for (const auto& id : std::get<std::vector<std::string>>(due)) {
    auto r = st.cfg.store->remove_mcp_session(id, cutoff);
    if (auto* ok = std::get_if<bool>(&r); ok && *ok) {
      changed(st, id);
      ++removed;
    } // else another server removed it, or it was used since
  }
  st.mcp_expired += removed;
  if (removed > 0)
    TTM_LOG(info, "journal", std::to_string(removed)
                               + " idle MCP sessions removed from the "
                                 "journal");
}

} // namespace ttm::actors::detail
