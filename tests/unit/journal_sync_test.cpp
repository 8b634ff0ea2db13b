// --journal-sync full with the WAL synced after the COMMIT (deferred sync,
// docs/durability.md): the store commits without its sync and reports the
// WAL's growth; the journal actor answers an append only after its syncer
// synced the WAL, and checkpoints run off its thread.

#include "actors/journal.hpp"
#include "journal/codec.hpp"
#include "storage/sqlite_store.hpp"

#include "temp_dir.hpp"
#include "test_client_state.hpp"

#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace ttm;
using domain::change;
using ttm::test::temp_dir;

namespace {

storage::event started(const domain::fake_clock& clock, const std::string& id,
                       const std::string& name = "") {
  change c;
  c.kind = change::session_started;
  c.session_id = id;
  c.at = domain::now_of(clock);
  c.session.milestone_id = "M-" + id;
  if (!name.empty())
    c.session.milestone_name = name;
  c.zone_name = "UTC";
  return journal::to_event(c, "local", clock.boot_id());
}

storage::sqlite_options deferred(const std::string& dir) {
  storage::sqlite_options o{dir, storage::sync_mode::full, "test"};
  o.defer_sync = true;
  return o;
}

std::int64_t pragma(const std::string& db, const char* sql) {
  sqlite3* d = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &d, SQLITE_OPEN_READONLY, nullptr)
          == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(d, sql, -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  auto v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(d);
  return v;
}

/// An actor system of two threads, quiet.
struct quiet_config : caf::actor_system_config {
  quiet_config() {
    set("logger.console-verbosity", caf::atom("quiet"));
    set("scheduler.max-threads", 2);
  }
};

/// The set-up of the journal actor's cases: a store opened with `o`, a
/// journal actor (detached, as the server runs it) on it with a fake clock,
/// and a scoped actor to ask it.
struct journal_on_store {
  std::shared_ptr<domain::fake_clock> clock
    = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  quiet_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<storage::store> store;
  actors::journal_actor journal;
  caf::scoped_actor self{sys};

  explicit journal_on_store(const storage::sqlite_options& o) {
    auto opened = storage::open_sqlite(o);
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    store = std::move(std::get<storage::store_ptr>(opened));
    actors::journal_config jc;
    jc.store = store;
    jc.clock = clock;
    journal = sys.spawn<caf::detached>(actors::journal_behavior, jc);
  }

  /// The journal's answer to an append of session `id`'s start.
  storage::append_answer append(const char* id) {
    storage::append_answer out;
    self->request(journal, caf::infinite, actors::append_atom::value,
                  std::vector<storage::event>{started(*clock, id)})
      .receive([&](const storage::append_answer& a) { out = a; },
               [&](caf::error& e) { FAIL(caf::to_string(e)); });
    return out;
  }
};

} // namespace

TEST_CASE("journal sync: a deferred-sync store commits with NORMAL, syncs "
          "on demand, and every other write still syncs itself",
          "[storage][journal]") {
  temp_dir dir;
  domain::fake_clock clock{ttm::test::test_now()};
  auto db = (dir.path() / "journal.sqlite3").string();
  SECTION("without defer_sync: SQLite's FULL, no deferred sync") {
    auto opened = storage::open_sqlite(
      {dir.path().string(), storage::sync_mode::full, "test"});
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    auto& store = std::get<storage::store_ptr>(opened);
    CHECK(store->deferred_sync() == nullptr);
  }
  SECTION("normal ignores defer_sync") {
    auto o = deferred(dir.path().string());
    o.sync = storage::sync_mode::normal;
    auto opened = storage::open_sqlite(o);
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    CHECK(std::get<storage::store_ptr>(opened)->deferred_sync() == nullptr);
  }
  SECTION("full with defer_sync") {
    auto opened = storage::open_sqlite(deferred(dir.path().string()));
    REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
    auto store = std::move(std::get<storage::store_ptr>(opened));
    auto sync = store->deferred_sync();
    REQUIRE(sync != nullptr);
    auto r = store->append_unsynced({started(clock, "a")});
    REQUIRE(std::holds_alternative<storage::ok>(r));
    // Committed: another connection sees it before any sync.
    CHECK(pragma(db, "SELECT count(*) FROM sessions") == 1);
    CHECK(std::holds_alternative<storage::ok>(sync->sync()));
    CHECK_FALSE(sync->checkpoint_due());
    // Enough WAL for a checkpoint (SQLite's default size, 1000 pages),
    // which the store leaves to its caller: no autocheckpoint.
    std::string big(8000, 'x');
    bool due = false;
    for (int i = 0; i < 2000 && !due; ++i) {
      REQUIRE(std::holds_alternative<storage::ok>(store->append_unsynced(
        {started(clock, "s" + std::to_string(i), big)})));
      due = sync->checkpoint_due();
    }
    REQUIRE(due);
    CHECK_FALSE(sync->checkpoint_due()); // once, until it ran
    CHECK(std::filesystem::file_size(db + "-wal") > 1000u * 4096u);
    // Copied into the database file (it held the schema only before).
    auto before = std::filesystem::file_size(db);
    CHECK(std::holds_alternative<storage::ok>(sync->checkpoint()));
    CHECK(std::filesystem::file_size(db) > before + 1'000'000u);
    // The last connection checkpoints and deletes the WAL as SQLite does
    // (the checkpoint's own connection was closed first).
    store.reset();
    CHECK_FALSE(std::filesystem::exists(db + "-wal"));
  }
}

