#include "storage/sqlite_runs.hpp"

#include "storage/runs.hpp"

namespace ttm::storage::detail {

namespace {

/// The task events of session ?1 as (ord, kind, task_id, wall_ns, mono_ns,
/// boot_id, status), a bulk edit's starts and ends among them; `standing`
/// filters out undone events (schema 7 on).
std::string events_cte(bool standing) {
  const std::string own = standing ? " AND undone_by IS NULL" : "";
  const std::string edit = standing ? " AND e.undone_by IS NULL" : "";
  return "WITH ev (ord, kind, task_id, wall_ns, mono_ns, boot_id, status)"
         " AS (SELECT seq * 1000, kind, task_id, wall_ns, mono_ns, boot_id,"
         " CASE WHEN kind = 'task_ended' THEN json_extract(payload,"
         " '$.status') END FROM events WHERE sid = ?1 AND kind NOT IN"
         " ('session_started', 'tasks_edited', 'change_undone')"
         + own
         + " UNION ALL SELECT e.seq * 1000 + o.key + 1,"
           " CASE json_extract(o.value, '$.op') WHEN 'start' THEN"
           " 'task_started' ELSE 'task_ended' END,"
           " json_extract(o.value, '$.task_id'), e.wall_ns, e.mono_ns,"
           " e.boot_id, CASE json_extract(o.value, '$.op') WHEN 'end' THEN"
           " COALESCE(json_extract(o.value, '$.status'), 'completed') END"
           " FROM events e, json_each(e.payload, '$.ops') o WHERE e.sid = ?1"
           " AND e.kind = 'tasks_edited'"
         + edit + " AND json_extract(o.value, '$.op') IN ('start', 'end')) ";
}

const std::string run_events_select
  = "SELECT kind, task_id, wall_ns, mono_ns, boot_id, status FROM ev"
    " ORDER BY ord";

/// Schema 4's migration runs before step 7 adds `undone_by` (and nothing
/// can be undone before it).
const std::string run_events_sql_v4 = events_cte(false) + run_events_select;

int prepare(sqlite3* db, stmt_ptr& out, const char* sql) {
  sqlite3_stmt* s = nullptr;
  auto rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
  out.reset(s);
  return rc;
}

} // namespace

const std::string task_events_cte = events_cte(true);

const std::string run_events_sql = task_events_cte + run_events_select;

const std::string store_runs_sql
  = "UPDATE sessions SET runs = ?2, digest = ?3 WHERE sid = ?1";

// Schema 4's migration runs before step 11 adds `digest` (those rows
// have none: statistics read their runs).
const std::string store_runs_sql_v4
  = "UPDATE sessions SET runs = ?2 WHERE sid = ?1";

const std::string read_runs_sql
  = "SELECT runs, epoch FROM sessions WHERE sid = ?1";

int read_run_events(const stmt_ptr& events, std::int64_t sid,
                    std::vector<run_event>& out, std::string& bad_kind) {
  stmt_use e{events};
  e.bind(1, sid);
  int rc;
  while ((rc = e.step()) == SQLITE_ROW) {
    run_event ev;
    auto kind = event_kind_from(e.text(0));
    if (!kind) {
      bad_kind = e.text(0);
      return SQLITE_CORRUPT;
    }
    ev.kind = *kind;
    ev.task_id = e.text(1);
    ev.at = {e.int64(2), e.int64(3), e.text(4)};
    ev.status = e.text(5);
    out.push_back(std::move(ev));
  }
  return rc;
}

int write_runs(const stmt_ptr& update, std::int64_t sid,
               const std::vector<stored_run>& runs,
               std::optional<std::int64_t> epoch) {
  auto packed = pack_runs(runs, epoch);
  // The digest with its packing, in the same statement: they cannot
  // disagree (NULL unless the session is closed).
  auto digest = digest_of_packed(packed);
  stmt_use u{update};
  u.bind(1, sid).bind_blob(2, packed);
  if (sqlite3_bind_parameter_count(update.get()) >= 3) { // not _v4's
    if (digest)
      u.bind_blob(3, *digest);
    else
      u.bind(3, std::optional<std::int64_t>{});
  }
  return u.step();
}

int store_runs(const stmt_ptr& events, const stmt_ptr& update,
               std::int64_t sid, std::string& bad_kind) {
  std::vector<run_event> evs;
  if (auto rc = read_run_events(events, sid, evs, bad_kind);
      rc != SQLITE_DONE)
    return rc;
  return write_runs(update, sid, pair_runs(evs));
}

int store_closing_runs(const stmt_ptr& read, const stmt_ptr& events,
                       const stmt_ptr& update, std::int64_t sid,
                       std::int64_t closed_wall_ns, std::string& bad_kind) {
  std::optional<std::vector<stored_run>> kept;
  {
    stmt_use r{read};
    r.bind(1, sid);
    auto rc = r.step();
    if (rc != SQLITE_ROW)
      return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
    // Kept only if no event came after it but this close (which moved
    // the epoch on by one).
    if (!r.is_null(0) && packed_epoch(r.blob(0)) == r.int64(1) - 1)
      kept = unpack_runs(r.blob(0));
  }
  if (!kept)
    return store_runs(events, update, sid, bad_kind);
  close_runs(*kept, closed_wall_ns);
  return write_runs(update, sid, *kept);
}

int pack_closed_sessions(sqlite3* db, std::string& bad_kind) {
  stmt_ptr closed;
  stmt_ptr events;
  stmt_ptr update;
  if (auto rc = prepare(db, closed, "SELECT sid FROM sessions"
                                " WHERE state <> 'open' AND runs IS NULL");
      rc != SQLITE_OK)
    return rc;
  if (auto rc = prepare(db, events, run_events_sql_v4.c_str());
      rc != SQLITE_OK)
    return rc;
  if (auto rc = prepare(db, update, store_runs_sql_v4.c_str()); rc != SQLITE_OK)
    return rc;
  // The sids first: updating rows while walking them is undefined.
  std::vector<std::int64_t> sids;
  {
    stmt_use c{closed};
    int rc;
    while ((rc = c.step()) == SQLITE_ROW)
      sids.push_back(c.int64(0));
    if (rc != SQLITE_DONE)
      return rc;
  }
  for (auto sid : sids)
    if (auto rc = store_runs(events, update, sid, bad_kind);
        rc != SQLITE_DONE)
      return rc;
  return SQLITE_DONE;
}

int digest_closed_sessions(sqlite3* db) {
  stmt_ptr packed;
  stmt_ptr update;
  if (auto rc = prepare(db, packed, "SELECT sid, runs FROM sessions WHERE"
                                " state <> 'open' AND runs IS NOT NULL"
                                " AND digest IS NULL");
      rc != SQLITE_OK)
    return rc;
  if (auto rc = prepare(db, update,
                        "UPDATE sessions SET digest = ?2 WHERE sid = ?1");
      rc != SQLITE_OK)
    return rc;
  // Read first: updating rows while walking them is undefined.
  std::vector<std::pair<std::int64_t, std::string>> digests;
  {
    stmt_use p{packed};
    int rc;
    while ((rc = p.step()) == SQLITE_ROW)
      if (auto d = digest_of_packed(p.blob(1)))
        digests.emplace_back(p.int64(0), std::move(*d));
    if (rc != SQLITE_DONE)
      return rc;
  }
  for (const auto& [sid, digest] : digests) {
    stmt_use u{update};
    u.bind(1, sid).bind_blob(2, digest);
    if (auto rc = u.step(); rc != SQLITE_DONE)
      return rc;
  }
  return SQLITE_DONE;
}

} // namespace ttm::storage::detail
