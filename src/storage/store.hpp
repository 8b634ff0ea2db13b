#pragma once

// The journal's storage interface: append events, load open sessions, query
// history. SQLite (sqlite_store.hpp) is the embedded default; a PostgreSQL
// backend for several instances behind a load balancer is planned, which is
// why every session row carries an owner epoch (see `store`).
//
// Storage knows sessions and events, not the tracking model: an event's
// payload is opaque JSON text, written and read by the journal layer above
// both storage and the domain (src/journal/codec.hpp).

#include "storage/records.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ttm::storage {

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
