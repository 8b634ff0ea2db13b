// Unit tests for src/storage: the SQLite journal on a fresh temporary
// directory per test. A second, raw SQLite connection inspects and tampers
// with the file the way another instance, an old version or a bad disk would.

#include "storage/sqlite_store.hpp"

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
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ttm::storage;
namespace fs = std::filesystem;

namespace {

using ttm::test::temp_dir;

result<store_ptr> open_at(const std::string& dir,
                          sync_mode sync = sync_mode::full) {
  return open_sqlite({dir, sync, "storage_test"});
}

/// The options every test opens with, for the tests that change some.
sqlite_options options_for(const std::string& dir) {
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

std::string describe(const error* e) {
  return e ? std::string{to_string(e->kind)} + ": " + e->message : "ok";
}

store_ptr must_open(const sqlite_options& opts) {
  auto r = open_sqlite(opts);
  INFO(describe(err_of(r)));
  REQUIRE(std::holds_alternative<store_ptr>(r));
  return std::move(std::get<store_ptr>(r));
}

store_ptr must_open(const std::string& dir) {
  return must_open(options_for(dir));
}

template <class T>
T must(result<T> r) {
  INFO(describe(err_of(r)));
  REQUIRE(std::holds_alternative<T>(r));
  return std::move(std::get<T>(r));
}

void must_append(store& st, const std::vector<event>& batch) {
  must(st.append(batch));
}

/// The kind of a failure that must happen; its message names the path.
template <class T>
error must_fail(const result<T>& r, error_kind kind, const std::string& path) {
  auto* e = err_of(r);
  REQUIRE(e != nullptr);
  INFO(describe(e));
  CHECK(e->kind == kind);
  CHECK(e->message.find(path) != std::string::npos);
  return *e;
}

bool contains(const std::string& haystack, const std::string& needle) {
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

std::int64_t count(const std::string& journal, const std::string& sql) {
  raw_db db{journal};
  return db.integer(sql);
}

/// The bytes and mtime of a file: equal fingerprints mean "not modified".
struct fingerprint {
  std::string bytes;
  std::int64_t mtime_ns = 0;
  bool operator==(const fingerprint& o) const {
    return bytes == o.bytes && mtime_ns == o.mtime_ns;
  }
};

fingerprint fingerprint_of(const std::string& path) {
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

event make_event(event_kind kind, const std::string& session,
                 std::int64_t wall_ns, std::string payload = "{}",
                 std::string task = {}) {
  event ev;
  ev.kind = kind;
  ev.session_id = session;
  ev.principal = "local";
  ev.task_id = std::move(task);
  ev.at = {wall_ns, wall_ns - t0 + 5'000'000'000, "boot-a"};
  ev.payload = std::move(payload);
  ev.epoch = 1; // as its starter holds it
  return ev;
}

event started(const std::string& session, std::int64_t wall_ns,
              const std::string& principal = "local",
              const std::string& milestone = "M1") {
  auto ev = make_event(event_kind::session_started, session, wall_ns,
                       R"({"milestone_id":")" + milestone
                         + R"(","milestone_name":"Ship it","tags":["a"]})");
  ev.principal = principal;
  return ev;
}

event task(event_kind kind, const std::string& session,
           const std::string& task_id, std::int64_t wall_ns) {
  return make_event(kind, session, wall_ns,
                    R"({"task_name":"Write \"tests\"","n":1})", task_id);
}

event closing(event_kind kind, const std::string& session,
              std::int64_t wall_ns) {
  return make_event(kind, session, wall_ns,
                    kind == event_kind::session_expired ? R"({"reason":"idle"})"
                                                        : "{}");
}

/// A claim of `session` by its owner in the tests' usual case: "local",
/// started without an era (the 2025 revisions).
claim_request local_claim(const std::string& session,
                          std::int64_t known_epoch = 0) {
  claim_request req;
  req.session_id = session;
  req.principal = "local";
  req.scope = "2025";
  req.known_epoch = known_epoch;
  return req;
}

void check_same(const event& got, const event& want) {
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
int code_of(const result<T>& r) {
  auto* e = err_of(r);
  return e ? 1 + static_cast<int>(e->kind) : 0;
}

int code_of(error_kind k) {
  return 1 + static_cast<int>(k);
}

constexpr uid_t nobody = 65534;

/// Runs `f` in a child process and returns its exit code. With
/// `unprivileged`, a root parent's child first becomes `nobody`: root
/// ignores file modes, and the read-only tests must run in CI, which is root.
int in_child(bool unprivileged, const std::function<int()>& f) {
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
void give_away(const fs::path& p) {
  if (::geteuid() != 0)
    return;
  REQUIRE(::chown(p.c_str(), nobody, nobody) == 0);
  if (fs::is_directory(p))
    for (auto& e : fs::recursive_directory_iterator(p))
      REQUIRE(::chown(e.path().c_str(), nobody, nobody) == 0);
}

} // namespace

TEST_CASE("storage: kinds and states round-trip through their stored text",
          "[storage]") {
  for (auto k : {event_kind::session_started, event_kind::task_started,
                 event_kind::task_ended, event_kind::session_ended,
                 event_kind::session_expired})
    CHECK(event_kind_from(to_string(k)) == k);
  CHECK(std::string{to_string(event_kind::task_ended)} == "task_ended");
  CHECK_FALSE(event_kind_from("task_paused"));
  for (auto s :
       {session_state::open, session_state::ended, session_state::expired})
    CHECK(session_state_from(to_string(s)) == s);
  CHECK_FALSE(session_state_from("closed"));
  CHECK(std::string{to_string(error_kind::newer_schema)} == "newer_schema");
}

TEST_CASE("storage: a fresh open creates the directory and a WAL journal",
          "[storage]") {
  temp_dir tmp;
  auto dir = (tmp.path() / "a" / "b" / "data").string();
  auto st = must_open(dir);
  CHECK(st->describe() == "sqlite:" + dir + "/journal.sqlite3");
  CHECK(st->instance() == 1);
  for (auto p : {tmp.path() / "a", tmp.path() / "a" / "b", fs::path{dir}}) {
    struct stat s;
    REQUIRE(::stat(p.c_str(), &s) == 0);
    CHECK((s.st_mode & 0777) == 0700);
  }
  auto journal = dir + "/journal.sqlite3";
  struct stat s;
  REQUIRE(::stat(journal.c_str(), &s) == 0);
  CHECK((s.st_mode & 0777) == 0600);
  std::ifstream lock{dir + "/lock"};
  std::string pid;
  lock >> pid;
  CHECK(pid == std::to_string(::getpid()));
  raw_db db{journal};
  CHECK(db.text("PRAGMA journal_mode") == "wal");
  CHECK(db.integer("PRAGMA user_version") == 2);
  CHECK(db.integer("PRAGMA application_id") == 0x54544d4a);
  CHECK(db.text("SELECT value FROM meta WHERE key = 'created_by'")
        == "storage_test");
  CHECK(db.integer("SELECT value FROM meta WHERE key = 'instances'") == 1);
  CHECK(db.integer("SELECT count(*) FROM meta WHERE key = 'epoch'") == 0);
  CHECK(db.integer("SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == 0);
}

TEST_CASE("storage: events survive a close and reopen, field for field",
          "[storage]") {
  temp_dir tmp;
  std::vector<event> s1{
    started("S1", t0, "alice", "M-one"),
    task(event_kind::task_started, "S1", "T1", t0 + 1'000),
    task(event_kind::task_started, "S1", "T2", t0 + 2'000),
    task(event_kind::task_ended, "S1", "T1", t0 + 3'000),
  };
  s1[2].at.boot_id = "boot-b";
  s1[2].at.mono_ns = -7; // a boot's clock owes nothing to another's
  std::vector<event> s2{started("S2", t0 + 500, "bob", "M-two")};
  {
    auto st = must_open(tmp.data());
    must_append(*st, {s1[0], s1[1]});
    must_append(*st, s2);
    must_append(*st, {s1[2], s1[3]});
  }
  auto st = must_open(tmp.data());
  std::vector<stored_session> open;
  for (auto [id, who] : {std::pair{"S1", "alice"}, std::pair{"S2", "bob"}}) {
    claim_request req;
    req.session_id = id;
    req.principal = who;
    req.scope = "2025";
    auto c = must(st->claim(req));
    REQUIRE(c.outcome == claim_result::loaded);
    open.push_back(std::move(c.session));
  }
  CHECK(open[0].session_id == "S1");
  CHECK(open[0].principal == "alice");
  CHECK(open[0].milestone_id == "M-one");
  CHECK(open[0].state == session_state::open);
  CHECK(open[0].epoch == 2); // started at 1, claimed once
  CHECK(open[0].holder == st->instance());
  CHECK(open[0].started_wall_ns == t0);
  CHECK_FALSE(open[0].closed_wall_ns);
  REQUIRE(open[0].events.size() == s1.size());
  for (std::size_t i = 0; i < s1.size(); ++i) {
    INFO("event " << i);
    check_same(open[0].events[i], s1[i]);
    CHECK(open[0].events[i].principal == "alice");
    CHECK(open[0].events[i].epoch == 2);
  }
  CHECK(open[1].session_id == "S2");
  CHECK(open[1].principal == "bob");
  CHECK(open[1].milestone_id == "M-two");
  REQUIRE(open[1].events.size() == 1);
  check_same(open[1].events[0], s2[0]);
  CHECK(open[1].events[0].principal == "bob");
}

TEST_CASE("storage: every open is a new, higher instance", "[storage]") {
  temp_dir tmp;
  std::int64_t last = 0;
  for (int i = 0; i < 3; ++i) {
    auto st = must_open(tmp.data());
    CHECK(st->instance() > last);
    last = st->instance();
  }
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'instances'")
        == last);
}

TEST_CASE("storage: a claim takes a session over; other epochs are fenced",
          "[storage]") {
  temp_dir tmp;
  auto events_of_s1 = "SELECT count(*) FROM events JOIN sessions USING (sid) WHERE session_id = 'S1'";
  std::int64_t first = 0;
  {
    auto st = must_open(tmp.data());
    first = st->instance();
    must_append(*st, {started("S1", t0)});
    CHECK(count(tmp.journal(),
                "SELECT epoch FROM sessions WHERE session_id = 'S1'")
          == 1);
    CHECK(count(tmp.journal(),
                "SELECT holder FROM sessions WHERE session_id = 'S1'")
          == first);
  }
  auto st = must_open(tmp.data());
  REQUIRE(st->instance() > first);
  SECTION("an append at an epoch the session is not at is fenced") {
    auto ev = task(event_kind::task_started, "S1", "T1", t0 + 1);
    ev.epoch = 2;
    auto e = must_fail(st->append({ev}), error_kind::fenced, tmp.journal());
    CHECK(contains(e.message, "S1"));
    CHECK(count(tmp.journal(), events_of_s1) == 1);
  }
  SECTION("after the claim, appends work until another instance claims it") {
    claim_request req;
    req.session_id = "S1";
    req.principal = "local";
    req.scope = "2025";
    auto c = must(st->claim(req));
    REQUIRE(c.outcome == claim_result::loaded);
    CHECK(c.session.epoch == 2);
    CHECK(c.previous_holder == first);
    CHECK_FALSE(c.previous_alive); // its store is gone
    CHECK(count(tmp.journal(),
                "SELECT epoch FROM sessions WHERE session_id = 'S1'")
          == 2);
    CHECK(count(tmp.journal(),
                "SELECT holder FROM sessions WHERE session_id = 'S1'")
          == st->instance());
    // The old epoch is fenced now.
    must_fail(st->append({task(event_kind::task_started, "S1", "T1", t0 + 1)}),
              error_kind::fenced, tmp.journal());
    auto ev = task(event_kind::task_started, "S1", "T1", t0 + 1);
    ev.epoch = c.session.epoch;
    must_append(*st, {ev});
    CHECK(count(tmp.journal(), events_of_s1) == 2);
    CHECK(count(tmp.journal(), "SELECT epoch FROM events"
                               " ORDER BY seq DESC LIMIT 1")
          == 2);
    // Another instance (a raw connection here) claims S1 again.
    raw_db{tmp.journal()}.exec("UPDATE sessions SET epoch = epoch + 1");
    auto end = task(event_kind::task_ended, "S1", "T1", t0 + 2);
    auto close = closing(event_kind::session_ended, "S1", t0 + 3);
    end.epoch = close.epoch = c.session.epoch;
    must_fail(st->append({end, close}), error_kind::fenced, tmp.journal());
    CHECK(count(tmp.journal(), events_of_s1) == 2);
    CHECK(count(tmp.journal(),
                "SELECT count(*) FROM sessions WHERE state = 'open'")
          == 1);
  }
}

TEST_CASE("storage: a batch is written whole or not at all", "[storage]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, {started("S0", t0)});
  auto nothing_of_s1 = [&] {
    CHECK(count(tmp.journal(),
                "SELECT count(*) FROM sessions WHERE session_id = 'S1'")
          == 0);
    CHECK(count(tmp.journal(),
                "SELECT count(*) FROM events JOIN sessions USING (sid) WHERE session_id = 'S1'")
          == 0);
    CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 1);
  };
  std::vector<event> batch{started("S1", t0 + 10),
                           task(event_kind::task_started, "S1", "T1", t0 + 11)};
  SECTION("an event of an unknown session") {
    batch.push_back(task(event_kind::task_started, "nope", "T1", t0 + 12));
    auto e = must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    CHECK(contains(e.message, "session nope is not open"));
    nothing_of_s1();
  }
  SECTION("a second session_started") {
    batch.push_back(started("S0", t0 + 12));
    auto e = must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    CHECK(contains(e.message, "S0 is already in the journal"));
    nothing_of_s1();
  }
  SECTION("an event after the session ended") {
    batch.push_back(closing(event_kind::session_ended, "S1", t0 + 12));
    batch.push_back(task(event_kind::task_started, "S1", "T2", t0 + 13));
    must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    nothing_of_s1();
  }
  SECTION("a payload that is not JSON") {
    batch.push_back(task(event_kind::task_ended, "S1", "T1", t0 + 12));
    batch.back().payload = "{not json";
    auto e = must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    CHECK(contains(e.message, "not JSON"));
    nothing_of_s1();
  }
  SECTION("a session_started without a milestone_id") {
    batch[0].payload = R"({"milestone_name":"x"})";
    must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    nothing_of_s1();
  }
  // The store stays usable after a rolled-back batch.
  batch.resize(2);
  batch[0] = started("S1", t0 + 10);
  must_append(*st, batch);
  CHECK(count(tmp.journal(),
              "SELECT count(*) FROM events JOIN sessions USING (sid) WHERE session_id = 'S1'")
        == 2);
}

TEST_CASE("storage: a journal of a newer schema is refused, untouched",
          "[storage]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    must_append(*st, {started("S1", t0)});
  }
  {
    // Like a newer server killed after its migration: the new version is
    // still in the WAL, which a careless close would checkpoint into the file.
    raw_db db{tmp.journal()};
    db.exec("PRAGMA user_version = 99");
    db.no_checkpoint_on_close();
  }
  REQUIRE(fs::exists(tmp.journal() + "-wal"));
  auto before = fingerprint_of(tmp.journal());
  auto e = must_fail(open_at(tmp.data()), error_kind::newer_schema,
                     tmp.journal());
  CHECK(contains(e.message, "version 99"));
  CHECK(contains(e.message, "supports (2)"));
  CHECK(contains(e.message, "not modified"));
  CHECK(fingerprint_of(tmp.journal()) == before);
  CHECK(count(tmp.journal(), "PRAGMA user_version") == 99);
}

TEST_CASE("storage: a file that is not a database is refused, untouched",
          "[storage]") {
  temp_dir tmp;
  fs::create_directory(tmp.data());
  {
    std::ofstream out{tmp.journal(), std::ios::binary};
    for (int i = 0; i < 3000; ++i)
      out << "this is not SQLite " << i << '\n';
  }
  auto before = fingerprint_of(tmp.journal());
  auto e = must_fail(open_at(tmp.data()), error_kind::corrupt, tmp.journal());
  CHECK(contains(e.message, "move it aside"));
  CHECK(fingerprint_of(tmp.journal()) == before);
}

TEST_CASE("storage: a damaged journal fails its check and stays untouched",
          "[storage]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    for (int i = 0; i < 200; ++i)
      must_append(*st, {started("S" + std::to_string(i), t0 + i)});
  }
  auto size = fs::file_size(tmp.journal());
  REQUIRE(size >= 8 * 4096);
  {
    // Page 1 (the schema) stays readable; a later page is garbage.
    std::fstream f{tmp.journal(), std::ios::in | std::ios::out
                                    | std::ios::binary};
    f.seekp(static_cast<std::streamoff>(size - 3 * 4096));
    f << std::string(4096, '\xab');
  }
  auto before = fingerprint_of(tmp.journal());
  auto e = must_fail(open_at(tmp.data()), error_kind::corrupt, tmp.journal());
  CHECK(contains(e.message, "move it aside"));
  CHECK(fingerprint_of(tmp.journal()) == before);
}

TEST_CASE("storage: another application's database is refused, untouched",
          "[storage]") {
  temp_dir tmp;
  fs::create_directory(tmp.data());
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(tmp.journal().c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE notes (body TEXT)", nullptr,
                         nullptr, nullptr)
            == SQLITE_OK);
    sqlite3_close(db);
  }
  auto before = fingerprint_of(tmp.journal());
  auto e = must_fail(open_at(tmp.data()), error_kind::corrupt, tmp.journal());
  CHECK(contains(e.message, "another application"));
  CHECK(fingerprint_of(tmp.journal()) == before);
}

TEST_CASE("storage: a directory or journal we may not write is read_only",
          "[storage]") {
  temp_dir tmp;
  auto dir = fs::path{tmp.data()};
  SECTION("the data directory cannot be created") {
    auto parent = tmp.path() / "ro";
    fs::create_directory(parent);
    give_away(parent);
    REQUIRE(::chmod(parent.c_str(), 0500) == 0);
    dir = parent / "data";
  }
  SECTION("the data directory is read-only") {
    must_open(dir.string());
    give_away(dir);
    REQUIRE(::chmod(dir.c_str(), 0500) == 0);
  }
  SECTION("the journal is read-only") {
    must_open(dir.string());
    give_away(dir);
    REQUIRE(::chmod(tmp.journal().c_str(), 0400) == 0);
  }
  auto code = in_child(true, [&] {
    auto r = open_at(dir.string());
    auto* e = err_of(r);
    if (e && e->message.find(dir.string()) == std::string::npos)
      return 122; // the message must name the path
    return code_of(r);
  });
  CHECK(code == code_of(error_kind::read_only));
}

namespace {

/// The page limit that cap_pages puts on every new connection.
int page_cap = 0;

int cap_pages(sqlite3* db, const char**, const sqlite3_api_routines*) {
  auto sql = "PRAGMA max_page_count = " + std::to_string(page_cap);
  return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
}

/// Caps the size of the databases opened while it lives: SQLITE_FULL, as on
/// a full disk, without filling one.
class page_cap_scope {
public:
  explicit page_cap_scope(int pages) {
    page_cap = pages;
    REQUIRE(sqlite3_auto_extension(entry()) == SQLITE_OK);
  }
  ~page_cap_scope() {
    sqlite3_cancel_auto_extension(entry());
  }
  page_cap_scope(const page_cap_scope&) = delete;
  page_cap_scope& operator=(const page_cap_scope&) = delete;

private:
  static void (*entry())() {
    return reinterpret_cast<void (*)()>(&cap_pages);
  }
};

} // namespace

TEST_CASE("storage: a full disk fails the append with full, writing nothing",
          "[storage]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    must_append(*st, {started("S1", t0)});
  }
  auto pages = static_cast<int>(fs::file_size(tmp.journal()) / 4096);
  auto big = task(event_kind::task_started, "S1", "T1", t0 + 1);
  big.payload = R"({"notes":")" + std::string(256 * 1024, 'x') + "\"}";
  {
    page_cap_scope cap{pages + 4};
    auto st = must_open(tmp.data());
    auto c = must(st->claim(local_claim("S1")));
    REQUIRE(c.outcome == claim_result::loaded);
    auto t0_started = task(event_kind::task_started, "S1", "T0", t0 + 1);
    t0_started.epoch = big.epoch = c.session.epoch;
    must_fail(st->append({t0_started, big}), error_kind::full, tmp.journal());
    // The store stays usable for what still fits.
    must_append(*st, {t0_started});
  }
  auto st = must_open(tmp.data());
  auto c = must(st->claim(local_claim("S1")));
  REQUIRE(c.outcome == claim_result::loaded);
  REQUIRE(c.session.events.size() == 2);
  CHECK(c.session.events[1].kind == event_kind::task_started);
  CHECK(c.session.events[1].task_id == "T0");
}

