#pragma once

// The supervisor's answer to a request for a tracking-session slot, as the
// tool that asked sees it: granted, or which limit refused it (so that
// LIMIT_REACHED can name it). A plain value: it crosses from the supervisor
// actor through the client actor and its MCP session into the tool.

#include <cstdint>
#include <string>
#include <utility>

namespace ttm::domain {

struct slot_answer {
  bool granted = false;
  /// When refused: the limit's option name (`max_tracking_sessions`,
  /// `max_tracking_sessions_per_principal`,
  /// `max_tracking_sessions_per_mcp_session`) and its value. Empty: the
  /// global cap, whose value the tool knows.
  std::string limit;
  std::uint64_t value = 0;

  slot_answer() = default;
  /// Granted or refused by the global cap.
  slot_answer(bool ok) : granted(ok) { // NOLINT: implicit, a plain yes/no
  }
  slot_answer(std::string refused_by, std::uint64_t limit_value)
    : limit(std::move(refused_by)), value(limit_value) {
  }
};

} // namespace ttm::domain
