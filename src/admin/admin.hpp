#pragma once

// The admin CLI (issue 31): `time-tracker-mcp <command> ...` over a data
// directory, safe while servers run on it. An edge-level component: it
// reads the journal through its own read-only connection (no directory
// lock, read transactions only), and writes only through the storage
// layer's backup and import. Results go to `out` (stdout), progress and
// errors to `err` (stderr).

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ttm::admin {

/// Whether `word` (the first argument) names an admin command.
bool is_command(const std::string& word);

/// Runs the command `args[0]` with the rest; the exit code: 0 done, 1 a
/// fault (a check failed, the journal cannot be read), 2 a usage error.
int run(const std::vector<std::string>& args, std::ostream& out,
        std::ostream& err,
        const std::function<const char*(const char*)>& getenv);

} // namespace ttm::admin