TEST_CASE("storage: history is newest first, filtered and limited",
          "[storage]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, {started("A1", t0 + 100, "alice"),
                    task(event_kind::task_started, "A1", "T", t0 + 101),
                    closing(event_kind::session_ended, "A1", t0 + 150)});
  must_append(*st, {started("B1", t0 + 200, "bob")});
  must_append(*st, {started("A2", t0 + 300, "alice"),
                    closing(event_kind::session_expired, "A2", t0 + 400)});
  must_append(*st, {started("A3", t0 + 500, "alice")});
  auto ids = [](const std::vector<stored_session>& v) {
    std::vector<std::string> out;
    for (auto& s : v)
      out.push_back(s.session_id);
    return out;
  };
  using ids_t = std::vector<std::string>;
  auto all = must(st->history({}));
  CHECK(ids(all) == ids_t{"A3", "A2", "B1", "A1"});
  for (auto& s : all)
    CHECK(s.events.empty()); // not asked for
  CHECK(all[1].state == session_state::expired);
  CHECK(all[1].closed_wall_ns == t0 + 400);
  CHECK(all[3].state == session_state::ended);
  CHECK(all[3].closed_wall_ns == t0 + 150);
  CHECK(all[2].state == session_state::open);
  history_query q;
  q.principal = "alice";
  CHECK(ids(must(st->history(q))) == ids_t{"A3", "A2", "A1"});
  q.since_wall_ns = t0 + 300;
  CHECK(ids(must(st->history(q))) == ids_t{"A3", "A2"});
  q.until_wall_ns = t0 + 500;
  CHECK(ids(must(st->history(q))) == ids_t{"A2"});
  q = {};
  q.limit = 2;
  CHECK(ids(must(st->history(q))) == ids_t{"A3", "A2"});
  q = {};
  q.principal = "alice";
  q.until_wall_ns = t0 + 200;
  q.with_events = true;
  auto a1 = must(st->history(q));
  REQUIRE(ids(a1) == ids_t{"A1"});
  REQUIRE(a1[0].events.size() == 3);
  CHECK(a1[0].events[0].kind == event_kind::session_started);
  CHECK(a1[0].events[1].kind == event_kind::task_started);
  CHECK(a1[0].events[1].task_id == "T");
  CHECK(a1[0].events[2].kind == event_kind::session_ended);
  CHECK(a1[0].events[2].principal == "alice");
  q = {};
  q.principal = "carol";
  CHECK(must(st->history(q)).empty());
}

