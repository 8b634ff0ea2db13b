#pragma once

// How many heavy calls (tools::cost::heavy: a 500-task summary, a
// 100-operation edit) one principal runs at once on an HTTP server's
// workers. Without a bound, a client looping over heavy calls on as many
// connections as there are workers holds every worker, and a light call's
// next step (a journal reply is answered on a worker) waits behind a
// render (issue 34 item 5: summaries_500). A principal's heavy calls past
// its share wait here, in order, and start as its earlier ones end; other
// principals' calls, light or heavy, do not wait for them. Thread-safe:
// client actors of one principal run on any thread.

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace ttm::mcp {

class heavy_gate {
public:
  /// `share`: heavy calls one principal runs at once (at least 1).
  explicit heavy_gate(std::size_t share) : share_(share > 0 ? share : 1) {
  }

  /// The workers' count less one, so that a principal's heavy calls leave
  /// a worker to everyone else (1 with 1 or 2 workers).
  static std::size_t share_for(std::size_t workers) {
    return workers > 2 ? workers - 1 : 1;
  }

  /// Enters `who` (a client, until leave) for `principal`: true, it may run
  /// now; false, it waits, and `wake` is called (on the thread of the
  /// leave that made room; it must not call back into the gate) when it
  /// may.
  bool enter(const std::string& principal, const void* who,
             std::function<void()> wake) {
    std::lock_guard<std::mutex> guard{mtx_};
    auto& line = lines_[principal];
    if (line.running < share_) {
      ++line.running;
      return true;
    }
    line.waiting.emplace_back(who, std::move(wake));
    return false;
  }

  /// `who` is done with its heavy call, or gone while it waited: its place
  /// goes to the principal's next waiting call.
  void leave(const std::string& principal, const void* who) {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      auto it = lines_.find(principal);
      if (it == lines_.end())
        return;
      auto& line = it->second;
      for (auto w = line.waiting.begin(); w != line.waiting.end(); ++w)
        if (w->first == who) { // gone before its turn
          line.waiting.erase(w);
          return;
        }
      if (line.waiting.empty()) {
        if (--line.running == 0)
          lines_.erase(it); // no entry per principal ever seen
        return;
      }
      wake = std::move(line.waiting.front().second); // keeps its place
      line.waiting.pop_front();
    }
    wake();
  }

  /// Heavy calls of `principal` running and waiting (for the tests).
  std::pair<std::size_t, std::size_t> load(const std::string& principal) {
    std::lock_guard<std::mutex> guard{mtx_};
    auto it = lines_.find(principal);
    if (it == lines_.end())
      return {0, 0};
    return {it->second.running, it->second.waiting.size()};
  }

private:
  struct line {
    std::size_t running = 0;
    std::deque<std::pair<const void*, std::function<void()>>> waiting;
  };
  std::size_t share_;
  std::mutex mtx_;
  std::unordered_map<std::string, line> lines_;
};

} // namespace ttm::mcp
