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
#include <string>

namespace ttm::storage::detail {

class sqlite_wal_sync final : public store::commit_sync {
public:
  /// `db_path`: the journal; its WAL is db_path + "-wal".
  explicit sqlite_wal_sync(std::string db_path);

  /// fdatasync of the WAL. A WAL that is gone (the last connection
  /// checkpointed it fully and deleted it) has nothing left to sync.
  result<ok> sync() override;

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
  std::uint64_t syncs_ = 0;
  std::atomic<int> wal_pages_{0};
  std::atomic<bool> checkpointing_{false};
  std::mutex ckpt_m_;
  sqlite3* ckpt_db_ = nullptr;
  bool closed_ = false;
};

} // namespace ttm::storage::detail
