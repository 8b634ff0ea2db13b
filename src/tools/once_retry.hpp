#pragma once

// std::call_once for a callable that may throw: a throw leaves it not done,
// and the next caller tries again. Not std::call_once itself: libstdc++
// runs it on pthread_once, and ThreadSanitizer's pthread_once does not
// reset the flag when the callable throws, so the next caller waited
// forever (tool_schema_test's retry case hung the TSan pass); libstdc++ has
// the same bug on some targets (GCC PR 66146).

#include <atomic>
#include <mutex>

namespace ttm::tools {

class once_retry {
public:
  template <class F>
  void call(F&& f) {
    if (done_.load(std::memory_order_acquire))
      return;
    std::lock_guard<std::mutex> lock{mutex_};
    if (done_.load(std::memory_order_relaxed))
      return;
    f();
    done_.store(true, std::memory_order_release);
  }

private:
  std::mutex mutex_;
  std::atomic<bool> done_{false};
};

} // namespace ttm::tools
