// The admin CLI's read-only looks at a PostgreSQL journal (`check`,
// `audit`), as journal_reader does for SQLite (sqlite_admin.cpp): a
// connection of their own, no migration, no instance registered, every
// read in one REPEATABLE READ snapshot while servers go on writing.

#include "storage/pg_admin.hpp"

#include "storage/pg_conn.hpp"
#include "storage/pg_probe.hpp"
#include "storage/sqlite_store.hpp" // journal_schema_version


namespace ttm::storage {

namespace {

using detail::pg_conn;
using detail::pg_params;
using detail::pg_res;
using detail::pg_row;

std::string where_of(const pg_options& opts) {
  return detail::pg_describe(opts.conninfo)
         + (opts.schema.empty() ? "" : " schema " + opts.schema);
}

/// Connects and opens a read-only snapshot; `f(conn)` reads in it.
template <class T, class F>
result<T> in_snapshot(const pg_options& opts, const std::string& what, F&& f) {
  pg_conn conn{opts.conninfo, opts.schema, where_of(opts)};
  if (auto err = conn.ensure())
    return std::move(*err);
  if (auto err = conn.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                          what))
    return std::move(*err);
  auto r = f(conn);
  conn.rollback_if_open(); // read only: nothing to commit
  return r;
}

using detail::pg_readable;

/// A failure of the read itself (a damaged page: SQLSTATE class XX) is the
/// journal's integrity; any other (the connection) is the caller's error.
bool is_damage(const pg_conn& conn) {
  return conn.last_state().rfind("XX", 0) == 0;
}

} // namespace

result<pg_journal_health> pg_health(const pg_options& opts) {
  static const std::string what = "cannot check the journal";
  auto where = where_of(opts);
  return in_snapshot<pg_journal_health>(
    opts, what, [&](pg_conn& conn) -> result<pg_journal_health> {
      pg_journal_health h;
      auto settings = conn.exec(
        "SELECT current_setting('server_version'), current_setting('fsync'),"
        " current_setting('synchronous_commit')",
        what);
      if (auto* err = std::get_if<error>(&settings))
        return std::move(*err);
      pg_row s{std::get<pg_res>(settings).get(), 0};
      h.server_version = s.text(0);
      h.fsync = s.text(1);
      h.synchronous_commit = s.text(2);
      auto found = detail::pg_find_journal(conn, what);
      if (auto* err = std::get_if<error>(&found))
        return std::move(*err);
      auto& j = std::get<detail::pg_found_journal>(found);
      if (j.schema.empty())
        return detail::pg_missing_schema(j, where);
      if (!j.version && !j.foreign)
        return h; // none yet
      h.exists = true;
      if (j.foreign) {
        h.integrity = "tables of another application, no journal";
        return h;
      }
      h.schema_version = *j.version;
      if (h.schema_version < 8 || h.schema_version > journal_schema_version)
        return h; // not tables this build knows: the schema line says so
      std::vector<std::string> complaints;
      // Every row of every table read through, TOASTed payloads too: a
      // damaged page fails the read (PostgreSQL checks page headers, and
      // checksums where initdb enabled them).
      std::string scan
        = "SELECT (SELECT count(*) FROM sessions WHERE octet_length(search)"
          " >= 0), (SELECT count(*) FROM events WHERE octet_length(payload)"
          " >= 0), (SELECT count(*) FROM preferences WHERE"
          " octet_length(value) >= 0), (SELECT count(*) FROM focus_sessions"
          " WHERE octet_length(summary) >= 0), (SELECT count(*) FROM audit"
          " WHERE octet_length(payload) >= 0)";
      if (h.schema_version >= 9)
        scan += ", (SELECT count(*) FROM mcp_sessions WHERE"
                " octet_length(state) >= 0)";
      auto counted = conn.exec(scan, what);
      if (auto* err = std::get_if<error>(&counted)) {
        if (!is_damage(conn))
          return std::move(*err);
        h.integrity = err->message;
        return h;
      }
      pg_row c{std::get<pg_res>(counted).get(), 0};
      h.sessions = c.int64(0);
      h.events = c.int64(1);
      // What the constraints do not say: every kind is one we know, and
      // every session begins with its session_started.
      auto kinds = conn.exec("SELECT DISTINCT kind FROM events", what);
      if (auto* err = std::get_if<error>(&kinds))
        return std::move(*err);
      const auto& kr = std::get<pg_res>(kinds);
      for (int i = 0; i < detail::rows_of(kr); ++i) {
        auto kind = pg_row{kr.get(), i}.text(0);
        if (!event_kind_from(kind))
          complaints.push_back("events of unknown kind '" + kind + "'");
      }
      auto unopened = conn.exec(
        "SELECT s.session_id FROM sessions s LEFT JOIN LATERAL (SELECT kind"
        " FROM events e WHERE e.sid = s.sid ORDER BY e.seq LIMIT 1) f ON"
        " true WHERE f.kind IS DISTINCT FROM 'session_started'"
        " ORDER BY s.sid LIMIT 5",
        what);
      if (auto* err = std::get_if<error>(&unopened))
        return std::move(*err);
      const auto& ur = std::get<pg_res>(unopened);
      for (int i = 0; i < detail::rows_of(ur); ++i)
        complaints.push_back("session " + pg_row{ur.get(), i}.text(0)
                             + " does not begin with session_started");
      for (const auto& text : complaints)
        h.integrity += (h.integrity.empty() ? "" : "; ") + text;
      if (h.integrity.empty())
        h.integrity = "ok";
      return h;
    });
}

