#pragma once

// A process that dies of SIGBUS says why first. SQLite maps the journal's
// WAL index (<dir>/journal.sqlite3-shm) into memory and writes it directly;
// when that file becomes unwritable under a running server (chattr +i,
// truncated, its filesystem full or gone) the kernel answers a store to the
// mapping with SIGBUS. SQLite cannot turn that into an error code, and we
// must keep the shared -shm (several servers on one journal), so the
// process still dies, but no longer silently.

#include <string>

namespace ttm {

/// Installs the SIGBUS handler (process-wide) with its messages prepared
/// now, naming `journal_dir`: the handler writes one of them to fd 2, then
/// restores the default action and re-raises, so the process still ends by
/// signal 7 (exit status 135 in a shell). Call once at start-up, before
/// threads start.
void explain_sigbus(const std::string& journal_dir);

} // namespace ttm
