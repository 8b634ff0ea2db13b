#pragma once

// What the storage tests share: a fresh journal per test, a raw SQLite
// connection that inspects and tampers with the file, event builders.


#include "storage/pg_store.hpp"
#include "storage/sqlite_store.hpp"
#include "storage/sqlite_util.hpp"

#include <libpq-fe.h>

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "journal/expiry.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ttm::storage;
namespace fs = std::filesystem;

namespace {

using ttm::test::temp_dir;

/// The server routes SQLite's log to ours before it uses SQLite, as
/// sqlite3_config works only then. Tests that touch a journal with SQLite
/// directly before their first store opens (a raw connection, an auto
/// extension) would otherwise leave it unrouted for the rest of the run,
/// and wal_check_test's checks of SQLite's notices would depend on order.
[[maybe_unused]] const bool sqlite_log_routed
  = (ttm::storage::detail::route_sqlite_log(), true);

// -- both backends -------------------------------------------------------------
//
// With TTM_TEST_PG_URI set (ctest unit.storage_pg: a server started by
// tests/scripts/pg_server.sh), the tests tagged [backends] open PostgreSQL
// instead: one schema per data directory (so per test, and shared by the
// stores a test opens on one directory), and the fixture's inspections
// (count, column_of, ...) run their SQL there. Tests not so tagged look at
// SQLite's files and run on SQLite only.

inline const char* pg_uri() {
  auto* v = std::getenv("TTM_TEST_PG_URI");
  return v && *v ? v : nullptr;
}

/// The schema standing for data directory `dir` (or the journal in it).
inline std::string pg_schema_for(std::string dir) {
  const std::string file = "/journal.sqlite3";
  if (dir.size() > file.size()
      && dir.compare(dir.size() - file.size(), file.size(), file) == 0)
    dir.resize(dir.size() - file.size());
  while (!dir.empty() && dir.back() == '/')
    dir.pop_back();
  return "t_" + std::to_string(std::hash<std::string>{}(dir));
}

inline pg_options pg_options_for(const sqlite_options& o) {
  pg_options p;
  p.conninfo = pg_uri();
  p.schema = pg_schema_for(o.dir);
  p.instance = o.instance;
  p.max_open_sessions = o.max_open_sessions;
  p.max_open_per_principal = o.max_open_per_principal;
  p.max_age = o.max_age;
  p.max_idle = o.max_idle;
  return p;
}

/// What an error message names: the journal's path, or its schema.
inline std::string named_as(const std::string& path) {
  return pg_uri() ? pg_schema_for(path) : path;
}

/// A connection to the test's schema (PostgreSQL mode).
class raw_pg {
public:
  explicit raw_pg(const std::string& journal) {
    conn_ = PQconnectdb(pg_uri());
    REQUIRE(PQstatus(conn_) == CONNECTION_OK);
    auto set = "SET search_path = " + pg_schema_for(journal);
    PQclear(PQexec(conn_, set.c_str()));
  }
  ~raw_pg() {
    PQfinish(conn_);
  }
  raw_pg(const raw_pg&) = delete;
  raw_pg& operator=(const raw_pg&) = delete;
  std::string text(const std::string& sql) {
    auto* r = PQexec(conn_, sql.c_str());
    INFO(sql << ": " << PQresultErrorMessage(r));
    REQUIRE((PQresultStatus(r) == PGRES_TUPLES_OK
             || PQresultStatus(r) == PGRES_COMMAND_OK));
    std::string out;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0
        && !PQgetisnull(r, 0, 0))
      out = PQgetvalue(r, 0, 0);
    PQclear(r);
    return out;
  }

private:
  PGconn* conn_ = nullptr;
};

inline result<store_ptr> open_at(const std::string& dir,
                          sync_mode sync = sync_mode::full) {
  if (pg_uri())
    return open_postgresql(pg_options_for({dir, sync, "storage_test"}));
  return open_sqlite({dir, sync, "storage_test"});
}

/// The options every test opens with, for the tests that change some.
inline sqlite_options options_for(const std::string& dir) {
  sqlite_options o;
  o.dir = dir;
  o.sync = sync_mode::full;
  o.instance = "storage_test";
  return o;
}

template <class T>
const error* err_of(const result<T>& r) {
  return std::get_if<error>(&r);
}

inline std::string describe(const error* e) {
  return e ? std::string{to_string(e->kind)} + ": " + e->message : "ok";
}

inline store_ptr must_open(const sqlite_options& opts) {
  auto r = pg_uri() ? open_postgresql(pg_options_for(opts))
                    : open_sqlite(opts);
  INFO(describe(err_of(r)));
  REQUIRE(std::holds_alternative<store_ptr>(r));
  return std::move(std::get<store_ptr>(r));
}

inline store_ptr must_open(const std::string& dir) {
  return must_open(options_for(dir));
}

template <class T>
inline T must(result<T> r) {
  INFO(describe(err_of(r)));
  REQUIRE(std::holds_alternative<T>(r));
  return std::move(std::get<T>(r));
}

