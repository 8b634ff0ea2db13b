#include "storage/change_signal.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ttm::storage {

namespace {

constexpr std::size_t file_size = change_signal::slots * sizeof(std::uint64_t);

// Shared between processes through the mapping: only lock-free atomics are
// address-free (the standard's note on lock-free atomics in shared memory).
static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the change signal needs lock-free 64-bit atomics");
static_assert(sizeof(std::atomic<std::uint64_t>) == sizeof(std::uint64_t),
              "one counter per 8 bytes of the file");

} // namespace

std::shared_ptr<change_signal> change_signal::open(const std::string& path,
                                                   std::string& why) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  // Grown, never shrunk: a file another server maps keeps its counters
  // (new pages read as zeros, which only makes a reader ask once more).
  if (::fstat(fd, &st) != 0
      || (static_cast<std::size_t>(st.st_size) < file_size
          && ::ftruncate(fd, file_size) != 0)) {
    why = "cannot size " + path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  void* p = ::mmap(nullptr, file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   0);
  ::close(fd); // the mapping stays
  if (p == MAP_FAILED) {
    why = "cannot map " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::shared_ptr<change_signal>(
    new change_signal(static_cast<std::atomic<std::uint64_t>*>(p), true));
}

std::shared_ptr<change_signal> change_signal::in_memory() {
  // Mapped as the file is, so that the destructor is the same.
  void* p = ::mmap(nullptr, file_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return nullptr;
  return std::shared_ptr<change_signal>(
    new change_signal(static_cast<std::atomic<std::uint64_t>*>(p), false));
}

std::size_t change_signal::slot_of(const std::string& id) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<std::size_t>(h % slots);
}

change_signal::~change_signal() {
  ::munmap(static_cast<void*>(words_), file_size);
}

} // namespace ttm::storage
