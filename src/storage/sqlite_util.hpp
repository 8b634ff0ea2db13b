#pragma once

// SQLite handles, statement use and error mapping, shared by the schema
// (sqlite_schema.cpp) and the store (sqlite_store.cpp). Internal to
// src/storage.

#include "storage/store.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::storage::detail {

struct db_closer {
  void operator()(sqlite3* db) const {
    sqlite3_close_v2(db);
  }
};

using db_ptr = std::unique_ptr<sqlite3, db_closer>;

struct stmt_finalizer {
  void operator()(sqlite3_stmt* s) const {
    sqlite3_finalize(s);
  }
};

using stmt_ptr = std::unique_ptr<sqlite3_stmt, stmt_finalizer>;

/// Resets a statement and drops its bindings when a use of it ends, so that
/// a kept statement never holds a read lock or a dangling text binding.
class stmt_use {
public:
  explicit stmt_use(const stmt_ptr& s) : s_(s.get()) {
    // nop
  }

  ~stmt_use() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

  stmt_use(const stmt_use&) = delete;
  stmt_use& operator=(const stmt_use&) = delete;

  /// Binders remember the first failure; step() reports it.
  stmt_use& bind(int i, std::int64_t v) {
    keep(sqlite3_bind_int64(s_, i, v));
    return *this;
  }

  /// The text must outlive this use (SQLITE_STATIC: no copy).
  stmt_use& bind(int i, const std::string& v) {
    keep(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()),
                           SQLITE_STATIC));
    return *this;
  }

  /// A temporary would die before step() reads it.
  stmt_use& bind(int i, std::string&& v) = delete;

  /// A string literal, such as to_string(event_kind).
  stmt_use& bind(int i, const char* literal) {
    keep(sqlite3_bind_text(s_, i, literal, -1, SQLITE_STATIC));
    return *this;
  }

  /// Bytes as a BLOB; they must outlive this use.
  stmt_use& bind_blob(int i, const std::string& v) {
    keep(sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()),
                           SQLITE_STATIC));
    return *this;
  }

  stmt_use& bind_text_or_null(int i, const std::string& v) {
    if (v.empty())
      keep(sqlite3_bind_null(s_, i));
    else
      bind(i, v);
    return *this;
  }

  template <class T>
  stmt_use& bind(int i, const std::optional<T>& v) {
    if (v)
      return bind(i, *v);
    keep(sqlite3_bind_null(s_, i));
    return *this;
  }

  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() {
    return bind_rc_ != SQLITE_OK ? bind_rc_ : sqlite3_step(s_);
  }

  std::int64_t int64(int col) const {
    return sqlite3_column_int64(s_, col);
  }

  bool is_null(int col) const {
    return sqlite3_column_type(s_, col) == SQLITE_NULL;
  }

  std::string text(int col) const {
    auto* p = sqlite3_column_text(s_, col);
    if (p == nullptr)
      return {};
    return {reinterpret_cast<const char*>(p),
            static_cast<std::size_t>(sqlite3_column_bytes(s_, col))};
  }

  /// Valid until the next step or the end of this use.
  std::string_view blob(int col) const {
    auto* p = sqlite3_column_blob(s_, col);
    if (p == nullptr)
      return {};
    return {static_cast<const char*>(p),
            static_cast<std::size_t>(sqlite3_column_bytes(s_, col))};
  }

private:
  void keep(int rc) {
    if (bind_rc_ == SQLITE_OK)
      bind_rc_ = rc;
  }

  sqlite3_stmt* s_;
  int bind_rc_ = SQLITE_OK;
};

/// Runs one statement that returns no rows (or whose rows do not matter).
inline int exec(sqlite3* db, const char* sql) {
  return sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
}

/// Rolls back on scope exit unless the transaction ended (committed or
/// rolled back by SQLite itself after an error such as SQLITE_FULL).
class rollback_guard {
public:
  explicit rollback_guard(sqlite3* db) : db_(db) {
    // nop
  }
  ~rollback_guard() {
    if (sqlite3_get_autocommit(db_) == 0)
      exec(db_, "ROLLBACK");
  }
  rollback_guard(const rollback_guard&) = delete;
  rollback_guard& operator=(const rollback_guard&) = delete;

private:
  sqlite3* db_;
};

/// `sys_errno`: what the OS said at SQLite's last I/O failure, if any.
error_kind kind_of(int rc, int sys_errno);

bool is_constraint(int rc);

/// "what path: sqlite's message", with the kind SQLite's code maps to. Call
/// before anything else touches `db`: its message is the last call's.
error sqlite_error(sqlite3* db, int rc, const std::string& what,
                   const std::string& path);

/// A single integer from a one-row query such as "PRAGMA user_version".
int query_int(sqlite3* db, const char* sql, std::int64_t& out);

/// Sends SQLite's own log (errors, notices such as a WAL recovery) to ours,
/// once per process. Must run before SQLite's first use in the process
/// (sqlite3_config refuses afterwards: then a warning says so).
void route_sqlite_log();

} // namespace ttm::storage::detail
