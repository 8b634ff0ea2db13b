#pragma once

// A server's exclusive hold on its data directory: an flock on <dir>/lock,
// which the kernel drops when the process dies. Cheap: no SQLite.

#include "storage/store.hpp"

#include <chrono>
#include <string>
#include <utility>

namespace ttm::storage {

/// The lock, held while it lives. Move-only.
class dir_lock {
public:
  dir_lock() = default;
  dir_lock(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {
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

  /// Gives up ownership of the descriptor.
  int release() noexcept;

private:
  int fd_ = -1;
  std::string dir_;
};

/// Creates `dir` (0700, parents too) if missing and locks it, waiting up to
/// `wait` for another server to let go. Errors: locked (the message names
/// the holder's pid), read_only, io.
result<dir_lock> lock_data_dir(const std::string& dir,
                               std::chrono::milliseconds wait);

} // namespace ttm::storage
