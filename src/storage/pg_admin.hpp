#pragma once

// The admin CLI's operations on a PostgreSQL journal: import
// (bootstrapping a cluster from a SQLite journal's export), export, and
// the read-only inspections of `check` and `audit` (pg_inspect.cpp).

#include "storage/pg_store.hpp"
#include "storage/sqlite_admin.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage {

/// Writes `dump` into the journal `opts` names, which must hold nothing:
/// one transaction, through the same per-event writes as a server's.
result<std::size_t> import_journal_pg(const pg_options& opts,
                                      const journal_dump& dump);

/// Every event (journal order), preference, focus session and audit
/// record, from one snapshot.
std::optional<error> dump_journal_pg(const pg_options& opts,
                                     const dump_visitor& v);

/// What `check` reports of a PostgreSQL journal (SQLite: journal_health).
struct pg_journal_health {
  /// False: the database (schema) holds no journal yet; nothing else set.
  bool exists = false;
  std::int64_t schema_version = 0;
  /// "ok", else what is wrong (another application's tables, rows that
  /// cannot be read, events of an unknown kind, sessions not opened by
  /// their session_started).
  std::string integrity;
  std::int64_t sessions = 0;
  std::int64_t events = 0;
  std::string server_version;     ///< "15.5"
  std::string fsync;              ///< the server's setting: "on" / "off"
  std::string synchronous_commit; ///< the default our commits get
};

/// Reads the journal `opts` names without changing anything: no
/// migration, no instance registered (a server may be writing meanwhile;
/// one REPEATABLE READ snapshot). Errors: io (cannot connect or read).
result<pg_journal_health> pg_health(const pg_options& opts);

/// As journal_reader::events_by and ::audit, on PostgreSQL; read-only.
/// Errors: io; corrupt when the schema is not a journal's; newer_schema.
result<std::vector<event>> pg_events_by(const pg_options& opts,
                                        const audit_query& q);
result<std::vector<audit_entry>> pg_audit(const pg_options& opts,
                                          const audit_query& q);

} // namespace ttm::storage
