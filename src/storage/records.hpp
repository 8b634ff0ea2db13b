#pragma once

// The journal's records as plain values: events and stored sessions. No
// SQLite and no store interface, so the actors' message types (and the edges
// that include them) can name these without the storage backend.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage {

enum class event_kind {
  session_started, ///< payload: the session request (ids, names, tags, zone)
  task_started,    ///< payload: the task start request
  task_ended,      ///< payload: status and completion metadata
  session_ended,   ///< payload: {}
  session_expired, ///< payload: {"reason": "age" | "idle" | "evicted"}
};

/// "session_started", ...: the text stored in the `kind` column.
const char* to_string(event_kind k);
std::optional<event_kind> event_kind_from(const std::string& s);

/// Both clocks at one event, and the boot they belong to: monotonic times
/// compare only within one boot (boot_id from the kernel).
struct stamp {
  std::int64_t wall_ns = 0; ///< since the Unix epoch
  std::int64_t mono_ns = 0; ///< CLOCK_MONOTONIC
  std::string boot_id;
};

struct event {
  event_kind kind = event_kind::session_started;
  std::string session_id;
  /// The creating principal (bearer-token name, or "local"); read only from
  /// session_started, where it becomes the session row's owner.
  std::string principal;
  std::string task_id; ///< task events only
  stamp at;
  std::string payload = "{}"; ///< JSON text
};

enum class session_state { open, ended, expired };
const char* to_string(session_state s);
std::optional<session_state> session_state_from(const std::string& s);

/// A session row and, when asked for, its events (oldest first).
struct stored_session {
  std::string session_id;
  std::string principal;
  std::string milestone_id;
  session_state state = session_state::open;
  std::int64_t epoch = 0;
  std::int64_t started_wall_ns = 0;
  std::optional<std::int64_t> closed_wall_ns; ///< ended or expired
  std::vector<event> events;
};

} // namespace ttm::storage
