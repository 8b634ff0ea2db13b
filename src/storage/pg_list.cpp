// store::list for PostgreSQL: as sqlite_list.cpp. A list page is one
// statement (one round trip, one snapshot): its rows with their tasks-done
// counts. Statistics read their rows with the events of those whose runs
// are not packed (paired by pg_page.cpp), a statement per time window in
// one read-only transaction, streamed; focus sessions beside either share
// that transaction, as a preferences read does (pg_principal.cpp).

#include "storage/pg_store_impl.hpp"

#include "storage/runs.hpp"

#include <algorithm>
#include <climits>

namespace ttm::storage::detail {

namespace {

/// Numbered parameters as a query grows.
struct query_text {
  std::string sql;
  pg_params params;
  int n = 0;
  std::string next() {
    return "$" + std::to_string(++n);
  }
};

/// The start-time range (or `window`, one of statistics' time windows
/// within it) and the page's cursor, as both pages filter them: conditions
/// to add, each after " AND".
std::string window_and_cursor(
  const list_query& q, query_text& t,
  const std::pair<std::int64_t, std::int64_t>* window = nullptr) {
  std::string sql;
  auto since = window ? std::optional{window->first} : q.since_wall_ns;
  auto until = window ? std::optional{window->second} : q.until_wall_ns;
  if (since) {
    sql += " AND started_wall_ns >= " + t.next();
    t.params.add(*since);
  }
  if (until) {
    sql += " AND started_wall_ns < " + t.next();
    t.params.add(*until);
  }
  if (q.before) {
    auto a = t.next();
    auto b = t.next();
    sql += " AND (started_wall_ns, session_id) < (" + a + "::bigint, " + b
           + "::text)";
    t.params.add(q.before->first).add(q.before->second);
  }
  return sql;
}

/// The focus sessions' page (list_query::focus), or nothing to ask
/// (filters no focus session passes).
std::optional<query_text> focus_statement(const list_query& q,
                                          std::int64_t limit) {
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
  t.sql += window_and_cursor(q, t);
  t.sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT " + t.next();
  t.params.add(limit + 1);
  return t;
}

void read_focus(const pg_res& res, std::int64_t limit, list_page& out) {
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
}

/// A session's task events as (ord, kind, task_id, status), a bulk edit's
/// starts and ends among them, undone ones left out: sqlite_runs.cpp's
/// task_events_cte in PostgreSQL's words, for the session `p.sid`.
const char* const task_events_of_p
  = "SELECT e.seq * 1000 AS ord, e.kind, COALESCE(e.task_id, '') AS task_id,"
    " CASE WHEN e.kind = 'task_ended' THEN e.payload::json ->> 'status' END"
    " AS status FROM events e WHERE e.sid = p.sid AND e.kind IN"
    " ('task_started', 'task_ended') AND e.undone_by IS NULL"
    " UNION ALL SELECT e.seq * 1000 + o.k, CASE o.v ->> 'op' WHEN 'start'"
    " THEN 'task_started' ELSE 'task_ended' END, COALESCE(o.v ->> 'task_id',"
    " ''), CASE o.v ->> 'op' WHEN 'end' THEN COALESCE(o.v ->> 'status',"
    " 'completed') END FROM events e, json_array_elements(CASE WHEN"
    " json_typeof(e.payload::json -> 'ops') = 'array' THEN e.payload::json"
    " -> 'ops' ELSE '[]' END) WITH ORDINALITY AS o (v, k) WHERE e.sid = p.sid"
    " AND e.kind = 'tasks_edited' AND e.undone_by IS NULL"
    " AND o.v ->> 'op' IN ('start', 'end')";

/// `runs` is not a closed session's packing (closed_packing_versions):
/// its events are read (open, none, damaged).
std::string unpacked_test() {
  std::string versions;
  for (auto v : closed_packing_versions)
    versions += (versions.empty() ? "" : ", ") + std::to_string(v);
  return "runs IS NULL OR octet_length(runs) = 0 OR get_byte(runs, 0) NOT IN ("
         + versions + ")";
}

/// The filters a tracking page and its statistics share, as conditions
/// (their parameters added to `t`, referenced again wherever they repeat):
/// `keyed`, those an index takes (owner, state, milestone, start), and
/// `tested`, the tag and text tests, read from each row ("true": none).
struct filter_text {
  std::string keyed;
  std::string tested;
  std::string both() const {
    return keyed + " AND " + tested;
  }
};

filter_text tracking_filter(
  const list_query& q, query_text& t,
  const std::pair<std::int64_t, std::int64_t>* window = nullptr) {
  filter_text f{"true", "true"};
  if (!q.principal.empty()) {
    f.keyed += " AND principal = " + t.next();
    t.params.add(q.principal);
  }
  if (!q.scope.empty()) {
    f.keyed += " AND scope = " + t.next();
    t.params.add(q.scope);
  }
  if (q.state) {
    f.keyed += " AND state = " + t.next();
    t.params.add(to_string(*q.state));
  }
  if (q.milestone_id) {
    f.keyed += " AND milestone_id = " + t.next();
    t.params.add(*q.milestone_id);
  }
  f.keyed += window_and_cursor(q, t, window);
  // The tag and text tests as the planner cannot take them for rare ones
  // (its default guess for `?` is 1 row in 200, and it would then sort
  // the matches of a scan of every row: 10,000 strpos for a page): the
  // page walks the index from the cursor and stops at its last row, as on
  // SQLite.
  for (const auto& tag : q.tags) {
    f.tested += " AND CASE WHEN tags::jsonb ? " + t.next()
                + " THEN true ELSE false END";
    t.params.add(tag);
  }
  if (q.text) {
    f.tested += " AND strpos(search, " + t.next() + ") > 0";
    t.params.add(*q.text);
  }
  return f;
}

/// A list page as one statement (one round trip, one snapshot): the rows
/// with their number in the page (`rn`) and each one's tasks done (the
/// count sqlite_list.cpp takes per row). Columns as runs_statement's, but
/// 14 tasks_done and no events.
query_text list_statement(const list_query& q, std::int64_t limit) {
  query_text t;
  // The page's keys only: its sort then stays in memory; the rows are
  // joined to it by sid.
  t.sql = "WITH page AS MATERIALIZED (SELECT row_number() OVER (ORDER BY"
          " started_wall_ns DESC, session_id DESC) AS rn, sid FROM sessions"
          " WHERE "
          + tracking_filter(q, t).both();
  t.sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT " + t.next();
  t.params.add(limit + 1);
  // A task is done when its latest event is an end as `completed`.
  t.sql += std::string{") SELECT 0, p.rn, p.sid, s.session_id,"
                       " s.milestone_id, s.milestone_name, s.state,"
                       " s.started_wall_ns, s.closed_wall_ns, s.tags,"
                       " s.tasks_total, s.runs, s.epoch, s.principal,"
                       " (SELECT count(*) FROM (SELECT DISTINCT ON"
                       " (task_id) kind, status FROM ("}
           + task_events_of_p
           + ") ev WHERE task_id <> '' ORDER BY task_id, ord DESC) l"
             " WHERE kind = 'task_ended' AND status = 'completed'),"
             " NULL::bigint, NULL, NULL, NULL::bigint, NULL::bigint, NULL,"
             " NULL, NULL::boolean FROM page p JOIN sessions s"
             " ON s.sid = p.sid";
  return t;
}

/// Statistics' time windows (list_query::with_runs), newest first: the
/// range [since, until) in equal parts, about one per week and at most 4,
/// read one after the other in one transaction so that the server sends
/// one while the page reads the one before (a month by task, 5,000 rows
/// and 3 MB of runs: ~20 ms to send, ~10 to read; 8 windows cost more in
/// statements than they saved). None: no range, one statement.
std::vector<std::pair<std::int64_t, std::int64_t>>
windows_of(const list_query& q) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (!q.since_wall_ns || !q.until_wall_ns
      || *q.until_wall_ns <= *q.since_wall_ns)
    return out;
  constexpr std::int64_t per_window_ns = 7LL * 86'400'000'000'000;
  constexpr std::int64_t max_windows = 4;
  const auto since = *q.since_wall_ns;
  const auto until = *q.until_wall_ns;
  // Halved before subtracting: a range may span more than INT64_MAX.
  const auto half = until / 2 - since / 2;
  const auto n = std::clamp<std::int64_t>(half / (per_window_ns / 2) + 1, 1,
                                          max_windows);
  const auto step = half / n * 2;
  for (std::int64_t i = 0; i < n; ++i) {
    auto hi = until - i * step;
    auto lo = i + 1 == n ? since : hi - step;
    out.emplace_back(lo, hi);
  }
  return out;
}

/// Statistics' rows (list_query::with_runs) started in `window` (none:
/// the whole range), newest first, as one statement: part 0, up to `rows`
/// of them, each with its packed runs (or its digest); part 1, the events
/// of those whose runs are not packed closed. Columns:
///   0 part, 1 rn (NULL: part 0 comes in page order), 2 sid,
///   3 session_id, 4 milestone_id, 5 milestone_name, 6 state,
///   7 started_wall_ns, 8 closed_wall_ns, 9 tags, 10 tasks_total, 11 runs,
///   12 epoch, 13 principal, 14 NULL, 15 seq, 16 kind, 17 task_id,
///   18 wall_ns, 19 mono_ns, 20 boot_id, 21 payload, 22 undone.
query_text runs_statement(const list_query& q, std::int64_t rows,
                          const std::pair<std::int64_t, std::int64_t>* window) {
  query_text t;
  auto filter = tracking_filter(q, t, window);
  // Binary rows: a month's packed runs (~3 MB) as bytes, not twice as
  // many hex digits to escape and unescape.
  t.params.binary();
  // A window's rows are few enough to sort in memory (the index gives
  // them in order); a month's sorted whole spilt to disk (13 of 23 ms).
  t.sql = "(SELECT 0, NULL::bigint, s.sid, s.session_id, s.milestone_id,"
          " s.milestone_name, s.state, s.started_wall_ns, s.closed_wall_ns,"
          " s.tags, s.tasks_total, "
          + std::string{q.digests ? "COALESCE(s.digest, s.runs)" : "s.runs"}
          + ", s.epoch, s.principal, NULL::bigint, NULL::bigint, NULL, NULL,"
            " NULL::bigint, NULL::bigint, NULL, NULL, NULL::boolean"
            " FROM sessions s WHERE "
          + filter.both()
          + " ORDER BY started_wall_ns DESC, session_id DESC LIMIT "
          + t.next() + ")";
  t.params.add(rows);
  // The events of each unpacked row, from events_by_session: OFFSET 0
  // keeps the planner from hashing every event instead (never run, but
  // its estimate of a million rows made the plan dear enough to compile:
  // JIT, ~100 ms a call). Rows past `rows` may bring theirs: unread. The
  // tag and text tests only for unpacked rows (CASE keeps that order): a
  // row's tags parsed once, not twice.
  t.sql += " UNION ALL SELECT 1, NULL::bigint, s.sid, NULL, NULL, NULL, NULL,"
           " NULL::bigint, NULL::bigint, NULL, NULL::bigint, NULL::bytea,"
           " NULL::bigint, NULL, NULL::bigint, e.seq, e.kind, e.task_id,"
           " e.wall_ns, e.mono_ns, e.boot_id, e.payload, e.undone"
           " FROM sessions s CROSS JOIN LATERAL (SELECT seq, kind, task_id,"
           " wall_ns, mono_ns, boot_id, payload, undone_by IS NOT NULL AS"
           " undone FROM events WHERE sid = s.sid AND kind NOT IN"
           " ('session_started', 'change_undone') OFFSET 0) e WHERE "
           + filter.keyed + " AND CASE WHEN " + unpacked_test() + " THEN "
           + filter.tested + " ELSE false END";
  return t;
}

} // namespace

