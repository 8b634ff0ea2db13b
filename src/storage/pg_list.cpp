// store::list for PostgreSQL: as sqlite_list.cpp. A list page is one
// statement (one round trip, one snapshot): its rows with their tasks-done
// counts, or for statistics with the events of the rows whose runs are not
// packed (paired here); focus sessions beside them share a read-only
// transaction sent in one pipeline, as a preferences read does
// (pg_principal.cpp).

#include "storage/pg_store_impl.hpp"

#include "storage/runs.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <climits>
#include <deque>

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

/// The start-time window and the page's cursor, as both pages filter them.
void add_window_and_cursor(const list_query& q, query_text& t) {
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
  add_window_and_cursor(q, t);
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

/// The tracking sessions' page as one statement (one round trip, one
/// snapshot): part 0, the rows with their number in the page (`rn`) and,
/// for a list, each row's tasks done (the count sqlite_list.cpp takes per
/// row); part 1, for statistics (`with_runs`), the events of the rows whose
/// runs are not packed closed. Columns:
///   0 part, 1 rn, 2 sid, 3 session_id, 4 milestone_id, 5 milestone_name,
///   6 state, 7 started_wall_ns, 8 closed_wall_ns, 9 tags, 10 tasks_total,
///   11 runs, 12 epoch, 13 principal, 14 tasks_done,
///   15 seq, 16 kind, 17 task_id, 18 wall_ns, 19 mono_ns, 20 boot_id,
///   21 payload, 22 undone.
query_text tracking_statement(const list_query& q, std::int64_t limit) {
  query_text t;
  // The page's keys only: its sort then stays in memory (with the rows'
  // packed runs, a month's 5,000 rows sorted on disk: 6 MB); the rows are
  // joined to it by sid.
  t.sql = "WITH page AS MATERIALIZED (SELECT row_number() OVER (ORDER BY"
          " started_wall_ns DESC, session_id DESC) AS rn, sid";
  // Statistics: whether the row's events are read (its runs not packed
  // closed), found in this one scan of the rows, in a subquery the planner
  // keeps (OFFSET 0) so that the sort does not carry the runs to test them
  // after it.
  // With digests (~100 bytes a row, not ~1.1 KB of runs) the CTE carries
  // the rows whole and the page needs no join by sid.
  const bool whole = q.with_runs && q.digests;
  const char* const row_columns
    = ", milestone_id, milestone_name, state, closed_wall_ns, tags,"
      " tasks_total, digest, epoch, principal";
  if (q.with_runs)
    t.sql += std::string{", unpacked"} + (whole ? ", started_wall_ns,"
                                                  " session_id"
                                                + std::string{row_columns}
                                                : "")
             + " FROM (SELECT sid, started_wall_ns, session_id, "
             + unpacked_test() + " AS unpacked"
             + (whole ? row_columns : "");
  t.sql += " FROM sessions WHERE true";
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
  add_window_and_cursor(q, t);
  // The tag and text tests as the planner cannot take them for rare ones
  // (its default guess for `?` is 1 row in 200, and it would then sort
  // the matches of a scan of every row: 10,000 strpos for a page): the
  // page walks the index from the cursor and stops at its last row, as on
  // SQLite.
  for (const auto& tag : q.tags) {
    t.sql += " AND CASE WHEN tags::jsonb ? " + t.next()
             + " THEN true ELSE false END";
    t.params.add(tag);
  }
  if (q.text) {
    t.sql += " AND strpos(search, " + t.next() + ") > 0";
    t.params.add(*q.text);
  }
  if (q.with_runs)
    t.sql += " OFFSET 0) x";
  t.sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT " + t.next();
  t.params.add(limit + 1);
  // The page's rows: from the CTE itself (digests), else joined by sid.
  const std::string r = whole ? "p." : "s.";
  t.sql += ") SELECT 0, p.rn, p.sid, " + r + "session_id, " + r
           + "milestone_id, " + r + "milestone_name, " + r + "state, " + r
           + "started_wall_ns, " + r + "closed_wall_ns, " + r + "tags, " + r
           + "tasks_total, "
           // The runs of a row without a digest by a subquery, after the
           // sort (which would otherwise carry them).
           + (whole ? "COALESCE(p.digest, (SELECT x.runs FROM sessions x"
                      " WHERE x.sid = p.sid))"
                    : "s.runs")
           + ", " + r + "epoch, " + r + "principal, ";
  if (q.with_runs) {
    // Binary rows: 5,000 packed runs (~5.5 MB) as bytes, not 11 MB of hex
    // to escape and unescape.
    t.params.binary();
    // The events of each unpacked row, from events_by_session: OFFSET 0
    // keeps the planner from hashing every event instead (never run, but
    // its estimate of a million rows made the plan dear enough to compile:
    // JIT, ~100 ms a call).
    // The join by sid merges the page with the primary key from the
    // page's least sid on, not from the first row (a month of sessions
    // added in time order is the newer half of the index: read whole, the
    // older half was read for nothing).
    t.sql += std::string{"NULL::bigint, NULL::bigint, NULL, NULL,"
                         " NULL::bigint, NULL::bigint, NULL, NULL,"
                         " NULL::boolean FROM page p"}
             + (whole ? "" : " JOIN sessions s ON s.sid = p.sid"
                             " WHERE s.sid >= (SELECT min(sid) FROM page)")
             + " UNION ALL SELECT 1, p.rn, p.sid, NULL, NULL, NULL, NULL,"
             " NULL::bigint, NULL::bigint, NULL, NULL::bigint, NULL::bytea,"
             " NULL::bigint, NULL, NULL::bigint, e.seq, e.kind, e.task_id,"
             " e.wall_ns, e.mono_ns, e.boot_id, e.payload, e.undone"
             " FROM page p CROSS JOIN LATERAL (SELECT seq, kind, task_id,"
             " wall_ns, mono_ns, boot_id, payload, undone_by IS NOT NULL AS"
             " undone FROM events WHERE sid = p.sid AND kind NOT IN"
             " ('session_started', 'change_undone') OFFSET 0) e"
             " WHERE p.unpacked";
  } else {
    // A task is done when its latest event is an end as `completed`.
    t.sql += std::string{"(SELECT count(*) FROM (SELECT DISTINCT ON"
                         " (task_id) kind, status FROM ("}
             + task_events_of_p
             + ") ev WHERE task_id <> '' ORDER BY task_id, ord DESC) l"
               " WHERE kind = 'task_ended' AND status = 'completed'),"
               " NULL::bigint, NULL, NULL, NULL::bigint, NULL::bigint, NULL,"
               " NULL, NULL::boolean FROM page p JOIN sessions s"
               " ON s.sid = p.sid";
  }
  return t;
}

} // namespace

