// store::principal for PostgreSQL: a principal's preferences and focus
// session, as sqlite_principal.cpp. A read (every call makes one) is one
// pipeline in one read-only snapshot; a write is one transaction.

#include "storage/pg_store_impl.hpp"

namespace ttm::storage::detail {

result<principal_state> pg_store::principal(const principal_op& op) {
  static const std::string what = "cannot read or write preferences in";
  bool writes = op.kind != principal_op::read;
  if (!writes) {
    // A read (every call's preferences): its two reads in one snapshot,
    // sent in one pipeline: one round trip instead of four.
    if (auto err = connect())
      return std::move(*err);
    auto r = conn_.pipeline(
      {{"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", pg_params{}},
       {"SELECT session_id, intent, started_wall_ns FROM focus_sessions"
        " WHERE principal = $1 AND ended_wall_ns IS NULL ORDER BY"
        " started_wall_ns DESC, fid DESC LIMIT 1",
        pg_params{}.add(op.principal)},
       {"SELECT key, value FROM preferences WHERE principal = $1 ORDER BY"
        " key COLLATE \"C\"",
        pg_params{}.add(op.principal)},
       {"COMMIT", pg_params{}}},
      what);
    if (auto* err = std::get_if<error>(&r)) {
      conn_.rollback_if_open();
      return std::move(*err);
    }
    auto& res = std::get<std::vector<pg_res>>(r);
    if (res.size() != 4)
      return error{error_kind::io, "journal " + where_
                                     + ": a preferences read answered "
                                     + std::to_string(res.size())
                                     + " results of 4"};
    principal_state out;
    if (rows_of(res[1]) > 0) {
      pg_row row{res[1].get(), 0};
      focus_record f;
      f.session_id = row.text(0);
      f.intent = row.text(1);
      f.started_wall_ns = row.int64(2);
      out.open = std::move(f);
    }
    for (int i = 0; i < rows_of(res[2]); ++i) {
      pg_row row{res[2].get(), i};
      out.prefs.emplace_back(row.text(0), row.text(1));
    }
    return out;
  }
  return in_transaction<principal_state>(
    what,
    [&]() -> result<principal_state> {
      principal_state out;
      std::int64_t open_fid = 0;
      auto read_open = [&]() -> std::optional<error> {
        out.open.reset();
        // FOR UPDATE: two servers cannot both open a focus session.
        auto r = conn_.exec(
          std::string{"SELECT fid, session_id, intent, started_wall_ns FROM"
                      " focus_sessions WHERE principal = $1 AND ended_wall_ns"
                      " IS NULL ORDER BY started_wall_ns DESC, fid DESC"
                      " LIMIT 1"}
            + (writes ? " FOR UPDATE" : ""),
          pg_params{}.add(op.principal), what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
        const auto& res = std::get<pg_res>(r);
        if (rows_of(res) > 0) {
          pg_row row{res.get(), 0};
          open_fid = row.int64(0);
          focus_record f;
          f.session_id = row.text(1);
          f.intent = row.text(2);
          f.started_wall_ns = row.int64(3);
          out.open = std::move(f);
        }
        return std::nullopt;
      };
      auto close_open = [&](std::int64_t at,
                            const std::string& summary) -> std::optional<error> {
        auto closed = *out.open;
        closed.ended_wall_ns = std::max(at, closed.started_wall_ns);
        closed.summary = summary;
        auto r = conn_.exec("UPDATE focus_sessions SET ended_wall_ns = $2,"
                            " summary = $3 WHERE fid = $1",
                            pg_params{}
                              .add(open_fid)
                              .add(*closed.ended_wall_ns)
                              .add(summary),
                            what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
        out.closed = std::move(closed);
        return std::nullopt;
      };
      auto read_prefs = [&]() -> std::optional<error> {
        out.prefs.clear();
        auto r = conn_.exec("SELECT key, value FROM preferences WHERE"
                            " principal = $1 ORDER BY key COLLATE \"C\"",
                            pg_params{}.add(op.principal), what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
        const auto& res = std::get<pg_res>(r);
        for (int i = 0; i < rows_of(res); ++i) {
          pg_row row{res.get(), i};
          out.prefs.emplace_back(row.text(0), row.text(1));
        }
        return std::nullopt;
      };
      if (writes) {
        // One principal's operations take turns (a focus start with none
        // open has no row to lock).
        auto r = conn_.exec("SELECT pg_advisory_xact_lock(hashtextextended("
                            "$1, 0))",
                            pg_params{}.add(op.principal), what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
      }
      if (auto err = read_open())
        return std::move(*err);
      if (auto err = read_prefs())
        return std::move(*err);
      switch (op.kind) {
        case principal_op::read:
          break;
        case principal_op::set_prefs:
          for (const auto& [key, value] : op.prefs) {
            auto r = value == "null"
                       ? conn_.exec("DELETE FROM preferences WHERE"
                                    " principal = $1 AND key = $2",
                                    pg_params{}.add(op.principal).add(key),
                                    what)
                       : conn_.exec(
                           "INSERT INTO preferences (principal, key, value)"
                           " VALUES ($1, $2, $3) ON CONFLICT (principal, key)"
                           " DO UPDATE SET value = excluded.value",
                           pg_params{}.add(op.principal).add(key).add(value),
                           what);
            if (auto* err = std::get_if<error>(&r))
              return std::move(*err);
          }
          if (auto err = read_prefs())
            return std::move(*err);
          break;
        case principal_op::focus_start: {
          if (out.open && op.refuse_open.holds(out.prefs)) {
            out.refused = "SESSION_ALREADY_OPEN";
            break;
          }
          if (out.open)
            if (auto err = close_open(op.start.started_wall_ns, {}))
              return std::move(*err);
          auto r = conn_.exec("INSERT INTO focus_sessions (session_id,"
                              " principal, intent, started_wall_ns) VALUES"
                              " ($1, $2, $3, $4)",
                              pg_params{}
                                .add(op.start.session_id)
                                .add(op.principal)
                                .add(op.start.intent)
                                .add(op.start.started_wall_ns),
                              what);
          if (auto* err = std::get_if<error>(&r))
            return std::move(*err);
          out.open = op.start;
          break;
        }
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
      return out;
    },
    !writes);
}

} // namespace ttm::storage::detail