TEST_CASE("storage: purge deletes only sessions closed before the cutoff",
          "[storage]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, {started("old-ended", t0),
                    task(event_kind::task_started, "old-ended", "T", t0 + 1),
                    closing(event_kind::session_ended, "old-ended", t0 + 100)});
  must_append(*st,
              {started("old-expired", t0 + 10),
               closing(event_kind::session_expired, "old-expired", t0 + 150)});
  must_append(*st,
              {started("recent", t0 + 20),
               closing(event_kind::session_ended, "recent", t0 + 1000)});
  must_append(*st, {started("open", t0 + 5)}); // old, but still open
  constexpr std::int64_t hour = 3'600'000'000'000;
  auto now = t0 + 10 * hour;
  CHECK(must(st->purge_closed_before(t0 + 500, now, hour)) == 2);
  std::vector<std::string> left;
  for (auto& s : must(st->history({})))
    left.push_back(s.session_id);
  CHECK(left == std::vector<std::string>{"recent", "open"});
  // Their events went with them: none is left without its session.
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events WHERE sid NOT IN"
                             " (SELECT sid FROM sessions)")
        == 0);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 3);
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == now);
  CHECK(must(st->purge_closed_before(t0 + 500, now + hour, hour)) == 0);
}

TEST_CASE("storage: a claim of an ended or expired session loads it as it "
          "is, without taking it",
          "[storage]") {
  temp_dir tmp;
  std::int64_t first = 0;
  {
    auto st = must_open(tmp.data());
    first = st->instance();
    must_append(*st, {started("ended", t0), started("expired", t0 + 1),
                      started("open", t0 + 2)});
    must_append(*st, {closing(event_kind::session_ended, "ended", t0 + 10),
                      closing(event_kind::session_expired, "expired", t0 + 11)});
  }
  auto st = must_open(tmp.data());
  auto ended = must(st->claim(local_claim("ended")));
  REQUIRE(ended.outcome == claim_result::loaded);
  CHECK(ended.session.state == session_state::ended);
  CHECK(ended.session.closed_wall_ns == t0 + 10);
  CHECK(ended.session.epoch == 1); // not taken: nothing to write to it
  CHECK(ended.session.holder == first);
  CHECK(ended.previous_holder == 0);
  REQUIRE(ended.session.events.size() == 2);
  CHECK(ended.session.events[1].kind == event_kind::session_ended);
  auto expired = must(st->claim(local_claim("expired")));
  REQUIRE(expired.outcome == claim_result::loaded);
  CHECK(expired.session.state == session_state::expired);
  CHECK(expired.session.epoch == 1);
  CHECK(expired.session.events.empty());
  // A caller that held it before hears that it changed, not `current`.
  auto req = local_claim("expired");
  req.known_epoch = 1;
  CHECK(must(st->claim(req)).outcome == claim_result::loaded);
  auto open = must(st->claim(local_claim("open")));
  REQUIRE(open.outcome == claim_result::loaded);
  CHECK(open.session.state == session_state::open);
  CHECK(open.session.epoch == 2);
  REQUIRE(open.session.events.size() == 1);
  CHECK(open.session.events[0].kind == event_kind::session_started);
  CHECK(raw_db{tmp.journal()}.text("SELECT group_concat(epoch) FROM"
                                   " (SELECT epoch FROM sessions ORDER BY sid)")
        == "1,1,2");
}

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
event started_in(const std::string& session, std::int64_t wall_ns,
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

event at_epoch(event ev, std::int64_t epoch) {
  ev.epoch = epoch;
  return ev;
}

claim_request claim_of(const std::string& session,
                       const std::string& principal, const std::string& scope,
                       std::int64_t known_epoch = 0) {
  claim_request req;
  req.session_id = session;
  req.principal = principal;
  req.scope = scope;
  req.known_epoch = known_epoch;
  return req;
}

std::int64_t column_of(const std::string& journal, const std::string& column,
                       const std::string& session) {
  return count(journal, "SELECT " + column + " FROM sessions WHERE"
                        " session_id = '" + session + "'");
}

std::string text_of(const std::string& journal, const std::string& column,
                    const std::string& session) {
  return raw_db{journal}.text("SELECT " + column + " FROM sessions WHERE"
                              " session_id = '" + session + "'");
}

std::int64_t events_of(const std::string& journal, const std::string& session) {
  return count(journal, "SELECT count(*) FROM events JOIN sessions USING (sid)"
                        " WHERE session_id = '" + session + "'");
}

std::vector<std::string> ids_of(const std::vector<orphan>& v) {
  std::vector<std::string> out;
  for (const auto& o : v)
    out.push_back(o.session_id);
  std::sort(out.begin(), out.end());
  return out;
}

using names = std::vector<std::string>;

/// Every open session is due at these cutoffs: only liveness decides.
std::vector<orphan> all_orphans(store& st, std::size_t limit = 100) {
  return must(st.orphans_due(INT64_MAX, INT64_MAX, limit));
}

} // namespace

