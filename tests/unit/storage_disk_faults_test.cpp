// Issue 34 item 3, beside the sweep (storage_fault_sweep_test.cpp): a WAL
// sync that fails at COMMIT (the defect the sweep found), a real full disk
// and a read-only filesystem (small tmpfs mounts, when root), and a
// truncated database and a torn or garbage WAL at open. What
// storage_test.cpp and wal_check_test.cpp cover already (a 0-byte file, a
// damaged page, a damaged frame or WAL header, chmod'ed directories as an
// unprivileged child) is not repeated.

#include "fault_vfs.hpp"
#include "journaled_client.hpp"
#include "log.hpp"
#include "session_client.hpp"
#include "storage_fixture.hpp"
#include "test_json.hpp"

#include "storage/wal_check.hpp"

#include <sys/mount.h>

#include <cerrno>
#include <cstring>

namespace fv = ttm::test::fault_vfs;
using ttm::test::str;
using ttm::test::to_json;

namespace {

/// The journal's events in order (kind and task), read as a crash now would
/// leave them: the database and its WAL copied without the WAL index and
/// recovered by a new connection.
std::string crash_events(const fs::path& data, const fs::path& image) {
  fs::create_directories(image);
  for (auto name : {"journal.sqlite3", "journal.sqlite3-wal"})
    if (fs::exists(data / name))
      fs::copy_file(data / name, image / name);
  raw_db db{(image / "journal.sqlite3").string()};
  return db.text("SELECT group_concat(kind || ':' || COALESCE(task_id, ''),"
                 " ' ') FROM (SELECT kind, task_id FROM events ORDER BY seq)");
}

/// A tmpfs of `size` mounted at `at` while it lives (unmounted even when a
/// REQUIRE fails); `why_not` says why it could not be mounted.
class tmpfs_mount {
public:
  tmpfs_mount(const fs::path& at, const std::string& size) : at_(at) {
    fs::create_directories(at);
    if (::geteuid() != 0) {
      why_not = "not root: mounting a tmpfs needs CAP_SYS_ADMIN";
      return;
    }
    auto opts = "size=" + size + ",mode=0700";
    if (::mount("tmpfs", at.c_str(), "tmpfs", 0, opts.c_str()) != 0) {
      why_not = std::string{"mount -t tmpfs failed: "} + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~tmpfs_mount() {
    if (mounted_)
      ::umount2(at_.c_str(), MNT_DETACH);
  }
  tmpfs_mount(const tmpfs_mount&) = delete;
  tmpfs_mount& operator=(const tmpfs_mount&) = delete;

  bool mounted() const {
    return mounted_;
  }

  /// Remounts read-only (or writable again); false with errno if refused.
  bool set_read_only(bool ro) {
    return ::mount(nullptr, at_.c_str(), nullptr,
                   MS_REMOUNT | (ro ? MS_RDONLY : 0), nullptr)
           == 0;
  }

  std::string why_not;

private:
  fs::path at_;
  bool mounted_ = false;
};

/// Writes a file of zeros until the filesystem is full; its path.
fs::path fill(const fs::path& dir) {
  auto path = dir / "filler";
  std::ofstream out{path, std::ios::binary};
  std::string block(64 * 1024, '\0');
  while (out.write(block.data(), static_cast<std::streamsize>(block.size())))
    out.flush();
  return path;
}

} // namespace

TEST_CASE("storage faults: a COMMIT whose WAL sync fails is refused and "
          "stays refused after a crash (a sweep finding)",
          "[storage][storage_faults][issue34]") {
  // Before the fix, the refused transaction's frames stayed in the WAL,
  // complete with their commit frame: a crash before the next write let
  // WAL recovery bring the refused change back.
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.vfs = fv::name();
  auto st = must_open(opts);
  must_append(*st, {started("S1", t0)});
  fv::reset();
  fv::disarm_at_exit disarm;
  fv::arm(fv::kind::sync, 1, SQLITE_IOERR_FSYNC);
  auto refused = task(event_kind::task_started, "S1", "T1", t0 + 1);
  auto e = must_fail(st->append({refused}), error_kind::io, tmp.journal());
  CHECK(contains(e.message, "disk I/O error"));
  CHECK(fv::fired() == 1);
  fv::disarm();
  CHECK(crash_events(tmp.data(), tmp.sub("image")) == "session_started:");
  CHECK(count(tmp.journal(), "SELECT value FROM meta"
                             " WHERE key = 'failed_commits'")
        == 1);
  // The store goes on: the same change, written now, is the only one.
  must_append(*st, {refused});
  CHECK(crash_events(tmp.data(), tmp.sub("image2"))
        == "session_started: task_started:T1");
}

TEST_CASE("storage faults: a full disk (a small tmpfs): calls answer "
          "STORAGE_UNAVAILABLE, nothing acknowledged is lost, and the server "
          "works again once space is freed",
          "[storage][storage_faults][issue34]") {
  using namespace ttm::test::session_client;
  temp_dir tmp;
  tmpfs_mount disk{tmp.sub("disk"), "3m"};
  if (!disk.mounted()) {
    WARN("skipped: " << disk.why_not);
    return;
  }
  auto data = (tmp.sub("disk") / "data").string();
  auto clock = std::make_shared<ttm::domain::fake_clock>(example_start());
  std::vector<std::string> acked;
  std::string sid;
  fs::path filler;
  {
    auto store = open_store(data);
    journaled c{clock, *store, "alice"};
    sid = str(c.ok("time_session_start",
                   R"({"milestone_id":"M","task_ids":["t0"]})")["session_id"]);
    filler = fill(tmp.sub("disk"));
    // Each call adds a task with a long note: the WAL grows until a write
    // finds no room (its first pages may still fit in space freed before).
    std::string note(4000, 'n');
    rapidjson::Document refused;
    for (int i = 1; i <= 400 && refused.IsNull(); ++i) {
      clock->advance(std::chrono::seconds{1});
      auto t = "t" + std::to_string(i);
      auto res = c.run(tools_call(
        "time_tasks_edit",
        edit_args(sid, R"([{"op":"add","task_id":")" + t + R"("},)"
                         R"({"op":"start","task_id":")" + t + R"("},)"
                         R"({"op":"note","task_id":")" + t
                         + R"(","text":")" + note + R"("},)"
                         R"({"op":"end","task_id":")" + t + R"("}])"),
        std::to_string(c.next_id++)));
      INFO(to_json(res));
      REQUIRE(res.HasMember("result"));
      auto r = check_tool_result(res["result"], *c.registry, "time_tasks_edit");
      if (r.is_error)
        refused.CopyFrom(r.sc, refused.GetAllocator());
      else
        acked.push_back(t);
    }
    REQUIRE(refused.IsObject());
    INFO(to_json(refused));
    CHECK(str(refused["error_code"]) == "STORAGE_UNAVAILABLE");
    CHECK(contains(str(refused["message"]), "full"));
    // Reads still work on a full disk.
    auto summary = c.ok("time_session_summary", summary_args(sid));
    CHECK(summary["tasks"].Size() == acked.size() + 1);
    // Space freed: the refused change goes through on a retry.
    fs::remove(filler);
    c.ok("time_tasks_edit",
         edit_args(sid, R"([{"op":"add","task_id":"after"}])"));
    acked.push_back("after");
  }
  // A fresh server has every acknowledged task, and only those.
  auto store = open_store(data);
  journaled again{clock, *store, "alice"};
  auto summary = again.ok("time_session_summary", summary_args(sid));
  std::vector<std::string> tasks;
  for (const auto& t : summary["tasks"].GetArray())
    tasks.push_back(str(t["task_id"]));
  acked.insert(acked.begin(), "t0");
  CHECK(tasks == acked);
}

