#pragma once

// The SQLite store's class, shared by its operations (sqlite_store.cpp) and
// its opening (sqlite_open.cpp). Internal to src/storage.

#include "storage/dir_lock.hpp"
#include "storage/sqlite_util.hpp"
#include "storage/sqlite_wal_sync.hpp"
#include "storage/store.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::storage::detail {

/// How long a statement waits for other processes' transactions before it
/// fails as busy: bounded, so a wedged server cannot hang the others'
/// replies forever.
constexpr std::uint64_t busy_timeout_us = 2'000'000;
/// How long a write waits once one timed out (a server stopped inside a
/// write holds the lock), and what optional writes (a registration at
/// open, a claim's activity record) ever wait: the reads queued behind
/// them on the journal's thread wait no longer than this.
constexpr std::uint64_t stuck_wait_us = 100'000;

/// Test hook: stops the process (SIGSTOP) inside a write transaction when
/// the file $TTM_TEST_STOP_IN_WRITE exists (removing it first).
void stop_in_write_if_asked();

class sqlite_store final : public store {
public:
  /// What the store checks writes against (see sqlite_options).
  struct limits {
    std::size_t max_open = 0;
    std::int64_t max_age_ns = 0;
    std::int64_t max_idle_ns = 0;
    std::size_t max_per_principal = 0;
    /// sync_mode::full: MCP sessions are written with NORMAL for once.
    bool full_sync = false;
  };

  /// Filled by the connection's busy handler (see sqlite_open.cpp);
  /// `limit_us`: how long it waits now.
  struct busy_stats {
    std::uint64_t waits = 0;
    std::uint64_t slept_us = 0;
    std::uint64_t limit_us = busy_timeout_us;
    /// See store::bound_busy_wait.
    std::optional<std::chrono::steady_clock::time_point> give_up;
    /// What the connection's WAL hook writes to (see defer_sync).
    std::shared_ptr<sqlite_wal_sync> wal_hook;
  };

  sqlite_store(std::unique_ptr<busy_stats> busy, dir_lock lock,
               std::string path, db_ptr db, std::int64_t instance,
               limits lim)
    : busy_(std::move(busy)),
      lock_(std::move(lock)),
      path_(std::move(path)),
      db_(std::move(db)),
      instance_(instance),
      max_open_(lim.max_open),
      max_age_ns_(lim.max_age_ns),
      max_idle_ns_(lim.max_idle_ns),
      max_per_principal_(lim.max_per_principal),
      full_sync_(lim.full_sync) {
    // nop
  }

  ~sqlite_store() override {
    if (wal_sync_)
      wal_sync_->close();
  }

  /// Prepares the statements of the hot path; SQLITE_OK or the error code.
  int prepare_kept();

  /// Opened while another process held the write lock, or told to
  /// (`planned`: sqlite_options::register_at_first_write): no instance
  /// number yet (`instance()` 0). Reads work; the first write registers one
  /// (`label`: sqlite_options::instance). `stuck`: a process holds the
  /// lock still (then writes wait briefly, see `writing`).
  void defer_instance(std::string label, bool stuck, bool planned = false) {
    pending_label_ = std::move(label);
    instance_pending_ = true;
    writer_stuck_ = stuck;
    planned_registration_ = planned;
  }

  /// --journal-sync full with the WAL synced after the COMMIT (see
  /// sqlite_wal_sync.hpp): the connection runs synchronous = NORMAL.
  void defer_sync(std::shared_ptr<sqlite_wal_sync> s) {
    wal_sync_ = std::move(s);
  }
  /// Kept until the connection is closed (its WAL hook writes to it).
  void keep_for_callbacks(std::shared_ptr<sqlite_wal_sync> s) {
    busy_->wal_hook = std::move(s);
  }
  std::shared_ptr<commit_sync> deferred_sync() override {
    return wal_sync_;
  }
  result<ok> append_unsynced(const std::vector<event>& batch) override;

  std::string describe() const override {
    return "sqlite:" + path_;
  }

  void bound_busy_wait(
    std::optional<std::chrono::steady_clock::time_point> until) override {
    busy_->give_up = until;
  }
  waits lock_waits() const override {
    return {busy_->waits, busy_->slept_us, writes_, held_us_};
  }

  std::int64_t instance() const override {
    return instance_;
  }

