#pragma once

// The journal's storage interface: append events, claim sessions, query
// history. SQLite (sqlite_store.hpp) is the embedded default, shared by any
// number of server processes on one machine; a PostgreSQL backend for
// several machines is planned behind the same interface (liveness there: a
// lease instead of a kernel lock).
//
// Storage knows sessions and events, not the tracking model: an event's
// payload is opaque JSON text, written and read by the journal layer above
// both storage and the domain (src/journal/codec.hpp).

#include "storage/mcp_session.hpp"
#include "storage/principal.hpp"
#include "storage/records.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ttm::storage {

enum class error_kind {
  locked,       ///< a server of an older version holds the data directory
  busy,         ///< other servers kept the journal busy past the timeout
  newer_schema, ///< written by a newer version: refused, never altered
  corrupt,      ///< not a database, or failed an integrity check
  read_only,    ///< the directory or file cannot be written
  full,         ///< disk or quota full
  fenced,       ///< the session was claimed since (its epoch moved on)
  limit,        ///< the directory holds its maximum of open sessions
  /// The batch contradicts the journal (an unknown or closed session, a
  /// second session_started, a payload that is not JSON): nothing written,
  /// the storage itself is fine. A bug upstream, not an outage.
  rejected,
  /// A sync of committed changes to disk failed (deferred sync): their
  /// outcome is unknown until a restart, and the store writes no more.
  sync_failed,
  io,           ///< anything else the backend reports
};

const char* to_string(error_kind k);

struct error {
  error_kind kind = error_kind::io;
  std::string message; ///< one sentence for stderr and tool errors
  /// `limit`: the option whose limit was reached
  /// ("max_tracking_sessions", "max_tracking_sessions_per_principal") and
  /// its value, for the client's LIMIT_REACHED.
  std::string limit_option{};
  std::uint64_t limit_value = 0;
  /// `busy`: the process holding the journal's write lock, when the
  /// kernel names one (0: unknown): a stopped or frozen server blocks
  /// every other server's writes (never their reads) until it resumes.
  std::int64_t holder_pid = 0;
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
/// Several instances (processes) share one store. Each opening is a new
/// instance with a number of its own, alive while its process lives. Every
/// session has an `epoch`, its version: `claim` loads the latest state and
/// its epoch (or confirms a copy is still current); every event of an
/// append carries the epoch its change was computed from, and in the same
/// transaction the store checks it, writes the event, takes the session
/// over (`holder` = this instance) and moves the epoch on by one. A writer
/// whose copy is stale is `fenced`: nothing of its batch is written, it
/// loads the latest state and decides again. So per session, writes are
/// linearizable across instances, a stale copy never overwrites a newer
/// state, and someone always makes progress (no two writers can fence each
/// other in turn: only a write moves the epoch).
class store {
public:
  virtual ~store();

  /// Where the data lives, for logs: "sqlite:/home/u/.local/state/...".
  virtual std::string describe() const = 0;

  /// Contention so far: how often a statement had to wait for other
  /// instances' transactions, and for how long in all.
  struct waits {
    std::uint64_t count = 0;
    std::uint64_t total_us = 0;
    /// Write transactions, and how long this instance held the write
    /// lock in all (what the others wait for; 0 where unknown).
    std::uint64_t writes = 0;
    std::uint64_t held_us = 0;
  };
  virtual waits lock_waits() const {
    return {};
  }

  /// Until reset (nullopt), waits for other instances' transactions end by
  /// `until` at the latest, failing with `busy` (nothing written): a
  /// request's --request-timeout bounds its write before it begins.
  virtual void bound_busy_wait(
    std::optional<std::chrono::steady_clock::time_point> until) {
    (void) until;
  }

  /// This instance's number (> 0), unique among all that opened the store.
  virtual std::int64_t instance() const = 0;

  /// Writes `batch` in one transaction, in order: all of it or nothing.
  /// session_started inserts the session row (owner = principal, scope =
  /// the payload's "era", milestone_id and idempotency_key from the
  /// payload, held by this instance at epoch 1) unless the directory holds
  /// `max_open` open sessions already (`limit`), or its idempotency key
  /// names a session of its owner that a claim by the key would find
  /// (`fenced`: another writer started it since the lookup); every other
  /// event needs an open session at the event's epoch (else `fenced`, or
  /// `rejected`), and moves it to the next epoch, held by this instance; an
  /// `if_due` expiry also needs the session due by the journal's record
  /// (else `fenced`); session_ended / session_expired set its state and
  /// closed time. Durable when it returns ok (see the backend's sync mode).
  virtual result<ok> append(const std::vector<event>& batch) = 0;

  /// Makes every change committed before the call durable (deferred_sync).
  /// Safe on any thread, beside the store's own use; outlives the store.
  class commit_sync {
  public:
    virtual ~commit_sync();
    virtual result<ok> sync() = 0;
    /// The WAL has grown past its checkpoint size: checkpoint() is due,
    /// and none runs (true once per due checkpoint).
    virtual bool checkpoint_due() {
      return false;
    }
    /// Copies the WAL into the database (PASSIVE: never waits for readers
    /// or writers), on a connection of its own; on any thread.
    virtual result<ok> checkpoint() {
      return ok{};
    }
  };
  /// Set when the store can commit without waiting for the disk (SQLite
  /// with --journal-sync full, sqlite_options::defer_sync): then
  /// append_unsynced() returns once its change is committed, and it may be
  /// acknowledged only after a sync() begun after that returned ok. Lets
  /// the journal commit the next batch while this one syncs (group commit
  /// of the sync), and keeps the sync out of the write lock other servers
  /// wait for. nullptr: every write is durable when it returns.
  virtual std::shared_ptr<commit_sync> deferred_sync() {
    return nullptr;
  }
  /// append(), without its sync when deferred_sync() is set.
  virtual result<ok> append_unsynced(const std::vector<event>& batch) {
    return append(batch);
  }

