#include "storage/sqlite_schema.hpp"

#include "log.hpp"
#include "storage/sqlite_runs.hpp"
#include "storage/sqlite_store.hpp"
#include "storage/sqlite_util.hpp"

#include <iterator>

namespace ttm::storage::detail {

namespace {

constexpr int current_schema = journal_schema_version;

/// "TTMJ": tells our journal from any other SQLite file at the same name.
constexpr int journal_application_id = 0x54544d4a;

/// migrations[v] turns schema v - 1 into schema v, in one transaction with
/// the `user_version` bump. Append, never edit: files in the field ran them.
/// A new event kind or session state needs a step too (even an empty one),
/// so that an older server refuses a file it could not read.
constexpr const char* migrations[] = {
  nullptr, // 0: an empty file
  // 1: sessions, their events, and the epoch counter.
  R"sql(
    PRAGMA application_id = 1414810954;
    CREATE TABLE meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('epoch', '0');
    CREATE TABLE sessions (
      sid             INTEGER PRIMARY KEY,
      session_id      TEXT NOT NULL UNIQUE,
      principal       TEXT NOT NULL,
      milestone_id    TEXT NOT NULL,
      state           TEXT NOT NULL
                      CHECK (state IN ('open', 'ended', 'expired')),
      epoch           INTEGER NOT NULL,
      started_wall_ns INTEGER NOT NULL,
      closed_wall_ns  INTEGER,
      CHECK ((state = 'open') = (closed_wall_ns IS NULL))
    );
    CREATE INDEX sessions_by_state_closed ON sessions (state, closed_wall_ns);
    CREATE INDEX sessions_by_started ON sessions (started_wall_ns);
    CREATE TABLE events (
      seq        INTEGER PRIMARY KEY,
      sid        INTEGER NOT NULL
                 REFERENCES sessions (sid) ON DELETE CASCADE,
      kind       TEXT NOT NULL,
      task_id    TEXT,
      wall_ns    INTEGER NOT NULL,
      mono_ns    INTEGER NOT NULL,
      boot_id    TEXT NOT NULL,
      epoch      INTEGER NOT NULL,
      payload    TEXT NOT NULL CHECK (json_valid(payload))
    );
    -- Keyed by the session's row number, not its random UUID: the sessions
    -- written to now are recent, so one commit touches few index pages.
    CREATE INDEX events_by_session ON events (sid, seq);
  )sql",
  // 2: several servers on one journal. A session has a version, `epoch`
  // (one more per event), and a `holder` (the instance that wrote it last,
  // 0: let go of); `scope`
  // (the era it was started in) and its idempotency key decide who may
  // claim it and find it; `last_wall_ns` lets any server expire an idle
  // one (not indexed: every write moves it; the open sessions are found
  // through sessions_by_state_closed). The old per-server epoch counter
  // numbers instances now.
  R"sql(
    ALTER TABLE sessions ADD COLUMN holder INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN scope TEXT NOT NULL DEFAULT '2025';
    ALTER TABLE sessions ADD COLUMN idempotency_key TEXT;
    ALTER TABLE sessions ADD COLUMN last_wall_ns INTEGER NOT NULL DEFAULT 0;
    UPDATE sessions SET
      scope = COALESCE((SELECT json_extract(e.payload, '$.era') FROM events e
                        WHERE e.sid = sessions.sid
                          AND e.kind = 'session_started'), '2025'),
      idempotency_key = (SELECT json_extract(e.payload, '$.idempotency_key')
                         FROM events e WHERE e.sid = sessions.sid
                           AND e.kind = 'session_started'),
      last_wall_ns = COALESCE((SELECT max(e.wall_ns) FROM events e
                               WHERE e.sid = sessions.sid), started_wall_ns),
      epoch = 1;
    UPDATE meta SET key = 'instances' WHERE key = 'epoch';
    INSERT INTO meta (key, value) VALUES ('purged_wall_ns', '0');
    CREATE INDEX sessions_by_key ON sessions (principal, scope, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
  )sql",
  // 3: history (time_session_list). A session row keeps what a list row
  // shows and filters on, so a page reads no payloads: the milestone's
  // name, the tags (a JSON array), the number of tasks, and `search`, the
  // lower-cased milestone id and name and task ids and names, one a line
  // (task names join it as tasks start). The owner's sessions, newest
  // first, come from one index.
  R"sql(
    ALTER TABLE sessions ADD COLUMN milestone_name TEXT;
    ALTER TABLE sessions ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE sessions ADD COLUMN tasks_total INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN search TEXT NOT NULL DEFAULT '';
    UPDATE sessions SET
      milestone_name = (SELECT CASE WHEN json_type(e.payload,
                                 '$.milestone_name') = 'text'
                               THEN json_extract(e.payload, '$.milestone_name')
                               END
                        FROM events e WHERE e.sid = sessions.sid
                          AND e.kind = 'session_started'),
      tags = COALESCE((SELECT CASE WHEN json_type(e.payload, '$.tags')
                                     = 'array'
                                   THEN json_extract(e.payload, '$.tags') END
                       FROM events e WHERE e.sid = sessions.sid
                         AND e.kind = 'session_started'), '[]'),
      tasks_total = COALESCE((SELECT json_array_length(e.payload, '$.task_ids')
                              FROM events e WHERE e.sid = sessions.sid
                                AND e.kind = 'session_started'), 0);
    UPDATE sessions SET search = lower(milestone_id || char(10)
      || COALESCE(milestone_name, '') || char(10)
      || COALESCE((SELECT group_concat(t.value, char(10))
                   FROM events e, json_each(e.payload, '$.task_ids') t
                   WHERE e.sid = sessions.sid
                     AND e.kind = 'session_started'), '') || char(10)
      || COALESCE((SELECT group_concat(json_extract(e.payload,
                                            '$.task_name'), char(10))
                   FROM events e WHERE e.sid = sessions.sid
                     AND e.kind = 'task_started'
                     AND json_type(e.payload, '$.task_name') = 'text'), ''));
    CREATE INDEX sessions_by_owner
      ON sessions (principal, scope, started_wall_ns, session_id);
  )sql",
  // 4: statistics (time_stats). A closed session's task runs, paired from
  // its events and packed (storage/runs.hpp), kept in its row by the write
  // that closes it, so that a range of sessions reads one value each
  // instead of every event. NULL while open. The step's C++ half packs the
  // sessions closed before it (pack_closed_sessions).
  R"sql(
    ALTER TABLE sessions ADD COLUMN runs BLOB;
  )sql",
  // 5: per principal, its preferences (one JSON value per key) and its
  // focus sessions (the chronometric tools), a kind of their own beside
  // tracking sessions.
  R"sql(
    CREATE TABLE preferences (
      principal TEXT NOT NULL,
      key       TEXT NOT NULL,
      value     TEXT NOT NULL CHECK (json_valid(value)),
      PRIMARY KEY (principal, key)
    ) WITHOUT ROWID;
    CREATE TABLE focus_sessions (
      fid             INTEGER PRIMARY KEY,
      session_id      TEXT NOT NULL UNIQUE,
      principal       TEXT NOT NULL,
      intent          TEXT NOT NULL,
      started_wall_ns INTEGER NOT NULL,
      ended_wall_ns   INTEGER,
      summary         TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX focus_by_owner ON focus_sessions (principal, started_wall_ns);
    CREATE INDEX focus_open ON focus_sessions (principal)
      WHERE ended_wall_ns IS NULL;
  )sql",
  // 6: the event kind 'tasks_edited' (time_tasks_edit: one event per bulk
  // edit, its operations in the payload). No table changes: the step exists
  // so that an older server refuses a journal it could not replay.
  R"sql(
    SELECT 1;
  )sql",
  // 7: time_undo. A change_undone event marks the event it reverts:
  // `undone_by` is the undo's seq. Replay, statistics and reports skip
  // undone events; an older server would replay them, so it must refuse.
  R"sql(
    ALTER TABLE events ADD COLUMN undone_by INTEGER;
  )sql",
  // 8: audit records that belong to no session (issue 31): refusals at the
  // HTTP edge (401, 403, 429), rate-limited per client address by the
  // edge. `payload`: the journal codec's JSON for `kind`; never a token.
  // (IF NOT EXISTS: a file whose version was set back keeps its tables.)
  R"sql(
    CREATE TABLE IF NOT EXISTS audit (
      seq       INTEGER PRIMARY KEY,
      kind      TEXT NOT NULL,
      wall_ns   INTEGER NOT NULL,
      principal TEXT NOT NULL DEFAULT '',
      payload   TEXT NOT NULL CHECK (json_valid(payload))
    );
    CREATE INDEX IF NOT EXISTS audit_by_time ON audit (wall_ns);
  )sql",
  // 9: MCP sessions of the 2025 eras (issue 32), so that every server on
  // the directory answers any Mcp-Session-Id: who initialized it, what it
  // negotiated (`state`, JSON written by the MCP layer), and its last use
  // (to the minute) for --session-idle-timeout.
  R"sql(
    CREATE TABLE IF NOT EXISTS mcp_sessions (
      id              TEXT PRIMARY KEY,
      principal       TEXT NOT NULL,
      state           TEXT NOT NULL CHECK (json_valid(state)),
      created_wall_ns INTEGER NOT NULL,
      last_wall_ns    INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS mcp_sessions_by_last
      ON mcp_sessions (last_wall_ns);
  )sql",
  // 10: PostgreSQL's history step (pg_open.cpp: an index of the audit
  // command's events). Nothing to do here: SQLite's audit read stays a
  // scan (the index would cost every append a JSON parse, where the
  // journal's cost is measured). The version moves on with it: the number
  // is shared.
  R"sql(
    SELECT 1;
  )sql",
  // 11: statistics (issue 32). A closed session's runs summed up
  // (storage/runs.hpp, runs_digest), written with its packed runs by the
  // same statement; what a month by day, week, milestone or tag reads
  // instead of ~50 runs per session. NULL before this step (statistics
  // read those rows' runs) and while open. The column is added by the
  // step's C++ half unless there (ALTER TABLE has no IF NOT EXISTS, and a
  // file whose version was set back keeps its columns).
  R"sql(
    SELECT 1;
  )sql",
};

