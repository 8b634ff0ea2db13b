#pragma once

// Per-operation figures of one bench thread, merged at the end, and the
// shared log of error messages.

#include "histogram.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ttb {

/// One row of the report: a JSON-RPC method, `tools/call NAME`, `DELETE`, or
/// a whole scenario iteration (`[workflow]`).
struct op_stats {
  std::string name;
  std::uint64_t count = 0;  ///< replies in the measured window
  std::uint64_t errors = 0; ///< failed or invalid replies, at any time
  histogram latency;        ///< of the valid replies in the window, ns
};

/// The first error messages of a run (every thread writes here), printed to
/// stderr as they happen, and the total.
class error_log {
public:
  explicit error_log(std::size_t keep) : keep_(keep) {
  }
  void add(const std::string& op, const std::string& message);
  std::vector<std::string> messages() const;
  std::uint64_t total() const noexcept {
    return total_.load();
  }

private:
  std::size_t keep_;
  std::atomic<std::uint64_t> total_{0};
  mutable std::mutex mtx_;
  std::vector<std::string> messages_;
};

/// The operations of one thread (no locks: one thread writes it).
class op_table {
public:
  explicit op_table(error_log& errors) : errors_(&errors) {
  }

  op_stats& op(const std::string& name);

  void record(const std::string& name, std::uint64_t latency_ns) {
    auto& s = op(name);
    ++s.count;
    s.latency.record(latency_ns);
  }

  /// Counts an error for `name`; `counted`: also a reply in the window.
  void error(const std::string& name, const std::string& message,
             bool counted);

  /// Open loop: how late a measured request was handed to the connection,
  /// from its due time (the timer's wake-up, the bench's own backlog, or
  /// the client's previous reply still awaited). Part of its latency.
  void record_send_lag(std::uint64_t ns) noexcept {
    send_lag_.record(ns);
  }
  const histogram& send_lag() const noexcept {
    return send_lag_;
  }

  void merge(const op_table& other);

  /// The rows in report order: set-up methods, tool calls in workflow
  /// order, teardown, then scenario iterations.
  std::vector<const op_stats*> rows() const;

private:
  error_log* errors_;
  std::vector<std::unique_ptr<op_stats>> ops_;
  std::unordered_map<std::string, op_stats*> index_;
  histogram send_lag_;
};

} // namespace ttb