  /// See claim_request / claim_result: a read (it records the call as the
  /// session's activity, at most once a minute). Every event's `principal`
  /// is the session's owner. An expired session comes back without its
  /// events.
  virtual result<claim_result> claim(const claim_request& req) = 0;

  /// Lets go of sessions this instance holds (id, epoch), so that the
  /// directory-wide expiry sees them as orphans: their client went away.
  virtual result<ok>
  release(const std::vector<std::pair<std::string, std::int64_t>>& held) = 0;

  /// Of `held` (id, epoch), the sessions whose copy is stale: gone, closed,
  /// or at another epoch (changed through another instance).
  virtual result<std::vector<std::string>>
  stale(const std::vector<std::pair<std::string, std::int64_t>>& held) = 0;

  /// How many sessions are open in the whole store (every instance's).
  virtual result<std::size_t> open_sessions() = 0;

  /// Open sessions started before `age_cutoff_wall_ns` or idle since before
  /// `idle_cutoff_wall_ns` that no live instance holds (at most `limit`).
  virtual result<std::vector<orphan>>
  orphans_due(std::int64_t age_cutoff_wall_ns,
              std::int64_t idle_cutoff_wall_ns, std::size_t limit) = 0;

  /// Sessions (any state) matching `q`, newest first.
  virtual result<std::vector<stored_session>> history(const history_query& q)
    = 0;

  /// One page of a principal's sessions in one scope (any state) matching
  /// `q`, newest first (started time, then id). Reads summary columns and
  /// one indexed count per row: no replay.
  result<list_page> list(const list_query& q) {
    return list(q, {});
  }
  /// As list(q), the rows handed to `sink` as they are read: rows before
  /// `upto` (and with_runs their runs) are final and the sink's to take
  /// (it may move from them; the page returned holds what is left), so
  /// that the caller works on them while the rest arrive. A store may
  /// call it only once, or never (the caller takes the page returned). A
  /// closed session's packing (is_closed_packing) or digest (is_digest)
  /// may come unchecked: a sink that finds one damaged asks again without a
  /// sink, where the store reads that session's events instead
  /// (journal::read_history).
  virtual result<list_page> list(const list_query& q, const list_sink& sink)
    = 0;

  /// Deletes ended and expired sessions (and their events) closed before
  /// `cutoff_wall_ns`, and audit records and ended focus sessions older
  /// than it; returns how many sessions, or nullopt when another instance
  /// purged less than `interval_ns` before `now_wall_ns` (one purge per
  /// interval for the whole directory).
  virtual result<std::optional<std::size_t>>
  purge_closed_before(std::int64_t cutoff_wall_ns, std::int64_t now_wall_ns,
                      std::int64_t interval_ns) = 0;

  /// A principal's preferences and focus sessions: one operation in one
  /// transaction (see principal.hpp). A backend without them says so.
  virtual result<principal_state> principal(const principal_op& op);

  /// Writes audit records that belong to no session (refusals at the
  /// edge), in one transaction. A backend without them says so.
  virtual result<ok> record_audit(const std::vector<audit_entry>& entries);
  /// Open focus sessions in the whole store (every principal's), for the
  /// metrics; 0 from a backend without them.
  virtual result<std::size_t> open_focus_sessions();

  /// A backend whose liveness is a lease (PostgreSQL): how often the
  /// journal actor renews it (a third of the lease); none: liveness needs
  /// no renewal (SQLite: kernel locks).
  virtual std::optional<std::chrono::nanoseconds> lease_renewal() const {
    return std::nullopt;
  }
  /// Renews this instance's lease. An instance whose lease expired (a
  /// paused process) gets a new one: its sessions were claimable meanwhile,
  /// and epochs fence whatever it had computed before.
  virtual result<ok> renew_lease() {
    return ok{};
  }

  // -- MCP sessions of the 2025 eras (mcp_session.hpp) -----------------------
  // Written without a sync of their own (durable with the next tracking
  // write or checkpoint; PostgreSQL: `SET LOCAL synchronous_commit = off`):
  // a record lost to a power cut costs its client a re-initialize, never
  // tracking data. A backend without them says so (an error): its servers
  // answer only the MCP sessions they issued.

  /// Stores `r`: a new session (at `initialize`), or the new state of a
  /// stored one (its log level changed); its created time is kept.
  virtual result<ok> put_mcp_session(const mcp_session_record& r);
  /// The stored session `id` (any principal's: the caller checks), or
  /// nullopt: never stored, deleted, or expired.
  virtual result<std::optional<mcp_session_record>>
  get_mcp_session(const std::string& id);
  /// Records the use of stored sessions at `now_wall_ns` (the caller
  /// coalesces: at most once a minute per session); unknown ids are skipped.
  virtual result<ok> touch_mcp_sessions(const std::vector<std::string>& ids,
                                        std::int64_t now_wall_ns);
  /// Removes session `id` (DELETE); with `idle_before_wall_ns`, only if it
  /// was not used since (idle expiry, by whichever server notices). true:
  /// this call removed it, so it happens once over all servers.
  virtual result<bool>
  remove_mcp_session(const std::string& id,
                     std::optional<std::int64_t> idle_before_wall_ns
                     = std::nullopt);
  /// Ids of stored sessions last used before `idle_before_wall_ns`, oldest
  /// first, at most `limit`: the candidates for idle expiry.
  virtual result<std::vector<std::string>>
  mcp_sessions_due(std::int64_t idle_before_wall_ns, std::size_t limit);
};

using store_ptr = std::unique_ptr<store>;

} // namespace ttm::storage
