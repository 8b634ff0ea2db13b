#pragma once

// A SQLite VFS for the storage fault tests (issue 34 item 3): registered as
// "ttm_fault" over the default "unix" VFS, it forwards every call and counts
// the calls of each kind below; armed, it fails the Nth call of one kind
// from the arming on (or that one and every later one: `sticky`) with the
// code a real fault gives. (SQLite asks a VFS to sync, lock and map, not
// for fsync, fdatasync or mmap by name: the unix VFS picks those.) A store
// opened with sqlite_options::vfs = fault_vfs::name() goes through it;
// every other connection does not.
//
// Single-threaded use: the counters are plain globals, as the tests that
// arm them run one store on one thread.

#include <array>
#include <cstdint>
#include <string>

namespace ttm::test::fault_vfs {

enum class kind {
  write,     ///< xWrite (database, WAL)
  /// xSync: the unix VFS's fdatasync(2) of the file where the system has
  /// it (Linux; else fsync), and fsync(2) of the directory after a create.
  sync,
  lock,      ///< xLock (the database file's POSIX locks)
  shm_map,   ///< xShmMap: mapping the WAL index (mmap)
  shm_lock,  ///< xShmLock: the WAL index's locks
  truncate,  ///< xTruncate
  read,      ///< xRead
};

constexpr std::size_t kinds = 7;

const char* to_string(kind k);

/// Registers the VFS (once; not as the default) and returns its name.
const char* name();

/// Calls of each kind since the last reset.
using counts = std::array<std::uint64_t, kinds>;
counts counted();

/// Counters to zero, nothing armed.
void reset();

/// From now on, the `nth` (1-based) call of `k` fails with `code` (an
/// extended SQLite code such as SQLITE_IOERR_WRITE); `sticky`: so does
/// every later one until disarm().
void arm(kind k, std::uint64_t nth, int code, bool sticky = false);

/// Stops failing (the fault clears); counting goes on.
void disarm();

/// How many calls failed since the last arm().
std::uint64_t fired();

/// Disarms when it goes out of scope, even on a failed REQUIRE.
struct disarm_at_exit {
  disarm_at_exit() = default;
  ~disarm_at_exit() {
    disarm();
  }
  disarm_at_exit(const disarm_at_exit&) = delete;
  disarm_at_exit& operator=(const disarm_at_exit&) = delete;
};

} // namespace ttm::test::fault_vfs
