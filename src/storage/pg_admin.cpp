// Import and export of a PostgreSQL journal (the admin CLI), as
// sqlite_import.cpp and sqlite_admin.cpp do for SQLite.

#include "storage/pg_admin.hpp"

#include "storage/pg_probe.hpp"
#include "storage/pg_store_impl.hpp"

#include <unordered_map>

namespace ttm::storage::detail {

result<std::size_t> pg_store::import_all(const journal_dump& dump) {
  static const std::string what = "cannot import into the journal";
  return in_transaction<std::size_t>(
    what,
    [&]() -> result<std::size_t> {
      // Locked, then counted: no server adds anything meanwhile.
      auto held = conn_.exec(
        "LOCK TABLE sessions, preferences, focus_sessions, audit IN SHARE"
        " ROW EXCLUSIVE MODE; ",
        what);
      if (auto* err = std::get_if<error>(&held))
        return std::move(*err);
      auto n = conn_.exec("SELECT (SELECT count(*) FROM sessions)"
                          " + (SELECT count(*) FROM preferences)"
                          " + (SELECT count(*) FROM focus_sessions)"
                          " + (SELECT count(*) FROM audit)",
                          what);
      if (auto* err = std::get_if<error>(&n))
        return std::move(*err);
      auto count = pg_row{std::get<pg_res>(n).get(), 0}.int64(0);
      if (count > 0)
        return error{error_kind::rejected,
                     "the journal " + where_ + " is not empty ("
                       + std::to_string(count)
                       + " sessions, preferences, focus sessions or audit"
                         " records): import into an empty database"};
      std::unordered_map<std::string, std::int64_t> epochs;
      for (const auto& in : dump.events) {
        event ev = in;
        ev.if_due = false;
        ev.runs.reset();
        auto& epoch = epochs[ev.session_id];
        ev.epoch = epoch;
        epoch = ev.kind == event_kind::session_started ? 1 : epoch + 1;
        if (auto err = append_one(ev, what))
          return std::move(*err);
      }
      // Held by no live server: any server may take the sessions over.
      if (auto err = conn_.run("UPDATE sessions SET holder = 0", what))
        return std::move(*err);
      for (const auto& p : dump.preferences) {
        auto r = conn_.exec("INSERT INTO preferences (principal, key, value)"
                            " VALUES ($1, $2, $3)",
                            pg_params{}.add(p.principal).add(p.key).add(
                              p.value),
                            what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
      }
      for (const auto& f : dump.focus) {
        auto r = conn_.exec(
          "INSERT INTO focus_sessions (session_id, principal, intent,"
          " started_wall_ns, ended_wall_ns, summary) VALUES ($1, $2, $3, $4,"
          " $5, $6)",
          pg_params{}
            .add(f.focus.session_id)
            .add(f.principal)
            .add(f.focus.intent)
            .add(f.focus.started_wall_ns)
            .add(f.focus.ended_wall_ns)
            .add(f.focus.summary),
          what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
      }
      for (const auto& a : dump.audit) {
        auto r = conn_.exec("INSERT INTO audit (kind, wall_ns, principal,"
                            " payload) VALUES ($1, $2, $3, $4)",
                            pg_params{}
                              .add(a.kind)
                              .add(a.wall_ns)
                              .add(a.principal)
                              .add(a.payload),
                            what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
      }
      return dump.events.size();
    },
    false);
}

std::optional<error> pg_store::dump(const dump_visitor& v) {
  static const std::string what = "cannot read the journal";
  auto r = in_transaction<bool>(
    what,
    [&]() -> result<bool> {
      // Small journals in one result each; a cluster's export is an
      // operator's occasional step.
      auto events = conn_.exec(
        "SELECT e.kind, COALESCE(e.task_id, ''), e.wall_ns, e.mono_ns,"
        " e.boot_id, e.payload, s.session_id, s.principal FROM events e"
        " JOIN sessions s ON s.sid = e.sid ORDER BY e.seq",
        what);
      if (auto* err = std::get_if<error>(&events))
        return std::move(*err);
      const auto& er = std::get<pg_res>(events);
      for (int i = 0; i < rows_of(er); ++i) {
        pg_row row{er.get(), i};
        auto kind = event_kind_from(row.text(0));
        if (!kind)
          return error{error_kind::corrupt, "the journal " + where_
                                              + " has an event of unknown"
                                                " kind '"
                                              + row.text(0) + "'"};
        event ev;
        ev.kind = *kind;
        ev.task_id = row.text(1);
        ev.at = {row.int64(2), row.int64(3), row.text(4)};
        ev.payload = row.text(5);
        ev.session_id = row.text(6);
        ev.principal = row.text(7);
        if (!v.on_event(ev))
          return false;
      }
      auto prefs = conn_.exec("SELECT principal, key, value FROM preferences"
                              " ORDER BY principal COLLATE \"C\","
                              " key COLLATE \"C\"",
                              what);
      if (auto* err = std::get_if<error>(&prefs))
        return std::move(*err);
      const auto& pr = std::get<pg_res>(prefs);
      for (int i = 0; i < rows_of(pr); ++i) {
        pg_row row{pr.get(), i};
        if (!v.on_preference({row.text(0), row.text(1), row.text(2)}))
          return false;
      }
      auto focus = conn_.exec("SELECT principal, session_id, intent,"
                              " started_wall_ns, ended_wall_ns, summary"
                              " FROM focus_sessions ORDER BY fid",
                              what);
      if (auto* err = std::get_if<error>(&focus))
        return std::move(*err);
      const auto& fr = std::get<pg_res>(focus);
      for (int i = 0; i < rows_of(fr); ++i) {
        pg_row row{fr.get(), i};
        focus_row f;
        f.principal = row.text(0);
        f.focus.session_id = row.text(1);
        f.focus.intent = row.text(2);
        f.focus.started_wall_ns = row.int64(3);
        if (!row.null(4))
          f.focus.ended_wall_ns = row.int64(4);
        f.focus.summary = row.text(5);
        if (!v.on_focus(f))
          return false;
      }
      auto audit = conn_.exec("SELECT kind, wall_ns, principal, payload"
                              " FROM audit ORDER BY seq",
                              what);
      if (auto* err = std::get_if<error>(&audit))
        return std::move(*err);
      const auto& ar = std::get<pg_res>(audit);
      for (int i = 0; i < rows_of(ar); ++i) {
        pg_row row{ar.get(), i};
        audit_entry a;
        a.kind = row.text(0);
        a.wall_ns = row.int64(1);
        a.principal = row.text(2);
        a.payload = row.text(3);
        if (!v.on_audit(a))
          return false;
      }
      return true;
    },
    true);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  return std::nullopt;
}

} // namespace ttm::storage::detail

namespace ttm::storage {

namespace {

result<std::unique_ptr<detail::pg_store>> open_for_admin(
  const pg_options& opts) {
  auto st = std::make_unique<detail::pg_store>(opts);
  if (auto err = st->open())
    return std::move(*err);
  return st;
}

} // namespace

result<std::size_t> import_journal_pg(const pg_options& opts,
                                      const journal_dump& dump) {
  auto st = open_for_admin(opts);
  if (auto* err = std::get_if<error>(&st))
    return std::move(*err);
  return std::get<0>(st)->import_all(dump);
}

std::optional<error> dump_journal_pg(const pg_options& opts,
                                     const dump_visitor& v) {
  {
    // An export creates no journal: one that is not there is named, with
    // how to make it.
    auto where = detail::pg_describe(opts.conninfo)
                 + (opts.schema.empty() ? "" : " schema " + opts.schema);
    detail::pg_conn probe{opts.conninfo, opts.schema, where};
    if (auto err = probe.ensure())
      return err;
    if (auto err = detail::pg_readable(probe, where,
                                       "cannot read the journal"))
      return err;
  }
  auto st = open_for_admin(opts);
  if (auto* err = std::get_if<error>(&st))
    return std::move(*err);
  return std::get<0>(st)->dump(v);
}

} // namespace ttm::storage