TEST_CASE("storage faults: a read-only filesystem (a tmpfs remounted "
          "read-only, which binds root too): the open is refused as "
          "read_only, naming the journal, the file untouched, and writable "
          "again, it opens with everything",
          "[storage][storage_faults][issue34]") {
  temp_dir tmp;
  tmpfs_mount disk{tmp.sub("disk"), "8m"};
  if (!disk.mounted()) {
    WARN("skipped: " << disk.why_not);
    return;
  }
  auto data = (tmp.sub("disk") / "data").string();
  auto journal = data + "/journal.sqlite3";
  {
    auto st = must_open(data);
    must_append(*st, {started("S1", t0)});
  }
  auto before = fingerprint_of(journal);
  INFO("remount read-only: " << std::strerror(errno));
  REQUIRE(disk.set_read_only(true));
  auto e = must_fail(open_at(data), error_kind::read_only, data);
  INFO(e.message);
  CHECK(fingerprint_of(journal) == before);
  REQUIRE(disk.set_read_only(false));
  auto st = must_open(data);
  auto c = must(st->claim(local_claim("S1")));
  CHECK(c.outcome == claim_result::loaded);
}

TEST_CASE("storage faults: a journal cut short (truncated mid-file, or to "
          "less than its header) is refused as corrupt, untouched, with what "
          "to do",
          "[storage][storage_faults][issue34]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    for (int i = 0; i < 200; ++i)
      must_append(*st, {started("S" + std::to_string(i), t0 + i)});
  }
  auto size = fs::file_size(tmp.journal());
  REQUIRE(size >= 16 * 4096);
  SECTION("cut in the middle of a page, half of it gone") {
    fs::resize_file(tmp.journal(), size / 2 + 100);
  }
  SECTION("cut to 100 bytes: less than a header") {
    fs::resize_file(tmp.journal(), 100);
  }
  auto before = fingerprint_of(tmp.journal());
  auto e = must_fail(open_at(tmp.data()), error_kind::corrupt, tmp.journal());
  CHECK(contains(e.message, "move it aside"));
  CHECK(fingerprint_of(tmp.journal()) == before);
}

