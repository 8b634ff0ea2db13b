// Unit tests for src/storage/wal_check and the journal's silent-loss paths
// (issue 21 item 6): a crash image (journal.sqlite3 and its -wal copied
// while the store is open, nothing checkpointed) with one damaged frame
// loses the transactions after it; that must be logged. Also SQLite's own
// log reaches ours, and a 0-byte journal file is not silently taken as new.

#include "log.hpp"
#include "storage/sqlite_store.hpp"
#include "storage/wal_check.hpp"

#include "log_capture.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::storage;
namespace fs = std::filesystem;

namespace {

using ttm::test::log_capture;
using ttm::test::temp_dir;


constexpr std::int64_t t0 = 1'734'185'132'123'000'000;
constexpr int session_count = 40;

store_ptr must_open(const std::string& dir) {
  auto r = open_sqlite({dir, sync_mode::full, "wal_check_test"});
  auto* e = std::get_if<error>(&r);
  INFO((e ? e->message : "ok"));
  REQUIRE(e == nullptr);
  return std::move(std::get<store_ptr>(r));
}

/// One transaction per session, as one tool call each would write.
void append_sessions(store& st, int n) {
  for (int i = 0; i < n; ++i) {
    event ev;
    ev.kind = event_kind::session_started;
    ev.session_id = "S" + std::to_string(i);
    ev.principal = "local";
    ev.at = {t0 + i, 5'000'000'000 + i, "boot-a"};
    ev.payload = R"({"milestone_id":"M)" + std::to_string(i) + R"("})";
    REQUIRE(std::holds_alternative<ok>(st.append({ev})));
  }
}

std::string read_all(const fs::path& p) {
  std::ifstream in{p, std::ios::binary};
  REQUIRE(in);
  return {std::istreambuf_iterator<char>{in}, {}};
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out{p, std::ios::binary | std::ios::trunc};
  out << bytes;
  REQUIRE(out.good());
}

/// The journal and its WAL as a crash would leave them: copied while
/// `live` (a data directory with an open store) is still open.
fs::path crash_image(const fs::path& live, const fs::path& image) {
  fs::create_directories(image);
  for (auto name : {"journal.sqlite3", "journal.sqlite3-wal"})
    fs::copy_file(live / name, image / name);
  return image;
}

/// Opens a store on `dir` and counts the open sessions its journal holds.
std::size_t open_sessions(const std::string& dir) {
  auto st = must_open(dir);
  history_query q;
  q.limit = 100000;
  auto r = st->history(q);
  REQUIRE(std::holds_alternative<std::vector<stored_session>>(r));
  std::size_t n = 0;
  for (const auto& s : std::get<std::vector<stored_session>>(r))
    n += s.state == session_state::open ? 1 : 0;
  return n;
}

/// A store with `session_count` sessions, and a crash image of it.
struct crashed_journal {
  temp_dir tmp;
  fs::path image;
  std::string wal_bytes; ///< the image's WAL
  wal_scan scan;         ///< of it, undamaged

  crashed_journal() {
    auto live = tmp.sub("live");
    auto st = must_open(live.string());
    append_sessions(*st, session_count);
    image = crash_image(live, tmp.sub("image"));
    wal_bytes = read_all(image / "journal.sqlite3-wal");
    scan = scan_wal(wal_bytes);
  }

  std::size_t frame_size() const {
    return 24 + scan.page_size;
  }
};

} // namespace

TEST_CASE("wal_check: an undamaged crash image loses nothing, says nothing",
          "[storage][wal]") {
  crashed_journal j;
  REQUIRE(j.scan.has_header);
  CHECK(j.scan.header_ok);
  CHECK(j.scan.frames >= session_count);
  CHECK(j.scan.recovered == j.scan.frames); // every transaction committed
  CHECK(j.scan.discarded == 0);
  CHECK(j.scan.discarded_commits == 0);
  CHECK(j.scan.uncommitted == 0);
  log_capture logs;
  CHECK(open_sessions(j.image.string()) == session_count);
  INFO(logs.text());
  CHECK(logs.find(log::level::warning, {"WAL"}).empty());
  // SQLite's own notice reaches our log (SQLITE_CONFIG_LOG).
  CHECK(logs
          .find(log::level::info,
                {"recovered " + std::to_string(j.scan.frames)
                   + " frames from WAL file",
                 (j.image / "journal.sqlite3-wal").string()})
          .size()
        == 1);
}

TEST_CASE("wal_check: a damaged frame in the WAL: the transactions SQLite "
          "discards after it are logged as lost",
          "[storage][wal]") {
  crashed_journal j;
  REQUIRE(j.scan.frames >= session_count);
  auto middle = j.scan.frames / 2;
  auto at = 32 + middle * j.frame_size() + 24 + 100; // in the page's bytes
  auto bytes = j.wal_bytes;
  bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
  auto wal = j.image / "journal.sqlite3-wal";
  write_all(wal, bytes);

  auto scan = scan_wal(bytes);
  CHECK(scan.header_ok);
  CHECK(scan.recovered <= middle);
  CHECK(scan.recovered > 0);
  CHECK(scan.discarded == scan.frames - scan.recovered);
  CHECK(scan.discarded_commits > 0);
  CHECK(scan.discarded_commits < session_count);

  log_capture logs;
  auto recovered = open_sessions(j.image.string());
  INFO(logs.text());
  CHECK(recovered > 0);
  CHECK(recovered < session_count);
  // Each lost session was one transaction.
  CHECK(recovered + scan.discarded_commits == session_count);
  auto lost = logs.find(log::level::warning,
                        {"the journal's WAL " + wal.string() + " had "
                           + std::to_string(scan.discarded) + " frames ("
                           + std::to_string(scan.discarded_commits)
                           + " transactions) after a damaged frame",
                         "SQLite discarded them",
                         "changes acknowledged in them are lost"});
  CHECK(lost.size() == 1);
  CHECK(logs
          .find(log::level::info, {"recovered " + std::to_string(scan.recovered)
                                   + " frames from WAL file"})
          .size()
        == 1);
}

TEST_CASE("wal_check: a damaged WAL header loses every frame of its "
          "generation, a short file or another magic is no WAL",
          "[storage][wal]") {
  crashed_journal j;
  auto bytes = j.wal_bytes;
  bytes[28] = static_cast<char>(bytes[28] ^ 1); // the header's checksum
  auto scan = scan_wal(bytes);
  CHECK(scan.has_header);
  CHECK_FALSE(scan.header_ok);
  CHECK(scan.recovered == 0);
  CHECK(scan.discarded == scan.frames);
  CHECK(scan.discarded_commits >= session_count);
  CHECK_FALSE(scan_wal(bytes.substr(0, 31)).has_header);
  bytes[3] = 0x00; // magic
  CHECK_FALSE(scan_wal(bytes).has_header);
  CHECK(scan_wal(bytes).frames == 0);
}

TEST_CASE("wal_check: frames of an earlier WAL generation are not a loss",
          "[storage][wal]") {
  temp_dir tmp;
  auto db_path = tmp.sub("old.sqlite3").string();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(db_path.c_str(), &db) == SQLITE_OK);
  auto exec = [&](const char* sql) {
    REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  };
  exec("PRAGMA journal_mode = WAL");
  exec("PRAGMA wal_autocheckpoint = 0");
  exec("CREATE TABLE t (x TEXT)");
  for (int i = 0; i < 30; ++i)
    exec("INSERT INTO t VALUES (randomblob(3000))");
  // The WAL restarts from its first frame with new salts; the 30 older
  // transactions' frames stay behind the new ones.
  exec("PRAGMA wal_checkpoint(RESTART)");
  exec("INSERT INTO t VALUES ('new')");
  auto bytes = read_all(db_path + "-wal");
  sqlite3_close(db);
  auto scan = scan_wal(bytes);
  CHECK(scan.header_ok);
  CHECK(scan.recovered >= 1);
  CHECK(scan.frames > scan.recovered + 10);
  CHECK(scan.discarded == 0);
  CHECK(scan.uncommitted == 0);
}

