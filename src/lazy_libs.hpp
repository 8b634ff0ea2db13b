#pragma once

// Shared libraries that not every run needs are loaded when the server
// first calls into them, not by the dynamic loader at every start: libcurl
// (OAuth metadata and keys), libcrypto (OAuth token signatures), libpq (a
// PostgreSQL journal), libsystemd (sd_notify under systemd), SQLite (the
// journal, opened on its own thread after the handshake) and ICU (Windows
// zone names, localized dates). Linked normally, these and the ~35
// libraries they pull in (GnuTLS, Kerberos, LDAP, SASL, libgcrypt, ...)
// cost every short-lived stdio server ~5 ms of loading, relocation and
// constructors and ~3 MiB of RSS (docs/architecture.md, "Start-up"). Each
// function the server calls is a small trampoline (lazy_libs.cpp) that
// resolves it with dlopen/dlsym on first use.

#include <string>

namespace ttm::lazy {

enum class library { curl, crypto, pq, sqlite, systemd, icu };

/// Loads `lib` now, so that a configured feature fails at start-up rather
/// than at its first call: "" when loaded (or already), else why not.
std::string load(library lib);

/// The soname dlopen asks for ("libpq.so.5", ...).
const char* soname(library lib);

} // namespace ttm::lazy