std::optional<error> pg_store::read_page(const list_query& q,
                                         std::int64_t limit, const pg_res& res,
                                         list_page& out) {
  static const std::string what = "cannot list the sessions in";
  // Part 0 in page order (rn), part 1 grouped by session, in journal order.
  // (rn, row): each rn read once, not once per comparison of the sort.
  std::vector<std::pair<std::int64_t, int>> ranked;
  std::map<std::int64_t, std::vector<std::pair<std::int64_t, int>>> events;
  for (int i = 0; i < rows_of(res); ++i) {
    pg_row row{res.get(), i};
    if (row.int64(0) == 0)
      ranked.emplace_back(row.int64(1), i);
    else
      events[row.int64(2)].emplace_back(row.int64(15), i);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<int> page;
  page.reserve(ranked.size());
  for (const auto& [rn, i] : ranked)
    page.push_back(i);
  std::vector<std::int64_t> unread; // sids whose packed runs did not unpack
  // Per row, its packing in the result when it unpacks (handed on as
  // read: the journal layer decodes it), else its events are paired.
  std::vector<std::optional<std::string_view>> kept;
  std::vector<std::int64_t> sids;
  std::deque<std::string> unescaped; // text-format packings (stable)
  for (int i : page) {
    if (static_cast<std::int64_t>(out.rows.size()) == limit) {
      out.more = true;
      break;
    }
    pg_row row{res.get(), i};
    session_row s;
    s.session_id = row.text(3);
    s.milestone_id = row.text(4);
    if (!row.null(5))
      s.milestone_name = row.text(5);
    auto st = session_state_from(row.text(6));
    if (!st)
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has unknown state '"
                                     + row.text(6) + "'"};
    s.state = *st;
    s.started_wall_ns = row.int64(7);
    if (!row.null(8))
      s.closed_wall_ns = row.int64(8);
    s.tags = tags_of(row.text(9));
    s.tasks_total = row.int64(10);
    s.principal = row.text(13);
    auto sid = row.int64(2);
    sids.push_back(sid);
    std::optional<std::string_view> runs;
    if (q.with_runs) {
      if (!row.null(11)) {
        // Binary format (tracking_statement): the bytes in the result,
        // which outlives `kept`.
        std::string_view packed = PQfformat(res.get(), 11) == 1
                                    ? row.view(11)
                                    : unescaped.emplace_back(row.bytes(11));
        auto at = packed_epoch(packed);
        runs_digest d;
        if (is_digest(packed) ? read_digest(packed, d)
                              : (!at || *at == row.int64(12))
                                  && runs_unpack(packed))
          runs = packed;
        // Packed closed yet damaged: its events were not read with it.
        if (!runs && !packed.empty()
            && (is_closed_packing(packed) || is_digest(packed)))
          unread.push_back(sid);
      }
    } else {
      s.tasks_done = row.int64(14);
    }
    kept.push_back(std::move(runs));
    out.rows.push_back(std::move(s));
  }
  if (!q.with_runs)
    return std::nullopt;
  std::map<std::int64_t, std::vector<stored_event_row>> read;
  for (auto& [sid, rows] : events) {
    std::sort(rows.begin(), rows.end());
    auto& into = read[sid];
    for (const auto& [seq, i] : rows) {
      pg_row row{res.get(), i};
      stored_event_row e;
      e.seq = seq;
      e.kind = row.text(16);
      e.task_id = row.null(17) ? "" : row.text(17);
      e.at = {row.int64(18), row.int64(19), row.text(20)};
      e.payload = row.text(21);
      e.undone = row.boolean(22);
      into.push_back(std::move(e));
    }
  }
  if (!unread.empty()) {
    // Damage only (a closed session's runs that do not unpack): their
    // events in a read of their own.
    auto ev = conn_.exec(
      "SELECT sid, seq, kind, task_id, wall_ns, mono_ns, boot_id,"
      " payload, undone_by IS NOT NULL FROM events"
      " WHERE sid = ANY($1::bigint[]) AND kind NOT IN"
      " ('session_started', 'change_undone') ORDER BY sid, seq",
      pg_params{}.add_int_array(unread), what);
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
      read[row.int64(0)].push_back(std::move(e));
    }
  }
  // One buffer for the page's runs, sized once (grown by doubling, a
  // month's copies and page faults were 4 % of a call by task).
  std::size_t bytes = 0;
  for (const auto& k : kept)
    bytes += k ? k->size() : 1024; // paired from events: about
  out.runs.reserve(out.rows.size(), bytes);
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    if (kept[i]) {
      out.runs.add(*kept[i]);
      continue;
    }
    std::vector<run_event> evs;
    std::string bad_kind;
    if (!run_events_of(read[sids[i]], evs, bad_kind))
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + out.rows[i].session_id.substr(0, 8)
                                     + "... has an event of unknown"
                                       " kind '"
                                     + bad_kind + "'"};
    out.runs.add(pack_runs(pair_runs(evs)));
  }
  return std::nullopt;
}

