#pragma once

// The journal file's schema: its version, the migrations that reach it, the
// checks a file passes before we write to it, and the epoch counter.
// Internal to src/storage.

#include "storage/store.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ttm::storage::detail {

/// Everything that reads the file before we may write to it: a file we
/// refuse is left as it was. `version`: its schema version (0: empty).
std::optional<error> check_before_writing(sqlite3* db, const std::string& path,
                                          std::int64_t& version);

/// Brings the schema from `version` to the current one, one transaction per
/// step.
std::optional<error> migrate(sqlite3* db, const std::string& path,
                             std::int64_t version);

/// Hands out this instance's number: one more than any before.
result<std::int64_t> next_instance(sqlite3* db, const std::string& path,
                                   const std::string& instance);

} // namespace ttm::storage::detail
