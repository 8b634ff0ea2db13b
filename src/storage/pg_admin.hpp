#pragma once

// The admin CLI's whole-journal operations on a PostgreSQL journal: import
// (bootstrapping a cluster from a SQLite journal's export) and export.

#include "storage/pg_store.hpp"
#include "storage/sqlite_admin.hpp"

#include <cstddef>
#include <optional>

namespace ttm::storage {

/// Writes `dump` into the journal `opts` names, which must hold nothing:
/// one transaction, through the same per-event writes as a server's.
result<std::size_t> import_journal_pg(const pg_options& opts,
                                      const journal_dump& dump);

/// Every event (journal order), preference, focus session and audit
/// record, from one snapshot.
std::optional<error> dump_journal_pg(const pg_options& opts,
                                     const dump_visitor& v);

} // namespace ttm::storage