result<list_page> pg_store::list(const list_query& q, const list_sink& sink) {
  static const std::string what = "cannot list the sessions in";
  if (auto err = connect())
    return std::move(*err);
  list_page out;
  auto limit = static_cast<std::int64_t>(
    std::min<std::size_t>(q.limit, static_cast<std::size_t>(INT64_MAX - 2)));
  pg_page_reader page{q, limit, where_, sink, out};
  auto focus = q.focus ? focus_statement(q, limit) : std::nullopt;
  auto windows = windows_of(q);
  if (q.tracking && !q.with_runs && !focus) {
    // A list page: one statement is one snapshot on its own.
    auto t = list_statement(q, limit);
    auto r = conn_.exec(t.sql, t.params, what);
    if (auto* err = std::get_if<error>(&r))
      return std::move(*err);
    if (auto err = page.add(std::move(std::get<pg_res>(r))))
      return std::move(*err);
    return out;
  }
  if (!q.tracking && !focus)
    return out;
  // Otherwise statements that share a read-only snapshot, in one pipeline:
  // BEGIN, the focus page, the tracking page (statistics: a statement per
  // window, each made once the one before two has come back, and none
  // once the page is full), COMMIT.
  enum class part { begin, focus, tracking, commit };
  std::vector<part> sent;
  std::size_t next_window = 0;
  bool tracking_sent = false;
  pg_res focused;
  std::optional<error> failed;
  auto next = [&]() -> std::optional<pg_conn::statement> {
    auto send = [&](part p, query_text t) {
      sent.push_back(p);
      return pg_conn::statement{std::move(t.sql), std::move(t.params)};
    };
    if (sent.empty())
      return send(part::begin, {"BEGIN ISOLATION LEVEL REPEATABLE READ READ"
                                " ONLY",
                                {}});
    if (focus) {
      auto f = std::move(*focus);
      focus.reset();
      return send(part::focus, std::move(f));
    }
    bool more_windows = q.with_runs && !failed && !page.full()
                        && next_window < std::max<std::size_t>(windows.size(),
                                                               1);
    if (q.tracking && !tracking_sent && (more_windows || !q.with_runs)) {
      if (!q.with_runs) {
        tracking_sent = true;
        return send(part::tracking, list_statement(q, limit));
      }
      const auto* window = windows.empty() ? nullptr
                                           : &windows[next_window];
      ++next_window;
      return send(part::tracking,
                  runs_statement(q, limit + 1 - page.rows(), window));
    }
    if (sent.back() != part::commit)
      return send(part::commit, {"COMMIT", {}});
    return std::nullopt;
  };
  std::size_t answered = 0;
  auto on_result = [&](pg_res r) {
    switch (sent.at(answered++)) {
      case part::focus: focused = std::move(r); break;
      case part::tracking:
        if (!failed)
          failed = page.add(std::move(r));
        break;
      default: break;
    }
  };
  if (auto err = conn_.stream(next, on_result, 3, what)) {
    conn_.rollback_if_open();
    return std::move(*err);
  }
  if (failed)
    return std::move(*failed);
  if (auto err = page.finish(conn_))
    return std::move(*err);
  if (focused)
    read_focus(focused, limit, out);
  return out;
}

} // namespace ttm::storage::detail
