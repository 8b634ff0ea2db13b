// The SQLite store's writes against a stuck writer: a server stopped or
// frozen inside a write transaction (SIGSTOP, a debugger, a suspended
// laptop) holds the journal's write lock until it resumes. Reads never
// need it (WAL snapshots); writes wait the busy timeout once, then only
// briefly until one gets through, and their error names the holder.

#include "storage/sqlite_store_impl.hpp"

#include "log.hpp"
#include "storage/sqlite_schema.hpp"
#include "storage/write_lock.hpp"

#include <csignal>
#include <cstdlib>
#include <unistd.h>
#include <utility>

namespace ttm::storage::detail {

std::optional<error> sqlite_store::before_write() {
  busy_->limit_us = writer_stuck_ ? stuck_wait_us : busy_timeout_us;
  if (!instance_pending_)
    return std::nullopt;
  auto n = next_instance(db_.get(), path_, pending_label_);
  if (auto* err = std::get_if<error>(&n)) {
    after_write(err);
    return std::move(*err);
  }
  auto number = std::get<std::int64_t>(n);
  if (auto err = lock_.hold_instance(number)) {
    busy_->limit_us = busy_timeout_us;
    return err;
  }
  instance_ = number;
  instance_pending_ = false;
  writer_stuck_ = false;
  if (!std::exchange(planned_registration_, false))
    TTM_LOG(info, "storage",
            "the journal's write lock was let go of: registered as instance "
              + std::to_string(number) + "; writes work again");
  return std::nullopt;
}

void sqlite_store::after_write(error* err) {
  busy_->limit_us = busy_timeout_us;
  if (err == nullptr || err->kind != error_kind::busy) {
    // Fenced, limit or rejected got the lock too.
    if (writer_stuck_)
      TTM_LOG(info, "storage", "the journal " + path_
                                 + " takes writes again (its write lock "
                                   "was let go of)");
    writer_stuck_ = false;
    return;
  }
  err->holder_pid = write_lock_holder(path_);
  if (err->holder_pid > 0)
    err->message += "; process " + std::to_string(err->holder_pid)
                    + " holds the journal's write lock (stopped or frozen?):"
                      " reads still work, writes wait until it resumes or"
                      " exits";
  if (!writer_stuck_)
    TTM_LOG(warning, "storage",
            "a write waited " + std::to_string(busy_timeout_us / 1000)
              + " ms for the journal's write lock"
              + (err->holder_pid > 0
                   ? " held by process " + std::to_string(err->holder_pid)
                   : std::string{})
              + ": until a write gets through, writes wait at most "
              + std::to_string(stuck_wait_us / 1000)
              + " ms and fail as busy; reads are served meanwhile");
  writer_stuck_ = true;
}

void stop_in_write_if_asked() {
  // Test hook (tests/integration/frozen_server.test.mjs): stop this
  // process inside a write transaction, holding the write lock, as a
  // debugger or SIGSTOP would. One-shot: the file is removed first.
  static const char* trigger = std::getenv("TTM_TEST_STOP_IN_WRITE");
  if (trigger == nullptr || *trigger == '\0' || ::unlink(trigger) != 0)
    return;
  ::raise(SIGSTOP);
}

} // namespace ttm::storage::detail
