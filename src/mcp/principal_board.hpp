#pragma once

// What the MCP sessions of one server share per principal, in memory: when
// its previous tool call arrived (get_time_context's
// time_since_last_prompt, idle_status), and, with --ephemeral, its
// preferences and focus sessions. Thread-safe: client actors of one
// principal run on any worker.

#include "domain/clock.hpp"
#include "storage/principal.hpp"

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ttm::mcp {

class principal_board {
public:
  /// Records a request of `principal` at `now`; returns the one before.
  std::optional<domain::wall_time> touch(const std::string& principal,
                                         domain::wall_time now) {
    std::lock_guard<std::mutex> guard{mtx_};
    auto [it, fresh] = last_.try_emplace(principal, now);
    if (fresh)
      return std::nullopt;
    return std::exchange(it->second, now);
  }

  /// --ephemeral: the principals' preferences and focus sessions.
  storage::principal_memory& memory() noexcept {
    return memory_;
  }

private:
  std::mutex mtx_;
  std::unordered_map<std::string, domain::wall_time> last_;
  storage::principal_memory memory_;
};

} // namespace ttm::mcp