result<list_page> pg_store::list(const list_query& q) {
  static const std::string what = "cannot list the sessions in";
  if (auto err = connect())
    return std::move(*err);
  list_page out;
  auto limit = static_cast<std::int64_t>(
    std::min<std::size_t>(q.limit, static_cast<std::size_t>(INT64_MAX - 1)));
  std::optional<query_text> tracking;
  if (q.tracking)
    tracking = tracking_statement(q, limit);
  std::optional<query_text> focus;
  if (q.focus)
    focus = focus_statement(q, limit);
  if (!tracking && !focus)
    return out;
  // One statement is one snapshot on its own; two (tracking and focus)
  // share a read-only one, sent together: one round trip either way.
  const pg_res* tracked = nullptr;
  const pg_res* focused = nullptr;
  std::vector<pg_res> results;
  if (!tracking || !focus) {
    const auto& t = tracking ? *tracking : *focus;
    auto r = conn_.exec(t.sql, t.params, what);
    if (auto* err = std::get_if<error>(&r))
      return std::move(*err);
    results.push_back(std::move(std::get<pg_res>(r)));
    (tracking ? tracked : focused) = &results.front();
  } else {
    auto r = conn_.pipeline({{"BEGIN ISOLATION LEVEL REPEATABLE READ READ"
                              " ONLY",
                              pg_params{}},
                             {tracking->sql, tracking->params},
                             {focus->sql, focus->params},
                             {"COMMIT", pg_params{}}},
                            what);
    if (auto* err = std::get_if<error>(&r)) {
      conn_.rollback_if_open();
      return std::move(*err);
    }
    results = std::move(std::get<std::vector<pg_res>>(r));
    if (results.size() != 4)
      return error{error_kind::io, "journal " + where_
                                     + ": a list read answered "
                                     + std::to_string(results.size())
                                     + " results of 4"};
    tracked = &results[1];
    focused = &results[2];
  }
  if (tracked)
    if (auto err = read_page(q, limit, *tracked, out))
      return std::move(*err);
  if (focused)
    read_focus(*focused, limit, out);
  return out;
}

} // namespace ttm::storage::detail
