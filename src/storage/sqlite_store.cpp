#include "storage/sqlite_store_impl.hpp"

#include "log.hpp"
#include "storage/sqlite_runs.hpp"
#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace ttm::storage::detail {

namespace {

/// The era a session_started payload names, '2025' when it names none.
#define TTM_PAYLOAD_TEXT(field, fallback)                                      \
  "CASE WHEN json_valid(?3) THEN CASE WHEN json_type(?3, '$." field           \
  "') = 'text' THEN json_extract(?3, '$." field "') ELSE " fallback          \
  " END ELSE " fallback " END"

} // namespace

int sqlite_store::prepare_kept() {
  int rc = SQLITE_OK;
  auto prep = [&](stmt_ptr& out, const std::string& sql) {
    if (rc != SQLITE_OK)
      return;
    sqlite3_stmt* s = nullptr;
    rc = sqlite3_prepare_v3(db_.get(), sql.c_str(), -1,
                            SQLITE_PREPARE_PERSISTENT, &s, nullptr);
    out.reset(s);
  };
  const std::string cols = session_columns;
  prep(begin_, "BEGIN IMMEDIATE");
  prep(begin_read_, "BEGIN");
  prep(commit_, "COMMIT");
  // A top-level "milestone_id" string, or NULL (refused by NOT NULL).
  prep(insert_session_,
       "INSERT INTO sessions (session_id, principal, milestone_id, state,"
       " epoch, holder, started_wall_ns, last_wall_ns, scope,"
       " idempotency_key, milestone_name, tags, tasks_total, search)"
       " VALUES (?1, ?2, " TTM_PAYLOAD_TEXT("milestone_id",
                                                             "NULL")
       ", 'open', 1, ?4, ?5, ?5, " TTM_PAYLOAD_TEXT("era", "'2025'")
       ", " TTM_PAYLOAD_TEXT("idempotency_key", "NULL")
       // The list row's summary (schema 3): name, tags, task count, and
       // the lower-cased names text filters search.
       ", " TTM_PAYLOAD_TEXT("milestone_name", "NULL")
       ", CASE WHEN json_valid(?3) AND json_type(?3, '$.tags') = 'array'"
       " THEN json_extract(?3, '$.tags') ELSE '[]' END"
       ", CASE WHEN json_valid(?3) AND json_type(?3, '$.task_ids') = 'array'"
       " THEN json_array_length(?3, '$.task_ids') ELSE 0 END"
       ", lower(COALESCE(" TTM_PAYLOAD_TEXT("milestone_id", "NULL")
       ", '') || char(10) || COALESCE(" TTM_PAYLOAD_TEXT("milestone_name",
                                                       "NULL")
       ", '') || char(10) || CASE WHEN json_valid(?3)"
       " AND json_type(?3, '$.task_ids') = 'array' THEN COALESCE((SELECT"
       " group_concat(value, char(10)) FROM json_each(?3, '$.task_ids')), '')"
       " ELSE '' END))");
  // A task's name joins its session's search text when it first appears.
  prep(note_task_name_,
       "UPDATE sessions SET search = search || char(10)"
       " || lower(json_extract(?2, '$.task_name')) WHERE sid = ?1"
       " AND json_valid(?2) AND json_type(?2, '$.task_name') = 'text'"
       " AND instr(search, lower(json_extract(?2, '$.task_name'))) = 0");
  // A bulk edit's added and removed tasks move the list row's task count;
  // the ids it adds and the names it gives join the search text; a
  // correction that backdates a run before the session's start moves the
  // start (as the domain does).
  prep(note_task_edits_,
       "UPDATE sessions SET started_wall_ns = min(started_wall_ns,"
       " COALESCE((SELECT min(json_extract(o.value, '$.start_ns'))"
       " FROM json_each(?2, '$.ops') o WHERE json_extract(o.value, '$.op')"
       " = 'correct' AND json_type(o.value, '$.start_ns') = 'integer'),"
       " started_wall_ns)),"
       " tasks_total = tasks_total + COALESCE((SELECT"
       " sum(CASE json_extract(o.value, '$.op') WHEN 'add' THEN 1"
       " WHEN 'remove' THEN -1 ELSE 0 END) FROM json_each(?2, '$.ops') o), 0),"
       " search = search || COALESCE((SELECT group_concat(char(10)"
       " || lower(x), '') FROM (SELECT json_extract(o.value, '$.task_id') AS x"
       " FROM json_each(?2, '$.ops') o WHERE json_extract(o.value, '$.op')"
       " = 'add' UNION SELECT json_extract(o.value, '$.task_name')"
       " FROM json_each(?2, '$.ops') o"
       " WHERE json_type(o.value, '$.task_name') = 'text')), '')"
       " WHERE sid = ?1 AND json_valid(?2)");
  prep(count_open_, "SELECT count(*) FROM sessions WHERE state = 'open'");
  // The directory's open sessions and a principal's among them: one pass
  // over the open ones (at most the directory's cap).
  prep(count_open_of_, "SELECT count(*), COALESCE(sum(principal = ?1), 0)"
                       " FROM sessions WHERE state = 'open'");
  // The session a keyed start's key names already, as a claim by the key
  // finds it (claim_by_key_): the same owner, scope and key, not expired,
  // started since ?4.
  prep(key_holder_,
       "SELECT session_id FROM sessions WHERE principal = ?1"
       " AND scope = " TTM_PAYLOAD_TEXT("era", "'2025'")
       " AND idempotency_key = " TTM_PAYLOAD_TEXT("idempotency_key", "NULL")
       " AND started_wall_ns >= ?4 AND state <> 'expired' LIMIT 1");
  prep(session_owner_,
       "SELECT state, epoch, sid, started_wall_ns, last_wall_ns"
       " FROM sessions WHERE session_id = ?1");
  prep(insert_event_,
       "INSERT INTO events (sid, kind, task_id, wall_ns, mono_ns,"
       " boot_id, epoch, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  // Every write takes the session over and moves its epoch on.
  prep(advance_session_,
       "UPDATE sessions SET epoch = epoch + 1, holder = ?3,"
       " last_wall_ns = max(last_wall_ns, ?2) WHERE sid = ?1");
  prep(close_session_,
       "UPDATE sessions SET state = ?2, closed_wall_ns = ?3,"
       " last_wall_ns = max(last_wall_ns, ?3), epoch = epoch + 1,"
       " holder = ?4 WHERE sid = ?1");
  prep(run_events_, run_events_sql);
  prep(store_runs_, store_runs_sql);
  prep(read_runs_, read_runs_sql);
  prep(session_events_,
       "SELECT kind, task_id, wall_ns, mono_ns, boot_id, payload,"
       " undone_by IS NOT NULL FROM events WHERE sid = ?1 ORDER BY seq");
  // time_undo: the session's latest event that stands and can be undone.
  prep(undo_target_,
       "SELECT seq, kind, payload FROM events WHERE sid = ?1 AND kind IN"
       " ('task_started', 'task_ended', 'tasks_edited', 'session_ended')"
       " AND undone_by IS NULL ORDER BY seq DESC LIMIT 1");
  prep(mark_undone_, "UPDATE events SET undone_by = ?2 WHERE seq = ?1");
  // An undone end: open again, its packed runs gone with it (schema 4),
  // and their digest (11).
  prep(reopen_session_,
       "UPDATE sessions SET state = 'open', closed_wall_ns = NULL,"
       " runs = NULL, digest = NULL, epoch = epoch + 1, holder = ?3,"
       " last_wall_ns = max(last_wall_ns, ?2) WHERE sid = ?1");
  // An undone bulk edit takes its added and removed tasks back out of the
  // list row's count (the search text keeps their names: a superset), and
  // the start is the earliest of the session's own and its standing
  // corrections' (the undone event is marked already).
  prep(unnote_task_edits_,
       "UPDATE sessions SET started_wall_ns = min((SELECT min(e.wall_ns)"
       " FROM events e WHERE e.sid = ?1 AND e.kind = 'session_started'),"
       " COALESCE((SELECT min(json_extract(o.value, '$.start_ns'))"
       " FROM events e, json_each(e.payload, '$.ops') o WHERE e.sid = ?1"
       " AND e.kind = 'tasks_edited' AND e.undone_by IS NULL"
       " AND json_extract(o.value, '$.op') = 'correct'"
       " AND json_type(o.value, '$.start_ns') = 'integer'),"
       " 9223372036854775807)),"
       " tasks_total = tasks_total - COALESCE((SELECT"
       " sum(CASE json_extract(o.value, '$.op') WHEN 'add' THEN 1"
       " WHEN 'remove' THEN -1 ELSE 0 END) FROM json_each(?2, '$.ops') o), 0)"
       " WHERE sid = ?1 AND json_valid(?2)");
  prep(claim_select_,
       "SELECT sid, scope, " + cols + " FROM sessions WHERE session_id = ?1");
  prep(claim_by_key_, "SELECT sid, scope, " + cols
                        + " FROM sessions WHERE principal = ?1"
                          " AND scope = ?2 AND idempotency_key = ?3"
                          " AND started_wall_ns >= ?4 AND state <> 'expired'"
                          " ORDER BY started_wall_ns DESC LIMIT 1");
  prep(touch_held_, "UPDATE sessions SET last_wall_ns = ?2"
                    " WHERE sid = ?1 AND epoch = ?3 AND last_wall_ns < ?2");
  prep(release_, "UPDATE sessions SET holder = 0 WHERE session_id = ?1"
                 " AND epoch = ?2 AND holder = ?3");
  return rc;
}

#undef TTM_PAYLOAD_TEXT

int sqlite_store::prepare(stmt_ptr& out, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  auto rc = sqlite3_prepare_v2(db_.get(), sql.c_str(),
                               static_cast<int>(sql.size()), &s, nullptr);
  out.reset(s);
  return rc;
}

/// Steps a statement that returns no rows. The error comes from before
/// the reset: a reset records SQLite's error state anew.
std::optional<error> sqlite_store::run(const stmt_ptr& s,
                                       const std::string& what) {
  stmt_use use{s};
  if (auto rc = use.step(); rc != SQLITE_DONE)
    return fail(rc, what);
  return std::nullopt;
}

/// A COMMIT whose WAL sync (fsync/fdatasync) failed has written all its
/// frames, the commit frame included: SQLite answers the error and rolls
/// back, and the next write of any server goes over those frames, but until
/// then a crash (kill -9, power) leaves a WAL whose recovery brings the
/// refused change back, after its client was told nothing was changed. So
/// a failed COMMIT is followed at once by a small write of its own (a count
/// of failed commits in `meta`; SQLite skips a write that changes nothing),
/// which goes over the first of those frames and breaks their checksum
/// chain. (The fault sweep,
/// tests/unit/storage_fault_sweep_test.cpp, found it.)
std::optional<error> sqlite_store::commit_write(const std::string& what) {
  int rc = SQLITE_OK;
  std::optional<error> err;
  {
    stmt_use use{commit_}; // reset before what follows: nothing left running
    if ((rc = use.step()) == SQLITE_DONE)
      return std::nullopt;
    err = fail(rc, what);
  }
  // A full disk failed a frame's write: the commit frame, written last,
  // never was (and the write below would fail the same way, every call).
  // (Not a sync that failed with ENOSPC: that is SQLITE_IOERR_FSYNC.)
  if ((rc & 0xff) == SQLITE_FULL)
    return err;
  auto* d = db_.get();
  if (sqlite3_get_autocommit(d) == 0)
    exec(d, "ROLLBACK");
  if (auto scrub = exec(d, "BEGIN IMMEDIATE; INSERT INTO meta (key, value)"
                           " VALUES ('failed_commits', '1') ON CONFLICT (key)"
                           " DO UPDATE SET value = CAST(value AS INTEGER) + 1;"
                           " COMMIT");
      scrub != SQLITE_OK) {
    auto why = std::string{sqlite3_errmsg(d)};
    if (sqlite3_get_autocommit(d) == 0)
      exec(d, "ROLLBACK");
    TTM_LOG(warning, "storage",
            "journal " + path_ + ": a change was refused (" + err->message
              + "), and the write that erases it from the WAL failed too ("
              + why
              + "): if this server dies before its next write, the refused "
                "change may reappear when the journal is opened again");
  }
  return err;
}

bool sqlite_store::read_session(const stmt_use& use, int at, stored_session& s,
                  std::string& bad_state) {
  s.session_id = use.text(at);
  s.principal = use.text(at + 1);
  s.milestone_id = use.text(at + 2);
  auto state = session_state_from(use.text(at + 3));
  if (!state) {
    bad_state = use.text(at + 3);
    return false;
  }
  s.state = *state;
  s.epoch = use.int64(at + 4);
  s.holder = use.int64(at + 5);
  s.started_wall_ns = use.int64(at + 6);
  if (!use.is_null(at + 7))
    s.closed_wall_ns = use.int64(at + 7);
  s.last_wall_ns = use.int64(at + 8);
  return true;
}


std::optional<error>
sqlite_store::read_sessions(stmt_use& use, std::vector<stored_session>& out,
                            const std::string& what) {
  int rc;
  while ((rc = use.step()) == SQLITE_ROW) {
    stored_session s;
    std::string bad;
    if (!read_session(use, 0, s, bad))
      // An id's first 8 characters, as every log line names one.
      return error{error_kind::io, "journal " + path_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has unknown state '" + bad + "'"};
    out.push_back(std::move(s));
  }
  if (rc != SQLITE_DONE)
    return fail(rc, what);
  return std::nullopt;
}

/// The events of `s`, oldest first, each with the session's principal.
/// `known_sid`: its row, when the caller read it already.
std::optional<error>
sqlite_store::read_events_of(stored_session& s, const std::string& what,
                             std::optional<std::int64_t> known_sid) {
  std::int64_t sid = known_sid.value_or(0);
  if (!known_sid) {
    stmt_use use{session_owner_};
    use.bind(1, s.session_id);
    auto rc = use.step();
    if (rc == SQLITE_DONE)
      return std::nullopt;
    if (rc != SQLITE_ROW)
      return fail(rc, what);
    sid = use.int64(2);
  }
  stmt_use use{session_events_};
  use.bind(1, sid);
  int rc;
  while ((rc = use.step()) == SQLITE_ROW) {
    event ev;
    ev.session_id = s.session_id;
    ev.principal = s.principal;
    auto kind = event_kind_from(use.text(0));
    if (!kind)
      return error{error_kind::io, "journal " + path_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has an event of unknown kind '"
                                     + use.text(0) + "'"};
    ev.kind = *kind;
    ev.task_id = use.text(1);
    ev.at.wall_ns = use.int64(2);
    ev.at.mono_ns = use.int64(3);
    ev.at.boot_id = use.text(4);
    ev.payload = use.text(5);
    ev.undone = use.int64(6) != 0;
    ev.epoch = s.epoch;
    s.events.push_back(std::move(ev));
  }
  if (rc != SQLITE_DONE)
    return fail(rc, what);
  return std::nullopt;
}

// -- append -------------------------------------------------------------------

result<ok> sqlite_store::append(const std::vector<event>& batch) {
  static const std::string what = "cannot append to the journal";
  if (batch.empty())
    return ok{};
  return guarded(what, path_, [&]() -> result<ok> {
    return writing<ok>([&]() -> result<ok> {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what))
        return std::move(*err);
      for (const auto& ev : batch)
        if (auto err = append_one(ev))
          return std::move(*err);
      stop_in_write_if_asked();
      if (auto err = commit_write(what))
        return std::move(*err);
      return ok{};
    });
  });
}

