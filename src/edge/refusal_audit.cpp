#include "edge/refusal_audit.hpp"

namespace ttm::edge {

bool refusal_audit::over_global_cap(time_point now) {
  if (now - second_ >= std::chrono::seconds{1}) {
    second_ = now;
    in_second_ = 0;
  }
  return in_second_ >= limits_.per_second;
}

std::optional<std::size_t> refusal_audit::admit(const std::string& address,
                                                time_point now) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = by_address_.find(address);
  if (it == by_address_.end() && by_address_.size() >= limits_.max_addresses) {
    for (auto i = by_address_.begin(); i != by_address_.end();) {
      if (now - i->second.last >= limits_.interval && i->second.suppressed == 0)
        i = by_address_.erase(i);
      else
        ++i;
    }
  }
  if (it == by_address_.end()) {
    if (by_address_.size() >= limits_.max_addresses) {
      ++global_suppressed_;
      return std::nullopt;
    }
    // New: recorded unless the global cap says no.
    it = by_address_.emplace(address, entry{}).first;
    it->second.last = now - limits_.interval;
  }
  auto& e = it->second;
  if (now - e.last < limits_.interval || over_global_cap(now)) {
    ++e.suppressed;
    return std::nullopt;
  }
  ++in_second_;
  e.last = now;
  auto left_out = e.suppressed + global_suppressed_;
  e.suppressed = 0;
  global_suppressed_ = 0;
  return left_out;
}

} // namespace ttm::edge
