#pragma once

// The journal's storage interface: append events, load open sessions, query
// history. SQLite (sqlite_store.hpp) is the embedded default; a PostgreSQL
// backend for several instances behind a load balancer is planned, which is
// why every session row carries an owner epoch (see `store`).
//
// Storage knows sessions and events, not the tracking model: an event's
// payload is opaque JSON text, written and read by the journal layer above
// both storage and the domain (src/journal/codec.hpp).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
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

enum class error_kind {
  locked,       ///< another server holds the data directory
  newer_schema, ///< written by a newer version: refused, never altered
  corrupt,      ///< not a database, or failed an integrity check
  read_only,    ///< the directory or file cannot be written
  full,         ///< disk or quota full
  fenced,       ///< another instance adopted the session (higher epoch)
  /// The batch contradicts the journal (an unknown or closed session, a
  /// second session_started, a payload that is not JSON): nothing written,
  /// the storage itself is fine. A bug upstream, not an outage.
  rejected,
  io,           ///< anything else the backend reports
};

const char* to_string(error_kind k);

struct error {
  error_kind kind = error_kind::io;
  std::string message; ///< one sentence for stderr and tool errors
};

/// A value or the error that prevented it.
template <class T>
using result = std::variant<T, error>;

struct ok {};

struct history_query {
  std::optional<std::string> principal;
  std::optional<std::int64_t> since_wall_ns; ///< started at or after
  std::optional<std::int64_t> until_wall_ns; ///< started before
  std::size_t limit = 100;
  bool with_events = false;
};

/// One backend. Not thread-safe: the journal actor (one thread) owns it.
///
/// Epochs fence owners: opening a store starts a new epoch, greater than
/// every earlier one; `load_open` claims the open sessions for it, and an
/// append touching a session whose row carries another epoch fails with
/// `fenced` and writes nothing. With SQLite one process holds the file, so
/// fencing never triggers in practice; a shared backend relies on it.
class store {
public:
  virtual ~store();

  /// Where the data lives, for logs: "sqlite:/home/u/.local/state/...".
  virtual std::string describe() const = 0;

  /// This instance's epoch.
  virtual std::int64_t epoch() const = 0;

  /// Writes `batch` in one transaction, in order: all of it or nothing.
  /// session_started inserts the session row (owner = principal, epoch =
  /// this epoch, milestone_id = the payload's top-level "milestone_id"
  /// string); every other event needs an open session of this epoch
  /// (else `fenced`, or `rejected`); session_ended / session_expired set
  /// its state and closed time. Durable when it returns ok (see the
  /// backend's sync mode).
  virtual result<ok> append(const std::vector<event>& batch) = 0;

  /// Open sessions with their events, oldest session first; claims each for
  /// this epoch. Every event's `principal` is the session's owner.
  virtual result<std::vector<stored_session>> load_open() = 0;

  /// Sessions (any state) matching `q`, newest first.
  virtual result<std::vector<stored_session>> history(const history_query& q)
    = 0;

  /// Deletes ended and expired sessions (and their events) closed before
  /// `cutoff_wall_ns`; returns how many.
  virtual result<std::size_t> purge_closed_before(std::int64_t cutoff_wall_ns)
    = 0;
};

using store_ptr = std::unique_ptr<store>;

} // namespace ttm::storage