TEST_CASE("storage: a 0-byte journal file opens as new, with a warning "
          "naming it",
          "[storage][wal]") {
  temp_dir tmp;
  auto dir = tmp.sub("data");
  fs::create_directories(dir);
  auto journal = dir / "journal.sqlite3";
  write_all(journal, "");
  log_capture logs;
  CHECK(open_sessions(dir.string()) == 0);
  INFO(logs.text());
  CHECK(logs
          .find(log::level::warning,
                {"the journal " + journal.string() + " is an empty file",
                 "opened as a new, empty journal"})
          .size()
        == 1);
  // Ours, created fresh: no such warning.
  log_capture again;
  CHECK(open_sessions(tmp.sub("fresh").string()) == 0);
  CHECK(again.find(log::level::warning, {"empty file"}).empty());
}

TEST_CASE("wal_check: a flipped salt or magic in the WAL header loses every "
          "frame, and says so",
          "[storage][wal][issue34]") {
  crashed_journal j;
  REQUIRE(j.scan.frames >= session_count);
  auto wal = j.image / "journal.sqlite3-wal";
  auto check = [&](std::size_t at, unsigned char mask) {
    auto bytes = j.wal_bytes;
    bytes[at] = static_cast<char>(bytes[at] ^ mask);
    write_all(wal, bytes);
    auto scan = scan_wal(bytes);
    CHECK(scan.recovered == 0);
    CHECK(scan.damaged_header);
    CHECK(scan.discarded == j.scan.frames);
    CHECK(scan.discarded_commits >= session_count);
    log_capture logs;
    CHECK(open_sessions(j.image.string()) == 0);
    INFO(logs.text());
    CHECK(logs
            .find(log::level::warning,
                  {"the journal's WAL " + wal.string()
                     + " has a damaged header",
                   "SQLite ignored all " + std::to_string(scan.discarded)
                     + " frames (" + std::to_string(scan.discarded_commits)
                     + " transactions)",
                   "changes acknowledged in them are lost"})
            .size()
          == 1);
  };
  SECTION("salt 1") {
    check(16, 0x01);
  }
  SECTION("salt 2") {
    check(23, 0x80);
  }
  SECTION("magic") {
    check(0, 0x10);
    CHECK_FALSE(scan_wal(j.wal_bytes.substr(0, 0)).damaged_header);
  }
}

TEST_CASE("wal_check: a WAL zeroed from a middle frame on: the zeroed frames "
          "are logged as lost",
          "[storage][wal][issue34]") {
  crashed_journal j;
  REQUIRE(j.scan.frames >= session_count);
  auto middle = j.scan.frames / 2;
  auto bytes = j.wal_bytes;
  auto from = 32 + middle * j.frame_size();
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.end(),
            '\0');
  auto wal = j.image / "journal.sqlite3-wal";
  write_all(wal, bytes);
  auto scan = scan_wal(bytes);
  CHECK(scan.header_ok);
  CHECK(scan.recovered <= middle);
  CHECK(scan.zeroed == j.scan.frames - middle);
  log_capture logs;
  auto recovered = open_sessions(j.image.string());
  INFO(logs.text());
  CHECK(recovered < session_count);
  CHECK(logs
          .find(log::level::warning,
                {"the journal's WAL " + wal.string() + " has "
                   + std::to_string(scan.zeroed) + " zeroed frames after frame "
                   + std::to_string(middle),
                 "SQLite keeps the " + std::to_string(scan.recovered)
                   + " frames before",
                 "changes acknowledged in them are lost"})
          .size()
        == 1);
}
