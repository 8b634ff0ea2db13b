// store::list, preferences and focus sessions, and audit records for
// PostgreSQL: as sqlite_list.cpp and sqlite_principal.cpp, with a list
// page's tasks-done counts and runs paired in C++ from one read of its
// rows' events.

#include "storage/pg_store_impl.hpp"

#include "storage/runs.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <climits>

namespace ttm::storage::detail {

namespace {

std::vector<std::string> tags_of(const std::string& json) {
  std::vector<std::string> out;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsArray())
    return out;
  for (const auto& v : doc.GetArray())
    if (v.IsString())
      out.emplace_back(v.GetString(), v.GetStringLength());
  return out;
}

/// Numbered parameters as a query grows.
struct query_text {
  std::string sql;
  pg_params params;
  int n = 0;
  std::string next() {
    return "$" + std::to_string(++n);
  }
};

} // namespace

std::optional<error> pg_store::list_focus(const list_query& q,
                                          std::int64_t limit,
                                          list_page& out) {
  static const std::string what = "cannot list the focus sessions in";
  if (q.milestone_id || !q.tags.empty()
      || (q.state && *q.state == session_state::expired))
    return std::nullopt;
  query_text t;
  t.sql = "SELECT session_id, intent, started_wall_ns, ended_wall_ns,"
          " summary FROM focus_sessions WHERE true";
  if (!q.principal.empty()) {
    t.sql += " AND principal = " + t.next();
    t.params.add(q.principal);
  }
  if (q.state)
    t.sql += *q.state == session_state::open ? " AND ended_wall_ns IS NULL"
                                             : " AND ended_wall_ns IS NOT NULL";
  if (q.focus_id) {
    t.sql += " AND session_id = " + t.next();
    t.params.add(*q.focus_id);
  }
  if (q.text) {
    auto p = t.next();
    t.sql += " AND (strpos(lower(intent), " + p + ") > 0 OR strpos(lower("
             "summary), " + p + ") > 0)";
    t.params.add(*q.text);
  }
  if (q.since_wall_ns) {
    t.sql += " AND started_wall_ns >= " + t.next();
    t.params.add(*q.since_wall_ns);
  }
  if (q.until_wall_ns) {
    t.sql += " AND started_wall_ns < " + t.next();
    t.params.add(*q.until_wall_ns);
  }
  if (q.before) {
    auto a = t.next();
    auto b = t.next();
    t.sql += " AND (started_wall_ns, session_id) < (" + a + "::bigint, " + b
             + "::text)";
    t.params.add(q.before->first).add(q.before->second);
  }
  t.sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT " + t.next();
  t.params.add(limit + 1);
  auto r = conn_.exec(t.sql, t.params, what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  const auto& res = std::get<pg_res>(r);
  for (int i = 0; i < rows_of(res); ++i) {
    if (static_cast<std::int64_t>(out.focus.size()) == limit) {
      out.focus_more = true;
      break;
    }
    pg_row row{res.get(), i};
    focus_record f;
    f.session_id = row.text(0);
    f.intent = row.text(1);
    f.started_wall_ns = row.int64(2);
    if (!row.null(3))
      f.ended_wall_ns = row.int64(3);
    f.summary = row.text(4);
    out.focus.push_back(std::move(f));
  }
  return std::nullopt;
}

result<list_page> pg_store::list(const list_query& q) {
  static const std::string what = "cannot list the sessions in";
  return in_transaction<list_page>(
    what,
    [&]() -> result<list_page> {
      list_page out;
      auto limit = static_cast<std::int64_t>(std::min<std::size_t>(
        q.limit, static_cast<std::size_t>(INT64_MAX - 1)));
      if (q.tracking) {
        query_text t;
        t.sql = "SELECT session_id, milestone_id, milestone_name, state,"
                " started_wall_ns, closed_wall_ns, tags, tasks_total, sid,"
                " runs, epoch, principal FROM sessions WHERE true";
        if (!q.principal.empty()) {
          t.sql += " AND principal = " + t.next();
          t.params.add(q.principal);
        }
        if (!q.scope.empty()) {
          t.sql += " AND scope = " + t.next();
          t.params.add(q.scope);
        }
        if (q.state) {
          t.sql += " AND state = " + t.next();
          t.params.add(to_string(*q.state));
        }
        if (q.milestone_id) {
          t.sql += " AND milestone_id = " + t.next();
          t.params.add(*q.milestone_id);
        }
        if (q.text) {
          t.sql += " AND strpos(search, " + t.next() + ") > 0";
          t.params.add(*q.text);
        }
        if (q.since_wall_ns) {
          t.sql += " AND started_wall_ns >= " + t.next();
          t.params.add(*q.since_wall_ns);
        }
        if (q.until_wall_ns) {
          t.sql += " AND started_wall_ns < " + t.next();
          t.params.add(*q.until_wall_ns);
        }
        if (q.before) {
          auto a = t.next();
          auto b = t.next();
          t.sql += " AND (started_wall_ns, session_id) < (" + a
                   + "::bigint, " + b + "::text)";
          t.params.add(q.before->first).add(q.before->second);
        }
        for (const auto& tag : q.tags) {
          t.sql += " AND tags::jsonb ? " + t.next();
          t.params.add(tag);
        }
        t.sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT "
                 + t.next();
        t.params.add(limit + 1);
        auto r = conn_.exec(t.sql, t.params, what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
        const auto& res = std::get<pg_res>(r);
        std::vector<std::int64_t> need_events; // sids
        std::vector<std::optional<std::vector<stored_run>>> kept;
        std::vector<std::int64_t> sids;
        for (int i = 0; i < rows_of(res); ++i) {
          if (static_cast<std::int64_t>(out.rows.size()) == limit) {
            out.more = true;
            break;
          }
          pg_row row{res.get(), i};
          session_row s;
          s.session_id = row.text(0);
          s.milestone_id = row.text(1);
          if (!row.null(2))
            s.milestone_name = row.text(2);
          auto st = session_state_from(row.text(3));
          if (!st)
            return error{error_kind::io, "journal " + where_ + ": session "
                                           + s.session_id.substr(0, 8)
                                           + "... has unknown state '"
                                           + row.text(3) + "'"};
          s.state = *st;
          s.started_wall_ns = row.int64(4);
          if (!row.null(5))
            s.closed_wall_ns = row.int64(5);
          s.tags = tags_of(row.text(6));
          s.tasks_total = row.int64(7);
          s.principal = row.text(11);
          auto sid = row.int64(8);
          sids.push_back(sid);
          std::optional<std::vector<stored_run>> runs;
          if (q.with_runs && !row.null(9)) {
            auto packed = row.bytes(9);
            auto at = packed_epoch(packed);
            if (!at || *at == row.int64(10))
              runs = unpack_runs(packed);
          }
          if (!q.with_runs || !runs)
            need_events.push_back(sid);
          kept.push_back(std::move(runs));
          out.rows.push_back(std::move(s));
        }
        // The rows' events in one read, paired here.
        std::map<std::int64_t, std::vector<stored_event_row>> events;
        if (!need_events.empty()) {
          auto ev = conn_.exec(
            "SELECT sid, seq, kind, task_id, wall_ns, mono_ns, boot_id,"
            " payload, undone_by IS NOT NULL FROM events"
            " WHERE sid = ANY($1::bigint[]) AND kind NOT IN"
            " ('session_started', 'change_undone') ORDER BY sid, seq",
            pg_params{}.add_int_array(need_events), what);
          if (auto* err = std::get_if<error>(&ev))
            return std::move(*err);
          const auto& er = std::get<pg_res>(ev);
          for (int i = 0; i < rows_of(er); ++i) {
            pg_row row{er.get(), i};
            stored_event_row e;
            e.seq = row.int64(1);
            e.kind = row.text(2);
            e.task_id = row.null(3) ? "" : row.text(3);
            e.at = {row.int64(4), row.int64(5), row.text(6)};
            e.payload = row.text(7);
            e.undone = row.boolean(8);
            events[row.int64(0)].push_back(std::move(e));
          }
        }
        for (std::size_t i = 0; i < out.rows.size(); ++i) {
          auto& r = out.rows[i];
          if (q.with_runs && kept[i]) {
            out.runs.push_back(std::move(*kept[i]));
            continue;
          }
          std::vector<run_event> evs;
          std::string bad_kind;
          if (!run_events_of(events[sids[i]], evs, bad_kind))
            return error{error_kind::io, "journal " + where_ + ": session "
                                           + r.session_id.substr(0, 8)
                                           + "... has an event of unknown"
                                             " kind '"
                                           + bad_kind + "'"};
          if (q.with_runs)
            out.runs.push_back(pair_runs(evs));
          else
            r.tasks_done = tasks_done_of(evs);
        }
      }
      if (q.focus)
        if (auto err = list_focus(q, limit, out))
          return std::move(*err);
      return out;
    },
    true);
}

result<principal_state> pg_store::principal(const principal_op& op) {
  static const std::string what = "cannot read or write preferences in";
  bool writes = op.kind != principal_op::read;
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

result<ok> pg_store::record_audit(const std::vector<audit_entry>& entries) {
  static const std::string what = "cannot write audit records to";
  if (entries.empty())
    return ok{};
  return in_transaction<ok>(
    what,
    [&]() -> result<ok> {
      for (const auto& e : entries) {
        auto r = conn_.exec("INSERT INTO audit (kind, wall_ns, principal,"
                            " payload) VALUES ($1, $2, $3, $4)",
                            pg_params{}
                              .add(e.kind)
                              .add(e.wall_ns)
                              .add(e.principal)
                              .add(e.payload),
                            what);
        if (auto* err = std::get_if<error>(&r))
          return std::move(*err);
      }
      return ok{};
    },
    false);
}

result<std::size_t> pg_store::open_focus_sessions() {
  static const std::string what = "cannot count open focus sessions in";
  if (auto err = connect())
    return std::move(*err);
  auto r = conn_.exec("SELECT count(*) FROM focus_sessions"
                      " WHERE ended_wall_ns IS NULL",
                      what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  return static_cast<std::size_t>(
    pg_row{std::get<pg_res>(r).get(), 0}.int64(0));
}

} // namespace ttm::storage::detail
