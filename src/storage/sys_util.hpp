#pragma once

// What the storage backend's files share about the OS: a descriptor owner
// and errno turned into a storage error. Internal to src/storage.

#include "storage/store.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

namespace ttm::storage::detail {

class unique_fd {
public:
  unique_fd() = default;
  explicit unique_fd(int fd) : fd_(fd) {
    // nop
  }
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {
    // nop
  }
  unique_fd& operator=(unique_fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~unique_fd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const {
    return fd_;
  }
  int release() noexcept {
    return std::exchange(fd_, -1);
  }

private:
  int fd_ = -1;
};

inline error_kind kind_of_errno(int e) {
  switch (e) {
    case EACCES:
    case EPERM:
    case EROFS:
      return error_kind::read_only;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return error_kind::full;
    default:
      return error_kind::io;
  }
}

inline error errno_error(int e, const std::string& what,
                         const std::string& path) {
  return {kind_of_errno(e), what + " " + path + ": " + std::strerror(e)};
}

/// Runs `f`, turning an exception into an io error naming `what` and `path`.
template <class F>
auto guarded(const std::string& what, const std::string& path, F f)
  -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& ex) {
    return error{error_kind::io, what + " " + path + ": " + ex.what()};
  } catch (...) {
    return error{error_kind::io, what + " " + path + ": unknown exception"};
  }
}

} // namespace ttm::storage::detail
