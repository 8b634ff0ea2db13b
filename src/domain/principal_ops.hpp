#pragma once

// What the tools ask of a principal's stored state (preferences, focus
// sessions) and what they get back, in the domain's terms (instants as
// wall_time; storage/principal.hpp keeps nanoseconds and owns the
// semantics of each operation; journal/principal.cpp maps between them).

#include "domain/clock.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::domain {

/// A focus session (mark_session_start / _end), in history too. The
/// intent is its principal's private text: shown to it, never logged.
/// No milestone, tasks or tags; open until `end`; it never expires.
struct focus_row {
  std::string session_id;
  std::string intent;
  wall_time start;
  std::optional<wall_time> end;
  std::string summary;
};

/// A condition on the principal's stored preferences, checked by the store
/// in the transaction of the operation that carries it: the preference
/// `key` is stored with the JSON text `value`; `otherwise` when `key` is not
/// stored (see overlap_refused in preferences.hpp).
struct pref_test {
  std::string key;
  std::string value;
  bool otherwise = false;
};

struct principal_op {
  enum kind_t : std::uint8_t { read, set_prefs, focus_start, focus_end };
  kind_t kind = read;
  std::string principal;
  /// set_prefs: the keys to set (value JSON text; "null": back to the
  /// server's default), all or none.
  std::vector<std::pair<std::string, std::string>> prefs;
  /// focus_start: the new session (its id, intent, start). While another
  /// is open it is refused when `refuse_open` holds (the principal's
  /// overlap policy is "error"), else the open one is closed at the new
  /// start.
  focus_row start;
  pref_test refuse_open;
  /// focus_end: when, and the summary.
  wall_time now{};
  std::string summary;
};

struct principal_state {
  std::vector<std::pair<std::string, std::string>> prefs;
  /// The principal's most recent open focus session after the operation.
  std::optional<focus_row> open;
  /// focus_start: the session it auto-closed; focus_end: the one it closed.
  std::optional<focus_row> closed;
  /// focus_start with refuse_open and one open: "SESSION_ALREADY_OPEN";
  /// focus_end with none open: "NO_OPEN_SESSION"; nothing changed then.
  std::string refused;
};

} // namespace ttm::domain
