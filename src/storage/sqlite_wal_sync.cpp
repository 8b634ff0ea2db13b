#include "storage/sqlite_wal_sync.hpp"

#include "storage/sqlite_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ttm::storage::detail {

sqlite_wal_sync::sqlite_wal_sync(std::string db_path, int (*sync_file)(int))
  : db_(std::move(db_path)),
    wal_(db_ + "-wal"),
    sync_file_(sync_file != nullptr ? sync_file : &::fdatasync) {
  // nop
}

sqlite_wal_sync::~sqlite_wal_sync() {
  close();
}

void sqlite_wal_sync::close() {
  std::lock_guard<std::mutex> guard{ckpt_m_};
  closed_ = true;
  if (ckpt_db_ != nullptr)
    sqlite3_close_v2(ckpt_db_);
  ckpt_db_ = nullptr;
}

int sqlite_wal_sync::on_commit(void* self, sqlite3*, const char*, int pages) {
  static_cast<sqlite_wal_sync*>(self)->wal_pages_.store(
    pages, std::memory_order_relaxed);
  return SQLITE_OK;
}

bool sqlite_wal_sync::checkpoint_due() {
  // After a failed sync, nothing copies the WAL (whose frames may not be
  // on disk) into the database: the restart decides.
  if (failed())
    return false;
  if (wal_pages_.load(std::memory_order_relaxed) < checkpoint_pages)
    return false;
  bool idle = false;
  return checkpointing_.compare_exchange_strong(idle, true);
}

result<ok> sqlite_wal_sync::checkpoint() {
  std::lock_guard<std::mutex> guard{ckpt_m_};
  struct done_t {
    sqlite_wal_sync* self;
    ~done_t() {
      // Until the next commit says otherwise: nothing due.
      self->wal_pages_.store(0, std::memory_order_relaxed);
      self->checkpointing_.store(false);
    }
  } done{this};
  if (closed_)
    return ok{};
  if (ckpt_db_ == nullptr) {
    sqlite3* raw = nullptr;
    auto rc = sqlite3_open_v2(db_.c_str(), &raw,
                              SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                              nullptr);
    if (rc != SQLITE_OK) {
      auto e = sqlite_error(raw, rc, "cannot checkpoint the journal", db_);
      sqlite3_close_v2(raw);
      return e;
    }
    // Its own checkpoint only: never on close (the journal's connection
    // decides that), FULL syncs of WAL and database around the copy.
    sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    sqlite3_wal_autocheckpoint(raw, 0);
    // A connection is in WAL mode once it has read: until then a
    // checkpoint does nothing.
    if (rc = sqlite3_exec(raw, "SELECT 1 FROM sqlite_master LIMIT 1",
                          nullptr, nullptr, nullptr);
        rc != SQLITE_OK) {
      auto e = sqlite_error(raw, rc, "cannot checkpoint the journal", db_);
      sqlite3_close_v2(raw);
      return e;
    }
    ckpt_db_ = raw;
  }
  int log = 0;
  int copied = 0;
  auto rc = sqlite3_wal_checkpoint_v2(ckpt_db_, "main",
                                      SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
  // Busy: another process checkpoints now; it does the work.
  if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY)
    return sqlite_error(ckpt_db_, rc, "cannot checkpoint the journal", db_);
  return ok{};
}

result<ok> sqlite_wal_sync::sync() {
  std::lock_guard<std::mutex> guard{m_};
  if (failed_) // never retried: see the header
    return *failed_;
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
  if (sync_file_(fd_.get()) != 0) {
    failed_ = errno_error(errno, "cannot sync the journal's WAL", wal_);
    failed_->kind = error_kind::sync_failed;
    has_failed_.store(true);
    return *failed_;
  }
  ++syncs_;
  return ok{};
}

std::optional<error> sqlite_wal_sync::failed() const {
  // Set once and never cleared: past the flag, m_ is no longer held long.
  if (!has_failed_.load())
    return std::nullopt;
  std::lock_guard<std::mutex> guard{m_};
  return failed_;
}

std::uint64_t sqlite_wal_sync::count() const {
  std::lock_guard<std::mutex> guard{m_};
  return syncs_;
}

} // namespace ttm::storage::detail
