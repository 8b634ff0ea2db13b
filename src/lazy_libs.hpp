#pragma once

// Shared libraries that only an optional feature uses are loaded when that
// feature first calls into them, not by the dynamic loader at every start:
// libcurl (OAuth metadata and keys), libcrypto (OAuth token signatures),
// libpq (a PostgreSQL journal) and libsystemd (sd_notify under systemd).
// Linked normally, these and the ~35 libraries they pull in (GnuTLS,
// Kerberos, LDAP, SASL, libgcrypt, ...) cost every short-lived stdio server
// ~5 ms of loading, relocation and constructors (docs/architecture.md,
// "Start-up"). Each function the server calls is a small trampoline
// (lazy_libs.cpp) that resolves it with dlopen/dlsym on first use.

#include <string>

namespace ttm::lazy {

enum class library { curl, crypto, pq, systemd };

/// Loads `lib` now, so that a configured feature fails at start-up rather
/// than at its first call: "" when loaded (or already), else why not.
std::string load(library lib);

/// The soname dlopen asks for ("libpq.so.5", ...).
const char* soname(library lib);

} // namespace ttm::lazy
