// store::append for PostgreSQL: one transaction per batch; each event
// locks its session's row (FOR UPDATE), checks the epoch, writes the event
// and moves the row on, as sqlite_store.cpp does under SQLite's write lock.
// A commit notifies the other servers (LISTEN/NOTIFY) of each session it
// moved.

#include "storage/pg_store_impl.hpp"

#include "storage/runs.hpp"

#include <algorithm>
#include <climits>
#include <map>

namespace ttm::storage::detail {

namespace {

/// The events the group commit writes in one round trip: a task's start or
/// end, whose checks (the session open, at the event's epoch) fit in the
/// statement that writes it. Anything else takes the statement-by-statement
/// path.
bool pipelinable(const std::vector<event>& batch) {
  for (const auto& ev : batch)
    if ((ev.kind != event_kind::task_started
         && ev.kind != event_kind::task_ended)
        || ev.if_due)
      return false;
  return true;
}

/// One task event as one statement: moves the session on (epoch, holder,
/// activity, packed runs, the task's name in the search text) only if it
/// is open at the event's epoch, writes the event, and divides by zero
/// when it wrote nothing, aborting the pipeline's transaction (the slow
/// path then finds out why: fenced or rejected).
const char* const task_event_sql
  = "WITH s AS (UPDATE sessions SET epoch = epoch + 1, holder = $3,"
    " last_wall_ns = greatest(last_wall_ns, $4),"
    " runs = COALESCE($10::bytea, runs),"
    " search = CASE WHEN $11::text IS NOT NULL AND strpos(search, $11) = 0"
    " THEN search || E'\\n' || $11 ELSE search END"
    " WHERE session_id = $1 AND epoch = $2 AND state = 'open'"
    " RETURNING sid),"
    " e AS (INSERT INTO events (sid, kind, task_id, wall_ns, mono_ns,"
    " boot_id, epoch, payload) SELECT sid, $5::text, $6::text, $4::bigint, $7::bigint, $8::text, $2::bigint, $9::text"
    " FROM s RETURNING seq)"
    " SELECT 1 / (SELECT count(*)::int FROM e)";

constexpr const char* division_by_zero = "22012";

} // namespace

result<ok> pg_store::append(const std::vector<event>& batch) {
  static const std::string what = "cannot append to the journal";
  if (batch.empty())
    return ok{};
  if (pipelinable(batch)) {
    if (auto err = connect())
      return std::move(*err);
    std::vector<std::pair<std::string, pg_params>> statements;
    std::map<std::string, std::int64_t> moved;
    bool json = true;
    for (const auto& ev : batch) {
      json = json && is_json(ev.payload);
      pg_params p;
      p.add(ev.session_id)
        .add(ev.epoch)
        .add(instance_)
        .add(ev.at.wall_ns)
        .add(to_string(ev.kind))
        .add(ev.task_id.empty() ? std::optional<std::string>{} : ev.task_id)
        .add(ev.at.mono_ns)
        .add(ev.at.boot_id)
        .add(ev.payload);
      if (ev.runs)
        p.add_bytes(pack_runs(*ev.runs, ev.epoch + 1));
      else
        p.add_null();
      p.add(ev.kind == event_kind::task_started ? task_name_of(ev.payload)
                                                : std::nullopt);
      statements.emplace_back(task_event_sql, std::move(p));
      moved[ev.session_id] = ev.epoch + 1;
    }
    std::vector<std::string> notes;
    for (const auto& [id, epoch] : moved)
      notes.push_back(id + " " + std::to_string(epoch));
    statements.emplace_back(
      "SELECT pg_notify($1, n) FROM unnest($2::text[]) n",
      pg_params{}.add(pg_channel).add_text_array(notes));
    if (json) {
      // No BEGIN: the statements up to the sync are one implicit
      // transaction, committed at the sync or rolled back whole.
      auto r = conn_.pipeline(statements, what);
      conn_.rollback_if_open();
      if (std::holds_alternative<std::vector<pg_res>>(r)) {
        ++pipelined_;
        return ok{};
      }
      if (conn_.last_state() != division_by_zero)
        return std::get<error>(r);
    }
  }
  return in_transaction<ok>(
    what,
    [&]() -> result<ok> {
      std::map<std::string, std::int64_t> moved; // id -> epoch after
      for (const auto& ev : batch) {
        if (auto err = append_one(ev, what))
          return std::move(*err);
        auto& e = moved[ev.session_id];
        e = ev.kind == event_kind::session_started ? 1 : ev.epoch + 1;
      }
      // Delivered at commit, to every listening server (ours too: told
      // apart by the sender's backend pid).
      std::vector<std::string> notes;
      for (const auto& [id, epoch] : moved)
        notes.push_back(id + " " + std::to_string(epoch));
      if (auto err = conn_.query(
            "SELECT pg_notify($1, n) FROM unnest($2::text[]) n",
            pg_params{}.add(pg_channel).add_text_array(notes), what))
        return std::move(*err);
      return ok{};
    },
    false);
}

std::optional<error> pg_store::room_for_open(const std::string& principal,
                                             const std::string& what) {
  if (max_open_ == 0 && max_per_principal_ == 0)
    return std::nullopt;
  // Serializes the starts of all servers while one counts: two cannot
  // both take the last place (released at commit).
  pg_rows rows;
  if (auto err = conn_.query(
        "SELECT pg_advisory_xact_lock($2), count(*),"
        " count(*) FILTER (WHERE principal = $1) FROM sessions"
        " WHERE state = 'open'",
        pg_params{}.add(principal).add(pg_open_count_lock), what, &rows))
    return err;
  auto row = rows[0];
  auto all = static_cast<std::size_t>(row.int64(1));
  auto own = static_cast<std::size_t>(row.int64(2));
  if (max_open_ > 0 && all >= max_open_)
    return error{error_kind::limit,
                 "journal " + where_ + ": " + std::to_string(max_open_)
                   + " tracking sessions are open in the journal"
                     " (--max-tracking-sessions, over all servers on it);"
                     " the batch was not written",
                 "max_tracking_sessions", max_open_};
  if (max_per_principal_ > 0 && own >= max_per_principal_)
    return error{error_kind::limit,
                 "journal " + where_ + ": "
                   + std::to_string(max_per_principal_)
                   + " tracking sessions of principal " + principal
                   + " are open in the journal"
                     " (--max-tracking-sessions-per-principal, over all"
                     " servers on it); the batch was not written",
                 "max_tracking_sessions_per_principal", max_per_principal_};
  return std::nullopt;
}

result<std::vector<stored_event_row>>
pg_store::event_rows(std::int64_t sid, const std::string& what) {
  pg_rows rows;
  if (auto err = conn_.query("SELECT seq, kind, task_id, wall_ns, mono_ns,"
                             " boot_id, payload, undone_by IS NOT NULL FROM"
                             " events WHERE sid = $1 ORDER BY seq",
                             pg_params{}.add(sid), what, &rows))
    return std::move(*err);
  std::vector<stored_event_row> out;
  for (int i = 0; i < rows.size(); ++i) {
    auto row = rows[i];
    stored_event_row e;
    e.seq = row.int64(0);
    e.kind = row.text(1);
    e.task_id = row.null(2) ? "" : row.text(2);
    e.at = {row.int64(3), row.int64(4), row.text(5)};
    e.payload = row.text(6);
    e.undone = row.boolean(7);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<error> pg_store::store_closing_runs(const event& ev,
                                                  std::int64_t sid,
                                                  const std::string& what) {
  std::vector<stored_run> runs;
  if (ev.runs) {
    runs = *ev.runs;
  } else {
    // Kept only if no event came after it but this close (which moved the
    // epoch on by one).
    pg_rows kept;
    if (auto err = conn_.query("SELECT runs, epoch FROM sessions WHERE"
                               " sid = $1",
                               pg_params{}.add(sid), what, &kept))
      return err;
    std::optional<std::vector<stored_run>> got;
    auto row = kept[0];
    if (!row.null(0)) {
      auto packed = row.bytes(0);
      if (packed_epoch(packed) == row.int64(1) - 1)
        got = unpack_runs(packed);
    }
    if (got) {
      close_runs(*got, ev.at.wall_ns);
      runs = std::move(*got);
    } else {
      auto rows = event_rows(sid, what);
      if (auto* err = std::get_if<error>(&rows))
        return std::move(*err);
      std::vector<run_event> evs;
      std::string bad_kind;
      if (!run_events_of(std::get<std::vector<stored_event_row>>(rows), evs,
                         bad_kind))
        return rejected("session " + ev.session_id
                        + " has an event of unknown kind '" + bad_kind + "'");
      runs = pair_runs(evs);
    }
  }
  // The digest with its packing, in the same statement: they cannot
  // disagree.
  auto packed = pack_runs(runs);
  pg_params p;
  p.add(sid).add_bytes(packed);
  if (auto digest = digest_of_packed(packed))
    p.add_bytes(*digest);
  else
    p.add_null();
  return conn_.query("UPDATE sessions SET runs = $2, digest = $3::bytea"
                     " WHERE sid = $1",
                     p, what);
}

std::optional<error> pg_store::append_one(const event& ev,
                                          const std::string& what) {
  if (!is_json(ev.payload))
    return rejected("the payload of a " + std::string{to_string(ev.kind)}
                    + " event of session " + ev.session_id + " is not JSON");
  std::int64_t sid = 0;
  std::int64_t epoch = ev.epoch;
  auto query = [&](const std::string& sql, const pg_params& p,
                   pg_rows* rows = nullptr) {
    return conn_.query(sql, p, what, rows);
  };
  if (ev.kind == event_kind::session_started) {
    auto sum = summarize_start(ev.payload);
    if (!sum.milestone_id)
      return rejected("the session_started event of " + ev.session_id
                      + " has no string \"milestone_id\" in a JSON payload");
    if (auto err = room_for_open(ev.principal, what))
      return err;
    std::optional<std::string> slot;
    if (sum.idempotency_key) {
      // The key names a session a claim by it would find: another writer
      // started it since the lookup. An older one (past the age limit, or
      // expired) lets go of the key's slot for this one.
      auto since = max_age_ns_ > 0 ? ev.at.wall_ns - max_age_ns_ : INT64_MIN;
      pg_rows held;
      if (auto err = query(
            "SELECT session_id, started_wall_ns >= $4 AND state <> 'expired'"
            " FROM sessions WHERE principal = $1 AND scope = $2"
            " AND key_slot = $3 FOR UPDATE",
            pg_params{}
              .add(ev.principal)
              .add(sum.scope)
              .add(*sum.idempotency_key)
              .add(since),
            &held))
        return err;
      if (!held.empty()) {
        auto row = held[0];
        if (row.boolean(1))
          return error{error_kind::fenced,
                       "journal " + where_ + ": session " + ev.session_id
                         + " has the idempotency key of session "
                         + row.text(0)
                         + ", started since the key was looked up; the batch"
                           " was not written"};
        if (auto err = query("UPDATE sessions SET key_slot = NULL"
                             " WHERE session_id = $1",
                             pg_params{}.add(row.text(0))))
          return err;
      }
      slot = sum.idempotency_key;
    }
    pg_rows ins;
    if (auto err = query(
      "INSERT INTO sessions (session_id, principal, milestone_id, state,"
      " epoch, holder, started_wall_ns, last_wall_ns, scope,"
      " idempotency_key, key_slot, milestone_name, tags, tasks_total,"
      " search) VALUES ($1, $2, $3, 'open', 1, $4, $5, $5, $6, $7, $8, $9,"
      " $10, $11, $12) ON CONFLICT DO NOTHING RETURNING sid",
      pg_params{}
        .add(ev.session_id)
        .add(ev.principal)
        .add(*sum.milestone_id)
        .add(instance_)
        .add(ev.at.wall_ns)
        .add(sum.scope)
        .add(sum.idempotency_key)
        .add(slot)
        .add(sum.milestone_name)
        .add(sum.tags)
        .add(sum.tasks_total)
        .add(sum.search),
      &ins))
      return err;
    if (ins.empty()) {
      // Which conflict: the id, or a key another node took meanwhile.
      pg_rows dup;
      if (auto err = query("SELECT 1 FROM sessions WHERE session_id = $1",
                           pg_params{}.add(ev.session_id), &dup))
        return err;
      if (!dup.empty())
        return rejected("session " + ev.session_id
                        + " is already in the journal");
      return error{error_kind::fenced,
                   "journal " + where_ + ": session " + ev.session_id
                     + " has the idempotency key of a session started since"
                       " the key was looked up; the batch was not written"};
    }
    sid = ins[0].int64(0);
    epoch = 1;
  } else {
    pg_rows own;
    if (auto err = query("SELECT state, epoch, sid, started_wall_ns,"
                         " last_wall_ns FROM sessions WHERE session_id = $1"
                         " FOR UPDATE",
                         pg_params{}.add(ev.session_id), &own))
      return err;
    if (own.empty())
      return rejected("session " + ev.session_id
                      + " is not open in the journal");
    auto row = own[0];
    if (auto current = row.int64(1); current != ev.epoch)
      return error{error_kind::fenced,
                   "journal " + where_ + ": session " + ev.session_id
                     + " was changed since (epoch " + std::to_string(current)
                     + ", the writer had " + std::to_string(ev.epoch)
                     + "); the batch was not written"};
    auto state = row.text(0);
    if (state != "open"
        && !(ev.kind == event_kind::change_undone && state == "ended"))
      return rejected("session " + ev.session_id
                      + " is not open in the journal");
    sid = row.int64(2);
    if (ev.if_due && (max_age_ns_ > 0 || max_idle_ns_ > 0)) {
      auto started = row.int64(3);
      auto last = row.int64(4);
      bool due = (max_age_ns_ > 0 && ev.at.wall_ns - started > max_age_ns_)
                 || (max_idle_ns_ > 0 && ev.at.wall_ns - last > max_idle_ns_);
      if (!due)
        return error{error_kind::fenced,
                     "journal " + where_ + ": session " + ev.session_id
                       + " is not due to expire by the journal's record (a"
                         " call since); the batch was not written"};
    }
  }
  pg_rows ins;
  if (auto err = query("INSERT INTO events (sid, kind, task_id, wall_ns,"
                       " mono_ns, boot_id, epoch, payload) VALUES ($1, $2,"
                       " $3, $4, $5, $6, $7, $8) RETURNING seq",
                       pg_params{}
                         .add(sid)
                         .add(to_string(ev.kind))
                         .add(ev.task_id.empty()
                                ? std::optional<std::string>{}
                                : ev.task_id)
                         .add(ev.at.wall_ns)
                         .add(ev.at.mono_ns)
                         .add(ev.at.boot_id)
                         .add(epoch)
                         .add(ev.payload),
                       &ins))
    return err;
  auto seq = ins[0].int64(0);
  auto advance = [&] {
    return query("UPDATE sessions SET epoch = epoch + 1, holder = $3,"
                 " last_wall_ns = greatest(last_wall_ns, $2) WHERE sid = $1",
                 pg_params{}.add(sid).add(ev.at.wall_ns).add(instance_));
  };
  if (ev.kind == event_kind::change_undone) {
    if (auto err = undo_latest(ev, sid, seq, what))
      return err;
  } else if (ev.kind == event_kind::session_ended
             || ev.kind == event_kind::session_expired) {
    auto state = ev.kind == event_kind::session_ended ? session_state::ended
                                                      : session_state::expired;
    // An expired session's key is free again (a claim by it skips it).
    if (auto err = query(
          "UPDATE sessions SET state = $2, closed_wall_ns = $3,"
          " last_wall_ns = greatest(last_wall_ns, $3), epoch = epoch + 1,"
          " holder = $4, key_slot = CASE WHEN $2 = 'expired' THEN NULL"
          " ELSE key_slot END WHERE sid = $1",
          pg_params{}
            .add(sid)
            .add(to_string(state))
            .add(ev.at.wall_ns)
            .add(instance_)))
      return err;
    if (auto err = store_closing_runs(ev, sid, what))
      return err;
  } else if (ev.kind != event_kind::session_started) {
    if (auto err = advance())
      return err;
  }
  if (ev.runs && ev.kind != event_kind::session_ended
      && ev.kind != event_kind::session_expired) {
    // An open session's packing (version 2): no digest.
    if (auto err = query("UPDATE sessions SET runs = $2, digest = NULL"
                         " WHERE sid = $1",
                         pg_params{}.add(sid).add_bytes(
                           pack_runs(*ev.runs, epoch + 1))))
      return err;
  }
  if (ev.kind == event_kind::tasks_edited) {
    auto eff = edit_of(ev.payload);
    if (auto err = query("UPDATE sessions SET started_wall_ns ="
                         " least(started_wall_ns, COALESCE($2,"
                         " started_wall_ns)), tasks_total = tasks_total + $3,"
                         " search = search || $4 WHERE sid = $1",
                         pg_params{}
                           .add(sid)
                           .add(eff.earliest_correction)
                           .add(eff.tasks_delta)
                           .add(eff.search_add)))
      return err;
  }
  if (ev.kind == event_kind::task_started) {
    if (auto name = task_name_of(ev.payload)) {
      if (auto err = query("UPDATE sessions SET search = search || E'\\n'"
                           " || $2 WHERE sid = $1 AND strpos(search, $2) = 0",
                           pg_params{}.add(sid).add(*name)))
        return err;
    }
  }
  return std::nullopt;
}

std::optional<error> pg_store::undo_latest(const event& ev, std::int64_t sid,
                                           std::int64_t event_seq,
                                           const std::string& what) {
  pg_rows target;
  if (auto err = conn_.query(
        "SELECT seq, kind, payload FROM events WHERE sid = $1 AND kind IN"
        " ('task_started', 'task_ended', 'tasks_edited', 'session_ended')"
        " AND undone_by IS NULL ORDER BY seq DESC LIMIT 1",
        pg_params{}.add(sid), what, &target))
    return err;
  if (target.empty())
    return rejected("session " + ev.session_id
                    + " has no change left to undo in the journal");
  auto row = target[0];
  auto seq = row.int64(0);
  auto kind = row.text(1);
  auto payload = row.text(2);
  if (auto err = conn_.query("UPDATE events SET undone_by = $2 WHERE"
                             " seq = $1",
                             pg_params{}.add(seq).add(event_seq), what))
    return err;
  if (kind == "session_ended") {
    if (auto err = room_for_open(ev.principal, what))
      return err;
    return conn_.query(
      "UPDATE sessions SET state = 'open', closed_wall_ns = NULL,"
      " runs = NULL, digest = NULL, epoch = epoch + 1, holder = $3,"
      " last_wall_ns = greatest(last_wall_ns, $2) WHERE sid = $1",
      pg_params{}.add(sid).add(ev.at.wall_ns).add(instance_), what);
  }
  if (kind == "tasks_edited") {
    // The start is the earliest of the session's own and its standing
    // corrections' (the undone edit is marked already).
    auto rows = event_rows(sid, what);
    if (auto* err = std::get_if<error>(&rows))
      return std::move(*err);
    std::int64_t start = INT64_MAX;
    std::optional<std::int64_t> correction;
    for (const auto& e : std::get<std::vector<stored_event_row>>(rows)) {
      if (e.kind == "session_started")
        start = std::min(start, e.at.wall_ns);
      if (e.kind == "tasks_edited" && !e.undone)
        if (auto c = edit_of(e.payload).earliest_correction)
          correction = std::min(correction.value_or(INT64_MAX), *c);
    }
    auto eff = edit_of(payload);
    if (auto err = conn_.query(
          "UPDATE sessions SET started_wall_ns = least($2::bigint,"
          " $3::bigint), tasks_total = tasks_total - $4 WHERE sid = $1",
          pg_params{}
            .add(sid)
            .add(start)
            .add(correction.value_or(INT64_MAX))
            .add(eff.tasks_delta),
          what))
      return err;
  }
  return conn_.query("UPDATE sessions SET epoch = epoch + 1, holder = $3,"
                     " last_wall_ns = greatest(last_wall_ns, $2)"
                     " WHERE sid = $1",
                     pg_params{}.add(sid).add(ev.at.wall_ns).add(instance_),
                     what);
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

} // namespace ttm::storage::detail
