#pragma once

// The embedded backend: one SQLite file, <dir>/journal.sqlite3, in WAL mode,
// shared by every server on <dir> (see dir_lock.hpp for how they see each
// other alive).

#include "storage/dir_lock.hpp"
#include "storage/store.hpp"

#include <chrono>
#include <cstddef>
#include <string>

namespace ttm::storage {

/// The journal schema version this build writes (PRAGMA user_version): an
/// older file is migrated to it, a newer one refused.
constexpr int journal_schema_version = 11;

enum class sync_mode {
  /// WAL synced at checkpoints only: survives a killed process, may lose the
  /// last commits on power loss or an OS crash.
  normal,
  /// WAL synced at every commit: survives power loss too.
  full,
};

struct sqlite_options {
  std::string dir;   ///< data directory; created 0700 (parents too) if missing
  sync_mode sync = sync_mode::full;
  std::string instance; ///< free text for diagnostics, stored in `meta`
  /// How long to wait for a server of an older version holding the
  /// directory to exit before giving up with `locked`.
  std::chrono::milliseconds lock_wait{0};
  /// Open sessions the directory may hold over all its servers (0: no
  /// limit): a session_started beyond it fails with `limit`.
  std::size_t max_open_sessions = 0;
  /// Open sessions one principal may hold in the directory over all its
  /// servers (0: no limit): a session_started (or an undone end) beyond it
  /// fails with `limit`.
  std::size_t max_open_per_principal = 0;
  /// The limits an `if_due` expiry is checked against (0: not checked).
  std::chrono::seconds max_age{0};
  std::chrono::seconds max_idle{0};
  /// The SQLite VFS to open the journal with, by its registered name;
  /// empty: SQLite's default. The fault-injection tests choose theirs.
  std::string vfs{};
  /// sync_mode::full: commit with synchronous = NORMAL and sync the WAL
  /// after the COMMIT, outside the write lock (store::deferred_sync); every
  /// write but append_unsynced() still syncs before it returns. The server
  /// sets it; SQLite's own sync (FULL) otherwise.
  bool defer_sync = false;
  /// defer_sync: the call that syncs the WAL file, fdatasync(2) when null.
  /// The fault tests inject a failing one here (the fault VFS does not see
  /// this sync: SQLite makes no call for it).
  int (*sync_file)(int fd) = nullptr;
  /// Register this server (its instance number) at its first write, not at
  /// the open: a process that only reads (a short-lived stdio server whose
  /// one call reads its caller's preferences) then writes nothing, so its
  /// open and close cost no write and no sync. Reads work meanwhile; no
  /// session is held before a write (a claim) anyway.
  bool register_at_first_write = false;
};

/// Creates `opts.dir` (0700, parents too) if missing and locks it, waiting
/// up to `opts.lock_wait` for an older server to let go (see dir_lock.hpp).
inline result<dir_lock> lock_data_dir(const sqlite_options& opts) {
  return lock_data_dir(opts.dir, opts.lock_wait);
}

/// Opens or creates the journal in the directory `lock` holds, migrates its
/// schema and registers a new instance. Errors: newer_schema and corrupt (the
/// file is left untouched), read_only, full, io; the message names the path.
result<store_ptr> open_sqlite(const sqlite_options& opts, dir_lock lock);

/// Both steps.
result<store_ptr> open_sqlite(const sqlite_options& opts);

} // namespace ttm::storage
