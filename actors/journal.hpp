#pragma once

#include "actors/journal_messages.hpp"
#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "storage/change_signal.hpp"
#include "storage/store.hpp"

#include <caf/actor.hpp>
#include <caf/actor_clock.hpp>
#include <caf/result.hpp>
#include <caf/typed_response_promise.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ttm::actors {

struct journal_config {
  /// The store, or (the server) how to open it: `open` runs first thing on
  /// the journal's thread, and again with backoff while it fails. Until it
  /// succeeds (or with neither), every append fails with `unavailable` and
  /// tracking tools answer STORAGE_UNAVAILABLE.
  std::shared_ptr<storage::store> store;
  std::function<storage::result<storage::store_ptr>()> open;
  std::string unavailable;
  /// After a failed open, the next try comes this much later, the wait
  /// doubling up to `retry_max`: a fault that clears (space freed,
  /// permissions fixed, a file restored) needs no restart.
  caf::timespan retry_first = std::chrono::seconds{1};
  caf::timespan retry_max = std::chrono::seconds{30};
  domain::clock_ptr clock;
  /// Expiry limits for the sessions no live server holds.
  domain::tracking_limits limits;
  /// How often it looks for those.
  caf::timespan sweep_interval = std::chrono::minutes{1};
  /// How long after `open` the store is opened, unless an append needs it
  /// first: the server answers its first requests (a client's handshake)
  /// without SQLite's start-up work competing for the CPU.
  caf::timespan open_delay{0};
  /// Ended and expired sessions older than this are purged; zero keeps
  /// them forever. Seconds: a retention under an hour is one too.
  std::chrono::seconds retention{std::chrono::hours{24 * 90}};
  /// Refusals for the audit trail wait this long to be written together,
  /// at most this many (the edge rate-limits them per address already).
  caf::timespan audit_delay = std::chrono::seconds{1};
  std::size_t audit_queue = 256;
  /// How often the purge runs (set_retention: every half retention, at
  /// most daily).
  caf::timespan purge_interval = std::chrono::hours{24};
  /// How long after the open the first purge runs (0: at once). A purge is
  /// a write: a short-lived server that reads only (its SQLite store
  /// registering at its first write) then writes nothing at all.
  caf::timespan first_purge_delay{0};
  /// --session-idle-timeout: MCP sessions kept in the journal unused this
  /// long (plus the coalescing of their use) are removed by the sweep of
  /// whichever server sees it first; zero: never.
  std::chrono::seconds mcp_idle_timeout{0};
  /// Bumped after each committed change to an MCP session's record
  /// (storage/change_signal.hpp): on SQLite, so that other servers on the
  /// directory ask again; on PostgreSQL this node's own counters (other
  /// nodes hear the commit's NOTIFY). Null: they ask on every request.
  storage::change_signal_ptr mcp_changes;
  /// Set once the store is open (for /readyz); may be null.
  std::shared_ptr<std::atomic<bool>> opened_flag;
};

/// Sets `jc`'s retention to `retention` (0: forever) and the purge to run
/// every half retention (at least each second, at most daily): a closed
/// session stays at most 1.5 retentions (a day more for long ones), so a
/// busy server's journal is bounded by its rate times that.
void set_retention(journal_config& jc, std::chrono::seconds retention);