result<std::vector<event>> pg_events_by(const pg_options& opts,
                                        const audit_query& q) {
  static const std::string what = "cannot read the journal";
  auto where = where_of(opts);
  return in_snapshot<std::vector<event>>(
    opts, what, [&](pg_conn& conn) -> result<std::vector<event>> {
      if (auto err = pg_readable(conn, where, what))
        return std::move(*err);
      // The payload is JSON text (a CHECK says so); `by` as SQLite's
      // json_type / json_extract read it.
      auto r = conn.exec(
        "SELECT e.kind, COALESCE(e.task_id, ''), e.wall_ns, e.mono_ns,"
        " e.boot_id, e.payload, s.session_id, s.principal FROM events e"
        " JOIN sessions s ON s.sid = e.sid"
        " WHERE json_typeof(e.payload::json -> 'by') = 'object'"
        " AND ($1::bigint IS NULL OR e.wall_ns >= $1::bigint)"
        " AND ($2::bigint IS NULL OR e.wall_ns < $2::bigint)"
        " AND ($3::text IS NULL OR e.payload::json #>> '{by,principal}' ="
        " $3::text) ORDER BY e.wall_ns, e.seq",
        pg_params{}.add(q.since_wall_ns).add(q.until_wall_ns).add(q.principal),
        what);
      if (auto* err = std::get_if<error>(&r))
        return std::move(*err);
      const auto& rows = std::get<pg_res>(r);
      std::vector<event> out;
      for (int i = 0; i < detail::rows_of(rows); ++i) {
        pg_row row{rows.get(), i};
        auto kind = event_kind_from(row.text(0));
        if (!kind)
          continue; // as SQLite's reader: `check` names unknown kinds
        event ev;
        ev.kind = *kind;
        ev.task_id = row.text(1);
        ev.at = {row.int64(2), row.int64(3), row.text(4)};
        ev.payload = row.text(5);
        ev.session_id = row.text(6);
        ev.principal = row.text(7);
        out.push_back(std::move(ev));
      }
      return out;
    });
}

result<std::vector<audit_entry>> pg_audit(const pg_options& opts,
                                          const audit_query& q) {
  static const std::string what = "cannot read the journal";
  auto where = where_of(opts);
  return in_snapshot<std::vector<audit_entry>>(
    opts, what, [&](pg_conn& conn) -> result<std::vector<audit_entry>> {
      if (auto err = pg_readable(conn, where, what))
        return std::move(*err);
      auto r = conn.exec(
        "SELECT kind, wall_ns, principal, payload FROM audit"
        " WHERE ($1::bigint IS NULL OR wall_ns >= $1::bigint)"
        " AND ($2::bigint IS NULL OR wall_ns < $2::bigint)"
        " AND ($3::text IS NULL OR principal = $3::text)"
        " ORDER BY wall_ns, seq",
        pg_params{}.add(q.since_wall_ns).add(q.until_wall_ns).add(q.principal),
        what);
      if (auto* err = std::get_if<error>(&r))
        return std::move(*err);
      const auto& rows = std::get<pg_res>(r);
      std::vector<audit_entry> out;
      for (int i = 0; i < detail::rows_of(rows); ++i) {
        pg_row row{rows.get(), i};
        out.push_back({row.text(0), row.int64(1), row.text(2), row.text(3)});
      }
      return out;
    });
}

} // namespace ttm::storage
