#include "storage/sqlite_store.hpp"

#include "log.hpp"
#include "storage/sqlite_schema.hpp"
#include "storage/sqlite_util.hpp"
#include "storage/sys_util.hpp"
#include "storage/wal_check.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <utility>

namespace ttm::storage {

namespace {

namespace fs = std::filesystem;
using namespace detail;

// -- the store ----------------------------------------------------------------

class sqlite_store final : public store {
public:
  sqlite_store(unique_fd lock, std::string path, db_ptr db, std::int64_t epoch)
    : lock_(std::move(lock)),
      path_(std::move(path)),
      db_(std::move(db)),
      epoch_(epoch) {
    // nop
  }

  /// Prepares the statements of the hot path; SQLITE_OK or the error code.
  int prepare_kept() {
    int rc = SQLITE_OK;
    auto prep = [&](stmt_ptr& out, const char* sql) {
      if (rc != SQLITE_OK)
        return;
      sqlite3_stmt* s = nullptr;
      rc = sqlite3_prepare_v3(db_.get(), sql, -1, SQLITE_PREPARE_PERSISTENT,
                              &s, nullptr);
      out.reset(s);
    };
    prep(begin_, "BEGIN IMMEDIATE");
    prep(commit_, "COMMIT");
    // A top-level "milestone_id" string, or NULL (refused by NOT NULL).
    prep(insert_session_,
         "INSERT INTO sessions (session_id, principal, milestone_id, state,"
         " epoch, started_wall_ns)"
         " VALUES (?1, ?2, CASE WHEN json_valid(?3)"
         " AND json_type(?3, '$.milestone_id') = 'text'"
         " THEN json_extract(?3, '$.milestone_id') END, 'open', ?4, ?5)");
    prep(session_owner_,
         "SELECT state, epoch, sid FROM sessions WHERE session_id = ?1");
    prep(insert_event_,
         "INSERT INTO events (sid, kind, task_id, wall_ns, mono_ns,"
         " boot_id, epoch, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    prep(close_session_, "UPDATE sessions SET state = ?2, closed_wall_ns = ?3"
                         " WHERE session_id = ?1");
    prep(session_events_,
         "SELECT s.session_id, e.kind, e.task_id, e.wall_ns, e.mono_ns,"
         " e.boot_id, e.payload FROM events e JOIN sessions s ON s.sid = e.sid"
         " WHERE s.session_id = ?1 ORDER BY e.seq");
    return rc;
  }

  std::string describe() const override {
    return "sqlite:" + path_;
  }

  std::int64_t epoch() const override {
    return epoch_;
  }

  result<ok> append(const std::vector<event>& batch) override {
    static const std::string what = "cannot append to the journal";
    if (batch.empty())
      return ok{};
    return guarded(what, path_, [&]() -> result<ok> {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what))
        return std::move(*err);
      for (const auto& ev : batch)
        if (auto err = append_one(ev))
          return std::move(*err);
      if (auto err = run(commit_, what))
        return std::move(*err);
      return ok{};
    });
  }

