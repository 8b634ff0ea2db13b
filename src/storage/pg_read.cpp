// The PostgreSQL store's reads and claims: a session's latest state for the
// client that names it, letting go, the stale copies (from LISTEN/NOTIFY
// while the connection stays up), the open count, orphans by lease, history
// and the retention purge. Mirrors sqlite_claim.cpp and sqlite_expiry.cpp.

#include "storage/pg_store_impl.hpp"

#include <algorithm>
#include <climits>

namespace ttm::storage::detail {

namespace {

/// As sqlite_claim.cpp: a held session's activity is recorded at most
/// once a minute.
constexpr std::int64_t touch_after_ns = 60'000'000'000;

} // namespace

std::optional<error>
pg_store::read_events_of(std::vector<stored_session>& sessions,
                         const std::string& what) {
  if (sessions.empty())
    return std::nullopt;
  std::vector<std::string> ids;
  std::map<std::string, stored_session*> by_id;
  for (auto& s : sessions) {
    ids.push_back(s.session_id);
    by_id[s.session_id] = &s;
  }
  auto r = conn_.exec(
    "SELECT s.session_id, e.kind, e.task_id, e.wall_ns, e.mono_ns,"
    " e.boot_id, e.payload, e.undone_by IS NOT NULL FROM sessions s"
    " JOIN events e ON e.sid = s.sid WHERE s.session_id = ANY($1::text[])"
    " ORDER BY e.sid, e.seq",
    pg_params{}.add_text_array(ids), what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  const auto& res = std::get<pg_res>(r);
  for (int i = 0; i < rows_of(res); ++i) {
    pg_row row{res.get(), i};
    auto* s = by_id[row.text(0)];
    event ev;
    ev.session_id = s->session_id;
    ev.principal = s->principal;
    auto kind = event_kind_from(row.text(1));
    if (!kind)
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s->session_id.substr(0, 8)
                                     + "... has an event of unknown kind '"
                                     + row.text(1) + "'"};
    ev.kind = *kind;
    ev.task_id = row.null(2) ? "" : row.text(2);
    ev.at = {row.int64(3), row.int64(4), row.text(5)};
    ev.payload = row.text(6);
    ev.undone = row.boolean(7);
    ev.epoch = s->epoch;
    s->events.push_back(std::move(ev));
  }
  return std::nullopt;
}

result<claim_result> pg_store::claim(const claim_request& req) {
  static const std::string what = "cannot load a session from";
  if (auto err = connect())
    return std::move(*err);
  claim_result out;
  const std::string cols = std::string{"sid, scope, "} + pg_session_columns;
  auto read_row = [&](std::int64_t& sid, std::string& scope,
                      stored_session& s) -> result<bool> {
    auto r = req.session_id.empty()
               ? conn_.exec("SELECT " + cols
                              + " FROM sessions WHERE principal = $1"
                                " AND scope = $2 AND idempotency_key = $3"
                                " AND started_wall_ns >= $4"
                                " AND state <> 'expired'"
                                " ORDER BY started_wall_ns DESC LIMIT 1",
                            pg_params{}
                              .add(req.principal)
                              .add(req.scope)
                              .add(req.idempotency_key)
                              .add(req.since_wall_ns),
                            what)
               : conn_.exec("SELECT " + cols
                              + " FROM sessions WHERE session_id = $1",
                            pg_params{}.add(req.session_id), what);
    if (auto* err = std::get_if<error>(&r))
      return std::move(*err);
    const auto& res = std::get<pg_res>(r);
    if (rows_of(res) == 0)
      return false;
    pg_row row{res.get(), 0};
    sid = row.int64(0);
    scope = row.text(1);
    if (!pg_read_session(row, 2, s))
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has an unknown state"};
    return s.principal == req.principal && scope == req.scope;
  };
  // Best effort and never waiting: a row another server is writing is
  // skipped (the next call records the activity).
  auto touch = [&](std::int64_t sid, const stored_session& s) {
    if (s.state != session_state::open
        || req.now_wall_ns - s.last_wall_ns <= touch_after_ns)
      return;
    conn_.exec("UPDATE sessions SET last_wall_ns = $2 WHERE sid IN"
               " (SELECT sid FROM sessions WHERE sid = $1 AND epoch = $3"
               " AND last_wall_ns < $2 FOR UPDATE SKIP LOCKED)",
               pg_params{}.add(sid).add(req.now_wall_ns).add(s.epoch), what);
  };
  std::int64_t sid = 0;
  std::string scope;
  if (req.known_epoch > 0) {
    stored_session s;
    auto found = read_row(sid, scope, s);
    if (auto* err = std::get_if<error>(&found))
      return std::move(*err);
    if (!std::get<bool>(found))
      return out;
    if (s.state != session_state::expired && s.epoch == req.known_epoch) {
      touch(sid, s);
      out.outcome = claim_result::current;
      out.session = std::move(s);
      return out;
    }
  }
  // The row, whether its holder's lease runs, and its events: one
  // statement (one snapshot, one round trip). Part 0 the row, part 1 its
  // events (columns from 14), in any order: sorted here.
  const std::string ev_cols = ", NULL::bigint, NULL, NULL, NULL::bigint,"
                              " NULL::bigint, NULL, NULL, NULL::boolean";
  pg_params p;
  std::string which;
  if (req.session_id.empty()) {
    which = "principal = $3 AND scope = $4 AND idempotency_key = $5"
            " AND started_wall_ns >= $6 AND state <> 'expired'"
            " ORDER BY started_wall_ns DESC LIMIT 1";
    p.add(instance_).add(now_ns()).add(req.principal).add(req.scope).add(
      req.idempotency_key).add(req.since_wall_ns);
  } else {
    which = "session_id = $3";
    p.add(instance_).add(now_ns()).add(req.session_id);
  }
  auto r = conn_.exec(
    "WITH s AS MATERIALIZED (SELECT " + cols
      + ", CASE WHEN holder = 0 THEN false WHEN holder = $1 THEN true ELSE"
        " EXISTS (SELECT 1 FROM instances i WHERE i.id = holder AND"
        " i.lease_until_ns >= $2) END AS alive FROM sessions WHERE "
      + which + ") SELECT 0, s.*" + ev_cols
      + " FROM s UNION ALL SELECT 1, s.sid, NULL, NULL, NULL, NULL, NULL,"
        " NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint,"
        " NULL::bigint, NULL::boolean, e.seq, e.kind, e.task_id, e.wall_ns,"
        " e.mono_ns, e.boot_id, e.payload, e.undone_by IS NOT NULL FROM s"
        " JOIN events e ON e.sid = s.sid",
    p, what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  const auto& res = std::get<pg_res>(r);
  int at = -1;
  std::vector<std::pair<std::int64_t, int>> evs; // (seq, row)
  for (int i = 0; i < rows_of(res); ++i) {
    pg_row row{res.get(), i};
    if (row.int64(0) == 0)
      at = i;
    else
      evs.emplace_back(row.int64(13), i);
  }
  if (at < 0)
    return claim_result{};
  {
    pg_row row{res.get(), at};
    sid = row.int64(1);
    scope = row.text(2);
    auto& s = out.session;
    if (!pg_read_session(row, 3, s))
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has an unknown state"};
    if (s.principal != req.principal || scope != req.scope)
      return claim_result{};
    if (s.state == session_state::open && s.holder != instance_) {
      out.previous_holder = s.holder;
      out.previous_alive = row.boolean(12);
    }
  }
  std::sort(evs.begin(), evs.end());
  for (const auto& [seq, i] : evs) {
    pg_row row{res.get(), i};
    auto& s = out.session;
    event ev;
    ev.session_id = s.session_id;
    ev.principal = s.principal;
    auto kind = event_kind_from(row.text(14));
    if (!kind)
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has an event of unknown kind '"
                                     + row.text(14) + "'"};
    ev.kind = *kind;
    ev.task_id = row.null(15) ? "" : row.text(15);
    ev.at = {row.int64(16), row.int64(17), row.text(18)};
    ev.payload = row.text(19);
    ev.undone = row.boolean(20);
    ev.epoch = s.epoch;
    s.events.push_back(std::move(ev));
  }
  out.outcome = claim_result::loaded;
  touch(sid, out.session);
  return out;
}

result<ok> pg_store::release(
  const std::vector<std::pair<std::string, std::int64_t>>& held) {
  static const std::string what = "cannot release sessions in";
  if (held.empty())
    return ok{};
  if (auto err = connect())
    return std::move(*err);
  std::vector<std::string> ids;
  std::vector<std::int64_t> epochs;
  for (const auto& [id, epoch] : held) {
    ids.push_back(id);
    epochs.push_back(epoch);
  }
  auto r = conn_.exec(
    "UPDATE sessions s SET holder = 0 FROM unnest($1::text[], $2::bigint[])"
    " AS h (id, epoch) WHERE s.session_id = h.id AND s.epoch = h.epoch"
    " AND s.holder = $3",
    pg_params{}.add_text_array(ids).add_int_array(epochs).add(instance_),
    what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  return ok{};
}

void pg_store::drain_notifications() {
  auto* c = conn_.raw();
  if (!c || PQconsumeInput(c) == 0)
    return;
  auto own = conn_.backend_pid();
  while (auto* n = PQnotifies(c)) {
    if (n->be_pid != own && n->extra) {
      std::string text = n->extra;
      auto space = text.rfind(' ');
      if (space != std::string::npos) {
        ++notifications_;
        auto epoch = std::strtoll(text.c_str() + space + 1, nullptr, 10);
        auto& e = heard_[text.substr(0, space)];
        e = std::max<std::int64_t>(e, epoch);
      }
    }
    PQfreemem(n);
  }
}

result<std::vector<std::string>> pg_store::stale(
  const std::vector<std::pair<std::string, std::int64_t>>& held) {
  static const std::string what = "cannot check sessions in";
  if (auto err = connect())
    return std::move(*err);
  std::vector<std::string> out;
  // Listening since the connection was made (so since every held copy was
  // loaded or written through it): another server's write has notified
  // us. No query.
  if (listening_on_ != 0 && listening_on_ == conn_.connects()) {
    drain_notifications();
    for (const auto& [id, epoch] : held)
      if (auto it = heard_.find(id); it != heard_.end() && it->second > epoch)
        out.push_back(id);
    // What no held copy needs any more is forgotten.
    if (heard_.size() > 4 * held.size() + 1024)
      heard_.clear();
    if (conn_.connected())
      return out;
    out.clear();
    if (auto err = connect())
      return std::move(*err);
  }
  std::vector<std::string> ids;
  std::vector<std::int64_t> epochs;
  for (const auto& [id, epoch] : held) {
    ids.push_back(id);
    epochs.push_back(epoch);
  }
  auto r = conn_.exec(
    "SELECT h.id FROM unnest($1::text[], $2::bigint[]) AS h (id, epoch)"
    " LEFT JOIN sessions s ON s.session_id = h.id WHERE s.sid IS NULL"
    " OR s.state <> 'open' OR s.epoch <> h.epoch",
    pg_params{}.add_text_array(ids).add_int_array(epochs), what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  const auto& res = std::get<pg_res>(r);
  for (int i = 0; i < rows_of(res); ++i)
    out.push_back(pg_row{res.get(), i}.text(0));
  return out;
}

result<std::size_t> pg_store::open_sessions() {
  static const std::string what = "cannot count open sessions in";
  if (auto err = connect())
    return std::move(*err);
  auto r = conn_.exec("SELECT count(*) FROM sessions WHERE state = 'open'",
                      what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  return static_cast<std::size_t>(
    pg_row{std::get<pg_res>(r).get(), 0}.int64(0));
}

result<std::vector<orphan>>
pg_store::orphans_due(std::int64_t age_cutoff_wall_ns,
                      std::int64_t idle_cutoff_wall_ns, std::size_t limit) {
  static const std::string what = "cannot look for expired sessions in";
  if (auto err = connect())
    return std::move(*err);
  // A live holder (its lease not expired) expires its own sessions.
  auto r = conn_.exec(
    "SELECT s.session_id, s.principal, s.epoch, s.started_wall_ns,"
    " s.last_wall_ns FROM sessions s LEFT JOIN instances i"
    " ON i.id = s.holder AND i.lease_until_ns >= $3"
    " WHERE s.state = 'open' AND (s.started_wall_ns < $1"
    " OR s.last_wall_ns < $2) AND (i.id IS NULL OR s.holder = 0)"
    " AND (s.holder <> $5 OR s.holder = 0) LIMIT $4",
    pg_params{}
      .add(age_cutoff_wall_ns)
      .add(idle_cutoff_wall_ns)
      .add(now_ns())
      .add(static_cast<std::int64_t>(
        std::min<std::size_t>(limit, INT64_MAX)))
      .add(instance_),
    what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  const auto& res = std::get<pg_res>(r);
  std::vector<orphan> out;
  for (int i = 0; i < rows_of(res); ++i) {
    pg_row row{res.get(), i};
    orphan o;
    o.session_id = row.text(0);
    o.principal = row.text(1);
    o.epoch = row.int64(2);
    o.started_wall_ns = row.int64(3);
    o.last_wall_ns = row.int64(4);
    out.push_back(std::move(o));
  }
  return out;
}

result<std::vector<stored_session>>
pg_store::history(const history_query& q) {
  static const std::string what = "cannot read the history from";
  using res_t = std::vector<stored_session>;
  return in_transaction<res_t>(
    what,
    [&]() -> result<res_t> {
      std::string sql = std::string{"SELECT "} + pg_session_columns
                        + " FROM sessions WHERE true";
      pg_params p;
      int n = 0;
      if (q.principal) {
        sql += " AND principal = $" + std::to_string(++n);
        p.add(*q.principal);
      }
      if (q.since_wall_ns) {
        sql += " AND started_wall_ns >= $" + std::to_string(++n);
        p.add(*q.since_wall_ns);
      }
      if (q.until_wall_ns) {
        sql += " AND started_wall_ns < $" + std::to_string(++n);
        p.add(*q.until_wall_ns);
      }
      sql += " ORDER BY started_wall_ns DESC, session_id DESC LIMIT $"
             + std::to_string(++n);
      p.add(static_cast<std::int64_t>(
        std::min<std::size_t>(q.limit, INT64_MAX)));
      auto r = conn_.exec(sql, p, what);
      if (auto* err = std::get_if<error>(&r))
        return std::move(*err);
      const auto& res = std::get<pg_res>(r);
      res_t out;
      for (int i = 0; i < rows_of(res); ++i) {
        stored_session s;
        if (!pg_read_session(pg_row{res.get(), i}, 0, s))
          return error{error_kind::io, "journal " + where_
                                         + ": a session has an unknown state"};
        out.push_back(std::move(s));
      }
      if (q.with_events)
        if (auto err = read_events_of(out, what))
          return std::move(*err);
      return out;
    },
    true);
}

result<std::optional<std::size_t>>
pg_store::purge_closed_before(std::int64_t cutoff_wall_ns,
                              std::int64_t now_wall_ns,
                              std::int64_t interval_ns) {
  static const std::string what = "cannot purge old sessions from";
  using res_t = std::optional<std::size_t>;
  return in_transaction<res_t>(
    what,
    [&]() -> result<res_t> {
      // The row lock makes the servers take turns: one purge per interval.
      auto last = conn_.exec("SELECT value::bigint FROM meta"
                             " WHERE key = 'purged_wall_ns' FOR UPDATE",
                             what);
      if (auto* err = std::get_if<error>(&last))
        return std::move(*err);
      auto at = pg_row{std::get<pg_res>(last).get(), 0}.int64(0);
      if (at > 0 && now_wall_ns - at < interval_ns)
        return res_t{};
      auto gone = conn_.exec("DELETE FROM sessions WHERE state IN"
                             " ('ended', 'expired') AND closed_wall_ns < $1",
                             pg_params{}.add(cutoff_wall_ns), what);
      if (auto* err = std::get_if<error>(&gone))
        return std::move(*err);
      auto n = std::strtoull(PQcmdTuples(std::get<pg_res>(gone).get()),
                             nullptr, 10);
      // The audit trail and ended focus sessions follow the same retention
      // (as on SQLite): refusals would otherwise grow the database forever.
      for (const char* sql :
           {"DELETE FROM audit WHERE wall_ns < $1",
            "DELETE FROM focus_sessions WHERE ended_wall_ns IS NOT NULL"
            " AND ended_wall_ns < $1"}) {
        auto extra = conn_.exec(sql, pg_params{}.add(cutoff_wall_ns), what);
        if (auto* err = std::get_if<error>(&extra))
          return std::move(*err);
      }
      auto mark = conn_.exec("UPDATE meta SET value = $1"
                             " WHERE key = 'purged_wall_ns'",
                             pg_params{}.add(std::to_string(now_wall_ns)),
                             what);
      if (auto* err = std::get_if<error>(&mark))
        return std::move(*err);
      return res_t{static_cast<std::size_t>(n)};
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