result<ok> sqlite_store::append_unsynced(const std::vector<event>& batch) {
  if (!wal_sync_)
    return append(batch);
  skip_sync_ = true;
  in_append_ = true;
  auto r = append(batch);
  skip_sync_ = false;
  in_append_ = false;
  return r;
}

/// LIMIT when the data directory holds its maximum of open sessions, or
/// `principal` its share of them: a new one (a start, an undone end) would
/// pass it. Counted in the write transaction, over all servers.
std::optional<error> sqlite_store::room_for_open(const std::string& principal,
                                                 const std::string& what) {
  if (max_open_ == 0 && max_per_principal_ == 0)
    return std::nullopt;
  stmt_use count{count_open_of_};
  count.bind(1, principal);
  if (auto rc = count.step(); rc != SQLITE_ROW)
    return fail(rc, what);
  auto all = static_cast<std::size_t>(count.int64(0));
  auto own = static_cast<std::size_t>(count.int64(1));
  if (max_open_ > 0 && all >= max_open_)
    return error{error_kind::limit,
                 "journal " + path_ + ": " + std::to_string(max_open_)
                   + " tracking sessions are open in the data directory"
                     " (--max-tracking-sessions, over all servers on it);"
                     " the batch was not written",
                 "max_tracking_sessions", max_open_};
  if (max_per_principal_ > 0 && own >= max_per_principal_)
    return error{error_kind::limit,
                 "journal " + path_ + ": "
                   + std::to_string(max_per_principal_)
                   + " tracking sessions of principal " + principal
                   + " are open in the data directory"
                     " (--max-tracking-sessions-per-principal, over all"
                     " servers on it); the batch was not written",
                 "max_tracking_sessions_per_principal", max_per_principal_};
  return std::nullopt;
}