TEST_CASE("storage: two stores open on one directory at once, each its own "
          "instance",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  CHECK(a->instance() > 0);
  CHECK(b->instance() > a->instance());
  CHECK(a->describe() == b->describe());
  must_append(*a, {started("A1", t0)});
  must_append(*b, {started("B1", t0 + 1)});
  must_append(*a, {task(event_kind::task_started, "A1", "T1", t0 + 2)});
  must_append(*b, {task(event_kind::task_started, "B1", "T1", t0 + 3)});
  // Each sees what the other wrote.
  for (auto* st : {a.get(), b.get()}) {
    auto all = must(st->history({}));
    REQUIRE(all.size() == 2);
    CHECK(all[0].session_id == "B1");
    CHECK(all[0].holder == b->instance());
    CHECK(all[1].session_id == "A1");
    CHECK(all[1].holder == a->instance());
  }
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 4);
  // A third comes and goes; the first two carry on without it, and with
  // the first gone too, the second still writes.
  {
    auto c = must_open(tmp.data());
    CHECK(c->instance() > b->instance());
    must_append(*c, {started("C1", t0 + 4)});
  }
  a.reset();
  must_append(*b, {closing(event_kind::session_ended, "B1", t0 + 5)});
  auto d = must_open(tmp.data());
  CHECK(d->instance() == b->instance() + 2);
  CHECK(count(tmp.journal(), "SELECT value FROM meta WHERE key = 'instances'")
        == d->instance());
}

