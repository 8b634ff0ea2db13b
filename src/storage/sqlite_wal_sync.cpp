#include "storage/sqlite_wal_sync.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ttm::storage::detail {

sqlite_wal_sync::sqlite_wal_sync(std::string db_path)
  : wal_(std::move(db_path) + "-wal") {
  // nop
}

result<ok> sqlite_wal_sync::sync() {
  std::lock_guard<std::mutex> guard{m_};
  // The file SQLite writes now: the descriptor is this process's own (no
  // POSIX lock is ever taken on a WAL, so closing it drops none of
  // SQLite's), reopened if the WAL was deleted and created anew.
  struct stat now {};
  if (::stat(wal_.c_str(), &now) != 0) {
    if (errno == ENOENT)
      return ok{}; // checkpointed whole (synced by SQLite) and deleted
    return errno_error(errno, "cannot sync the journal's WAL", wal_);
  }
  struct stat held {};
  if (fd_.get() < 0 || ::fstat(fd_.get(), &held) != 0
      || held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
    unique_fd fd{::open(wal_.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.get() < 0) {
      if (errno == ENOENT)
        return ok{};
      return errno_error(errno, "cannot sync the journal's WAL", wal_);
    }
    fd_ = std::move(fd);
  }
  if (::fdatasync(fd_.get()) != 0)
    return errno_error(errno, "cannot sync the journal's WAL", wal_);
  ++syncs_;
  return ok{};
}

std::uint64_t sqlite_wal_sync::count() const {
  std::lock_guard<std::mutex> guard{m_};
  return syncs_;
}

} // namespace ttm::storage::detail