static_assert(std::size(migrations) == current_schema + 1);
static_assert(0x54544d4a == 1414810954);

} // namespace

std::optional<error> check_before_writing(sqlite3* db, const std::string& path,
                                          std::int64_t& version) {
  auto corrupt = [&](const std::string& why) {
    return error{error_kind::corrupt,
                 "the journal " + path + " " + why
                   + "; it was not modified: move it aside (with any -wal"
                     " and -shm files next to it) to start a new journal"};
  };
  auto failed = [&](int rc) -> error {
    if (kind_of(rc, sqlite3_system_errno(db)) == error_kind::corrupt)
      return corrupt(std::string{"is damaged ("} + sqlite3_errmsg(db) + ")");
    return sqlite_error(db, rc, "cannot read the journal", path);
  };
  // One snapshot for the three reads: another server may be creating the
  // journal meanwhile (tables, then the version, in one transaction).
  // The first read: a file that is not a database fails here (and SQLite
  // recovers a WAL, saying so in its log).
  if (auto rc = query_int(db, "PRAGMA user_version", version))
    return failed(rc);
  // Then one statement for the version, the application id and the table
  // count: one snapshot, as another server may be creating the journal.
  std::int64_t app_id = 0;
  std::int64_t tables = 0;
  {
    sqlite3_stmt* raw = nullptr;
    auto rc = sqlite3_prepare_v2(
      db,
      "SELECT (SELECT user_version FROM pragma_user_version),"
      " (SELECT application_id FROM pragma_application_id),"
      " (SELECT count(*) FROM sqlite_schema)",
      -1, &raw, nullptr);
    stmt_ptr first{raw};
    if (rc != SQLITE_OK)
      return failed(rc);
    if ((rc = sqlite3_step(raw)) != SQLITE_ROW)
      return failed(rc);
    version = sqlite3_column_int64(raw, 0);
    app_id = sqlite3_column_int64(raw, 1);
    tables = sqlite3_column_int64(raw, 2);
  }
  if (version > current_schema)
    return error{error_kind::newer_schema,
                 "the journal " + path + " has schema version "
                   + std::to_string(version)
                   + ", newer than this time-tracker-mcp supports ("
                   + std::to_string(current_schema)
                   + "); it was not modified: run a newer time-tracker-mcp,"
                     " or start this one with --data-dir DIR or"
                     " --ephemeral"};
  if ((version > 0 && app_id != journal_application_id)
      || (version == 0 && tables > 0))
    return corrupt("is a SQLite database of another application");
  sqlite3_stmt* raw = nullptr;
  auto rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &raw, nullptr);
  stmt_ptr check{raw};
  if (rc != SQLITE_OK)
    return failed(rc);
  if ((rc = sqlite3_step(raw)) != SQLITE_ROW)
    return failed(rc);
  auto* first = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
  std::string verdict = first ? first : "";
  if (verdict != "ok")
    return corrupt("failed its integrity check (" + verdict + ")");
  return std::nullopt;
}

