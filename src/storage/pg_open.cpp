// The PostgreSQL store's opening: the connection, the schema (migrated
// under an advisory lock, so that servers starting at once take turns),
// the instance's number and its lease, and reconnecting after a loss.

#include "storage/pg_store_impl.hpp"

#include "storage/pg_probe.hpp"
#include "storage/runs.hpp"

#include "log.hpp"
#include "storage/sqlite_store.hpp" // journal_schema_version

#include <chrono>
#include <iterator>

namespace ttm::storage::detail {

namespace {

/// migrations[v] turns schema v - 1 into schema v, in one transaction with
/// the version's bump (meta 'schema_version'); the version numbers are the
/// SQLite journal's (sqlite_schema.cpp). No PostgreSQL journal ever had a
/// version below 8 (the backend came with it): step 8 creates the schema
/// of version 8 at once, and steps 1-7 have nothing to do. Append, never
/// edit: a new SQLite step gets its PostgreSQL twin here.
constexpr const char* migrations[] = {
  nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
  // 8: everything SQLite's steps 1-8 made, in PostgreSQL's words, plus the
  // instances and their leases (SQLite: kernel locks) and a unique index
  // on a session's live idempotency key (two nodes racing a keyed start
  // cannot both create a session).
  R"sql(
    CREATE TABLE instances (
      id              BIGINT PRIMARY KEY,
      label           TEXT NOT NULL,
      started_wall_ns BIGINT NOT NULL,
      lease_until_ns  BIGINT NOT NULL
    );
    CREATE SEQUENCE instance_numbers;
    CREATE TABLE sessions (
      sid             BIGSERIAL PRIMARY KEY,
      session_id      TEXT NOT NULL UNIQUE,
      principal       TEXT NOT NULL,
      milestone_id    TEXT NOT NULL,
      state           TEXT NOT NULL
                      CHECK (state IN ('open', 'ended', 'expired')),
      epoch           BIGINT NOT NULL,
      holder          BIGINT NOT NULL DEFAULT 0,
      started_wall_ns BIGINT NOT NULL,
      closed_wall_ns  BIGINT,
      last_wall_ns    BIGINT NOT NULL,
      scope           TEXT NOT NULL DEFAULT '2025',
      idempotency_key TEXT,
      -- The key while a claim by it may find the session (not expired):
      -- unique per owner and scope.
      key_slot        TEXT,
      milestone_name  TEXT,
      tags            TEXT NOT NULL DEFAULT '[]',
      tasks_total     BIGINT NOT NULL DEFAULT 0,
      search          TEXT NOT NULL DEFAULT '',
      runs            BYTEA,
      CHECK ((state = 'open') = (closed_wall_ns IS NULL))
    );
    CREATE INDEX sessions_by_state_closed ON sessions (state, closed_wall_ns);
    CREATE INDEX sessions_open ON sessions (principal) WHERE state = 'open';
    CREATE INDEX sessions_by_started ON sessions (started_wall_ns, session_id);
    CREATE INDEX sessions_by_key ON sessions (principal, scope, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
    CREATE UNIQUE INDEX sessions_key_slot ON sessions (principal, scope, key_slot)
      WHERE key_slot IS NOT NULL;
    CREATE INDEX sessions_by_owner
      ON sessions (principal, scope, started_wall_ns, session_id);
    CREATE INDEX sessions_by_principal
      ON sessions (principal, started_wall_ns, session_id);
    CREATE TABLE events (
      seq       BIGSERIAL PRIMARY KEY,
      sid       BIGINT NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
      kind      TEXT NOT NULL,
      task_id   TEXT,
      wall_ns   BIGINT NOT NULL,
      mono_ns   BIGINT NOT NULL,
      boot_id   TEXT NOT NULL,
      epoch     BIGINT NOT NULL,
      payload   TEXT NOT NULL CHECK (payload::json IS NOT NULL),
      undone_by BIGINT
    );
    CREATE INDEX events_by_session ON events (sid, seq);
    CREATE TABLE preferences (
      principal TEXT NOT NULL,
      key       TEXT NOT NULL,
      value     TEXT NOT NULL CHECK (value::json IS NOT NULL),
      PRIMARY KEY (principal, key)
    );
    CREATE TABLE focus_sessions (
      fid             BIGSERIAL PRIMARY KEY,
      session_id      TEXT NOT NULL UNIQUE,
      principal       TEXT NOT NULL,
      intent          TEXT NOT NULL,
      started_wall_ns BIGINT NOT NULL,
      ended_wall_ns   BIGINT,
      summary         TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX focus_by_owner ON focus_sessions (principal, started_wall_ns);
    CREATE INDEX focus_open ON focus_sessions (principal)
      WHERE ended_wall_ns IS NULL;
    CREATE TABLE audit (
      seq       BIGSERIAL PRIMARY KEY,
      kind      TEXT NOT NULL,
      wall_ns   BIGINT NOT NULL,
      principal TEXT NOT NULL DEFAULT '',
      payload   TEXT NOT NULL CHECK (payload::json IS NOT NULL)
    );
    CREATE INDEX audit_by_time ON audit (wall_ns);
    INSERT INTO meta (key, value) VALUES ('purged_wall_ns', '0');
  )sql",
  // 9: the MCP sessions of the 2025 eras (mcp_session.hpp), as SQLite's 9.
  R"sql(
    CREATE TABLE mcp_sessions (
      id              TEXT PRIMARY KEY,
      principal       TEXT NOT NULL,
      state           TEXT NOT NULL CHECK (state::json IS NOT NULL),
      created_wall_ns BIGINT NOT NULL,
      last_wall_ns    BIGINT NOT NULL
    );
    CREATE INDEX mcp_sessions_by_last ON mcp_sessions (last_wall_ns);
  )sql",
  // 10: the history on PostgreSQL (issue 32): the audit command's events
  // (a principal acting on another's session, `by`) by time, from an index
  // of those alone; without it every payload of the journal was parsed
  // (1.9 s over a million events, 0.1 ms with it).
  R"sql(
    CREATE INDEX events_by_actor ON events (wall_ns, seq)
      WHERE json_typeof(payload::json -> 'by') = 'object';
  )sql",
  // 11: a closed session's runs summed up for statistics, as SQLite's 11.
  R"sql(
    ALTER TABLE sessions ADD COLUMN IF NOT EXISTS digest bytea;
  )sql",
};