inline void must_append(store& st, const std::vector<event>& batch) {
  must(st.append(batch));
}

/// The kind of a failure that must happen; its message names the path.
template <class T>
inline error must_fail(const result<T>& r, error_kind kind, const std::string& path) {
  auto* e = err_of(r);
  REQUIRE(e != nullptr);
  INFO(describe(e));
  CHECK(e->kind == kind);
  CHECK(e->message.find(named_as(path)) != std::string::npos);
  return *e;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A second connection to the journal, as another process would have.
class raw_db {
public:
  explicit raw_db(const std::string& path) {
    REQUIRE(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr)
            == SQLITE_OK);
    sqlite3_busy_timeout(db_, 2000);
  }

  ~raw_db() {
    sqlite3_close_v2(db_);
  }

  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;

  void exec(const std::string& sql) {
    char* msg = nullptr;
    auto rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg);
    INFO(sql << ": " << (msg ? msg : ""));
    sqlite3_free(msg);
    REQUIRE(rc == SQLITE_OK);
  }

  /// The first column of the first row, as text ("" for none or NULL).
  std::string text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  }

  /// Leaves the WAL beside the file, as a killed process does.
  void no_checkpoint_on_close() {
    REQUIRE(sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
                              nullptr)
            == SQLITE_OK);
  }

  std::int64_t integer(const std::string& sql) {
    return std::stoll(text(sql));
  }

private:
  sqlite3* db_ = nullptr;
};

inline std::int64_t count(const std::string& journal, const std::string& sql) {
  if (pg_uri())
    return std::stoll(raw_pg{journal}.text(sql));
  raw_db db{journal};
  return db.integer(sql);
}

/// Runs `sql` on the test's journal, whichever backend holds it.
inline void exec_sql(const std::string& journal, const std::string& sql) {
  if (pg_uri()) {
    raw_pg{journal}.text(sql);
    return;
  }
  raw_db{journal}.exec(sql);
}

/// The first column of the first row of `sql` as text ("" for none or
/// NULL), on the test's journal.
inline std::string text_sql(const std::string& journal,
                            const std::string& sql) {
  if (pg_uri())
    return raw_pg{journal}.text(sql);
  return raw_db{journal}.text(sql);
}

/// The same question in each backend's words: `sqlite` on SQLite, `pg` on
/// PostgreSQL.
inline std::string dialect(const std::string& sqlite, const std::string& pg) {
  return pg_uri() ? pg : sqlite;
}

/// The bytes and mtime of a file: equal fingerprints mean "not modified".
struct fingerprint {
  std::string bytes;
  std::int64_t mtime_ns = 0;
  bool operator==(const fingerprint& o) const {
    return bytes == o.bytes && mtime_ns == o.mtime_ns;
  }
};

inline fingerprint fingerprint_of(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  REQUIRE(in);
  fingerprint fp;
  fp.bytes.assign(std::istreambuf_iterator<char>{in}, {});
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  fp.mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  return fp;
}

constexpr std::int64_t t0 = 1'734'185'132'123'000'000; // 2024-12-14

inline event make_event(event_kind kind, const std::string& session,
                 std::int64_t wall_ns, std::string payload = "{}",
                 std::string task = {}) {
  event ev;
  ev.kind = kind;
  ev.session_id = session;
  ev.principal = "local";
  ev.task_id = std::move(task);
  ev.at = {wall_ns, wall_ns - t0 + 5'000'000'000, "boot-a"};
  ev.payload = std::move(payload);
  ev.epoch = 1; // as its starter left it: the first write after the start
  return ev;
}

/// `batch` with each event at the epoch its session is at when the store
/// writes it (every write moves it on by one): a session started in the
/// batch is at 1 after its session_started, any other at `known[id]` (1 if
/// not given: just started), then one more for each of its events before.
inline std::vector<event>
chained(std::vector<event> batch,
        std::map<std::string, std::int64_t> known = {}) {
  for (auto& ev : batch) {
    if (ev.kind == event_kind::session_started) {
      known[ev.session_id] = 1;
      continue;
    }
    auto it = known.try_emplace(ev.session_id, 1).first;
    ev.epoch = it->second++;
  }
  return batch;
}

inline event started(const std::string& session, std::int64_t wall_ns,
              const std::string& principal = "local",
              const std::string& milestone = "M1") {
  auto ev = make_event(event_kind::session_started, session, wall_ns,
                       R"({"milestone_id":")" + milestone
                         + R"(","milestone_name":"Ship it","tags":["a"]})");
  ev.principal = principal;
  return ev;
}

inline event task(event_kind kind, const std::string& session,
           const std::string& task_id, std::int64_t wall_ns) {
  return make_event(kind, session, wall_ns,
                    R"({"task_name":"Write \"tests\"","n":1})", task_id);
}

inline event closing(event_kind kind, const std::string& session,
              std::int64_t wall_ns) {
  return make_event(kind, session, wall_ns,
                    kind == event_kind::session_expired ? R"({"reason":"idle"})"
                                                        : "{}");
}