TEST_CASE("storage: a claim loads the latest state for the owner only, one "
          "epoch further",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  auto s1 = started_in("S1", t0, "alice", modern);
  auto t1 = task(event_kind::task_started, "S1", "T1", t0 + 10);
  must_append(*a, {s1, t1});
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 1);
  CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
  CHECK(text_of(tmp.journal(), "scope", "S1") == modern);

  auto c = must(b->claim(claim_of("S1", "alice", modern)));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.session_id == "S1");
  CHECK(c.session.principal == "alice");
  CHECK(c.session.state == session_state::open);
  CHECK(c.session.epoch == 2);
  CHECK(c.session.holder == b->instance());
  CHECK(c.previous_holder == a->instance());
  CHECK(c.previous_alive); // a's store is open: its process lives
  REQUIRE(c.session.events.size() == 2);
  check_same(c.session.events[0], s1);
  check_same(c.session.events[1], t1);
  for (const auto& ev : c.session.events) {
    CHECK(ev.principal == "alice"); // the owner's, whatever was written
    CHECK(ev.epoch == 2);
  }
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
  CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());

  SECTION("the holder at its epoch is current, without a write") {
    auto again = must(b->claim(claim_of("S1", "alice", modern, 2)));
    CHECK(again.outcome == claim_result::current);
    CHECK(again.session.epoch == 2);
    CHECK(again.session.events.empty());
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
  }
  SECTION("another principal, another era or an unknown id: not_found, and "
          "the session is left as it was") {
    for (auto req : {claim_of("S1", "bob", modern),
                     claim_of("S1", "alice", "2025"),
                     claim_of("S1", "bob", modern, 2),
                     claim_of("S1", "alice", "2025", 2),
                     claim_of("S2", "alice", modern),
                     claim_of("", "alice", modern)}) {
      INFO(req.session_id << " " << req.principal << " " << req.scope << " "
                          << req.known_epoch);
      auto r = must(a->claim(req));
      CHECK(r.outcome == claim_result::not_found);
      CHECK(r.session.events.empty());
      CHECK(r.session.session_id.empty()); // nothing a stranger may read
    }
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
    CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());
  }
  SECTION("the old holder's copy is not current: it loads, and takes it "
          "back") {
    auto back = must(a->claim(claim_of("S1", "alice", modern, 1)));
    REQUIRE(back.outcome == claim_result::loaded);
    CHECK(back.session.epoch == 3);
    CHECK(back.session.holder == a->instance());
    CHECK(back.previous_holder == b->instance());
    CHECK(back.previous_alive);
    CHECK(back.session.events.size() == 2);
    // b's copy (epoch 2) is stale now.
    auto stale = must(b->claim(claim_of("S1", "alice", modern, 2)));
    CHECK(stale.outcome == claim_result::loaded);
    CHECK(stale.session.epoch == 4);
  }
  SECTION("a claim of its own session by its holder without an epoch moves "
          "the epoch on") {
    auto own = must(b->claim(claim_of("S1", "alice", modern)));
    REQUIRE(own.outcome == claim_result::loaded);
    CHECK(own.session.epoch == 3);
    CHECK(own.previous_holder == b->instance());
    CHECK_FALSE(own.previous_alive); // itself: not "another live holder"
  }
}

TEST_CASE("storage: a claim by idempotency key finds the owner's newest "
          "session with that key",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started_in("K-old", t0, "alice", modern, "k-1")});
  must_append(*a, {started_in("K-new", t0 + 100, "alice", modern, "k-1")});
  must_append(*a, {started_in("K-bob", t0 + 200, "bob", modern, "k-1")});
  must_append(*a, {started_in("K-2025", t0 + 300, "alice", "2025", "k-1")});
  auto by_key = [](const std::string& principal, const std::string& scope,
                   std::int64_t since) {
    claim_request req;
    req.idempotency_key = "k-1";
    req.principal = principal;
    req.scope = scope;
    req.since_wall_ns = since;
    return req;
  };
  CHECK(text_of(tmp.journal(), "idempotency_key", "K-new") == "k-1");
  auto c = must(b->claim(by_key("alice", modern, t0)));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.session_id == "K-new");
  CHECK(c.session.epoch == 2);
  CHECK(c.session.holder == b->instance());
  CHECK(must(b->claim(by_key("bob", modern, t0))).session.session_id
        == "K-bob");
  CHECK(must(b->claim(by_key("alice", "2025", t0))).session.session_id
        == "K-2025");
  CHECK(must(b->claim(by_key("alice", modern, t0 + 101))).outcome
        == claim_result::not_found);
  CHECK(must(b->claim(by_key("carol", modern, t0))).outcome
        == claim_result::not_found);
  // An expired session with the key is not found by it: a new one starts.
  must_append(*b, {at_epoch(closing(event_kind::session_expired, "K-new",
                                    t0 + 400),
                            2)});
  auto older = must(b->claim(by_key("alice", modern, t0)));
  REQUIRE(older.outcome == claim_result::loaded);
  CHECK(older.session.session_id == "K-old");
}

TEST_CASE("storage: a fenced append from the old holder writes nothing",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started("S1", t0), started("S2", t0 + 1)});
  must_append(*a, {task(event_kind::task_started, "S1", "T1", t0 + 2)});
  auto c = must(b->claim(local_claim("S1")));
  REQUIRE(c.outcome == claim_result::loaded);
  REQUIRE(c.session.epoch == 2);
  auto before_s1 = events_of(tmp.journal(), "S1");
  auto before_s2 = events_of(tmp.journal(), "S2");
  auto last_s2 = column_of(tmp.journal(), "last_wall_ns", "S2");
  SECTION("one event") {
    auto e = must_fail(a->append({task(event_kind::task_ended, "S1", "T1",
                                       t0 + 3)}),
                       error_kind::fenced, tmp.journal());
    CHECK(contains(e.message, "S1"));
    CHECK(contains(e.message, "epoch 2"));
  }
  SECTION("a batch with a session a still holds: none of it") {
    must_fail(a->append({task(event_kind::task_started, "S2", "T9", t0 + 3),
                         task(event_kind::task_ended, "S1", "T1", t0 + 4)}),
              error_kind::fenced, tmp.journal());
  }
  SECTION("closing the session") {
    must_fail(a->append({closing(event_kind::session_ended, "S1", t0 + 3)}),
              error_kind::fenced, tmp.journal());
  }
  CHECK(events_of(tmp.journal(), "S1") == before_s1);
  CHECK(events_of(tmp.journal(), "S2") == before_s2);
  CHECK(column_of(tmp.journal(), "last_wall_ns", "S2") == last_s2);
  CHECK(text_of(tmp.journal(), "state", "S1") == "open");
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
  CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());
  // a still writes its other session, and b the one it claimed.
  must_append(*a, {task(event_kind::task_started, "S2", "T9", t0 + 5)});
  must_append(*b, {at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 6),
                            2)});
}

