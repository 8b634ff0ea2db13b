// store::principal for SQLite (schema step "preferences and focus
// sessions"): one transaction per operation, so a partial preferences
// update is all or nothing and two servers cannot both open a focus
// session for one principal.

#include "storage/sqlite_store_impl.hpp"

#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <algorithm>

namespace ttm::storage::detail {

result<principal_state> sqlite_store::principal(const principal_op& op) {
  static const std::string what = "cannot read or write preferences in";
  auto body = [&]() -> result<principal_state> {
    if (!prefs_select_) {
      std::pair<stmt_ptr*, const char*> sql[] = {
        {&prefs_select_, "SELECT key, value FROM preferences"
                         " WHERE principal = ?1 ORDER BY key"},
        {&prefs_upsert_,
         "INSERT INTO preferences (principal, key, value) VALUES (?1, ?2, ?3)"
         " ON CONFLICT (principal, key) DO UPDATE SET value = excluded.value"},
        {&prefs_delete_,
         "DELETE FROM preferences WHERE principal = ?1 AND key = ?2"},
        {&focus_open_,
         "SELECT fid, session_id, intent, started_wall_ns FROM focus_sessions"
         " WHERE principal = ?1 AND ended_wall_ns IS NULL"
         " ORDER BY started_wall_ns DESC, fid DESC LIMIT 1"},
        {&focus_insert_,
         "INSERT INTO focus_sessions (session_id, principal, intent,"
         " started_wall_ns) VALUES (?1, ?2, ?3, ?4)"},
        {&focus_close_, "UPDATE focus_sessions SET ended_wall_ns = ?2,"
                        " summary = ?3 WHERE fid = ?1"},
      };
      for (auto& [stmt, text] : sql)
        if (auto rc = prepare(*stmt, text)) {
          prefs_select_.reset(); // prepare all again next time
          return fail(rc, what);
        }
    }
    rollback_guard guard{db_.get()};
    bool writes = op.kind != principal_op::read;
    if (auto err = run(writes ? begin_ : begin_read_, what))
      return std::move(*err);
    principal_state out;
    std::int64_t open_fid = 0;
    auto read_open = [&]() -> std::optional<error> {
      out.open.reset();
      stmt_use use{focus_open_};
      use.bind(1, op.principal);
      int rc = use.step();
      if (rc == SQLITE_ROW) {
        open_fid = use.int64(0);
        focus_record f;
        f.session_id = use.text(1);
        f.intent = use.text(2);
        f.started_wall_ns = use.int64(3);
        out.open = std::move(f);
      } else if (rc != SQLITE_DONE) {
        return fail(rc, what);
      }
      return std::nullopt;
    };
    auto close_open = [&](std::int64_t at,
                          const std::string& summary) -> std::optional<error> {
      auto closed = *out.open;
      closed.ended_wall_ns = std::max(at, closed.started_wall_ns);
      closed.summary = summary;
      stmt_use use{focus_close_};
      use.bind(1, open_fid).bind(2, *closed.ended_wall_ns).bind(3, summary);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
      out.closed = std::move(closed);
      return std::nullopt;
    };
    auto read_prefs = [&]() -> std::optional<error> {
      out.prefs.clear();
      stmt_use use{prefs_select_};
      use.bind(1, op.principal);
      int rc;
      while ((rc = use.step()) == SQLITE_ROW)
        out.prefs.emplace_back(use.text(0), use.text(1));
      if (rc != SQLITE_DONE)
        return fail(rc, what);
      return std::nullopt;
    };
    if (auto err = read_open())
      return std::move(*err);
    if (auto err = read_prefs())
      return std::move(*err);
    switch (op.kind) {
      case principal_op::read:
        break;
      case principal_op::set_prefs:
        for (const auto& [key, value] : op.prefs) {
          stmt_use use{value == "null" ? prefs_delete_ : prefs_upsert_};
          use.bind(1, op.principal).bind(2, key);
          if (value != "null")
            use.bind(3, value);
          if (auto rc = use.step(); rc != SQLITE_DONE)
            return fail(rc, what);
        }
        break;
      case principal_op::focus_start:
        if (out.open && op.refuse_open.holds(out.prefs)) {
          out.refused = "SESSION_ALREADY_OPEN";
          break;
        }
        if (out.open)
          if (auto err = close_open(op.start.started_wall_ns, {}))
            return std::move(*err);
        {
          stmt_use use{focus_insert_};
          use.bind(1, op.start.session_id)
            .bind(2, op.principal)
            .bind(3, op.start.intent)
            .bind(4, op.start.started_wall_ns);
          if (auto rc = use.step(); rc != SQLITE_DONE)
            return fail(rc, what);
        }
        out.open = op.start;
        break;
      case principal_op::focus_end:
        if (!out.open) {
          out.refused = "NO_OPEN_SESSION";
          break;
        }
        if (auto err = close_open(op.now_wall_ns, op.summary))
          return std::move(*err);
        if (auto err = read_open())
          return std::move(*err);
        break;
    }
    if (op.kind == principal_op::set_prefs)
      if (auto err = read_prefs())
        return std::move(*err);
    if (auto err = commit_write(what))
      return std::move(*err);
    return out;
  };
  return guarded(what, path_, [&]() -> result<principal_state> {
    if (op.kind == principal_op::read)
      return body();
    return writing<principal_state>(body);
  });
}

result<std::size_t> sqlite_store::open_focus_sessions() {
  static const std::string what = "cannot count open focus sessions in";
  return guarded(what, path_, [&]() -> result<std::size_t> {
    // Rare (the journal's sweep, after a focus change): prepared each time.
    stmt_ptr count;
    if (auto rc = prepare(count, "SELECT count(*) FROM focus_sessions"
                                 " WHERE ended_wall_ns IS NULL"))
      return fail(rc, what);
    stmt_use use{count};
    if (auto rc = use.step(); rc != SQLITE_ROW)
      return fail(rc, what);
    return static_cast<std::size_t>(use.int64(0));
  });
}

} // namespace ttm::storage::detail
