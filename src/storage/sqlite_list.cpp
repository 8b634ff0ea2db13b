// store::list for SQLite: one page of an owner's sessions from the summary
// columns of schema 3 (sessions_by_owner gives them newest first), plus
// two small indexed reads per row (its tags, its completed tasks); for
// statistics, each row's runs (packed in a closed session's row, schema 4).

#include "storage/sqlite_store_impl.hpp"

#include "storage/runs.hpp"
#include "storage/sqlite_runs.hpp"
#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::storage::detail {

namespace {

/// A minified JSON array of strings without escapes (as SQLite writes a
/// session's tags), read without a statement: a statistics call reads
/// thousands of rows. False: anything else, for json_each to read.
bool plain_strings(std::string_view json, std::vector<std::string>& out) {
  if (json.size() < 2 || json.front() != '[' || json.back() != ']')
    return false;
  json = json.substr(1, json.size() - 2);
  std::vector<std::string> got;
  while (!json.empty()) {
    if (json.front() != '"')
      return false;
    auto close = json.find('"', 1);
    if (close == std::string_view::npos)
      return false;
    auto value = json.substr(1, close - 1);
    if (value.find('\\') != std::string_view::npos)
      return false;
    got.emplace_back(value);
    json.remove_prefix(close + 1);
    if (!json.empty()) {
      if (json.front() != ',' || json.size() == 1)
        return false;
      json.remove_prefix(1);
    }
  }
  out = std::move(got);
  return true;
}

} // namespace

std::optional<error> sqlite_store::list_focus(const list_query& q,
                                              std::int64_t limit,
                                              list_page& out) {
  static const std::string what = "cannot list the focus sessions in";
  // A focus session has no milestone or tags, and never expires.
  if (q.milestone_id || !q.tags.empty()
      || (q.state && *q.state == session_state::expired))
    return std::nullopt;
  // focus_by_owner (principal, started_wall_ns) gives them newest first.
  std::string sql = "SELECT session_id, intent, started_wall_ns,"
                    " ended_wall_ns, summary FROM focus_sessions"
                    " WHERE 1";
  if (!q.principal.empty()) // empty: any owner (the admin CLI)
    sql += " AND principal = ?1";
  if (q.state)
    sql += *q.state == session_state::open ? " AND ended_wall_ns IS NULL"
                                           : " AND ended_wall_ns IS NOT NULL";
  if (q.focus_id)
    sql += " AND session_id = ?2";
  if (q.text) // lower(): ASCII only, as the tool folds `text`
    sql += " AND (instr(lower(intent), ?3) > 0"
           " OR instr(lower(summary), ?3) > 0)";
  if (q.since_wall_ns)
    sql += " AND started_wall_ns >= ?4";
  if (q.until_wall_ns)
    sql += " AND started_wall_ns < ?5";
  if (q.before)
    sql += " AND (started_wall_ns, session_id) < (?6, ?7)";
  sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT ?8";
  stmt_ptr page;
  if (auto rc = prepare(page, sql))
    return fail(rc, what);
  std::optional<std::int64_t> before_ns;
  std::optional<std::string> before_id;
  if (q.before) {
    before_ns = q.before->first;
    before_id = q.before->second;
  }
  stmt_use use{page};
  use.bind(1, q.principal)
    .bind(2, q.focus_id)
    .bind(3, q.text)
    .bind(4, q.since_wall_ns)
    .bind(5, q.until_wall_ns)
    .bind(6, before_ns)
    .bind(7, before_id)
    .bind(8, limit + 1);
  int rc;
  while ((rc = use.step()) == SQLITE_ROW) {
    if (static_cast<std::int64_t>(out.focus.size()) == limit) {
      out.focus_more = true;
      return std::nullopt;
    }
    focus_record f;
    f.session_id = use.text(0);
    f.intent = use.text(1);
    f.started_wall_ns = use.int64(2);
    if (!use.is_null(3))
      f.ended_wall_ns = use.int64(3);
    f.summary = use.text(4);
    out.focus.push_back(std::move(f));
  }
  if (rc != SQLITE_DONE)
    return fail(rc, what);
  return std::nullopt;
}

result<list_page> sqlite_store::list(const list_query& q, const list_sink&) {
  static const std::string what = "cannot list the sessions in";
  return guarded(what, path_, [&]() -> result<list_page> {
    // Only the conditions asked for, so that SQLite walks the owner's
    // index from the cursor or the time bound (a keyset page costs the
    // same at any depth); tags vary in number (the tool caps them).
    // tasks_total: kept by each append, bulk edits' add and remove too.
    std::string sql
      = "SELECT session_id, milestone_id, milestone_name, state,"
        " started_wall_ns, closed_wall_ns, tags, tasks_total, sid, "
        + std::string{q.digests ? "COALESCE(digest, runs)" : "runs"}
        + ", epoch, principal FROM sessions WHERE 1";
    // Empty: any owner, any scope (the admin CLI; a server names both).
    if (!q.principal.empty())
      sql += " AND principal = ?1";
    if (!q.scope.empty())
      sql += " AND scope = ?2";
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
      // A task is done when its latest event is an end as `completed`
      // (SQLite takes the bare columns from the max(ord) row).
      if (auto rc = prepare(
            tasks_done_,
            task_events_cte
              + "SELECT count(*) FROM (SELECT kind, status, max(ord) FROM ev"
                " WHERE task_id IS NOT NULL GROUP BY task_id)"
                " WHERE kind = 'task_ended' AND status = 'completed'"))
        return fail(rc, what);
      if (auto rc = prepare(json_values_, "SELECT value FROM json_each(?1)"))
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
    if (q.tracking) {
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
        r.principal = use.text(11);
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
        if (!plain_strings(tags, r.tags)) {
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
          // A closed session's runs are packed in its row (schema 4); an
          // open one's are paired from its events, unless it keeps runs
          // (pauses, corrections) that no event written since left behind.
          // Handed on packed, as read (the journal layer decodes them).
          bool kept = false;
          if (!use.is_null(9)) {
            auto packed = use.blob(9);
            auto at = packed_epoch(packed);
            if (is_digest(packed) ? digest_reads(packed)
                                  : (!at || *at == use.int64(10))
                                      && runs_unpack(packed)) {
              out.runs.add(packed);
              kept = true;
            }
          }
          if (!kept) {
            std::vector<run_event> evs;
            std::string bad_kind;
            if (auto erc = read_run_events(run_events_, sid, evs, bad_kind);
                erc != SQLITE_DONE) {
              if (!bad_kind.empty())
                return error{error_kind::io,
                             "journal " + path_ + ": session "
                               + r.session_id.substr(0, 8)
                               + "... has an event of unknown kind '"
                               + bad_kind + "'"};
              return fail(erc, what);
            }
            out.runs.add(pack_runs(pair_runs(evs)));
          }
        }
        out.rows.push_back(std::move(r));
      }
      if (!out.more && rc != SQLITE_DONE)
        return fail(rc, what);
    }
    if (q.focus)
      if (auto err = list_focus(q, limit, out))
        return std::move(*err);
    if (auto err = run(commit_, what))
      return std::move(*err);
    return out;
  });
}

} // namespace ttm::storage::detail