TEST_CASE("storage: two stores ending the same task: one ends it, the other "
          "is fenced and reloads it ended",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started_in("S1", t0, "alice", modern),
                   task(event_kind::task_started, "S1", "T1", t0 + 1)});
  // Both hold a copy with T1 running: a from the start (epoch 1), b from
  // its claim (epoch 2). Both end T1.
  auto bc = must(b->claim(claim_of("S1", "alice", modern)));
  REQUIRE(bc.outcome == claim_result::loaded);
  auto by_a = at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 10), 1);
  auto by_b = at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 11), 2);
  SECTION("the claimer writes first") {
    must_append(*b, {by_b});
    must_fail(a->append({by_a}), error_kind::fenced, tmp.journal());
  }
  SECTION("the old holder writes first") {
    must_fail(a->append({by_a}), error_kind::fenced, tmp.journal());
    must_append(*b, {by_b});
  }
  CHECK(count(tmp.journal(),
              "SELECT count(*) FROM events WHERE kind = 'task_ended'")
        == 1);
  // The fenced one reloads (re-claims: it is still entitled) and finds T1
  // ended by the other: it answers already_ended.
  auto ac = must(a->claim(claim_of("S1", "alice", modern, 1)));
  REQUIRE(ac.outcome == claim_result::loaded);
  CHECK(ac.session.epoch == 3);
  REQUIRE(ac.session.events.size() == 3);
  CHECK(ac.session.events[2].kind == event_kind::task_ended);
  CHECK(ac.session.events[2].at.wall_ns == t0 + 11);
  // And now b is the stale one.
  must_fail(b->append({at_epoch(closing(event_kind::session_ended, "S1",
                                        t0 + 12),
                                2)}),
            error_kind::fenced, tmp.journal());
  must_append(*a, {at_epoch(closing(event_kind::session_ended, "S1", t0 + 12),
                            3)});
  CHECK(text_of(tmp.journal(), "state", "S1") == "ended");
}

TEST_CASE("storage: released sessions and a dead holder's are orphans, a "
          "live holder's are not",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started("S1", t0), started("S2", t0 + 1),
                   started("S3", t0 + 2)});
  must_append(*a, {task(event_kind::task_started, "S1", "T1", t0 + 50)});
  must_append(*b, {started("B1", t0 + 3)});
  CHECK(all_orphans(*a).empty());
  CHECK(all_orphans(*b).empty());

  // A release names the epoch it holds at; another epoch or another
  // instance's release changes nothing.
  must(a->release({{"S1", 1}, {"S2", 7}}));
  must(b->release({{"S3", 1}}));
  CHECK(column_of(tmp.journal(), "holder", "S1") == 0);
  CHECK(column_of(tmp.journal(), "holder", "S2") == a->instance());
  CHECK(column_of(tmp.journal(), "holder", "S3") == a->instance());
  for (auto* st : {a.get(), b.get()}) {
    auto o = all_orphans(*st);
    REQUIRE(o.size() == 1);
    CHECK(o[0].session_id == "S1");
    CHECK(o[0].principal == "local");
    CHECK(o[0].epoch == 1);
    CHECK(o[0].started_wall_ns == t0);
    CHECK(o[0].last_wall_ns == t0 + 50); // its latest event
  }
  // The cutoffs: started before the age cutoff or idle since before the
  // idle cutoff.
  CHECK(must(b->orphans_due(t0, t0 + 50, 100)).empty());
  CHECK(ids_of(must(b->orphans_due(t0 + 1, t0, 100))) == names{"S1"});
  CHECK(ids_of(must(b->orphans_due(t0, t0 + 51, 100))) == names{"S1"});

  // The holder's process ends: the rest of its sessions are orphans now.
  auto dead = a->instance();
  a.reset();
  CHECK(ids_of(all_orphans(*b)) == names{"S1", "S2", "S3"});
  CHECK(all_orphans(*b, 2).size() == 2);
  CHECK(all_orphans(*b, 0).empty());
  CHECK(column_of(tmp.journal(), "holder", "S2") == dead); // as it was

  // A claim makes one held again (by a live instance): not an orphan.
  auto c = must(b->claim(local_claim("S2")));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.previous_holder == dead);
  CHECK_FALSE(c.previous_alive);
  auto released = must(b->claim(local_claim("S1")));
  CHECK(released.previous_holder == 0);
  CHECK_FALSE(released.previous_alive);
  CHECK(ids_of(all_orphans(*b)) == names{"S3"});
  // A new store on the directory sees b alive, and S3 dead.
  auto d = must_open(tmp.data());
  CHECK(ids_of(all_orphans(*d)) == names{"S3"});
}

TEST_CASE("storage: max_open_sessions counts the open sessions of the whole "
          "directory",
          "[storage][issue15]") {
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.max_open_sessions = 2;
  auto a = must_open(opts);
  auto b = must_open(opts);
  must_append(*a, {started("S1", t0)});
  must_append(*b, {started("S2", t0 + 1)});
  for (auto* st : {a.get(), b.get()}) {
    auto e = must_fail(st->append({started("S3", t0 + 2)}), error_kind::limit,
                       tmp.journal());
    CHECK(contains(e.message, "2 tracking sessions"));
  }
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 2);
  // Closing one frees its place for anyone, whole batches only.
  must_append(*b, {closing(event_kind::session_ended, "S2", t0 + 3)});
  must_fail(a->append({started("S3", t0 + 4), started("S4", t0 + 4)}),
            error_kind::limit, tmp.journal());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 2);
  must_append(*a, {started("S3", t0 + 4)});
  must_fail(b->append({started("S4", t0 + 5)}), error_kind::limit,
            tmp.journal());
  must_append(*a, {closing(event_kind::session_expired, "S1", t0 + 6)});
  must_append(*b, {started("S4", t0 + 7)});
  CHECK(count(tmp.journal(),
              "SELECT count(*) FROM sessions WHERE state = 'open'")
        == 2);
  CHECK(must(a->open_sessions()) == 2);
  CHECK(must(b->open_sessions()) == 2);
  // Events of open sessions are not limited.
  must_append(*a, {task(event_kind::task_started, "S3", "T1", t0 + 8)});
  // A store without a limit (0) is not held to another's.
  auto c = must_open(tmp.data());
  must_append(*c, {started("S5", t0 + 9)});
  CHECK(must(a->open_sessions()) == 3);
}

TEST_CASE("storage: one purge per interval over all stores on the directory",
          "[storage][issue15]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  auto ended_session = [&](store& st, const std::string& id,
                           std::int64_t at) {
    must_append(st, {started(id, at),
                     closing(event_kind::session_ended, id, at + 1)});
  };
  ended_session(*a, "E1", t0);
  ended_session(*b, "E2", t0 + 10);
  auto now = t0 + 48 * hour_ns;
  auto cutoff = now - 24 * hour_ns;
  // The first purge ever runs.
  CHECK(must(a->purge_closed_before(cutoff, now, hour_ns)) == 2);
  ended_session(*a, "E3", t0 + 20);
  // Within the hour, the other store's purge (and a's own) does nothing.
  CHECK(must(b->purge_closed_before(cutoff, now + hour_ns / 2, hour_ns))
        == std::nullopt);
  CHECK(must(a->purge_closed_before(cutoff, now + hour_ns - 1, hour_ns))
        == std::nullopt);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 1);
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == now);
  // An hour after, the first to ask purges.
  CHECK(must(b->purge_closed_before(cutoff, now + hour_ns, hour_ns)) == 1);
  CHECK(must(a->purge_closed_before(cutoff, now + hour_ns, hour_ns))
        == std::nullopt);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 0);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 0);
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == now + hour_ns);
}

