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

private:
  std::string wal_;
  mutable std::mutex m_;
  unique_fd fd_;
  std::uint64_t syncs_ = 0;
};

} // namespace ttm::storage::detail
