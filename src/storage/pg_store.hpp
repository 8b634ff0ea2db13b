#pragma once

// The PostgreSQL backend (--journal postgresql://...): one database shared
// by any number of servers on any number of machines. Liveness by leases
// (an instance renews its own; an expired lease makes its sessions
// claimable), the same epochs fencing a writer whose copy is stale, the
// same events and schema version as SQLite (sqlite_store.hpp).

#include "storage/store.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ttm::storage {

struct pg_options {
  /// A libpq connection URI (postgresql://...) or key=value string; empty:
  /// the standard PG* environment (PGHOST, PGDATABASE, ...).
  std::string conninfo;
  /// The schema the journal's tables live in; empty: the connection's
  /// default search_path (public). Tests use one schema each.
  std::string schema;
  std::string instance; ///< free text for diagnostics
  /// As sqlite_options: the limits writes are checked against (0: none).
  std::size_t max_open_sessions = 0;
  std::size_t max_open_per_principal = 0;
  std::chrono::seconds max_age{0};
  std::chrono::seconds max_idle{0};
  /// How long an instance counts as alive after its last renewal; it
  /// renews at a third of this (store::lease_renewal).
  std::chrono::milliseconds lease{10'000};
  /// The wall clock leases are measured by (ns since the Unix epoch); null:
  /// the system clock. Tests inject theirs.
  std::function<std::int64_t()> wall_now_ns;
};

/// Whether `journal` (the --journal value) names PostgreSQL:
/// "postgresql://...", "postgres://..." or the word "postgresql".
bool names_postgresql(const std::string& journal);

/// "postgresql://user@host:port/db" (no password), for logs.
std::string describe_postgresql(const pg_options& opts);

/// Connects, migrates the schema under an advisory lock (several servers
/// may start at once) and registers a new instance with a fresh lease.
/// Errors: newer_schema, corrupt (tables of another application), io (the
/// server cannot be reached: the caller retries).
result<store_ptr> open_postgresql(const pg_options& opts);

/// Shutdown: a call waiting for PostgreSQL's answer gives up 5 s from now
/// (io error, its connection closed), so a server that stopped answering
/// cannot hold the journal's thread, and the process's exit, for ever.
/// Until then (and without this call) a call waits as long as it takes.
void stop_waiting_for_postgresql();

} // namespace ttm::storage