constexpr int current_schema = journal_schema_version;
static_assert(std::size(migrations) == current_schema + 1);

} // namespace

std::optional<error> pg_store::digest_closed_sessions(const std::string& what) {
  pg_rows rows;
  if (auto err = conn_.query("SELECT sid, runs FROM sessions WHERE state <>"
                             " 'open' AND runs IS NOT NULL AND digest IS NULL",
                             pg_params{}.binary(), what, &rows))
    return err;
  for (int i = 0; i < rows.size(); ++i) {
    auto digest = digest_of_packed(rows[i].bytes(1));
    if (!digest) // not a closed packing: statistics read its runs
      continue;
    if (auto err = conn_.query("UPDATE sessions SET digest = $2 WHERE sid = $1",
                               pg_params{}.add(rows[i].int64(0)).add_bytes(*digest),
                               what))
      return err;
  }
  return std::nullopt;
}

bool pg_read_session(const pg_row& row, int at, stored_session& s) {
  s.session_id = row.text(at);
  s.principal = row.text(at + 1);
  s.milestone_id = row.text(at + 2);
  auto state = session_state_from(row.text(at + 3));
  if (!state)
    return false;
  s.state = *state;
  s.epoch = row.int64(at + 4);
  s.holder = row.int64(at + 5);
  s.started_wall_ns = row.int64(at + 6);
  if (!row.null(at + 7))
    s.closed_wall_ns = row.int64(at + 7);
  s.last_wall_ns = row.int64(at + 8);
  return true;
}

