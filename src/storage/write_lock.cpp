#include "storage/write_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>

namespace ttm::storage::detail {

namespace {

/// WALINDEX_LOCK_OFFSET (120) + WAL_WRITE_LOCK (0): sqlite3's wal.c and
/// os_unix.c (UNIX_SHM_BASE).
constexpr off_t wal_write_lock_byte = 120;

/// One descriptor per -shm file, opened on first use and never closed:
/// closing any descriptor of a file drops every POSIX lock this process
/// holds on it, SQLite's own included.
int shm_fd(const std::string& shm) {
  static std::mutex m;
  static std::map<std::string, int> fds;
  std::lock_guard<std::mutex> guard{m};
  if (auto i = fds.find(shm); i != fds.end())
    return i->second;
  int fd = ::open(shm.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    fds.emplace(shm, fd);
  return fd;
}

} // namespace

std::int64_t write_lock_holder(const std::string& db_path) {
  int fd = shm_fd(db_path + "-shm");
  if (fd < 0)
    return 0;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = wal_write_lock_byte;
  fl.l_len = 1;
  // The open file description query sees this process's locks too (and
  // names a POSIX holder's pid); plain F_GETLK where it is missing.
  int rc = ::fcntl(fd, F_OFD_GETLK, &fl);
  if (rc != 0 && errno == EINVAL) {
    fl = {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = wal_write_lock_byte;
    fl.l_len = 1;
    rc = ::fcntl(fd, F_GETLK, &fl);
  }
  if (rc != 0 || fl.l_type == F_UNLCK || fl.l_pid <= 0)
    return 0;
  return fl.l_pid;
}

} // namespace ttm::storage::detail
