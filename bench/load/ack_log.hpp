#pragma once

// --ack-log FILE: one line per acknowledged state change, for checking a
// server's journal after the fact (bench/tools/journal_check.cpp reads it).
//
// A line is written when a state-changing tool call (time_session_start,
// time_task_start, time_task_end, time_session_end) got a valid reply that
// is not an error: the server said the change happened. Tab-separated:
//
//   TOOL <TAB> SESSION_ID <TAB> TASK_ID or - <TAB> STATUS or -
//
// STATUS is the `status` of a time_task_end reply (completed, skipped), "-"
// otherwise. Lines from several bench threads interleave; each line is
// whole. Buffered: the file is complete once close() returns (the bench is
// not the process a kill test kills).

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace ttb {

class ack_log {
public:
  /// Opens `path` for appending; nullptr and `error` set when it cannot.
  static std::unique_ptr<ack_log> open(const std::string& path,
                                       std::string& error);

  ~ack_log();
  ack_log(const ack_log&) = delete;
  ack_log& operator=(const ack_log&) = delete;

  /// Appends one line; empty `task` or `status` are written as "-".
  /// Thread-safe.
  void add(std::string_view tool, std::string_view session,
           std::string_view task, std::string_view status);

  /// Flushes and closes the file; false and `error` set when a write
  /// failed (then some lines may be missing).
  bool close(std::string& error);

  std::uint64_t lines() const;
  const std::string& path() const noexcept {
    return path_;
  }

private:
  ack_log(std::FILE* f, std::string path);
  void fail(); ///< remembers the first failure's errno text

  mutable std::mutex mtx_;
  std::FILE* file_;
  std::string path_;
  std::uint64_t lines_ = 0;
  std::string failure_;
};

} // namespace ttb