std::optional<error> migrate(sqlite3* db, const std::string& path,
                             std::int64_t version) {
  if (version > 0 && version < current_schema)
    TTM_LOG(info, "storage",
            "migrating the journal " + path + " from schema version "
              + std::to_string(version) + " to "
              + std::to_string(current_schema)
              + (version < 4 ? " (packing each closed session's task runs"
                               " into its row: a second per ~10,000"
                               " sessions)"
                             : ""));
  for (auto v = version + 1; v <= current_schema; ++v) {
    rollback_guard guard{db};
    auto bump = "PRAGMA user_version = " + std::to_string(v);
    int rc = exec(db, "BEGIN IMMEDIATE");
    // Another server on the directory may have run this step meanwhile.
    std::int64_t now = 0;
    if (rc == SQLITE_OK)
      rc = query_int(db, "PRAGMA user_version", now);
    if (rc == SQLITE_OK && now >= v) {
      exec(db, "COMMIT");
      continue;
    }
    if (rc == SQLITE_OK)
      rc = exec(db, migrations[v]);
    std::string bad_kind;
    if (rc == SQLITE_OK && v == 4) {
      rc = pack_closed_sessions(db, bad_kind);
      if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
      else if (!bad_kind.empty())
        return error{error_kind::corrupt,
                     "the journal " + path + " has an event of unknown kind '"
                       + bad_kind + "'; it was not modified: run a newer"
                         " time-tracker-mcp, or move it aside"};
    }
    if (rc == SQLITE_OK && v == 11) {
      std::int64_t has = 0;
      rc = query_int(db,
                     "SELECT count(*) FROM pragma_table_info('sessions')"
                     " WHERE name = 'digest'",
                     has);
      if (rc == SQLITE_OK && has == 0)
        rc = exec(db, "ALTER TABLE sessions ADD COLUMN digest BLOB");
      // Sessions closed before it: their statistics as fast as new ones'.
      if (rc == SQLITE_OK && (rc = digest_closed_sessions(db)) == SQLITE_DONE)
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_OK)
      rc = exec(db, bump.c_str());
    if (rc == SQLITE_OK)
      rc = exec(db, "COMMIT");
    if (rc != SQLITE_OK)
      return sqlite_error(db, rc,
                          "cannot migrate to schema version "
                            + std::to_string(v) + " the journal",
                          path);
  }
  return std::nullopt;
}

