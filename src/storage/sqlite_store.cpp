#include "storage/sqlite_store.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iterator>
#include <thread>
#include <unordered_map>
#include <utility>

namespace ttm::storage {

namespace {

namespace fs = std::filesystem;

// -- schema -------------------------------------------------------------------

constexpr int current_schema = 1;

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
};

static_assert(std::size(migrations) == current_schema + 1);
static_assert(0x54544d4a == 1414810954);

// -- handles ------------------------------------------------------------------

struct db_closer {
  void operator()(sqlite3* db) const {
    sqlite3_close_v2(db);
  }
};

using db_ptr = std::unique_ptr<sqlite3, db_closer>;

struct stmt_finalizer {
  void operator()(sqlite3_stmt* s) const {
    sqlite3_finalize(s);
  }
};

using stmt_ptr = std::unique_ptr<sqlite3_stmt, stmt_finalizer>;

/// Resets a statement and drops its bindings when a use of it ends, so that
/// a kept statement never holds a read lock or a dangling text binding.
class stmt_use {
public:
  explicit stmt_use(const stmt_ptr& s) : s_(s.get()) {
    // nop
  }

  ~stmt_use() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  stmt_use(const stmt_use&) = delete;
  stmt_use& operator=(const stmt_use&) = delete;

  /// Binders remember the first failure; step() reports it.
  stmt_use& bind(int i, std::int64_t v) {
    keep(sqlite3_bind_int64(s_, i, v));
    return *this;
  }

  /// The text must outlive this use (SQLITE_STATIC: no copy).
  stmt_use& bind(int i, const std::string& v) {
    keep(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()),
                           SQLITE_STATIC));
    return *this;
  }

  /// A temporary would die before step() reads it.
  stmt_use& bind(int i, std::string&& v) = delete;

  /// A string literal, such as to_string(event_kind).
  stmt_use& bind(int i, const char* literal) {
    keep(sqlite3_bind_text(s_, i, literal, -1, SQLITE_STATIC));
    return *this;
  }

  stmt_use& bind_text_or_null(int i, const std::string& v) {
    if (v.empty())
      keep(sqlite3_bind_null(s_, i));
    else
      bind(i, v);
    return *this;
  }

  template <class T>
  stmt_use& bind(int i, const std::optional<T>& v) {
    if (v)
      return bind(i, *v);
    keep(sqlite3_bind_null(s_, i));
    return *this;
  }

  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() {
    return bind_rc_ != SQLITE_OK ? bind_rc_ : sqlite3_step(s_);
  }

  std::int64_t int64(int col) const {
    return sqlite3_column_int64(s_, col);
  }

  bool is_null(int col) const {
    return sqlite3_column_type(s_, col) == SQLITE_NULL;
  }

  std::string text(int col) const {
    auto* p = sqlite3_column_text(s_, col);
    if (p == nullptr)
      return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<std::size_t>(sqlite3_column_bytes(s_, col))};
  }

private:
  void keep(int rc) {
    if (bind_rc_ == SQLITE_OK)
      bind_rc_ = rc;
  }

  sqlite3_stmt* s_;
  int bind_rc_ = SQLITE_OK;
};

class unique_fd {
public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {
    // nop
  }
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {
    // nop
  }
  unique_fd& operator=(unique_fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~unique_fd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const {
    return fd_;
  }
  int release() noexcept {
    return std::exchange(fd_, -1);
  }

private:
  int fd_ = -1;
};

// -- errors -------------------------------------------------------------------

error_kind kind_of_errno(int e) {
  switch (e) {
    case EACCES:
    case EPERM:
    case EROFS:
      return error_kind::read_only;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return error_kind::full;
    default:
      return error_kind::io;
  }
}

/// `sys_errno`: what the OS said at SQLite's last I/O failure, if any.
error_kind kind_of(int rc, int sys_errno) {
  switch (rc & 0xff) {
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return error_kind::read_only;
    case SQLITE_FULL:
      return error_kind::full;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return error_kind::corrupt;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return error_kind::locked;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      return kind_of_errno(sys_errno);
    default:
      return error_kind::io;
  }
}

bool is_constraint(int rc) {
  return (rc & 0xff) == SQLITE_CONSTRAINT;
}

/// "what path: sqlite's message", with the kind SQLite's code maps to. Call
/// before anything else touches `db`: its message is the last call's.
error sqlite_error(sqlite3* db, int rc, const std::string& what,
                   const std::string& path) {
  auto kind = kind_of(rc, db ? sqlite3_system_errno(db) : 0);
  std::string msg = what + " " + path + ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (kind == error_kind::corrupt)
    msg += "; move it aside (with any -wal and -shm files next to it) to "
           "start a new journal";
  return {kind, std::move(msg)};
}

error errno_error(int e, const std::string& what, const std::string& path) {
  return {kind_of_errno(e), what + " " + path + ": " + std::strerror(e)};
}

template <class F>
auto guarded(const std::string& what, const std::string& path, F f)
  -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& ex) {
    return error{error_kind::io, what + " " + path + ": " + ex.what()};
  } catch (...) {
    return error{error_kind::io, what + " " + path + ": unknown exception"};
  }
}