struct journal_state {
  journal_config cfg;
  /// Appends waiting for the next flush (group commit).
  struct pending {
    std::vector<storage::event> events;
    caf::typed_response_promise<storage::append_answer> promise;
    /// The request's deadline, monotonic ns of cfg.clock; 0: none.
    std::int64_t deadline_ns = 0;
  };
  std::vector<pending> batch;
  bool flush_scheduled = false;
  /// The batch waits for the sync in flight; on_synced sends the flush.
  bool flush_after_sync = false;
  /// Deferred sync (storage::store::deferred_sync): the detached actor
  /// that syncs the WAL, and the answers of committed batches waiting for
  /// it (in ticket order; a ticket per flush). One sync in flight at a
  /// time; it covers every commit before it, so the batches committed
  /// meanwhile share the next one.
  caf::actor syncer;
  /// Runs the WAL checkpoints the syncer finds due, off both threads.
  caf::actor checkpointer;
  struct unsynced {
    std::uint64_t ticket = 0;
    std::function<void(const std::string& sync_error)> deliver;
  };
  std::vector<unsynced> waiting_sync;
  std::uint64_t tickets = 0;
  bool sync_in_flight = false;
  bool sync_checked = false; ///< start_syncer looked at the store
  bool sync_failed = false; ///< a sync failed: logged, writes refused
  std::uint64_t syncs = 0;
  /// `open` came (the transport to tell) / the store was opened.
  transport_actor transport;
  bool opened = false;
  /// Claims answered and, of those, sessions loaded (taken over or read).
  std::uint64_t claims = 0;
  std::uint64_t loads = 0;
  /// Failed opens so far, the wait before the next try, and what the last
  /// one said (the log repeats only news).
  std::size_t failed_opens = 0;
  caf::timespan retry_delay{0};
  std::string last_open_error;
  /// No try before this (every failed try schedules one `open`; an earlier
  /// one, or an append, does not add a second chain of retries).
  caf::actor_clock::time_point next_try{};
  /// The last append failed: the next success is logged as a recovery.
  bool failing = false;
  /// Refusals waiting for the audit write, and those dropped since the
  /// last one written (the queue was full).
  std::vector<audited_refusal> audit;
  std::size_t audit_dropped = 0;
  /// MCP sessions: recorded uses (touches), and idle ones removed.
  std::uint64_t mcp_touches = 0;
  std::uint64_t mcp_expired = 0;
  std::uint64_t commits = 0;
  std::uint64_t events = 0;
  /// Lease renewals (PostgreSQL) and the time they took, in all.
  std::uint64_t renewals = 0;
  std::uint64_t renew_us = 0;
  static inline const char* name = "ttm.journal";

  /// Says how well group commit batched (events per transaction).
  ~journal_state();
};

/// The journal actor: owns the store, writes appends in batches (one
/// transaction per flush), answers each append only once it is stored,
/// answers claims, expires what no live server holds.
/// Spawn it detached: storage I/O blocks its thread, never a worker's.
journal_actor::behavior_type
journal_behavior(journal_actor::stateful_pointer<journal_state> self,
                 journal_config cfg);

namespace detail {

// The group commit (actors/journal_flush.cpp) and what it shares with the
// rest of the actor (actors/journal.cpp).
using self_ptr = journal_actor::stateful_pointer<journal_state>;

/// For the log: everything, the path included.
std::string describe(const storage::error& e);
/// For the client: what kind of fault, never a path of the server's.
std::string public_reason(const storage::error& e);
/// Why a request finds no store: the journal's fault, or not opened yet.
std::string unavailable(const journal_state& st);
/// Expires the open sessions no live server holds, if past their limits;
/// returns how many.
std::size_t sweep_orphans(self_ptr self);

/// Queues an append for the next flush (one transaction for all queued).
caf::result<storage::append_answer>
enqueue_append(self_ptr self, std::vector<storage::event> events,
               std::int64_t deadline_ns);
/// Writes everything queued in one transaction and answers each append:
/// at once, or (deferred sync) once the WAL sync after it returned.
void flush(self_ptr self);
/// Starts the syncer when the store defers its sync (at open).
void start_syncer(self_ptr self);
/// The syncer's answer: every commit up to `ticket` is durable (`error`
/// empty) or its sync failed.
void on_synced(self_ptr self, std::uint64_t ticket, const std::string& error);

// MCP sessions of the 2025 eras (issue 32 item 2; actors/journal_mcp.cpp):
// stored at initialize, read by any server that gets an Mcp-Session-Id it
// does not know, removed at DELETE and when idle.

/// Stores `r` (its times: now); false: not stored (logged).
bool mcp_put(journal_state& st, storage::mcp_session_record r);
/// Reads session `id`, recording its use when the last one recorded is
/// older than the coalescing interval (a minute, less for a short
/// --session-idle-timeout): no write per request.
mcp_session_reply mcp_get(journal_state& st, const std::string& id);
/// Removes session `id` (DELETE); true: it was stored.
bool mcp_end(journal_state& st, const std::string& id);
/// The sweep: removes the sessions idle past the timeout (each once over
/// all servers).
void mcp_sweep(journal_state& st);

} // namespace detail

} // namespace ttm::actors