namespace {

std::vector<std::string> warnings;

void keep_warning(ttm::log::level lvl, std::string_view, std::string_view m,
                  const ttm::log::fields&) {
  if (lvl >= ttm::log::level::warning)
    warnings.emplace_back(m);
}

} // namespace

TEST_CASE("storage faults: a WAL torn in its last frame (a crash while "
          "appending: never acknowledged) opens with every transaction "
          "before it, silently, and a WAL overwritten with garbage opens "
          "without it, with a warning naming it",
          "[storage][storage_faults][issue34]") {
  temp_dir tmp;
  auto live = tmp.sub("live");
  auto image = tmp.sub("image");
  {
    auto st = must_open(live.string());
    for (int i = 0; i < 10; ++i)
      must_append(*st, {started("S" + std::to_string(i), t0 + i)});
    fs::create_directories(image);
    for (auto name : {"journal.sqlite3", "journal.sqlite3-wal"})
      fs::copy_file(live / name, image / name);
  }
  auto wal = image / "journal.sqlite3-wal";
  auto wal_size = fs::file_size(wal);
  std::size_t want = 0;
  bool warned = false;
  SECTION("torn: the last frame cut in half") {
    // The last transaction's commit frame cut in half: it never
    // committed, and every one before it stays.
    auto scan = scan_wal_file(wal.string());
    REQUIRE(scan);
    REQUIRE(scan->recovered > 0);
    auto frame = 24 + scan->page_size;
    fs::resize_file(wal, 32 + scan->recovered * frame - frame / 2);
    want = 9;
  }
  SECTION("garbage: no WAL header SQLite accepts") {
    {
      std::ofstream out{wal, std::ios::binary | std::ios::trunc};
      for (std::size_t i = 0; i < wal_size; i += 16)
        out << "not a WAL frame.";
    }
    // Only what a checkpoint copied into the database file is left.
    auto bare = tmp.sub("bare");
    fs::create_directories(bare);
    fs::copy_file(image / "journal.sqlite3", bare / "journal.sqlite3");
    auto bare_file = (bare / "journal.sqlite3").string();
    if (count(bare_file, "SELECT count(*) FROM sqlite_schema"
                         " WHERE name = 'sessions'")
        == 1)
      want = static_cast<std::size_t>(
        count(bare_file, "SELECT count(*) FROM sessions"));
    REQUIRE(want < 10);
    warned = true;
  }
  warnings.clear();
  auto before = ttm::log::set_sink(keep_warning);
  auto opened = open_at(image.string());
  ttm::log::set_sink(before);
  auto st = must(std::move(opened));
  history_query q;
  q.limit = 1000;
  CHECK(must(st->history(q)).size() == want);
  std::string all;
  for (const auto& w : warnings)
    all += w + "\n";
  INFO(all);
  if (warned) {
    REQUIRE(warnings.size() == 1);
    CHECK(contains(warnings[0], "is not a write-ahead log"));
    CHECK(contains(warnings[0], wal.string()));
  } else {
    CHECK(warnings.empty());
  }
}