/// A claim of `session` by its owner in the tests' usual case: "local",
/// started without an era (the 2025 revisions).
inline claim_request local_claim(const std::string& session,
                          std::int64_t known_epoch = 0) {
  claim_request req;
  req.session_id = session;
  req.principal = "local";
  req.scope = "2025";
  req.known_epoch = known_epoch;
  return req;
}

inline void check_same(const event& got, const event& want) {
  CHECK(to_string(got.kind) == std::string{to_string(want.kind)});
  CHECK(got.session_id == want.session_id);
  CHECK(got.task_id == want.task_id);
  CHECK(got.at.wall_ns == want.at.wall_ns);
  CHECK(got.at.mono_ns == want.at.mono_ns);
  CHECK(got.at.boot_id == want.at.boot_id);
  CHECK(got.payload == want.payload);
}

/// 0 for success, 1 + the error kind otherwise: an exit code.
template <class T>
inline int code_of(const result<T>& r) {
  auto* e = err_of(r);
  return e ? 1 + static_cast<int>(e->kind) : 0;
}

inline int code_of(error_kind k) {
  return 1 + static_cast<int>(k);
}

constexpr uid_t nobody = 65534;

/// Runs `f` in a child process and returns its exit code. With
/// `unprivileged`, a root parent's child first becomes `nobody`: root
/// ignores file modes, and the read-only tests must run in CI, which is root.
inline int in_child(bool unprivileged, const std::function<int()>& f) {
  auto pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (unprivileged && ::geteuid() == 0
        && (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0
            || ::setuid(nobody) != 0))
      ::_exit(120);
    int code = 121;
    try {
      code = f();
    } catch (...) {
      // code stays 121
    }
    ::_exit(code); // no destructors, no atexit: the parent owns the rest
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + WTERMSIG(status);
}

/// Gives `p` (and what is in it) to the user the child runs as.
inline void give_away(const fs::path& p) {
  if (::geteuid() != 0)
    return;
  REQUIRE(::chown(p.c_str(), nobody, nobody) == 0);
  if (fs::is_directory(p))
    for (auto& e : fs::recursive_directory_iterator(p))
      REQUIRE(::chown(e.path().c_str(), nobody, nobody) == 0);
}

} // namespace

// -- issue 15: several servers on one data directory ---------------------------
//
// Two stores in one process stand for two server processes: each has its own
// connection, its own file description on <dir>/lock (so its own flock and
// its own byte-range lock, which the other sees as another process's), and
// its own instance number.

namespace {

constexpr const char* modern = "2026-07-28";
constexpr std::int64_t hour_ns = 3'600'000'000'000;

/// A session_started as a 2026-07-28 client of `principal` writes it, with
/// an idempotency key if given.
inline event started_in(const std::string& session, std::int64_t wall_ns,
                 const std::string& principal, const std::string& era,
                 const std::string& key = {}) {
  std::string payload = R"({"era":")" + era + R"(","milestone_id":"M")";
  if (!key.empty())
    payload += R"(,"idempotency_key":")" + key + "\"";
  payload += "}";
  auto ev = make_event(event_kind::session_started, session, wall_ns, payload);
  ev.principal = principal;
  return ev;
}

inline event at_epoch(event ev, std::int64_t epoch) {
  ev.epoch = epoch;
  return ev;
}

inline claim_request claim_of(const std::string& session,
                       const std::string& principal, const std::string& scope,
                       std::int64_t known_epoch = 0) {
  claim_request req;
  req.session_id = session;
  req.principal = principal;
  req.scope = scope;
  req.known_epoch = known_epoch;
  return req;
}

inline std::int64_t column_of(const std::string& journal, const std::string& column,
                       const std::string& session) {
  return count(journal, "SELECT " + column + " FROM sessions WHERE"
                        " session_id = '" + session + "'");
}

inline std::string text_of(const std::string& journal, const std::string& column,
                    const std::string& session) {
  auto sql = "SELECT " + column + " FROM sessions WHERE session_id = '"
             + session + "'";
  if (pg_uri())
    return raw_pg{journal}.text(sql);
  return raw_db{journal}.text(sql);
}

inline std::int64_t events_of(const std::string& journal, const std::string& session) {
  return count(journal, "SELECT count(*) FROM events JOIN sessions USING (sid)"
                        " WHERE session_id = '" + session + "'");
}

inline std::vector<std::string> ids_of(const std::vector<orphan>& v) {
  std::vector<std::string> out;
  for (const auto& o : v)
    out.push_back(o.session_id);
  std::sort(out.begin(), out.end());
  return out;
}

using names = std::vector<std::string>;

/// Every open session is due at these cutoffs: only liveness decides.
inline std::vector<orphan> all_orphans(store& st, std::size_t limit = 100) {
  return must(st.orphans_due(INT64_MAX, INT64_MAX, limit));
}

} // namespace
