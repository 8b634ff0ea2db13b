#pragma once

// What the journal keeps per principal besides tracking sessions: its
// preferences (key → JSON text, opaque here) and its focus sessions (the
// chronometric tools' mark_session_start / _end). One operation, one
// answer, so the SQLite store and the in-memory one (--ephemeral) behave
// alike and every operation is one transaction.

#include "storage/records.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ttm::storage {

/// A principal's preferences: key → JSON text, sorted by key.
using pref_list = std::vector<std::pair<std::string, std::string>>;

/// A condition on a principal's stored preferences, checked in the
/// transaction of the operation that carries it: the preference `key` is
/// stored with the JSON text `value`; `otherwise` when `key` is not stored.
/// The store compares text; what a preference means is the caller's.
struct pref_test {
  std::string key;
  std::string value;
  bool otherwise = false;

  bool holds(const pref_list& prefs) const;
};

struct principal_op {
  enum kind_t : std::uint8_t { read, set_prefs, focus_start, focus_end };
  kind_t kind = read;
  std::string principal;
  /// set_prefs: the keys to set (value JSON text; "null": back to the
  /// server's default), all or none.
  std::vector<std::pair<std::string, std::string>> prefs;
  /// focus_start: the new session (its id, intent, start). While another
  /// is open it is refused when `refuse_open` holds of the principal's
  /// preferences as this transaction reads them, else the open one is
  /// closed at the new start.
  focus_record start;
  pref_test refuse_open;
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

/// The operations on one principal's state, for a store that keeps it in
/// memory (--ephemeral: shared by every client of the process, lost at exit).
class principal_memory {
public:
  principal_state apply(const principal_op& op);
  /// The principal's focus sessions (at most the last 1,000), oldest first.
  std::vector<focus_record> focus_of(const std::string& principal);

private:
  struct entry {
    std::vector<std::pair<std::string, std::string>> prefs;
    std::vector<focus_record> focus;
  };
  std::mutex mtx_;
  std::unordered_map<std::string, entry> by_principal_;
};

} // namespace ttm::storage