result<std::int64_t> next_instance(sqlite3* db, const std::string& path,
                                   const std::string& instance) {
  static const std::string what = "cannot register this server in the journal";
  rollback_guard guard{db};
  std::int64_t last = 0;
  int rc = exec(db, "BEGIN IMMEDIATE");
  if (rc == SQLITE_OK)
    rc = query_int(db,
                   "SELECT CAST(value AS INTEGER) FROM meta"
                   " WHERE key = 'instances'",
                   last);
  if (rc != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  sqlite3_stmt* raw = nullptr;
  rc = sqlite3_prepare_v2(db,
                          "INSERT INTO meta (key, value) VALUES"
                          " ('instances', ?1), ('created_by', ?2),"
                          " ('opened_by', ?2)"
                          " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                          " WHERE key <> 'created_by'",
                          -1, &raw, nullptr);
  stmt_ptr s{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  auto number = last + 1;
  auto text = std::to_string(number);
  sqlite3_bind_text(raw, 1, text.data(), static_cast<int>(text.size()),
                    SQLITE_STATIC);
  sqlite3_bind_text(raw, 2, instance.data(),
                    static_cast<int>(instance.size()), SQLITE_STATIC);
  if ((rc = sqlite3_step(raw)) != SQLITE_DONE)
    return sqlite_error(db, rc, what, path);
  s.reset();
  if ((rc = exec(db, "COMMIT")) != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  return number;
}

} // namespace ttm::storage::detail