// -- the store ----------------------------------------------------------------

/// Runs one statement that returns no rows (or whose rows do not matter).
int exec(sqlite3* db, const char* sql) {
  return sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
}

/// Rolls back on scope exit unless the transaction ended (committed or
/// rolled back by SQLite itself after an error such as SQLITE_FULL).
class rollback_guard {
public:
  explicit rollback_guard(sqlite3* db) : db_(db) {
    // nop
  }
  ~rollback_guard() {
    if (sqlite3_get_autocommit(db_) == 0)
      exec(db_, "ROLLBACK");
  }
  rollback_guard(const rollback_guard&) = delete;
  rollback_guard& operator=(const rollback_guard&) = delete;

private:
  sqlite3* db_;
};

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
        return error{error_kind::io, "journal " + path_ + ": session "
                                       + s.session_id + " has unknown state '"
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

/// mkdir -p with 0700 for every directory it creates.
std::optional<error> make_dirs(const fs::path& dir) {
  fs::path prefix;
  for (const auto& part : dir) {
    prefix /= part;
    if (part.empty() || part == prefix.root_path())
      continue;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return errno_error(errno, "cannot create the data directory",
                         prefix.string());
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return errno_error(errno, "cannot use the data directory", dir.string());
  if (!S_ISDIR(st.st_mode))
    return error{error_kind::io, "the data directory " + dir.string()
                                   + " is not a directory"};
  return std::nullopt;
}

/// The pid the current holder wrote into the lock file, or "unknown".
std::string holder_pid(int fd) {
  char buf[32] = {};
  auto n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i)
    pid += buf[i];
  return pid.empty() ? "unknown" : pid;
}

/// The exclusive flock on <dir>/lock, held for the store's lifetime: the
/// kernel drops it when the process dies, however it dies. Tried for up to
/// `wait`: a client that restarts its server (or probes it with a process
/// of its own first) gets the directory once the previous one exited.
result<unique_fd> lock_dir(const fs::path& dir,
                           std::chrono::milliseconds wait) {
  auto path = dir / "lock";
  unique_fd fd{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
  if (fd.get() < 0)
    return errno_error(errno, "cannot create the lock file", path.string());
  auto deadline = std::chrono::steady_clock::now() + wait;
  int rc = 0;
  for (;;) {
    rc = ::flock(fd.get(), LOCK_EX | LOCK_NB);
    if (rc == 0)
      break;
    if (errno == EINTR)
      continue;
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline)
      break; // errno still says why
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  if (rc != 0) {
    if (errno != EWOULDBLOCK)
      return errno_error(errno, "cannot lock", path.string());
    return error{error_kind::locked,
                 "another time-tracker-mcp (pid " + holder_pid(fd.get())
                   + ") is using the data directory " + dir.string()
                   + "; stop it, or start this one with --data-dir DIR or"
                     " --ephemeral"};
  }
  // For the message above in the next server; the lock works without it.
  auto pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0
      || ::pwrite(fd.get(), pid.data(), pid.size(), 0)
           != static_cast<ssize_t>(pid.size()))
    return errno_error(errno, "cannot write the lock file", path.string());
  return fd;
}

/// A single integer from a one-row query such as "PRAGMA user_version".
int query_int(sqlite3* db, const char* sql, std::int64_t& out) {
  sqlite3_stmt* raw = nullptr;
  auto rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  stmt_ptr s{raw};
  if (rc != SQLITE_OK)
    return rc;
  rc = sqlite3_step(raw);
  if (rc == SQLITE_ROW) {
    out = sqlite3_column_int64(raw, 0);
    return SQLITE_OK;
  }
  return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

/// Everything that reads the file before we may write to it: a file we
/// refuse is left as it was.
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
  // The first read: a file that is not a database fails here.
  if (auto rc = query_int(db, "PRAGMA user_version", version))
    return failed(rc);
  if (version > current_schema)
    return error{error_kind::newer_schema,
                 "the journal " + path + " has schema version "
                   + std::to_string(version)
                   + ", newer than this time-tracker-mcp supports ("
                   + std::to_string(current_schema)
                   + "); it was not modified: run a newer time-tracker-mcp,"
                     " or start this one with --data-dir DIR or"
                     " --ephemeral"};
  std::int64_t app_id = 0;
  if (auto rc = query_int(db, "PRAGMA application_id", app_id))
    return failed(rc);
  std::int64_t tables = 0;
  if (auto rc = query_int(db, "SELECT count(*) FROM sqlite_schema", tables))
    return failed(rc);
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

/// Brings the schema from `version` to current_schema, one transaction per
/// step.
std::optional<error> migrate(sqlite3* db, const std::string& path,
                             std::int64_t version) {
  for (auto v = version + 1; v <= current_schema; ++v) {
    rollback_guard guard{db};
    auto bump = "PRAGMA user_version = " + std::to_string(v);
    int rc = exec(db, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK)
      rc = exec(db, migrations[v]);
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

/// Hands out this instance's epoch: one more than any before.
result<std::int64_t> next_epoch(sqlite3* db, const std::string& path,
                                const std::string& instance) {
  static const std::string what = "cannot start a new epoch in the journal";
  rollback_guard guard{db};
  std::int64_t last = 0;
  int rc = exec(db, "BEGIN IMMEDIATE");
  if (rc == SQLITE_OK)
    rc = query_int(db,
                   "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'epoch'",
                   last);
  if (rc != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  sqlite3_stmt* raw = nullptr;
  rc = sqlite3_prepare_v2(db,
                          "INSERT INTO meta (key, value) VALUES"
                          " ('epoch', ?1), ('created_by', ?2),"
                          " ('opened_by', ?2)"
                          " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                          " WHERE key <> 'created_by'",
                          -1, &raw, nullptr);
  stmt_ptr s{raw};
  if (rc != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  auto epoch = last + 1;
  auto text = std::to_string(epoch);
  sqlite3_bind_text(raw, 1, text.data(), static_cast<int>(text.size()),
                    SQLITE_STATIC);
  sqlite3_bind_text(raw, 2, instance.data(),
                    static_cast<int>(instance.size()), SQLITE_STATIC);
  if ((rc = sqlite3_step(raw)) != SQLITE_DONE)
    return sqlite_error(db, rc, what, path);
  s.reset();
  if ((rc = exec(db, "COMMIT")) != SQLITE_OK)
    return sqlite_error(db, rc, what, path);
  return epoch;
}

result<dir_lock> lock_impl(const sqlite_options& opts) {
  if (opts.dir.empty())
    return error{error_kind::io, "no data directory given for the journal"};
  std::error_code ec;
  auto dir = fs::absolute(opts.dir, ec).lexically_normal();
  if (ec)
    return error{error_kind::io, "cannot use the data directory " + opts.dir
                                   + ": " + ec.message()};
  if (!dir.has_filename() && dir.has_parent_path() && dir != dir.root_path())
    dir = dir.parent_path(); // "/x/" -> "/x"
  if (auto err = make_dirs(dir))
    return std::move(*err);
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    return errno_error(errno, "cannot write to the data directory",
                       dir.string());
  auto lock = lock_dir(dir, opts.lock_wait);
  if (auto err = std::get_if<error>(&lock))
    return std::move(*err);
  return dir_lock{std::get<unique_fd>(lock).release(), dir.string()};
}

result<store_ptr> open_impl(const sqlite_options& opts, dir_lock held) {
  fs::path dir{held.dir()};
  unique_fd lock_fd{held.release()};
  auto path = (dir / "journal.sqlite3").string();
  // Created by us, 0600: SQLite gives its -wal and -shm files the same mode.
  if (unique_fd created{::open(path.c_str(),
                               O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
      created.get() < 0 && errno != EEXIST)
    return errno_error(errno, "cannot create the journal", path);
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

dir_lock::dir_lock(dir_lock&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)), dir_(std::move(other.dir_)) {
}

dir_lock& dir_lock::operator=(dir_lock&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(dir_, other.dir_);
  return *this;
}

dir_lock::~dir_lock() {
  if (fd_ >= 0)
    ::close(fd_);
}

int dir_lock::release() noexcept {
  return std::exchange(fd_, -1);
}

result<dir_lock> lock_data_dir(const sqlite_options& opts) {
  return guarded("cannot lock the data directory", opts.dir,
                 [&] { return lock_impl(opts); });
}

result<store_ptr> open_sqlite(const sqlite_options& opts, dir_lock lock) {
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
