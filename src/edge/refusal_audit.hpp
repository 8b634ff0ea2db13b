#pragma once

// Which refusals at the HTTP edge (401, 403, 429) reach the audit trail: a
// flood of them must not flood the journal. Per client address at most one
// record per `interval`, and at most `per_second` records in all; the
// refusals left out are counted, and the count rides on the next record of
// the same address (or, past the global cap, the next record at all).
// Time is passed in (`now`), so tests need no clock. Thread-safe.

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ttm::edge {

class refusal_audit {
public:
  using time_point = std::chrono::steady_clock::time_point;

  struct limits {
    std::chrono::seconds interval{10};
    std::size_t per_second = 20;
    /// Addresses remembered; beyond, those past their interval are
    /// forgotten, then the cap turns records away (counted).
    std::size_t max_addresses = 4096;
  };

  refusal_audit() = default;
  explicit refusal_audit(limits l) : limits_(l) {
  }

  /// A refusal from `address` at `now`: when it is to be recorded, the
  /// refusals left out before it (to record with it); else none (it is
  /// counted instead).
  std::optional<std::size_t> admit(const std::string& address,
                                   time_point now);

private:
  struct entry {
    time_point last{};
    std::size_t suppressed = 0;
  };
  bool over_global_cap(time_point now);

  limits limits_;
  std::mutex mtx_;
  std::unordered_map<std::string, entry> by_address_;
  time_point second_{};
  std::size_t in_second_ = 0;
  /// Left out by the global cap (or a full table), not yet recorded.
  std::size_t global_suppressed_ = 0;
};

} // namespace ttm::edge
