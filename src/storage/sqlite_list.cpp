// store::list for SQLite: one page of an owner's sessions from the summary
// columns of schema 3 (sessions_by_owner gives them newest first), plus
// two small indexed reads per row (its tags, its completed tasks).

#include "storage/sqlite_store_impl.hpp"

#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace ttm::storage::detail {

result<list_page> sqlite_store::list(const list_query& q) {
  static const std::string what = "cannot list the sessions in";
  return guarded(what, path_, [&]() -> result<list_page> {
    // Only the conditions asked for, so that SQLite walks the owner's
    // index from the cursor or the time bound (a keyset page costs the
    // same at any depth); tags vary in number (the tool caps them).
    // tasks_total counts the tasks added and removed by bulk edits
    // (tasks_edited events, issue 17) too.
    std::string sql
      = "SELECT session_id, milestone_id, milestone_name, state,"
        " started_wall_ns, closed_wall_ns, tags, tasks_total + COALESCE(("
        "SELECT sum(CASE json_extract(o.value, '$.op') WHEN 'add' THEN 1"
        " WHEN 'remove' THEN -1 ELSE 0 END) FROM events e,"
        " json_each(e.payload, '$.ops') o WHERE e.sid = sessions.sid"
        " AND e.kind = 'tasks_edited'), 0), sid"
        " FROM sessions WHERE principal = ?1 AND scope = ?2";
    if (q.state)
      sql += " AND state = ?3";
    if (q.milestone_id)
      sql += " AND milestone_id = ?4";
    if (q.text)
      sql += " AND instr(search, ?5) > 0";
    if (q.since_wall_ns)
      sql += " AND started_wall_ns >= ?6";
    if (q.until_wall_ns)
      sql += " AND started_wall_ns < ?7";
    if (q.before)
      sql += " AND (started_wall_ns, session_id) < (?8, ?9)";
    for (std::size_t i = 0; i < q.tags.size(); ++i)
      sql += " AND EXISTS (SELECT 1 FROM json_each(sessions.tags)"
             " WHERE value = ?"
             + std::to_string(11 + i) + ")";
    sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT ?10";
    stmt_ptr page;
    if (auto rc = prepare(page, sql))
      return fail(rc, what);
    if (!tasks_done_) {
      // A session's task starts and ends: its task events, and the start
      // and end operations of its bulk edits (tasks_edited, issue 17) in
      // the order they were applied (`ord`).
      const std::string task_events
        = "WITH ev (ord, kind, task_id, wall_ns, mono_ns, boot_id, status)"
          " AS (SELECT seq * 1000, kind, task_id, wall_ns, mono_ns, boot_id,"
          " CASE WHEN kind = 'task_ended' THEN json_extract(payload,"
          " '$.status') END FROM events WHERE sid = ?1 AND kind NOT IN"
          " ('session_started', 'tasks_edited')"
          " UNION ALL SELECT e.seq * 1000 + o.key + 1,"
          " CASE json_extract(o.value, '$.op') WHEN 'start' THEN"
          " 'task_started' ELSE 'task_ended' END,"
          " json_extract(o.value, '$.task_id'), e.wall_ns, e.mono_ns,"
          " e.boot_id, CASE json_extract(o.value, '$.op') WHEN 'end' THEN"
          " COALESCE(json_extract(o.value, '$.status'), 'completed') END"
          " FROM events e, json_each(e.payload, '$.ops') o WHERE e.sid = ?1"
          " AND e.kind = 'tasks_edited'"
          " AND json_extract(o.value, '$.op') IN ('start', 'end')) ";
      // A task is done when its latest event is an end as `completed`
      // (SQLite takes the bare columns from the max(ord) row).
      if (auto rc = prepare(
            tasks_done_,
            task_events
              + "SELECT count(*) FROM (SELECT kind, status, max(ord) FROM ev"
                " WHERE task_id IS NOT NULL GROUP BY task_id)"
                " WHERE kind = 'task_ended' AND status = 'completed'"))
        return fail(rc, what);
      if (auto rc = prepare(json_values_, "SELECT value FROM json_each(?1)"))
        return fail(rc, what);
      if (auto rc = prepare(run_events_,
                            task_events
                              + "SELECT kind, task_id, wall_ns, mono_ns,"
                                " boot_id, status FROM ev ORDER BY ord"))
        return fail(rc, what);
    }
    rollback_guard guard{db_.get()};
    // One snapshot for the page and its rows' counts.
    if (auto err = run(begin_read_, what))
      return std::move(*err);
    list_page out;
    std::optional<std::string> state;
    if (q.state)
      state = to_string(*q.state);
    std::optional<std::int64_t> before_ns;
    std::optional<std::string> before_id;
    if (q.before) {
      before_ns = q.before->first;
      before_id = q.before->second;
    }
    auto limit = static_cast<std::int64_t>(std::min<std::size_t>(
      q.limit, static_cast<std::size_t>(INT64_MAX - 1)));
    {
      stmt_use use{page};
      use.bind(1, q.principal)
        .bind(2, q.scope)
        .bind(3, state)
        .bind(4, q.milestone_id)
        .bind(5, q.text)
        .bind(6, q.since_wall_ns)
        .bind(7, q.until_wall_ns)
        .bind(8, before_ns)
        .bind(9, before_id)
        .bind(10, limit + 1); // one more: are there older ones?
      for (std::size_t i = 0; i < q.tags.size(); ++i)
        use.bind(static_cast<int>(11 + i), q.tags[i]);
      int rc;
      while ((rc = use.step()) == SQLITE_ROW) {
        if (static_cast<std::int64_t>(out.rows.size()) == limit) {
          out.more = true;
          break;
        }
        session_row r;
        r.session_id = use.text(0);
        r.milestone_id = use.text(1);
        if (!use.is_null(2))
          r.milestone_name = use.text(2);
        auto st = session_state_from(use.text(3));
        if (!st)
          return error{error_kind::io, "journal " + path_ + ": session "
                                         + r.session_id.substr(0, 8)
                                         + "... has unknown state '"
                                         + use.text(3) + "'"};
        r.state = *st;
        r.started_wall_ns = use.int64(4);
        if (!use.is_null(5))
          r.closed_wall_ns = use.int64(5);
        auto tags = use.text(6);
        r.tasks_total = use.int64(7);
        auto sid = use.int64(8);
        {
          stmt_use t{json_values_};
          t.bind(1, tags);
          int trc;
          while ((trc = t.step()) == SQLITE_ROW)
            r.tags.push_back(t.text(0));
          if (trc != SQLITE_DONE)
            return fail(trc, what);
        }
        if (!q.with_runs) { // statistics count from the runs
          stmt_use d{tasks_done_};
          d.bind(1, sid);
          if (auto drc = d.step(); drc != SQLITE_ROW)
            return fail(drc, what);
          else
            r.tasks_done = d.int64(0);
        }
        if (q.with_runs) {
          std::vector<run_event> evs;
          stmt_use e{run_events_};
          e.bind(1, sid);
          int erc;
          while ((erc = e.step()) == SQLITE_ROW) {
            run_event ev;
            auto kind = event_kind_from(e.text(0));
            if (!kind)
              return error{error_kind::io,
                           "journal " + path_ + ": session "
                             + r.session_id.substr(0, 8)
                             + "... has an event of unknown kind '"
                             + e.text(0) + "'"};
            ev.kind = *kind;
            ev.task_id = e.text(1);
            ev.at = {e.int64(2), e.int64(3), e.text(4)};
            ev.status = e.text(5);
            evs.push_back(std::move(ev));
          }
          if (erc != SQLITE_DONE)
            return fail(erc, what);
          out.runs.push_back(std::move(evs));
        }
        out.rows.push_back(std::move(r));
      }
      if (!out.more && rc != SQLITE_DONE)
        return fail(rc, what);
    }
    if (auto err = run(commit_, what))
      return std::move(*err);
    return out;
  });
}

} // namespace ttm::storage::detail
