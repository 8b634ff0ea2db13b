#pragma once

// A server's hold on its data directory, and how servers sharing it see each
// other alive. Both are kernel locks on <dir>/lock, dropped when the process
// dies however it dies; cheap, no SQLite.
//
// - An flock: shared by every server of this version. A server that finds
//   nobody else holds it exclusively for a moment (the WAL check before
//   SQLite's recovery needs that), then shares it. Versions before several
//   servers could share a directory hold it exclusively for good: they and
//   this version exclude each other.
// - A byte-range lock (open file description lock, F_OFD_SETLK) on byte N
//   for store instance N: `alive(N)` asks the kernel whether some process
//   still holds it, without waiting for any timeout.

#include "storage/store.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace ttm::storage {

/// The lock, held while it lives. Move-only.
class dir_lock {
public:
  dir_lock() = default;
  dir_lock(int fd, std::string dir, bool alone)
    : fd_(fd), dir_(std::move(dir)), alone_(alone) {
  }
  dir_lock(dir_lock&& other) noexcept;
  dir_lock& operator=(dir_lock&& other) noexcept;
  dir_lock(const dir_lock&) = delete;
  dir_lock& operator=(const dir_lock&) = delete;
  ~dir_lock();

  /// The directory, absolute and normalized.
  const std::string& dir() const noexcept {
    return dir_;
  }

  /// No other server held the directory when it was locked: until `share`,
  /// nobody else writes the journal (its WAL may be read as a file).
  bool alone() const noexcept {
    return alone_;
  }

  /// From exclusive to shared: other servers may use the directory now.
  /// Not atomic (flock converts by unlock + lock), so it may wait for an
  /// older server that slipped in; false (errno set) if it cannot.
  bool share();

  /// Marks store instance `n` alive for as long as this lock lives.
  std::optional<error> hold_instance(std::int64_t n);

  /// Whether some process holds instance `n` (this lock's own counts).
  bool alive(std::int64_t n) const;

  /// The instance `hold_instance` marked, 0 for none.
  std::int64_t instance() const noexcept {
    return instance_;
  }

private:
  int fd_ = -1;
  std::string dir_;
  bool alone_ = false;
  std::int64_t instance_ = 0;
};

/// Creates `dir` (0700, parents too) if missing and locks it: exclusively if
/// no other server uses it (`alone()`), else shared; waits up to `wait` for
/// a server of an older version, which holds directories exclusively, to let
/// go. Errors: locked (the message names the holder's pid), read_only, io.
result<dir_lock> lock_data_dir(const std::string& dir,
                               std::chrono::milliseconds wait);

} // namespace ttm::storage
