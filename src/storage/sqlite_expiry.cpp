// The SQLite store's expiry and retention: the open sessions no live
// server holds that are past their limits (orphans), and the daily purge
// of sessions closed longer ago than --history-retention.

#include "storage/sqlite_store_impl.hpp"

#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage::detail {

result<std::vector<orphan>>
sqlite_store::orphans_due(std::int64_t age_cutoff_wall_ns,
                          std::int64_t idle_cutoff_wall_ns,
                          std::size_t limit) {
  static const std::string what = "cannot look for expired sessions in";
  return guarded(what, path_, [&]() -> result<std::vector<orphan>> {
    stmt_ptr q;
    if (auto rc = prepare(q, "SELECT session_id, principal, epoch, holder,"
                             " started_wall_ns, last_wall_ns FROM sessions"
                             " WHERE state = 'open' AND (started_wall_ns < ?1"
                             " OR last_wall_ns < ?2)"))
      return fail(rc, what);
    std::vector<orphan> out;
    stmt_use use{q};
    use.bind(1, age_cutoff_wall_ns).bind(2, idle_cutoff_wall_ns);
    int rc;
    while (out.size() < limit && (rc = use.step()) == SQLITE_ROW) {
      // A live holder expires its own sessions (to the nanosecond of its
      // monotonic clock, and its client hears of it first).
      if (lock_.alive(use.int64(3)))
        continue;
      orphan o;
      o.session_id = use.text(0);
      o.principal = use.text(1);
      o.epoch = use.int64(2);
      o.started_wall_ns = use.int64(4);
      o.last_wall_ns = use.int64(5);
      out.push_back(std::move(o));
    }
    if (out.size() < limit && rc != SQLITE_DONE)
      return fail(rc, what);
    return out;
  });
}

// -- history and purge --------------------------------------------------------

result<std::optional<std::size_t>>
sqlite_store::purge_closed_before(std::int64_t cutoff_wall_ns,
                                  std::int64_t now_wall_ns,
                                  std::int64_t interval_ns) {
  static const std::string what = "cannot purge old sessions from";
  using res = result<std::optional<std::size_t>>;
  return guarded(what, path_, [&]() -> res {
    return writing<std::optional<std::size_t>>([&]() -> res {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what))
        return std::move(*err);
      std::int64_t last = 0;
      if (auto rc = query_int(db_.get(),
                              "SELECT CAST(value AS INTEGER) FROM meta"
                              " WHERE key = 'purged_wall_ns'",
                              last))
        return fail(rc, what);
      // Another server purged within the interval: one purge is enough.
      if (last > 0 && now_wall_ns - last < interval_ns)
        return std::optional<std::size_t>{};
      stmt_ptr purge;
      if (auto rc = prepare(purge, "DELETE FROM sessions"
                                   " WHERE state IN ('ended', 'expired')"
                                   " AND closed_wall_ns < ?1"))
        return fail(rc, what);
      std::size_t n = 0;
      {
        // Events go by ON DELETE CASCADE.
        stmt_use use{purge};
        if (auto rc = use.bind(1, cutoff_wall_ns).step(); rc != SQLITE_DONE)
          return fail(rc, what);
        n = static_cast<std::size_t>(sqlite3_changes64(db_.get()));
      }
      // The audit trail and ended focus sessions follow the same retention:
      // without it a busy server's refusals (token guessers, floods) and a
      // principal's focus history would grow the file without limit.
      for (const char* sql :
           {"DELETE FROM audit WHERE wall_ns < ?1",
            "DELETE FROM focus_sessions WHERE ended_wall_ns IS NOT NULL"
            " AND ended_wall_ns < ?1"}) {
        stmt_ptr extra;
        if (auto rc = prepare(extra, sql))
          return fail(rc, what);
        stmt_use use{extra};
        if (auto rc = use.bind(1, cutoff_wall_ns).step(); rc != SQLITE_DONE)
          return fail(rc, what);
      }
      stmt_ptr mark;
      if (auto rc = prepare(mark, "UPDATE meta SET value = ?1"
                                  " WHERE key = 'purged_wall_ns'"))
        return fail(rc, what);
      {
        stmt_use use{mark};
        auto text = std::to_string(now_wall_ns);
        if (auto rc = use.bind(1, text).step(); rc != SQLITE_DONE)
          return fail(rc, what);
      }
      if (auto err = commit_write(what))
        return std::move(*err);
      return std::optional<std::size_t>{n};
    });
  });
}

} // namespace ttm::storage::detail
