#pragma once

// The WAL's sync outside SQLite (--journal-sync full, deferred): the
// connection commits with synchronous = NORMAL (frames written, not
// synced; checkpoints and a restarted WAL's header are still synced by
// SQLite), and this fdatasyncs the WAL file after the COMMIT, outside the
// write lock and, for appends, on another thread. fdatasync covers every
// frame written to the file before it, by any process, so one sync makes
// every commit before it durable. Internal to src/storage.

#include "storage/store.hpp"
#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace ttm::storage::detail {

class sqlite_wal_sync final : public store::commit_sync {
public:
  /// `db_path`: the journal; its WAL is db_path + "-wal". `sync_file`:
  /// the call that syncs it (sqlite_options::sync_file; null: fdatasync).
  explicit sqlite_wal_sync(std::string db_path,
                           int (*sync_file)(int) = nullptr);

  /// fdatasync of the WAL. A WAL that is gone (the last connection
  /// checkpointed it fully and deleted it) has nothing left to sync.
  /// Once a sync failed, every later one fails with the same error and
  /// none is tried: after a failed fsync Linux may have dropped the
  /// dirty pages' error (and the pages), so a later success proves
  /// nothing (PostgreSQL's "fsyncgate"). Only a restart, which reads
  /// what the file holds, knows what is durable.
  result<ok> sync() override;
  /// The failed sync's error (sync() latched it), if any; never waits for
  /// a sync under way.
  std::optional<error> failed() const;

  /// Syncs so far (for the log).
  std::uint64_t count() const;

  /// Checkpoints off the journal's thread: the journal's connection runs
  /// with wal_autocheckpoint 0 and reports the WAL's size after each
  /// commit here (its WAL hook); past `checkpoint_pages` a checkpoint is
  /// due, run by checkpoint() on a connection of its own.
  static int on_commit(void* self, sqlite3*, const char*, int pages);
  bool checkpoint_due() override;
  result<ok> checkpoint() override;
  ~sqlite_wal_sync() override;
  /// Closes the checkpoint's connection (waiting for one that runs) and
  /// runs no more: before the journal's own connection closes, which then
  /// checkpoints and deletes the WAL when it is the last one, as SQLite
  /// does.
  void close();

  /// SQLite's default wal_autocheckpoint.
  static constexpr int checkpoint_pages = 1000;

private:
  std::string db_;
  std::string wal_;
  mutable std::mutex m_;
  unique_fd fd_;
  int (*sync_file_)(int);
  std::optional<error> failed_; ///< see sync(); set once, under m_
  std::atomic<bool> has_failed_{false};
  std::uint64_t syncs_ = 0;
  std::atomic<int> wal_pages_{0};
  std::atomic<bool> checkpointing_{false};
  std::mutex ckpt_m_;
  sqlite3* ckpt_db_ = nullptr;
  bool closed_ = false;
};

} // namespace ttm::storage::detail
