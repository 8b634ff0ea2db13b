#include "storage/sqlite_util.hpp"

#include "log.hpp"
#include "storage/sys_util.hpp"

#include <mutex>

namespace ttm::storage::detail {

namespace {

/// SQLite's log callback: may run on any thread and must not call SQLite.
void on_sqlite_log(void*, int code, const char* msg) {
  auto lvl = log::level::warning;
  switch (code & 0xff) {
    case SQLITE_NOTICE: // e.g. "recovered 12 frames from WAL file ..."
      lvl = log::level::info;
      break;
    case SQLITE_WARNING:
      lvl = code == SQLITE_WARNING_AUTOINDEX ? log::level::info
                                             : log::level::warning;
      break;
    case SQLITE_CONSTRAINT: // the store reports a refused batch itself
    case SQLITE_SCHEMA:     // a statement recompiled: routine
      lvl = log::level::debug;
      break;
    default:
      break;
  }
  if (log::enabled(lvl))
    log::write(lvl, "sqlite", std::string{msg ? msg : ""} + " (code "
                                + std::to_string(code) + ")");
}

} // namespace

void route_sqlite_log() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (auto rc = sqlite3_config(SQLITE_CONFIG_LOG, on_sqlite_log, nullptr);
        rc != SQLITE_OK)
      TTM_LOG(warning, "storage",
              "cannot route SQLite's log (sqlite3_config: "
                + std::string{sqlite3_errstr(rc)}
                + "; SQLite was used before): what it reports on its own, "
                  "such as a WAL recovery, goes unlogged");
  });
}

error_kind kind_of(int rc, int sys_errno) {
  switch (rc & 0xff) {
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return error_kind::read_only;
    case SQLITE_FULL:
      return error_kind::full;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return error_kind::corrupt;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return error_kind::busy;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      return kind_of_errno(sys_errno);
    default:
      return error_kind::io;
  }
}

bool is_constraint(int rc) {
  return (rc & 0xff) == SQLITE_CONSTRAINT;
}

error sqlite_error(sqlite3* db, int rc, const std::string& what,
                   const std::string& path) {
  auto kind = kind_of(rc, db ? sqlite3_system_errno(db) : 0);
  std::string msg = what + " " + path + ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (kind == error_kind::corrupt)
    msg += "; move it aside (with any -wal and -shm files next to it) to "
           "start a new journal";
  return {kind, std::move(msg)};
}

int query_int(sqlite3* db, const char* sql, std::int64_t& out) {
  sqlite3_stmt* raw = nullptr;
  auto rc = sqlite3_prepare_v2(db, sql, -1, &raw, nullptr);
  stmt_ptr s{raw};
  if (rc != SQLITE_OK)
    return rc;
  rc = sqlite3_step(raw);
  if (rc == SQLITE_ROW) {
    out = sqlite3_column_int64(raw, 0);
    return SQLITE_OK;
  }
  return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

} // namespace ttm::storage::detail