TEST_CASE("journal sync: the journal actor answers an append once its "
          "syncer synced the WAL",
          "[journal]") {
  temp_dir dir;
  journal_on_store j{deferred(dir.path().string())};
  std::vector<storage::append_answer> answers;
  for (auto id : {"s1", "s2", "s3"})
    answers.push_back(j.append(id));
  // A duplicate is refused before any sync: answered at once, not stored.
  answers.push_back(j.append("s1"));
  REQUIRE(answers.size() == 4);
  for (int i = 0; i < 3; ++i)
    CHECK(answers[i].kind == storage::append_answer::stored);
  CHECK(answers[3].kind == storage::append_answer::failed);
  storage::history_query all;
  auto h = j.store->history(all);
  REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(h));
  CHECK(std::get<std::vector<storage::stored_session>>(h).size() == 3);
  caf::anon_send_exit(j.journal, caf::exit_reason::user_shutdown);
}

namespace {

// The injected fault: the WAL's sync (sqlite_options::sync_file) fails with
// EIO while armed, as fdatasync does when the disk loses a write. The fault
// VFS cannot reach it: SQLite makes no call for this sync.
std::atomic<bool> sync_fails{false};
std::atomic<int> sync_calls{0};

int faulty_sync(int fd) {
  ++sync_calls;
  if (sync_fails.load()) {
    errno = EIO;
    return -1;
  }
  return ::fdatasync(fd);
}

std::vector<std::string> ids_of(const std::shared_ptr<storage::store>& s) {
  storage::history_query all;
  auto h = s->history(all);
  REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(h));
  std::vector<std::string> out;
  for (const auto& x : std::get<std::vector<storage::stored_session>>(h))
    out.push_back(x.session_id);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("journal sync: a failed sync answers 'outcome unknown', then "
          "every write is refused, reads go on, nothing acknowledged is "
          "lost",
          "[journal][fault]") {
  temp_dir dir;
  sync_fails = false;
  auto o = deferred(dir.path().string());
  o.sync_file = &faulty_sync;
  journal_on_store j{o};
  REQUIRE(j.append("acked").kind == storage::append_answer::stored);
  // The disk fails the next sync: the change is committed (readers see
  // it) but not durable, so it is neither stored nor "nothing changed".
  sync_fails = true;
  auto lost = j.append("unknown");
  CHECK(lost.kind == storage::append_answer::unknown);
  CHECK_THAT(lost.error, Catch::Contains("outcome is unknown"));
  auto calls = sync_calls.load();
  // The fault clears, yet no later sync is trusted: every write is
  // refused, with the reason, and no sync is tried again.
  sync_fails = false;
  auto refused = j.append("refused");
  CHECK(refused.kind == storage::append_answer::failed);
  CHECK_THAT(refused.error, Catch::Contains("restart the server"));
  CHECK(sync_calls.load() == calls);
  auto sync = j.store->deferred_sync();
  REQUIRE(sync != nullptr);
  auto again = sync->sync();
  REQUIRE(std::holds_alternative<storage::error>(again));
  CHECK(std::get<storage::error>(again).kind
        == storage::error_kind::sync_failed);
  CHECK_THAT(std::get<storage::error>(again).message,
             Catch::Contains(std::strerror(EIO)));
  CHECK_FALSE(sync->checkpoint_due());
  // Reads answer, through the journal too.
  storage::list_query q;
  j.self->request(j.journal, caf::infinite, actors::history_atom::value, q)
    .receive(
      [&](const actors::list_reply& r) {
        CHECK(r.error.empty());
        REQUIRE(r.whole); // SQLite's page, for the client to convert
        CHECK(r.whole->rows.size() == 2);
      },
      [&](caf::error& e) { FAIL(caf::to_string(e)); });
  CHECK(ids_of(j.store) == std::vector<std::string>{"acked", "unknown"});
  // The restart reads what the file holds: the acknowledged change is
  // there, the refused one is not, and writes work again.
  caf::anon_send_exit(j.journal, caf::exit_reason::user_shutdown);
  j.self->wait_for(j.journal);
  j.store.reset();
  auto reopened = storage::open_sqlite(o);
  REQUIRE(std::holds_alternative<storage::store_ptr>(reopened));
  j.store = std::move(std::get<storage::store_ptr>(reopened));
  auto ids = ids_of(j.store);
  CHECK(std::count(ids.begin(), ids.end(), "acked") == 1);
  CHECK(std::count(ids.begin(), ids.end(), "refused") == 0);
  CHECK(std::holds_alternative<storage::ok>(
    j.store->append_unsynced({started(*j.clock, "after")})));
  CHECK(std::holds_alternative<storage::ok>(
    j.store->deferred_sync()->sync()));
}