  result<ok> append(const std::vector<event>& batch) override;
  result<claim_result> claim(const claim_request& req) override;
  result<ok>
  release(const std::vector<std::pair<std::string, std::int64_t>>& held)
    override;
  result<std::size_t> open_sessions() override;
  result<std::vector<std::string>>
  stale(const std::vector<std::pair<std::string, std::int64_t>>& held)
    override;
  result<std::vector<orphan>> orphans_due(std::int64_t age_cutoff_wall_ns,
                                          std::int64_t idle_cutoff_wall_ns,
                                          std::size_t limit) override;
  result<std::vector<stored_session>>
  history(const history_query& q) override;
  using store::list;
  /// Hands the page on whole: `sink` is never called.
  result<list_page> list(const list_query& q, const list_sink& sink) override;
  /// list's focus sessions (list_query::focus), in list's transaction.
  std::optional<error> list_focus(const list_query& q, std::int64_t limit,
                                  list_page& out);
  result<std::optional<std::size_t>>
  purge_closed_before(std::int64_t cutoff_wall_ns, std::int64_t now_wall_ns,
                      std::int64_t interval_ns) override;
  result<principal_state> principal(const principal_op& op) override;
  result<ok> record_audit(const std::vector<audit_entry>& entries) override;

  /// One session (any state, any owner) with its events: the admin CLI.
  result<std::optional<stored_session>> session(const std::string& id);
  /// Writes a whole journal into this one, which must hold nothing (the
  /// admin CLI's import; sqlite_import.cpp): one transaction.
  result<std::size_t> import_all(const journal_dump& dump);
  result<std::size_t> open_focus_sessions() override;
  // MCP sessions (sqlite_mcp_sessions.cpp).
  result<ok> put_mcp_session(const mcp_session_record& r) override;
  result<std::optional<mcp_session_record>>
  get_mcp_session(const std::string& id) override;
  result<ok> touch_mcp_sessions(const std::vector<std::string>& ids,
                                std::int64_t now_wall_ns) override;
  result<bool>
  remove_mcp_session(const std::string& id,
                     std::optional<std::int64_t> idle_before_wall_ns)
    override;
  result<std::vector<std::string>>
  mcp_sessions_due(std::int64_t idle_before_wall_ns,
                   std::size_t limit) override;

private:
  /// Prepares the MCP-session statements on first use.
  std::optional<error> prepare_mcp(const std::string& what);
  /// `writing`, without a WAL sync of its own (see store.hpp).
  template <class T, class F>
  result<T> unsynced(F&& f);
  /// The session columns every read selects, in `read_session`'s order.
  static constexpr const char* session_columns
    = "session_id, principal, milestone_id, state, epoch, holder,"
      " started_wall_ns, closed_wall_ns, last_wall_ns";
  /// Reads `session_columns` starting at column `at`; false: unknown state.
  static bool read_session(const stmt_use& use, int at, stored_session& s,
                           std::string& bad_state);

  /// A session row as the claim reads it.
  struct row {
    std::int64_t sid = 0;
    stored_session s;
    std::string scope;
  };

  error fail(int rc, const std::string& what) const {
    return sqlite_error(db_.get(), rc, what, path_);
  }

  /// Runs the write `f` (a result<T>) with the busy wait this store allows
  /// now (sqlite_writer.cpp): once a write waited the whole timeout for
  /// another process's write lock (a stopped server), the next ones wait
  /// briefly, so the reads queued behind them stay quick; a busy error
  /// names the lock's holder. Registers a deferred instance first.
  template <class T, class F>
  result<T> writing(F&& f) {
    if (auto err = writes_refused())
      return std::move(*err);
    if (auto err = before_write())
      return std::move(*err);
    // The write lock's hold: the transaction, less its waits for it.
    auto t0 = std::chrono::steady_clock::now();
    auto slept0 = busy_->slept_us;
    auto r = f();
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    ++writes_;
    held_us_ += static_cast<std::uint64_t>(took)
                - std::min<std::uint64_t>(static_cast<std::uint64_t>(took),
                                          busy_->slept_us - slept0);
    if (auto* err = std::get_if<error>(&r)) {
      after_write(err);
      return r;
    }
    after_write(nullptr);
    // Appends' checkpoints run on the journal's checkpointer; a server
    // that writes nothing else (MCP sessions only) checkpoints here.
    if (wal_sync_ && !in_append_ && wal_sync_->checkpoint_due())
      (void) wal_sync_->checkpoint();
    // Committed; durable once the WAL is synced, outside the write lock.
    if (wal_sync_ && !skip_sync_)
      if (auto s = wal_sync_->sync(); std::holds_alternative<error>(s))
        return std::move(std::get<error>(s));
    return r;
  }
  std::optional<error> before_write();
  void after_write(error* err);
  /// After a failed deferred sync (sqlite_wal_sync::sync) the store writes
  /// nothing more: which commits are durable is unknown until a restart,
  /// and no later sync could be trusted to say. Reads go on.
  std::optional<error> writes_refused() const {
    auto failed = wal_sync_ ? wal_sync_->failed() : std::nullopt;
    if (!failed)
      return std::nullopt;
    return error{error_kind::sync_failed,
                 "journal " + path_ + ": writes are refused since a sync of "
                   "its WAL to disk failed (" + failed->message
                   + "); restart the server"};
  }