/// Fenced when a session_started's idempotency key already names a session
/// of its owner: two servers (or two MCP sessions of one) that looked the
/// key up at once, before either wrote. The lookup runs in the write
/// transaction, so one of them wins; the other reloads by the key and
/// answers with the winner's session (already_started).
std::optional<error> sqlite_store::key_free(const event& ev,
                                            const std::string& what) {
  if (ev.payload.find("\"idempotency_key\"") == std::string::npos)
    return std::nullopt;
  // Older sessions have passed the age limit: a claim by the key does not
  // find them, and the key starts a new session.
  auto since = max_age_ns_ > 0 ? ev.at.wall_ns - max_age_ns_ : INT64_MIN;
  stmt_use use{key_holder_};
  use.bind(1, ev.principal).bind(3, ev.payload).bind(4, since);
  auto rc = use.step();
  if (rc == SQLITE_DONE)
    return std::nullopt;
  if (rc != SQLITE_ROW)
    return fail(rc, what);
  return error{error_kind::fenced,
               "journal " + path_ + ": session " + ev.session_id
                 + " has the idempotency key of session " + use.text(0)
                 + ", started since the key was looked up; the batch was"
                   " not written"};
}

/// Writes one event of a batch inside the open transaction.
std::optional<error> sqlite_store::append_one(const event& ev) {
  static const std::string what = "cannot append to the journal";
  std::int64_t sid = 0; // the session's row: what its events refer to
  std::int64_t epoch = ev.epoch;
  if (ev.kind == event_kind::session_started) {
    if (auto err = room_for_open(ev.principal, what))
      return err;
    if (auto err = key_free(ev, what))
      return err;
    stmt_use use{insert_session_};
    use.bind(1, ev.session_id)
      .bind(2, ev.principal)
      .bind(3, ev.payload)
      .bind(4, instance_)
      .bind(5, ev.at.wall_ns);
    if (auto rc = use.step(); rc != SQLITE_DONE) {
      if (rc == SQLITE_CONSTRAINT_UNIQUE)
        return rejected("session " + ev.session_id
                        + " is already in the journal");
      if (is_constraint(rc))
        return rejected("the session_started event of " + ev.session_id
                        + " has no string \"milestone_id\" in a JSON"
                          " payload");
      return fail(rc, what);
    }
    sid = sqlite3_last_insert_rowid(db_.get());
    epoch = 1;
  } else {
    stmt_use use{session_owner_};
    use.bind(1, ev.session_id);
    auto rc = use.step();
    if (rc == SQLITE_DONE)
      return rejected("session " + ev.session_id
                      + " is not open in the journal");
    if (rc != SQLITE_ROW)
      return fail(rc, what);
    if (auto current = use.int64(1); current != ev.epoch)
      return error{error_kind::fenced,
                   "journal " + path_ + ": session " + ev.session_id
                     + " was changed since (epoch "
                     + std::to_string(current) + ", the writer had "
                     + std::to_string(ev.epoch)
                     + "); the batch was not written"};
    // An undo may reopen an ended session (time_undo of its end).
    if (use.text(0) != "open"
        && !(ev.kind == event_kind::change_undone && use.text(0) == "ended"))
      return rejected("session " + ev.session_id
                      + " is not open in the journal");
    sid = use.int64(2);
    // An expiry for a limit that a call through another server (which
    // wrote nothing) has pushed back is not due: that server decides.
    if (ev.if_due && (max_age_ns_ > 0 || max_idle_ns_ > 0)) {
      auto started = use.int64(3);
      auto last = use.int64(4);
      bool due = (max_age_ns_ > 0 && ev.at.wall_ns - started > max_age_ns_)
                 || (max_idle_ns_ > 0 && ev.at.wall_ns - last > max_idle_ns_);
      if (!due)
        return error{error_kind::fenced,
                     "journal " + path_ + ": session " + ev.session_id
                       + " is not due to expire by the journal's record (a"
                         " call since); the batch was not written"};
    }
  }
  {
    stmt_use use{insert_event_};
    use.bind(1, sid)
      .bind(2, to_string(ev.kind))
      .bind_text_or_null(3, ev.task_id)
      .bind(4, ev.at.wall_ns)
      .bind(5, ev.at.mono_ns)
      .bind(6, ev.at.boot_id)
      .bind(7, epoch)
      .bind(8, ev.payload);
    if (auto rc = use.step(); rc != SQLITE_DONE) {
      if (is_constraint(rc))
        return rejected("the payload of a " + std::string{to_string(ev.kind)}
                        + " event of session " + ev.session_id
                        + " is not JSON");
      return fail(rc, what);
    }
  }
  if (ev.kind == event_kind::change_undone) {
    if (auto err = undo_latest(ev, sid))
      return err;
  } else if (ev.kind == event_kind::session_ended
      || ev.kind == event_kind::session_expired) {
    auto state = ev.kind == event_kind::session_ended ? session_state::ended
                                                      : session_state::expired;
    stmt_use use{close_session_};
    use.bind(1, sid)
      .bind(2, to_string(state))
      .bind(3, ev.at.wall_ns)
      .bind(4, instance_);
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
    // Statistics read a closed session's runs from its row (schema 4):
    // as the tracking model counted them, else paired from the events.
    std::string bad_kind;
    if (auto rc = ev.runs ? write_runs(store_runs_, sid, *ev.runs)
                          : store_closing_runs(read_runs_, run_events_,
                                               store_runs_, sid,
                                               ev.at.wall_ns, bad_kind);
        rc != SQLITE_DONE) {
      if (!bad_kind.empty())
        return rejected("session " + ev.session_id
                        + " has an event of unknown kind '" + bad_kind + "'");
      return fail(rc, what);
    }
  } else if (ev.kind != event_kind::session_started) {
    stmt_use use{advance_session_};
    use.bind(1, sid).bind(2, ev.at.wall_ns).bind(3, instance_);
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
  }
  if (ev.runs && ev.kind != event_kind::session_ended
      && ev.kind != event_kind::session_expired) {
    // An open session's runs with its pauses and corrections, at the
    // epoch this event moved it to.
    if (auto rc = write_runs(store_runs_, sid, *ev.runs, epoch + 1);
        rc != SQLITE_DONE)
      return fail(rc, what);
  }
  if (ev.kind == event_kind::tasks_edited) {
    stmt_use use{note_task_edits_};
    use.bind(1, sid).bind(2, ev.payload);
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
  }
  if (ev.kind == event_kind::task_started) {
    stmt_use use{note_task_name_};
    use.bind(1, sid).bind(2, ev.payload);
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
  }
  return std::nullopt;
}