namespace {

/// The schema a server of schema version 1 created (the first migration in
/// sqlite_schema.cpp, verbatim), in WAL mode as it ran.
constexpr const char* schema_1 = R"sql(
    PRAGMA application_id = 1414810954;
    CREATE TABLE meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO meta (key, value) VALUES ('epoch', '0');
    CREATE TABLE sessions (
      sid             INTEGER PRIMARY KEY,
      session_id      TEXT NOT NULL UNIQUE,
      principal       TEXT NOT NULL,
      milestone_id    TEXT NOT NULL,
      state           TEXT NOT NULL
                      CHECK (state IN ('open', 'ended', 'expired')),
      epoch           INTEGER NOT NULL,
      started_wall_ns INTEGER NOT NULL,
      closed_wall_ns  INTEGER,
      CHECK ((state = 'open') = (closed_wall_ns IS NULL))
    );
    CREATE INDEX sessions_by_state_closed ON sessions (state, closed_wall_ns);
    CREATE INDEX sessions_by_started ON sessions (started_wall_ns);
    CREATE TABLE events (
      seq        INTEGER PRIMARY KEY,
      sid        INTEGER NOT NULL
                 REFERENCES sessions (sid) ON DELETE CASCADE,
      kind       TEXT NOT NULL,
      task_id    TEXT,
      wall_ns    INTEGER NOT NULL,
      mono_ns    INTEGER NOT NULL,
      boot_id    TEXT NOT NULL,
      epoch      INTEGER NOT NULL,
      payload    TEXT NOT NULL CHECK (json_valid(payload))
    );
    CREATE INDEX events_by_session ON events (sid, seq);
    PRAGMA user_version = 1;
)sql";

} // namespace

TEST_CASE("storage: a schema-1 journal migrates to schema 2, scope, key and "
          "last activity taken from its events",
          "[storage][issue15]") {
  temp_dir tmp;
  fs::create_directory(tmp.data());
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(tmp.journal().c_str(), &raw) == SQLITE_OK);
    sqlite3_close(raw);
    raw_db db{tmp.journal()};
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(schema_1);
    // As a schema-1 server left it: its epoch counter at 3, sessions held
    // at the epochs of the servers that adopted them.
    auto at = [&](int d) { return std::to_string(t0 + d); };
    db.exec("UPDATE meta SET value = '3' WHERE key = 'epoch';"
            "INSERT INTO sessions VALUES"
            " (1, 'M1', 'alice', 'M', 'open', 3, " + at(0) + ", NULL),"
            " (2, 'L1', 'local', 'M', 'open', 2, " + at(1) + ", NULL),"
            " (3, 'E1', 'bob', 'M', 'ended', 1, " + at(2) + ", " + at(20) + ");"
            "INSERT INTO events (sid, kind, task_id, wall_ns, mono_ns, boot_id,"
            " epoch, payload) VALUES"
            " (1, 'session_started', NULL, " + at(0) + ", 5, 'boot-a', 1,"
            "  '{\"era\":\"2026-07-28\",\"milestone_id\":\"M\","
            "\"idempotency_key\":\"k-1\"}'),"
            " (1, 'task_started', 'T1', " + at(5) + ", 10, 'boot-a', 3,"
            "  '{\"task_name\":\"x\"}'),"
            " (2, 'session_started', NULL, " + at(1) + ", 6, 'boot-a', 2,"
            "  '{\"milestone_id\":\"M\"}'),"
            " (3, 'session_started', NULL, " + at(2) + ", 7, 'boot-a', 1,"
            "  '{\"milestone_id\":\"M\",\"era\":\"2025\"}'),"
            " (3, 'session_ended', NULL, " + at(20) + ", 25, 'boot-a', 1,"
            "  '{}')");
  }
  auto st = must_open(tmp.data());
  CHECK(st->instance() == 4); // the old epoch counter numbers instances
  {
    raw_db db{tmp.journal()};
    CHECK(db.integer("PRAGMA user_version") == 2);
    CHECK(db.integer("SELECT value FROM meta WHERE key = 'instances'") == 4);
    CHECK(db.integer("SELECT count(*) FROM meta WHERE key = 'epoch'") == 0);
    CHECK(db.integer("SELECT value FROM meta WHERE key = 'purged_wall_ns'")
          == 0);
    CHECK(db.text("PRAGMA quick_check") == "ok");
  }
  auto j = tmp.journal();
  CHECK(text_of(j, "scope", "M1") == modern);
  CHECK(text_of(j, "scope", "L1") == "2025");
  CHECK(text_of(j, "scope", "E1") == "2025");
  CHECK(text_of(j, "idempotency_key", "M1") == "k-1");
  CHECK(count(j, "SELECT count(*) FROM sessions WHERE session_id = 'L1'"
                 " AND idempotency_key IS NULL")
        == 1);
  CHECK(column_of(j, "last_wall_ns", "M1") == t0 + 5);
  CHECK(column_of(j, "last_wall_ns", "L1") == t0 + 1);
  CHECK(column_of(j, "last_wall_ns", "E1") == t0 + 20);
  for (auto id : {"M1", "L1", "E1"}) {
    INFO(id);
    CHECK(column_of(j, "epoch", id) == 1);
    CHECK(column_of(j, "holder", id) == 0);
  }
  CHECK(text_of(j, "state", "E1") == "ended");
  // Held by nobody: both open ones are orphans, for whoever looks.
  CHECK(ids_of(all_orphans(*st)) == names{"L1", "M1"});
  // Their owners claim them as any others, by id or by key.
  CHECK(must(st->claim(claim_of("M1", "alice", "2025"))).outcome
        == claim_result::not_found);
  claim_request by_key;
  by_key.idempotency_key = "k-1";
  by_key.principal = "alice";
  by_key.scope = modern;
  auto m1 = must(st->claim(by_key));
  REQUIRE(m1.outcome == claim_result::loaded);
  CHECK(m1.session.session_id == "M1");
  CHECK(m1.session.epoch == 2);
  CHECK(m1.session.events.size() == 2);
  must_append(*st, {at_epoch(task(event_kind::task_ended, "M1", "T1", t0 + 30),
                             2)});
  CHECK(column_of(j, "last_wall_ns", "M1") == t0 + 30);
  auto l1 = must(st->claim(local_claim("L1")));
  REQUIRE(l1.outcome == claim_result::loaded);
  CHECK(l1.session.epoch == 2);
  // Opened again: nothing more to migrate.
  st.reset();
  auto again = must_open(tmp.data());
  CHECK(again->instance() == 5);
  CHECK(count(j, "PRAGMA user_version") == 2);
  CHECK(column_of(j, "epoch", "M1") == 2);
}