  error rejected(const std::string& why) const {
    return {error_kind::rejected,
            "journal " + path_ + ": " + why + "; the batch was not written"};
  }

  int prepare(stmt_ptr& out, const std::string& sql);
  std::optional<error> run(const stmt_ptr& s, const std::string& what);
  /// COMMITs a write transaction; if that fails, overwrites what it may
  /// have left in the WAL (see sqlite_store.cpp).
  std::optional<error> commit_write(const std::string& what);
  std::optional<error> read_sessions(stmt_use& use,
                                     std::vector<stored_session>& out,
                                     const std::string& what);
  /// One row of `claim_select_` or `claim_by_key_`, if any.
  result<std::optional<row>> read_claim_row(const claim_request& req);
  std::optional<error>
  undo_latest(const event& ev, std::int64_t sid);
  std::optional<error> room_for_open(const std::string& principal,
                                    const std::string& what);
  std::optional<error> key_free(const event& ev, const std::string& what);
  std::optional<error>
  read_events_of(stored_session& s, const std::string& what,
                 std::optional<std::int64_t> known_sid = std::nullopt);
  std::optional<error> append_one(const event& ev);

  // Members go in reverse: statements, then the connection, then the lock
  // and what the connection's busy handler writes to.
  std::unique_ptr<busy_stats> busy_;
  dir_lock lock_;
  std::string path_;
  db_ptr db_;
  std::int64_t instance_;
  std::size_t max_open_;
  std::int64_t max_age_ns_;
  std::int64_t max_idle_ns_;
  std::size_t max_per_principal_;
  bool full_sync_;
  /// A write waited the whole busy timeout: writes wait briefly until one
  /// gets through.
  bool writer_stuck_ = false;
  /// See defer_sync; `skip_sync_`: this write's sync is someone else's
  /// (append_unsynced, an MCP session's write).
  std::shared_ptr<sqlite_wal_sync> wal_sync_;
  bool skip_sync_ = false;
  bool in_append_ = false;
  std::uint64_t writes_ = 0;
  std::uint64_t held_us_ = 0;
  bool instance_pending_ = false;
  bool planned_registration_ = false; ///< deferred by choice, not a lock
  std::string pending_label_;
  stmt_ptr begin_;
  stmt_ptr begin_read_;
  stmt_ptr commit_;
  stmt_ptr insert_session_;
  stmt_ptr count_open_;
  stmt_ptr count_open_of_; ///< open sessions: all, and one principal's
  stmt_ptr key_holder_; ///< the session an idempotency key names already
  stmt_ptr session_owner_;
  stmt_ptr insert_event_;
  stmt_ptr advance_session_;
  stmt_ptr close_session_;
  stmt_ptr session_events_;
  stmt_ptr undo_target_;     ///< time_undo: the latest standing change
  stmt_ptr mark_undone_;
  stmt_ptr reopen_session_;  ///< an undone end
  stmt_ptr unnote_task_edits_;
  stmt_ptr claim_select_;
  stmt_ptr claim_by_key_;
  stmt_ptr touch_held_;
  stmt_ptr release_;
  stmt_ptr note_task_name_;
  stmt_ptr note_task_edits_; ///< a bulk edit's tasks in the list row
  stmt_ptr json_values_; ///< the values of a JSON array (a row's tags)
  stmt_ptr tasks_done_;
  stmt_ptr run_events_; ///< a session's task and closing events
  stmt_ptr store_runs_; ///< packs a closed session's runs into its row
  stmt_ptr read_runs_;  ///< the runs a row keeps
  // Preferences and focus sessions (sqlite_principal.cpp), prepared on
  // first use.
  stmt_ptr prefs_select_;
  stmt_ptr prefs_upsert_;
  stmt_ptr prefs_delete_;
  stmt_ptr focus_open_;
  stmt_ptr focus_insert_;
  stmt_ptr focus_close_;
  // MCP sessions, prepared on first use.
  stmt_ptr mcp_put_;
  stmt_ptr mcp_get_;
  stmt_ptr mcp_touch_;
  stmt_ptr mcp_remove_;
  stmt_ptr mcp_due_;
};

} // namespace ttm::storage::detail
