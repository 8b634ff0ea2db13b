#pragma once

// What the tools ask of a principal's stored state (preferences, focus
// sessions) and what they get back: the tools' view of storage's
// principal_op / principal_state (the journal layer converts; see
// storage/principal.hpp for the semantics).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::domain {

/// A focus session. `intent` is the caller's private text: never logged.
struct focus_record {
  std::string session_id;
  std::string intent;
  std::int64_t started_wall_ns = 0;
  std::optional<std::int64_t> ended_wall_ns;
  std::string summary;
};

struct principal_op {
  enum kind_t : std::uint8_t { read, set_prefs, focus_start, focus_end };
  kind_t kind = read;
  std::string principal;
  /// set_prefs: the keys to set (value JSON text; "null": back to the
  /// server's default), all or none.
  std::vector<std::pair<std::string, std::string>> prefs;
  /// focus_start: the new session (its id, intent, start); `refuse_open`:
  /// the principal's overlap policy is "error" (refused when one is open,
  /// else the open one is closed at the new start).
  focus_record start;
  bool refuse_open = false;
  /// focus_end: when, and the summary.
  std::int64_t now_wall_ns = 0;
  std::string summary;
};

struct principal_state {
  std::vector<std::pair<std::string, std::string>> prefs;
  /// The principal's most recent open focus session after the operation.
  std::optional<focus_record> open;
  /// focus_start: the session it auto-closed; focus_end: the one it closed.
  std::optional<focus_record> closed;
  /// focus_start with refuse_open and one open: "SESSION_ALREADY_OPEN";
  /// focus_end with none open: "NO_OPEN_SESSION"; nothing changed then.
  std::string refused;
};

} // namespace ttm::domain