  result<std::vector<stored_session>> load_open() override {
    static const std::string what = "cannot load open sessions from";
    using res = result<std::vector<stored_session>>;
    return guarded(what, path_, [&]() -> res {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what))
        return std::move(*err);
      stmt_ptr claim;
      stmt_ptr sessions;
      stmt_ptr events;
      if (auto rc = prepare(claim, "UPDATE sessions SET epoch = ?1"
                                   " WHERE state = 'open' AND epoch <> ?1"))
        return fail(rc, what);
      {
        stmt_use use{claim};
        if (auto rc = use.bind(1, epoch_).step(); rc != SQLITE_DONE)
          return fail(rc, what);
      }
      if (auto rc = prepare(sessions, std::string{session_select}
                                        + " WHERE state = 'open'"
                                          " ORDER BY started_wall_ns,"
                                          " session_id"))
        return fail(rc, what);
      std::vector<stored_session> out;
      {
        stmt_use use{sessions};
        if (auto err = read_sessions(use, out, what))
          return std::move(*err);
      }
      std::unordered_map<std::string, std::size_t> index;
      for (std::size_t i = 0; i < out.size(); ++i)
        index.emplace(out[i].session_id, i);
      if (auto rc = prepare(events,
                            "SELECT s.session_id, e.kind, e.task_id, e.wall_ns,"
                            " e.mono_ns, e.boot_id, e.payload FROM events e"
                            " JOIN sessions s ON s.sid = e.sid"
                            " WHERE s.state = 'open' ORDER BY e.seq"))
        return fail(rc, what);
      {
        stmt_use use{events};
        if (auto err = read_events(use, what, [&](const std::string& id)
                                     -> stored_session& {
              return out[index.at(id)];
            }))
          return std::move(*err);
      }
      if (auto err = run(commit_, what))
        return std::move(*err);
      return out;
    });
  }

  result<std::vector<stored_session>>
  history(const history_query& q) override {
    static const std::string what = "cannot read the history from";
    using res = result<std::vector<stored_session>>;
    return guarded(what, path_, [&]() -> res {
      rollback_guard guard{db_.get()};
      // One read transaction: sessions and events from one snapshot.
      if (auto rc = exec(db_.get(), "BEGIN"))
        return fail(rc, what);
      stmt_ptr sessions;
      if (auto rc = prepare(sessions,
                            std::string{session_select}
                            + " WHERE (?1 IS NULL OR principal = ?1)"
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
      if (q.with_events) {
        for (auto& s : out) {
          stmt_use use{session_events_};
          use.bind(1, s.session_id);
          if (auto err = read_events(use, what,
                                     [&](const std::string&)
                                       -> stored_session& { return s; }))
            return std::move(*err);
        }
      }
      if (auto err = run(commit_, what))
        return std::move(*err);
      return out;
    });
  }

  result<std::size_t>
  purge_closed_before(std::int64_t cutoff_wall_ns) override {
    static const std::string what = "cannot purge old sessions from";
    return guarded(what, path_, [&]() -> result<std::size_t> {
      stmt_ptr purge;
      if (auto rc = prepare(purge, "DELETE FROM sessions"
                                   " WHERE state IN ('ended', 'expired')"
                                   " AND closed_wall_ns < ?1"))
        return fail(rc, what);
      // One statement: atomic on its own, events go by ON DELETE CASCADE.
      stmt_use use{purge};
      if (auto rc = use.bind(1, cutoff_wall_ns).step(); rc != SQLITE_DONE)
        return fail(rc, what);
      return static_cast<std::size_t>(sqlite3_changes64(db_.get()));
    });
  }

private:
  static constexpr const char* session_select
    = "SELECT session_id, principal, milestone_id, state, epoch,"
      " started_wall_ns, closed_wall_ns FROM sessions";

  struct event_row {
    event value;
    std::optional<error> err;
    explicit operator bool() const {
      return !err;
    }
  };

  /// Reads the event rows of `use` into the session `owner(session_id)`
  /// returns; each event gets that session's principal.
  template <class Owner>
  std::optional<error> read_events(stmt_use& use, const std::string& what,
                                   Owner owner) const {
    int rc;
    while ((rc = use.step()) == SQLITE_ROW) {
      auto ev = read_event(use);
      if (!ev)
        return std::move(*ev.err);
      stored_session& s = owner(ev.value.session_id);
      ev.value.principal = s.principal;
      s.events.push_back(std::move(ev.value));
    }
    if (rc != SQLITE_DONE)
      return fail(rc, what);
    return std::nullopt;
  }

  error fail(int rc, const std::string& what) const {
    return sqlite_error(db_.get(), rc, what, path_);
  }

  error rejected(const std::string& why) const {
    return {error_kind::rejected,
            "journal " + path_ + ": " + why + "; the batch was not written"};
  }

  int prepare(stmt_ptr& out, const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    auto rc = sqlite3_prepare_v2(db_.get(), sql.c_str(),
                                 static_cast<int>(sql.size()), &s, nullptr);
    out.reset(s);
    return rc;
  }

  /// Steps a statement that returns no rows. The error comes from before
  /// the reset: a reset records SQLite's error state anew.
  std::optional<error> run(const stmt_ptr& s, const std::string& what) {
    stmt_use use{s};
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
    return std::nullopt;
  }

  /// Rows of `session_select` into `out`.
  std::optional<error> read_sessions(stmt_use& use,
                                     std::vector<stored_session>& out,
                                     const std::string& what) {
    int rc;
    while ((rc = use.step()) == SQLITE_ROW) {
      stored_session s;
      s.session_id = use.text(0);
      s.principal = use.text(1);
      s.milestone_id = use.text(2);
      auto state = session_state_from(use.text(3));
      if (!state)
        // An id's first 8 characters, as every log line names one.
      return error{error_kind::io, "journal " + path_ + ": session "
                                       + s.session_id.substr(0, 8)
                                       + "... has unknown state '"
                                       + use.text(3) + "'"};
      s.state = *state;
      s.epoch = use.int64(4);
      s.started_wall_ns = use.int64(5);
      if (!use.is_null(6))
        s.closed_wall_ns = use.int64(6);
      out.push_back(std::move(s));
    }
    if (rc != SQLITE_DONE)
      return fail(rc, what);
    return std::nullopt;
  }

  /// One row of (session_id, kind, task_id, wall_ns, mono_ns, boot_id,
  /// payload); the caller sets the principal.
  event_row read_event(const stmt_use& use) const {
    event_row row;
    auto& ev = row.value;
    ev.session_id = use.text(0);
    auto kind = event_kind_from(use.text(1));
    if (!kind) {
      row.err = error{error_kind::io, "journal " + path_ + ": session "
                                          + ev.session_id
                                          + " has an event of unknown kind '"
                                          + use.text(1) + "'"};
      return row;
    }
    ev.kind = *kind;
    ev.task_id = use.text(2);
    ev.at.wall_ns = use.int64(3);
    ev.at.mono_ns = use.int64(4);
    ev.at.boot_id = use.text(5);
    ev.payload = use.text(6);
    return row;
  }

  /// Writes one event of a batch inside the open transaction.
  std::optional<error> append_one(const event& ev) {
    static const std::string what = "cannot append to the journal";
    std::int64_t sid = 0; // the session's row: what its events refer to
    if (ev.kind == event_kind::session_started) {
      stmt_use use{insert_session_};
      use.bind(1, ev.session_id)
        .bind(2, ev.principal)
        .bind(3, ev.payload)
        .bind(4, epoch_)
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
    } else {
      stmt_use use{session_owner_};
      use.bind(1, ev.session_id);
      auto rc = use.step();
      if (rc == SQLITE_DONE)
        return rejected("session " + ev.session_id
                        + " is not open in the journal");
      if (rc != SQLITE_ROW)
        return fail(rc, what);
      if (auto owner = use.int64(1); owner != epoch_)
        return error{error_kind::fenced,
                     "journal " + path_ + ": session " + ev.session_id
                       + " was adopted by epoch " + std::to_string(owner)
                       + " (this server has epoch " + std::to_string(epoch_)
                       + "); the batch was not written"};
      if (use.text(0) != "open")
        return rejected("session " + ev.session_id
                        + " is not open in the journal");
      sid = use.int64(2);
    }
    {
      stmt_use use{insert_event_};
      use.bind(1, sid)
        .bind(2, to_string(ev.kind))
        .bind_text_or_null(3, ev.task_id)
        .bind(4, ev.at.wall_ns)
        .bind(5, ev.at.mono_ns)
        .bind(6, ev.at.boot_id)
        .bind(7, epoch_)
        .bind(8, ev.payload);
      if (auto rc = use.step(); rc != SQLITE_DONE) {
        if (is_constraint(rc))
          return rejected("the payload of a " + std::string{to_string(ev.kind)}
                          + " event of session " + ev.session_id
                          + " is not JSON");
        return fail(rc, what);
      }
    }
    if (ev.kind == event_kind::session_ended
        || ev.kind == event_kind::session_expired) {
      auto state = ev.kind == event_kind::session_ended ? session_state::ended
                                                        : session_state::expired;
      stmt_use use{close_session_};
      use.bind(1, ev.session_id)
        .bind(2, to_string(state))
        .bind(3, ev.at.wall_ns);
      if (auto rc = use.step(); rc != SQLITE_DONE)
        return fail(rc, what);
    }
    return std::nullopt;
  }

  // Members go in reverse: statements, then the connection, then the lock.
  unique_fd lock_;
  std::string path_;
  db_ptr db_;
  std::int64_t epoch_;
  stmt_ptr begin_;
  stmt_ptr commit_;
  stmt_ptr insert_session_;
  stmt_ptr session_owner_;
  stmt_ptr insert_event_;
  stmt_ptr close_session_;
  stmt_ptr session_events_;
};

// -- opening ------------------------------------------------------------------

/// SQLite's WAL recovery drops frames after a damaged one without an error:
/// say so. Runs before SQLite reads the WAL; no other process writes it
/// meanwhile (the directory lock). With several servers on one journal
/// this must only run when SQLite actually recovers.
void report_wal_damage(const std::string& wal) {
  auto scan = scan_wal_file(wal);
  if (!scan || scan->discarded == 0)
    return;
  auto counts = std::to_string(scan->discarded) + " frames ("
                + std::to_string(scan->discarded_commits)
                + " transactions) after a damaged frame";
  if (scan->discarded_commits > 0)
    TTM_LOG(warning, "storage",
            "the journal's WAL " + wal + " had " + counts
              + ": SQLite discarded them; changes acknowledged in them are "
                "lost (it keeps the "
              + std::to_string(scan->recovered) + " frames before)");
  else // a transaction cut short by the crash: it was never acknowledged
    TTM_LOG(info, "storage",
            "the journal's WAL " + wal + " had " + counts
              + " of a transaction that never committed: SQLite discarded "
                "them");
}

result<store_ptr> open_impl(const sqlite_options& opts, dir_lock held) {
  fs::path dir{held.dir()};
  unique_fd lock_fd{held.release()};
  auto path = (dir / "journal.sqlite3").string();
  // Created by us, 0600: SQLite gives its -wal and -shm files the same mode.
  if (unique_fd created{::open(path.c_str(),
                               O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
      created.get() < 0) {
    if (errno != EEXIST)
      return errno_error(errno, "cannot create the journal", path);
    // Truncated by a crash before its first write, or by someone: SQLite
    // would start a new journal on it without a word (and delete a WAL
    // beside it as stale).
    if (struct stat st{}; ::stat(path.c_str(), &st) == 0 && st.st_size == 0) {
      std::string wal_note;
      if (struct stat w{}; ::stat((path + "-wal").c_str(), &w) == 0
                           && w.st_size > 0)
        wal_note = " (SQLite deletes its WAL of "
                   + std::to_string(w.st_size) + " bytes as stale)";
      TTM_LOG(warning, "storage",
              "the journal " + path
                + " is an empty file (0 bytes): it is opened as a new, empty "
                  "journal"
                + wal_note + "; any sessions it held are gone");
    } else {
      report_wal_damage(path + "-wal");
    }
  }
  sqlite3* raw = nullptr;
  auto rc = sqlite3_open_v2(path.c_str(), &raw,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                            nullptr);
  db_ptr db{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(raw, rc, "cannot open the journal", path);
  auto* d = db.get();
  sqlite3_extended_result_codes(d, 1);
  // A file we may not write opens read-only without an error.
  if (sqlite3_db_readonly(d, "main") == 1)
    return error{error_kind::read_only,
                 "cannot write the journal " + path + ": it is read-only"};
  sqlite3_busy_timeout(d, 2000);
  // A file we refuse keeps even the WAL a crashed server left beside it:
  // no checkpoint when we close it.
  sqlite3_db_config(d, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  std::int64_t version = 0;
  if (auto err = check_before_writing(d, path, version))
    return std::move(*err);
  sqlite3_db_config(d, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  // From here on we write.
  {
    sqlite3_stmt* s = nullptr;
    rc = sqlite3_prepare_v2(d, "PRAGMA journal_mode = WAL", -1, &s, nullptr);
    stmt_ptr wal{s};
    if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
      auto* mode = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      if (mode == nullptr || std::strcmp(mode, "wal") != 0)
        return error{error_kind::io, "cannot use write-ahead logging for the"
                                     " journal "
                                       + path + " (journal mode stays "
                                       + (mode ? mode : "unknown") + ")"};
      rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
      return sqlite_error(d, rc, "cannot switch to WAL mode the journal",
                          path);
  }
  const char* sync = opts.sync == sync_mode::full ? "PRAGMA synchronous = FULL"
                                                  : "PRAGMA synchronous = NORMAL";
  if ((rc = exec(d, sync)) != SQLITE_OK
      || (rc = exec(d, "PRAGMA foreign_keys = ON")) != SQLITE_OK)
    return sqlite_error(d, rc, "cannot configure the journal", path);
  if (auto err = migrate(d, path, version))
    return std::move(*err);
  auto epoch = next_epoch(d, path, opts.instance);
  if (auto err = std::get_if<error>(&epoch))
    return std::move(*err);
  auto st = std::make_unique<sqlite_store>(std::move(lock_fd), path,
                                           std::move(db),
                                           std::get<std::int64_t>(epoch));
  if ((rc = st->prepare_kept()) != SQLITE_OK)
    return sqlite_error(d, rc, "cannot prepare statements for the journal",
                        path);
  return store_ptr{std::move(st)};
}

} // namespace

result<store_ptr> open_sqlite(const sqlite_options& opts, dir_lock lock) {
  detail::route_sqlite_log();
  return guarded("cannot open the journal in", opts.dir,
                 [&] { return open_impl(opts, std::move(lock)); });
}

result<store_ptr> open_sqlite(const sqlite_options& opts) {
  auto lock = lock_data_dir(opts);
  if (auto* err = std::get_if<error>(&lock))
    return std::move(*err);
  return open_sqlite(opts, std::move(std::get<dir_lock>(lock)));
}

} // namespace ttm::storage
