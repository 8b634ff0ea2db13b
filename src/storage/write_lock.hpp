#pragma once

// Who holds an SQLite journal's write lock. In WAL mode SQLite's unix VFS
// takes it as a POSIX fcntl lock on one byte of <journal>-shm (offset 120,
// WAL_WRITE_LOCK); the kernel names the process holding it. A writer that
// stays busy past the timeout names it: a stopped (SIGSTOP, a debugger, a
// suspended laptop's process) or wedged server.

#include <cstdint>
#include <string>

namespace ttm::storage::detail {

/// The pid of the process holding the write lock of the journal `db_path`
/// (its -shm file), or 0 when none does or the kernel cannot tell. A lock
/// of this very process counts too (open file description query).
std::int64_t write_lock_holder(const std::string& db_path);

} // namespace ttm::storage::detail
