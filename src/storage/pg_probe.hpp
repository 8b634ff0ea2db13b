#pragma once

// What a PostgreSQL connection's schema holds, asked once for the server's
// opening (pg_open.cpp) and the admin CLI's reads (pg_inspect.cpp,
// pg_admin.cpp), and the errors that say what is missing and how to create
// it. Internal to src/storage.

#include "storage/pg_conn.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ttm::storage::detail {

/// The `application` row of our journal's `meta` table.
constexpr const char* pg_application = "time-tracker-mcp journal";

struct pg_found_journal {
  /// current_schema(): "" when the search_path names no schema that
  /// exists (the journal's tables have nowhere to go).
  std::string schema;
  std::string search_path;
  /// Our journal's schema version; none: no journal there (`foreign`:
  /// tables of another application instead).
  std::optional<std::int64_t> version;
  bool foreign = false;
};

/// Reads what the connection's schema holds (in the caller's transaction).
result<pg_found_journal> pg_find_journal(pg_conn& conn,
                                         const std::string& what);

/// The search_path names no schema that exists: which, and how to make it.
error pg_missing_schema(const pg_found_journal& j, const std::string& where);

/// An admin read of `where`, which holds no journal of ours (`j.version`
/// empty): what is missing and how to create it; corrupt when `foreign`.
error pg_no_journal(const pg_found_journal& j, const std::string& where);

/// Whether `where` holds a journal this build reads (an admin read, which
/// neither creates nor migrates one); else the error that says why not.
std::optional<error> pg_readable(pg_conn& conn, const std::string& where,
                                 const std::string& what);

} // namespace ttm::storage::detail