result<std::size_t> sqlite_store::open_sessions() {
  static const std::string what = "cannot count open sessions in";
  return guarded(what, path_, [&]() -> result<std::size_t> {
    stmt_use count{count_open_};
    if (auto rc = count.step(); rc != SQLITE_ROW)
      return fail(rc, what);
    return static_cast<std::size_t>(count.int64(0));
  });
}

result<std::vector<stored_session>>
sqlite_store::history(const history_query& q) {
  static const std::string what = "cannot read the history from";
  using res = result<std::vector<stored_session>>;
  return guarded(what, path_, [&]() -> res {
    rollback_guard guard{db_.get()};
    // One read transaction: sessions and events from one snapshot.
    if (auto err = run(begin_read_, what))
      return std::move(*err);
    stmt_ptr sessions;
    if (auto rc = prepare(sessions,
                          std::string{"SELECT "} + session_columns
                            + " FROM sessions"
                              " WHERE (?1 IS NULL OR principal = ?1)"
                              " AND (?2 IS NULL OR started_wall_ns >= ?2)"
                              " AND (?3 IS NULL OR started_wall_ns < ?3)"
                              " ORDER BY started_wall_ns DESC, session_id DESC"
                              " LIMIT ?4"))
      return fail(rc, what);
    std::vector<stored_session> out;
    {
      stmt_use use{sessions};
      use.bind(1, q.principal)
        .bind(2, q.since_wall_ns)
        .bind(3, q.until_wall_ns)
        .bind(4, static_cast<std::int64_t>(
                   std::min<std::size_t>(q.limit, INT64_MAX)));
      if (auto err = read_sessions(use, out, what))
        return std::move(*err);
    }
    if (q.with_events)
      for (auto& s : out)
        if (auto err = read_events_of(s, what))
          return std::move(*err);
    if (auto err = run(commit_, what))
      return std::move(*err);
    return out;
  });
}

result<std::optional<stored_session>>
sqlite_store::session(const std::string& id) {
  static const std::string what = "cannot read a session from";
  using res = result<std::optional<stored_session>>;
  return guarded(what, path_, [&]() -> res {
    rollback_guard guard{db_.get()};
    if (auto err = run(begin_read_, what))
      return std::move(*err);
    stmt_ptr one;
    if (auto rc = prepare(one, std::string{"SELECT "} + session_columns
                                 + " FROM sessions WHERE session_id = ?1"))
      return fail(rc, what);
    std::vector<stored_session> out;
    {
      stmt_use use{one};
      use.bind(1, id);
      if (auto err = read_sessions(use, out, what))
        return std::move(*err);
    }
    if (!out.empty())
      if (auto err = read_events_of(out.front(), what))
        return std::move(*err);
    if (auto err = run(commit_, what))
      return std::move(*err);
    if (out.empty())
      return std::optional<stored_session>{};
    return std::optional<stored_session>{std::move(out.front())};
  });
}

} // namespace ttm::storage::detail