TEST_CASE("storage: a server of an older version, which holds the directory "
          "exclusively, makes an open fail with locked after lock_wait",
          "[storage][issue15]") {
  temp_dir tmp;
  fs::create_directory(tmp.data());
  auto lock_path = tmp.data() + "/lock";
  // The older server: an exclusive flock for good, its pid in the file.
  int old_server = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                          0600);
  REQUIRE(old_server >= 0);
  REQUIRE(::flock(old_server, LOCK_EX | LOCK_NB) == 0);
  REQUIRE(::pwrite(old_server, "424242\n", 7, 0) == 7);
  auto opts = options_for(tmp.data());
  opts.lock_wait = std::chrono::milliseconds{60};
  auto begun = std::chrono::steady_clock::now();
  auto e = must_fail(open_sqlite(opts), error_kind::locked, tmp.data());
  CHECK(std::chrono::steady_clock::now() - begun >= opts.lock_wait);
  CHECK(contains(e.message, "older version (pid 424242)"));
  CHECK(contains(e.message, "--data-dir"));
  CHECK(contains(e.message, "--ephemeral"));
  CHECK_FALSE(fs::exists(tmp.journal())); // it never got that far
  // Once it exits, this version opens; and then an older one cannot get
  // the directory for itself.
  ::close(old_server);
  auto st = must_open(opts);
  auto second = must_open(opts);
  int late = ::open(lock_path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(late >= 0);
  auto rc = ::flock(late, LOCK_EX | LOCK_NB);
  auto why = errno;
  CHECK(rc != 0);
  CHECK(why == EWOULDBLOCK);
  ::close(late);
}

namespace {

/// A store that lets a test act between the expiry's look for orphans and
/// its writes: a concurrent claim, deterministically.
class between_store final : public store {
public:
  between_store(store& inner, std::function<void()> after_orphans)
    : inner_(inner), after_orphans_(std::move(after_orphans)) {
  }
  std::string describe() const override {
    return inner_.describe();
  }
  std::int64_t instance() const override {
    return inner_.instance();
  }
  result<ok> append(const std::vector<event>& batch) override {
    return inner_.append(batch);
  }
  result<claim_result> claim(const claim_request& req) override {
    return inner_.claim(req);
  }
  result<ok> release(
    const std::vector<std::pair<std::string, std::int64_t>>& held) override {
    return inner_.release(held);
  }
  result<std::size_t> open_sessions() override {
    return inner_.open_sessions();
  }
  result<std::vector<orphan>> orphans_due(std::int64_t age,
                                          std::int64_t idle,
                                          std::size_t limit) override {
    auto r = inner_.orphans_due(age, idle, limit);
    after_orphans_();
    return r;
  }
  result<std::vector<stored_session>>
  history(const history_query& q) override {
    return inner_.history(q);
  }
  result<std::optional<std::size_t>>
  purge_closed_before(std::int64_t cutoff, std::int64_t now,
                      std::int64_t interval) override {
    return inner_.purge_closed_before(cutoff, now, interval);
  }

private:
  store& inner_;
  std::function<void()> after_orphans_;
};

} // namespace

TEST_CASE("storage: expire_orphans expires a dead holder's idle session and "
          "leaves a live holder's alone",
          "[storage][issue15]") {
  using namespace std::chrono;
  temp_dir tmp;
  ttm::domain::fake_clock clock{ttm::domain::wall_time{nanoseconds{t0}}};
  ttm::domain::tracking_limits limits;
  limits.max_idle = hours{4};
  limits.max_age = hours{24};
  auto now_ns = [&] { return ttm::domain::to_ns(clock.wall_now()); };
  auto dying = must_open(tmp.data());
  auto live = must_open(tmp.data());
  auto expirer = must_open(tmp.data());
  must_append(*dying, {started("D1", now_ns()), started("D2", now_ns())});
  must_append(*live, {started("L1", now_ns())});
  clock.advance(hours{3});
  // D2 was used an hour before the process died: idle since then.
  must_append(*dying, {task(event_kind::task_started, "D2", "T1", now_ns())});
  dying.reset();
  clock.advance(hours{2});
  // Now: D1 idle 5 h, D2 idle 2 h (dead holder); L1 idle 5 h (live holder).
  auto run = ttm::journal::expire_orphans(*expirer, limits, clock);
  CHECK(run.error.empty());
  CHECK(run.expired == 1);
  auto j = tmp.journal();
  CHECK(text_of(j, "state", "D1") == "expired");
  CHECK(column_of(j, "closed_wall_ns", "D1") == now_ns());
  CHECK(raw_db{j}.text("SELECT json_extract(payload, '$.reason') FROM events"
                       " JOIN sessions USING (sid) WHERE session_id = 'D1'"
                       " AND kind = 'session_expired'")
        == "idle");
  CHECK(text_of(j, "state", "D2") == "open");
  CHECK(text_of(j, "state", "L1") == "open");
  // Nothing more now; D2 when its idle limit passes too.
  CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 0);
  clock.advance(hours{2} + seconds{1});
  CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 1);
  CHECK(text_of(j, "state", "D2") == "expired");
  CHECK(text_of(j, "state", "L1") == "open");
  // A live holder that lets go of its session leaves it to the expiry
  // (and the age limit applies even to a session used a moment ago).
  clock.advance(hours{20});
  must_append(*live, {task(event_kind::task_started, "L1", "T1", now_ns())});
  CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 0);
  must(live->release({{"L1", 1}}));
  auto last = ttm::journal::expire_orphans(*expirer, limits, clock);
  CHECK(last.error.empty());
  CHECK(last.expired == 1);
  CHECK(text_of(j, "state", "L1") == "expired");
  CHECK(raw_db{j}.text("SELECT json_extract(payload, '$.reason') FROM events"
                       " JOIN sessions USING (sid) WHERE session_id = 'L1'"
                       " AND kind = 'session_expired'")
        == "age");
}

TEST_CASE("storage: expire_orphans leaves an orphan claimed meanwhile to its "
          "new holder",
          "[storage][issue15]") {
  using namespace std::chrono;
  temp_dir tmp;
  ttm::domain::fake_clock clock{ttm::domain::wall_time{nanoseconds{t0}}};
  ttm::domain::tracking_limits limits;
  limits.max_idle = hours{4};
  auto wall = ttm::domain::to_ns(clock.wall_now());
  {
    auto dying = must_open(tmp.data());
    must_append(*dying, {started("D1", wall), started("D2", wall + 1)});
  }
  auto claimer = must_open(tmp.data());
  auto expirer = must_open(tmp.data());
  clock.advance(hours{5});
  bool claimed = false;
  between_store racing{*expirer, [&] {
                         auto c = must(claimer->claim(local_claim("D1")));
                         claimed = c.outcome == claim_result::loaded;
                       }};
  auto run = ttm::journal::expire_orphans(racing, limits, clock);
  CHECK(claimed);
  CHECK(run.error.empty());
  CHECK(run.expired == 1); // D2 only
  auto j = tmp.journal();
  CHECK(text_of(j, "state", "D1") == "open");
  CHECK(column_of(j, "holder", "D1") == claimer->instance());
  CHECK(events_of(j, "D1") == 1);
  CHECK(text_of(j, "state", "D2") == "expired");
}

TEST_CASE("storage: a journal kept busy past the timeout fails with busy, "
          "writing nothing",
          "[storage][issue15]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, {started("S1", t0)});
  {
    // Another server in a write transaction for longer than the bounded
    // busy timeout (2 s): a wedged process.
    raw_db other{tmp.journal()};
    other.exec("BEGIN IMMEDIATE");
    auto e = must_fail(st->append({task(event_kind::task_started, "S1", "T1",
                                        t0 + 1)}),
                       error_kind::busy, tmp.journal());
    CHECK(std::string{to_string(e.kind)} == "busy");
    other.exec("ROLLBACK");
  }
  CHECK(events_of(tmp.journal(), "S1") == 1);
  // It lets go: the store carries on.
  must_append(*st, {task(event_kind::task_started, "S1", "T1", t0 + 1)});
  CHECK(events_of(tmp.journal(), "S1") == 2);
}