const char* const pg_session_columns
  = "session_id, principal, milestone_id, state, epoch, holder,"
    " started_wall_ns, closed_wall_ns, last_wall_ns";

pg_store::pg_store(const pg_options& opts)
  : opts_(opts),
    where_(pg_describe(opts.conninfo)
           + (opts.schema.empty() ? "" : " schema " + opts.schema)),
    conn_(opts.conninfo, opts.schema, where_),
    lease_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(opts.lease)
                .count()),
    max_open_(opts.max_open_sessions),
    max_per_principal_(opts.max_open_per_principal),
    max_age_ns_(std::chrono::nanoseconds{opts.max_age}.count()),
    max_idle_ns_(std::chrono::nanoseconds{opts.max_idle}.count()) {
  // nop
}

pg_store::~pg_store() {
  // A clean exit lets go of the lease at once: its sessions are orphans
  // now, not in a lease's time (as a closed SQLite lock).
  if (instance_ > 0 && conn_.connected())
    conn_.exec("DELETE FROM instances WHERE id = $1",
               pg_params{}.add(instance_), "cannot unregister from");
}

std::int64_t pg_store::now_ns() const {
  if (opts_.wall_now_ns)
    return opts_.wall_now_ns();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

std::optional<error> pg_store::connect() {
  if (auto err = conn_.ensure())
    return err;
  if (listening_on_ == conn_.connects())
    return std::nullopt;
  // A new connection. Notifications sent while we were away are lost:
  // `stale` asks the database until LISTEN is in place again.
  heard_.clear();
  listening_on_ = 0;
  if (auto err = conn_.run(std::string{"LISTEN "} + pg_channel,
                           "cannot listen for other servers' writes in"))
    return err;
  listening_on_ = conn_.connects();
  if (instance_ > 0 && conn_.connects() > 1) {
    TTM_LOG(info, "storage",
            "reconnected to the journal " + where_ + " (instance "
              + std::to_string(instance_) + ")");
    if (auto r = renew_lease(); std::holds_alternative<error>(r))
      return std::get<error>(r);
  }
  return std::nullopt;
}

std::optional<error> pg_store::open() {
  static const std::string what = "cannot open the journal";
  if (auto err = connect())
    return err;
  // Servers starting at once: one migrates, the others wait here, then see
  // the current version. Session-level, let go of below.
  if (auto err = conn_.run("SELECT pg_advisory_lock("
                             + std::to_string(pg_migrate_lock) + ")",
                           what))
    return err;
  auto unlock = [&] {
    if (conn_.connected())
      conn_.run("SELECT pg_advisory_unlock(" + std::to_string(pg_migrate_lock)
                  + ")",
                what);
  };
  auto migrated = [&]() -> std::optional<error> {
    auto found = pg_find_journal(conn_, what);
    if (auto* err = std::get_if<error>(&found))
      return std::move(*err);
    const auto& j = std::get<pg_found_journal>(found);
    if (j.schema.empty())
      return pg_missing_schema(j, where_);
    if (j.foreign)
      return error{error_kind::corrupt,
                   "the journal " + where_
                     + " holds tables of another application; it was not"
                       " modified: name an empty database or schema"};
    std::int64_t version = j.version.value_or(0);
    if (!j.version)
      if (auto err = conn_.run("CREATE TABLE meta (key TEXT PRIMARY KEY,"
                               " value TEXT NOT NULL);"
                               " INSERT INTO meta (key, value) VALUES"
                               " ('application', '"
                                 + std::string{pg_application}
                                 + "'), ('schema_version', '0')",
                               what))
        return err;
    if (version > current_schema)
      return error{error_kind::newer_schema,
                   "the journal " + where_ + " has schema version "
                     + std::to_string(version)
                     + ", newer than this time-tracker-mcp supports ("
                     + std::to_string(current_schema)
                     + "); it was not modified: run a newer"
                       " time-tracker-mcp"};
    for (auto v = version + 1; v <= current_schema; ++v) {
      if (v == 8 || migrations[v])
        TTM_LOG(info, "storage",
                "migrating the journal " + where_ + " to schema version "
                  + std::to_string(v));
      auto what = "cannot migrate to schema version " + std::to_string(v)
                  + " the journal";
      std::string step = "BEGIN; ";
      if (migrations[v])
        step += migrations[v];
      auto bump = "UPDATE meta SET value = '" + std::to_string(v)
                  + "' WHERE key = 'schema_version'; COMMIT";
      auto err = conn_.run(v == 11 ? step : step + "; " + bump, what);
      // Sessions closed before step 11: their digests, in its transaction.
      if (!err && v == 11)
        err = digest_closed_sessions(what);
      if (!err && v == 11)
        err = conn_.run(bump, what);
      if (err) {
        conn_.rollback_if_open();
        return err;
      }
    }
    return std::nullopt;
  }();
  unlock();
  if (migrated)
    return migrated;
  auto now = now_ns();
  auto reg = conn_.exec(
    "WITH gone AS (DELETE FROM instances WHERE lease_until_ns < $3)"
    " INSERT INTO instances (id, label, started_wall_ns, lease_until_ns)"
    " VALUES (nextval('instance_numbers'), $1, $2, $2::bigint + $4::bigint) RETURNING id",
    pg_params{}
      .add(opts_.instance)
      .add(now)
      .add(now - 86'400'000'000'000) // a day past their lease: forgotten
      .add(lease_ns_),
    "cannot register this server in the journal");
  if (auto* err = std::get_if<error>(&reg))
    return std::move(*err);
  instance_ = pg_row{std::get<pg_res>(reg).get(), 0}.int64(0);
  renewed_at_ns_ = now;
  return std::nullopt;
}

result<ok> pg_store::renew_lease() {
  static const std::string what = "cannot renew this server's lease in";
  if (instance_ == 0)
    return ok{};
  if (auto err = connect())
    return std::move(*err);
  auto now = now_ns();
  // Upsert: a row removed meanwhile (a day past its lease) comes back.
  auto r = conn_.exec(
    "INSERT INTO instances (id, label, started_wall_ns, lease_until_ns)"
    " VALUES ($1, $2, $3, $3::bigint + $4::bigint) ON CONFLICT (id) DO UPDATE"
    " SET lease_until_ns = excluded.lease_until_ns",
    pg_params{}.add(instance_).add(opts_.instance).add(now).add(lease_ns_),
    what);
  if (auto* err = std::get_if<error>(&r))
    return std::move(*err);
  renewed_at_ns_ = now;
  return ok{};
}

bool pg_store::alive(std::int64_t holder, const std::string& what) {
  if (holder == 0)
    return false;
  if (holder == instance_)
    return true;
  auto r = conn_.exec("SELECT 1 FROM instances WHERE id = $1"
                      " AND lease_until_ns >= $2",
                      pg_params{}.add(holder).add(now_ns()), what);
  return std::holds_alternative<pg_res>(r)
         && rows_of(std::get<pg_res>(r)) > 0;
}

} // namespace ttm::storage::detail

namespace ttm::storage {

bool names_postgresql(const std::string& journal) {
  return journal == "postgresql" || journal.rfind("postgresql://", 0) == 0
         || journal.rfind("postgres://", 0) == 0;
}

std::string describe_postgresql(const pg_options& opts) {
  return detail::pg_describe(opts.conninfo);
}

result<store_ptr> open_postgresql(const pg_options& opts) {
  auto st = std::make_unique<detail::pg_store>(opts);
  if (auto err = st->open())
    return std::move(*err);
  return store_ptr{std::move(st)};
}

} // namespace ttm::storage
