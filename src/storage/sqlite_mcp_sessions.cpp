// The SQLite store's MCP sessions (schema step 9; see mcp_session.hpp):
// one row per Mcp-Session-Id of the 2025 eras, so that every server on the
// data directory answers it. Written without a sync of their own: a power
// cut may lose the latest (a re-initialize for its client), never a
// tracking change; the next synced commit of any server makes them
// durable, as the WAL is synced in order.

#include "storage/sqlite_store_impl.hpp"

#include "storage/sys_util.hpp"

#include <sqlite3.h>

namespace ttm::storage::detail {

namespace {

const std::string what_write = "cannot store an MCP session in";
const std::string what_read = "cannot read an MCP session from";

} // namespace

std::optional<error> sqlite_store::prepare_mcp(const std::string& what) {
  if (mcp_get_)
    return std::nullopt;
  std::pair<stmt_ptr*, const char*> sql[] = {
    {&mcp_put_,
     "INSERT INTO mcp_sessions (id, principal, state, created_wall_ns,"
     " last_wall_ns) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (id) DO UPDATE"
     " SET state = excluded.state,"
     " last_wall_ns = max(last_wall_ns, excluded.last_wall_ns)"
     " WHERE principal = excluded.principal"},
    {&mcp_touch_, "UPDATE mcp_sessions SET last_wall_ns = ?2"
                  " WHERE id = ?1 AND last_wall_ns < ?2"},
    {&mcp_remove_, "DELETE FROM mcp_sessions WHERE id = ?1"
                   " AND (?2 IS NULL OR last_wall_ns < ?2)"},
    {&mcp_due_, "SELECT id FROM mcp_sessions WHERE last_wall_ns < ?1"
                " ORDER BY last_wall_ns LIMIT ?2"},
    // Last: it marks the set as prepared.
    {&mcp_get_, "SELECT principal, state, created_wall_ns, last_wall_ns"
                " FROM mcp_sessions WHERE id = ?1"},
  };
  for (auto& [stmt, text] : sql)
    if (auto rc = prepare(*stmt, text)) {
      mcp_get_.reset(); // prepare all again next time
      return fail(rc, what);
    }
  return std::nullopt;
}

template <class T, class F>
result<T> sqlite_store::unsynced(F&& f) {
  // In WAL mode NORMAL commits without syncing the WAL; the next FULL
  // commit (or WAL sync) syncs it, these frames included.
  if (wal_sync_) {
    skip_sync_ = true;
    auto r = writing<T>(std::forward<F>(f));
    skip_sync_ = false;
    return r;
  }
  if (full_sync_)
    exec(db_.get(), "PRAGMA synchronous = NORMAL");
  auto r = writing<T>(std::forward<F>(f));
  if (full_sync_)
    exec(db_.get(), "PRAGMA synchronous = FULL");
  return r;
}

result<ok> sqlite_store::put_mcp_session(const mcp_session_record& r) {
  return guarded(what_write, path_, [&]() -> result<ok> {
    if (auto err = prepare_mcp(what_write))
      return std::move(*err);
    return unsynced<ok>([&]() -> result<ok> {
      stmt_use use{mcp_put_};
      use.bind(1, r.id).bind(2, r.principal).bind(3, r.state);
      use.bind(4, r.created_wall_ns).bind(5, r.last_wall_ns);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what_write);
      return ok{};
    });
  });
}

result<std::optional<mcp_session_record>>
sqlite_store::get_mcp_session(const std::string& id) {
  using res = result<std::optional<mcp_session_record>>;
  return guarded(what_read, path_, [&]() -> res {
    if (auto err = prepare_mcp(what_read))
      return std::move(*err);
    stmt_use use{mcp_get_};
    use.bind(1, id);
    auto rc = use.step();
    if (rc == SQLITE_DONE)
      return std::optional<mcp_session_record>{};
    if (rc != SQLITE_ROW)
      return fail(rc, what_read);
    mcp_session_record r;
    r.id = id;
    r.principal = use.text(0);
    r.state = use.text(1);
    r.created_wall_ns = use.int64(2);
    r.last_wall_ns = use.int64(3);
    return std::optional<mcp_session_record>{std::move(r)};
  });
}

result<ok> sqlite_store::touch_mcp_sessions(const std::vector<std::string>& ids,
                                            std::int64_t now_wall_ns) {
  if (ids.empty())
    return ok{};
  return guarded(what_write, path_, [&]() -> result<ok> {
    if (auto err = prepare_mcp(what_write))
      return std::move(*err);
    return unsynced<ok>([&]() -> result<ok> {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what_write))
        return std::move(*err);
      for (const auto& id : ids) {
        stmt_use use{mcp_touch_};
        use.bind(1, id).bind(2, now_wall_ns);
        if (auto rc = use.step(); rc != SQLITE_DONE)
          return fail(rc, what_write);
      }
      if (auto err = commit_write(what_write))
        return std::move(*err);
      return ok{};
    });
  });
}

result<bool>
sqlite_store::remove_mcp_session(const std::string& id,
                                 std::optional<std::int64_t> idle_before) {
  return guarded(what_write, path_, [&]() -> result<bool> {
    if (auto err = prepare_mcp(what_write))
      return std::move(*err);
    return unsynced<bool>([&]() -> result<bool> {
      stmt_use use{mcp_remove_};
      use.bind(1, id).bind(2, idle_before);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what_write);
      return sqlite3_changes64(db_.get()) > 0;
    });
  });
}

result<std::vector<std::string>>
sqlite_store::mcp_sessions_due(std::int64_t idle_before_wall_ns,
                               std::size_t limit) {
  using res = result<std::vector<std::string>>;
  return guarded(what_read, path_, [&]() -> res {
    if (auto err = prepare_mcp(what_read))
      return std::move(*err);
    stmt_use use{mcp_due_};
    use.bind(1, idle_before_wall_ns)
      .bind(2, static_cast<std::int64_t>(limit));
    std::vector<std::string> out;
    int rc;
    while ((rc = use.step()) == SQLITE_ROW)
      out.push_back(use.text(0));
    if (rc != SQLITE_DONE)
      return fail(rc, what_read);
    return out;
  });
}

} // namespace ttm::storage::detail
