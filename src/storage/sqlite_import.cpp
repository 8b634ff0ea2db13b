// Whole-journal writes for the admin CLI and the edge's audit records: the
// import of a dump (export's JSON lines, read back by the journal layer)
// into an empty journal, through the same per-event writes as a server's
// appends, in one transaction; and record_audit.

#include "storage/sqlite_store_impl.hpp"

#include "storage/sqlite_store.hpp"
#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <unordered_map>

namespace ttm::storage::detail {

result<ok> sqlite_store::record_audit(const std::vector<audit_entry>& entries) {
  static const std::string what = "cannot write audit records to";
  if (entries.empty())
    return ok{};
  return guarded(what, path_, [&]() -> result<ok> {
    rollback_guard guard{db_.get()};
    if (auto err = run(begin_, what))
      return std::move(*err);
    stmt_ptr insert;
    if (auto rc = prepare(insert, "INSERT INTO audit (kind, wall_ns,"
                                  " principal, payload) VALUES (?1, ?2, ?3,"
                                  " ?4)"))
      return fail(rc, what);
    for (const auto& e : entries) {
      stmt_use use{insert};
      use.bind(1, e.kind).bind(2, e.wall_ns).bind(3, e.principal).bind(
        4, e.payload);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
    }
    if (auto err = run(commit_, what))
      return std::move(*err);
    return ok{};
  });
}

result<std::size_t> sqlite_store::import_all(const journal_dump& dump) {
  static const std::string what = "cannot import into the journal";
  return guarded(what, path_, [&]() -> result<std::size_t> {
    rollback_guard guard{db_.get()};
    if (auto err = run(begin_, what))
      return std::move(*err);
    // Checked in the write transaction: no server can add a session
    // between the check and the import.
    std::int64_t held = 0;
    if (auto rc = query_int(db_.get(),
                            "SELECT (SELECT count(*) FROM sessions)"
                            " + (SELECT count(*) FROM preferences)"
                            " + (SELECT count(*) FROM focus_sessions)"
                            " + (SELECT count(*) FROM audit)",
                            held))
      return fail(rc, what);
    if (held > 0)
      return error{error_kind::rejected,
                   "the journal " + path_ + " is not empty ("
                     + std::to_string(held)
                     + " sessions, preferences, focus sessions or audit"
                       " records): import into a new data directory"};
    // Each event at its session's epoch, as a server's writes would be.
    std::unordered_map<std::string, std::int64_t> epochs;
    for (const auto& in : dump.events) {
      event ev = in;
      ev.if_due = false;
      ev.runs.reset();
      auto& epoch = epochs[ev.session_id];
      ev.epoch = epoch;
      epoch = ev.kind == event_kind::session_started ? 1 : epoch + 1;
      if (auto err = append_one(ev))
        return std::move(*err);
    }
    // Held by no live server: any server may take the sessions over.
    if (auto rc = exec(db_.get(), "UPDATE sessions SET holder = 0"))
      return fail(rc, what);
    stmt_ptr pref, focus, audit;
    if (auto rc = prepare(pref, "INSERT INTO preferences (principal, key,"
                                " value) VALUES (?1, ?2, ?3)"))
      return fail(rc, what);
    if (auto rc = prepare(focus, "INSERT INTO focus_sessions (session_id,"
                                 " principal, intent, started_wall_ns,"
                                 " ended_wall_ns, summary) VALUES (?1, ?2,"
                                 " ?3, ?4, ?5, ?6)"))
      return fail(rc, what);
    if (auto rc = prepare(audit, "INSERT INTO audit (kind, wall_ns,"
                                 " principal, payload) VALUES (?1, ?2, ?3,"
                                 " ?4)"))
      return fail(rc, what);
    for (const auto& p : dump.preferences) {
      stmt_use use{pref};
      use.bind(1, p.principal).bind(2, p.key).bind(3, p.value);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
    }
    for (const auto& f : dump.focus) {
      stmt_use use{focus};
      use.bind(1, f.focus.session_id)
        .bind(2, f.principal)
        .bind(3, f.focus.intent)
        .bind(4, f.focus.started_wall_ns)
        .bind(5, f.focus.ended_wall_ns)
        .bind(6, f.focus.summary);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
    }
    for (const auto& a : dump.audit) {
      stmt_use use{audit};
      use.bind(1, a.kind).bind(2, a.wall_ns).bind(3, a.principal).bind(
        4, a.payload);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
    }
    if (auto err = run(commit_, what))
      return std::move(*err);
    return dump.events.size();
  });
}

} // namespace ttm::storage::detail

namespace ttm::storage {

result<std::size_t> import_journal(const sqlite_options& opts,
                                   const journal_dump& dump) {
  auto opened = open_sqlite(opts);
  if (auto* err = std::get_if<error>(&opened))
    return std::move(*err);
  auto& st = static_cast<detail::sqlite_store&>(*std::get<store_ptr>(opened));
  return st.import_all(dump);
}

} // namespace ttm::storage
