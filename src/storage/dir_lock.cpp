#include "storage/dir_lock.hpp"

#include "storage/sys_util.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <thread>

namespace ttm::storage {

namespace {

namespace fs = std::filesystem;
using detail::errno_error;
using detail::unique_fd;

// The waits below are for another server's start-up (its WAL check under
// the exclusive lock). Under ThreadSanitizer every process starts 5-15
// times slower, so a second TSan server gave up on the first and exited;
// the waits scale with the build, never in another one.
#if defined(__SANITIZE_THREAD__)
constexpr int slow_build_factor = 10; // gcc
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr int slow_build_factor = 10; // clang
#else
constexpr int slow_build_factor = 1;
#endif
#else
constexpr int slow_build_factor = 1;
#endif

/// mkdir -p with 0700 for every directory it creates.
std::optional<error> make_dirs(const fs::path& dir) {
  fs::path prefix;
  for (const auto& part : dir) {
    prefix /= part;
    if (part.empty() || part == prefix.root_path())
      continue;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return errno_error(errno, "cannot create the data directory",
                         prefix.string());
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return errno_error(errno, "cannot use the data directory", dir.string());
  if (!S_ISDIR(st.st_mode))
    return error{error_kind::io, "the data directory " + dir.string()
                                   + " is not a directory"};
  return std::nullopt;
}

/// The pid the current holder wrote into the lock file, or "unknown".
std::string holder_pid(int fd) {
  char buf[32] = {};
  auto n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i)
    pid += buf[i];
  return pid.empty() ? "unknown" : pid;
}

struct locked_fd {
  unique_fd fd;
  bool alone = false;
};

/// The flock on <dir>/lock, held for the store's lifetime: the kernel drops
/// it when the process dies, however it dies. Exclusive when nobody else
/// holds it, else shared; tried for up to `wait` while a server of an older
/// version holds it exclusively (a client restarting such a server gets the
/// directory once it exited). Another server of this version in the middle
/// of `share` holds it exclusively for a moment too.
result<locked_fd> lock_dir(const fs::path& dir,
                           std::chrono::milliseconds wait) {
  auto path = dir / "lock";
  unique_fd fd{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
  if (fd.get() < 0)
    return errno_error(errno, "cannot create the lock file", path.string());
  auto deadline = std::chrono::steady_clock::now() + wait * slow_build_factor;
  bool alone = false;
  int rc = 0;
  for (;;) {
    rc = ::flock(fd.get(), LOCK_EX | LOCK_NB);
    if (rc == 0) {
      alone = true;
      break;
    }
    if (errno == EWOULDBLOCK)
      rc = ::flock(fd.get(), LOCK_SH | LOCK_NB);
    if (rc == 0)
      break;
    if (errno == EINTR)
      continue;
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline)
      break; // errno still says why
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  if (rc != 0) {
    if (errno != EWOULDBLOCK)
      return errno_error(errno, "cannot lock", path.string());
    // Servers of this version hold it alone only for the moment they
    // check the WAL before SQLite opens it: past `wait` it is an older one.
    return error{error_kind::locked,
                 "another time-tracker-mcp (pid " + holder_pid(fd.get())
                   + ") holds the data directory " + dir.string()
                   + " for itself: a version from before servers shared a "
                     "directory; stop it (or upgrade it), or start this one "
                     "with --data-dir DIR or --ephemeral"};
  }
  if (alone) {
    // For the message above in an older server; the lock works without it.
    auto pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd.get(), 0) != 0
        || ::pwrite(fd.get(), pid.data(), pid.size(), 0)
             != static_cast<ssize_t>(pid.size()))
      return errno_error(errno, "cannot write the lock file", path.string());
  }
  return locked_fd{std::move(fd), alone};
}

/// One byte of the lock file per store instance: F_OFD_* locks belong to
/// the open file description, so they never mix with the flock above, and
/// two stores in one process (tests) see each other like two processes.
struct flock instance_range(std::int64_t n, short type) {
  struct flock fl{};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(n);
  fl.l_len = 1;
  return fl;
}

result<dir_lock> lock_impl(const std::string& data_dir,
                           std::chrono::milliseconds wait) {
  if (data_dir.empty())
    return error{error_kind::io, "no data directory given for the journal"};
  std::error_code ec;
  auto dir = fs::absolute(data_dir, ec).lexically_normal();
  if (ec)
    return error{error_kind::io, "cannot use the data directory " + data_dir
                                   + ": " + ec.message()};
  if (!dir.has_filename() && dir.has_parent_path() && dir != dir.root_path())
    dir = dir.parent_path(); // "/x/" -> "/x"
  if (auto err = make_dirs(dir))
    return std::move(*err);
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    return errno_error(errno, "cannot write to the data directory",
                       dir.string());
  auto lock = lock_dir(dir, wait);
  if (auto err = std::get_if<error>(&lock))
    return std::move(*err);
  auto& held = std::get<locked_fd>(lock);
  return dir_lock{held.fd.release(), dir.string(), held.alone};
}

} // namespace

dir_lock::dir_lock(dir_lock&& other) noexcept
  : fd_(std::exchange(other.fd_, -1)),
    dir_(std::move(other.dir_)),
    alone_(other.alone_),
    instance_(std::exchange(other.instance_, 0)) {
}

dir_lock& dir_lock::operator=(dir_lock&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(dir_, other.dir_);
  std::swap(alone_, other.alone_);
  std::swap(instance_, other.instance_);
  return *this;
}

dir_lock::~dir_lock() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool dir_lock::share() {
  if (!alone_)
    return true;
  // Up to 2 s for an older server that took the lock in between.
  for (int i = 0; i < 100 * slow_build_factor; ++i) {
    if (::flock(fd_, LOCK_SH | LOCK_NB) == 0) {
      alone_ = false;
      return true;
    }
    if (errno != EWOULDBLOCK && errno != EINTR)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  errno = EWOULDBLOCK;
  return false;
}

std::optional<error> dir_lock::hold_instance(std::int64_t n) {
  auto fl = instance_range(n, F_WRLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0)
    return errno_error(errno, "cannot mark this server alive in",
                       dir_ + "/lock");
  instance_ = n;
  return std::nullopt;
}

bool dir_lock::alive(std::int64_t n) const {
  if (n <= 0)
    return false;
  if (n == instance_)
    return true;
  auto fl = instance_range(n, F_WRLCK);
  // On an error, assume alive: taking a live server's session for dead
  // would only cost it a reload, but expiring it behind its back would not.
  if (::fcntl(fd_, F_OFD_GETLK, &fl) != 0)
    return true;
  return fl.l_type != F_UNLCK;
}

result<dir_lock> lock_data_dir(const std::string& dir,
                               std::chrono::milliseconds wait) {
  return detail::guarded("cannot lock the data directory", dir,
                         [&] { return lock_impl(dir, wait); });
}

} // namespace ttm::storage
