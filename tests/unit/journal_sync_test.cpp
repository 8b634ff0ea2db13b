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
  auto clock = std::make_shared<domain::fake_clock>(ttm::test::test_now());
  caf::actor_system_config cfg;
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  auto opened = storage::open_sqlite(deferred(dir.path().string()));
  REQUIRE(std::holds_alternative<storage::store_ptr>(opened));
  std::shared_ptr<storage::store> store
    = std::move(std::get<storage::store_ptr>(opened));
  actors::journal_config jc;
  jc.store = store;
  jc.clock = clock;
  auto journal = sys.spawn<caf::detached>(actors::journal_behavior, jc);
  caf::scoped_actor self{sys};
  std::vector<storage::append_answer> answers;
  for (auto id : {"s1", "s2", "s3"})
    self->request(journal, caf::infinite, actors::append_atom::value,
                  std::vector<storage::event>{started(*clock, id)})
      .receive([&](const storage::append_answer& a) { answers.push_back(a); },
               [&](caf::error& e) { FAIL(caf::to_string(e)); });
  // A duplicate is refused before any sync: answered at once, not stored.
  self->request(journal, caf::infinite, actors::append_atom::value,
                std::vector<storage::event>{started(*clock, "s1")})
    .receive([&](const storage::append_answer& a) { answers.push_back(a); },
             [&](caf::error& e) { FAIL(caf::to_string(e)); });
  REQUIRE(answers.size() == 4);
  for (int i = 0; i < 3; ++i)
    CHECK(answers[i].kind == storage::append_answer::stored);
  CHECK(answers[3].kind == storage::append_answer::failed);
  storage::history_query all;
  auto h = store->history(all);
  REQUIRE(std::holds_alternative<std::vector<storage::stored_session>>(h));
  CHECK(std::get<std::vector<storage::stored_session>>(h).size() == 3);
  caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
}
