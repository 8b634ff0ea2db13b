// Unit tests for src/storage: the SQLite journal on a fresh temporary
// directory per test. A second, raw SQLite connection inspects and tampers
// with the file the way another instance, an old version or a bad disk would.

#include "storage_fixture.hpp"


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
  CHECK(db.integer("PRAGMA user_version") == journal_schema_version);
  CHECK(db.integer("PRAGMA application_id") == 0x54544d4a);
  CHECK(db.text("SELECT value FROM meta WHERE key = 'created_by'")
        == "storage_test");
  CHECK(db.integer("SELECT value FROM meta WHERE key = 'instances'") == 1);
  CHECK(db.integer("SELECT count(*) FROM meta WHERE key = 'epoch'") == 0);
  CHECK(db.integer("SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == 0);
}

TEST_CASE("storage: events survive a close and reopen, field for field",
          "[storage][backends]") {
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
  std::int64_t writer = 0;
  {
    auto st = must_open(tmp.data());
    writer = st->instance();
    must_append(*st, {s1[0], s1[1]});
    must_append(*st, s2);
    must_append(*st, chained({s1[2], s1[3]}, {{"S1", 2}}));
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
    CHECK(c.previous_holder == writer);
    CHECK_FALSE(c.previous_alive); // its store is gone
    open.push_back(std::move(c.session));
  }
  CHECK(open[0].session_id == "S1");
  CHECK(open[0].principal == "alice");
  CHECK(open[0].milestone_id == "M-one");
  CHECK(open[0].state == session_state::open);
  CHECK(open[0].epoch == 4); // started at 1, one more per event since
  CHECK(open[0].holder == writer); // a claim takes nothing over
  CHECK(open[0].started_wall_ns == t0);
  CHECK_FALSE(open[0].closed_wall_ns);
  REQUIRE(open[0].events.size() == s1.size());
  for (std::size_t i = 0; i < s1.size(); ++i) {
    INFO("event " << i);
    check_same(open[0].events[i], s1[i]);
    CHECK(open[0].events[i].principal == "alice");
    CHECK(open[0].events[i].epoch == 4); // the session's, as loaded
  }
  CHECK(open[1].session_id == "S2");
  CHECK(open[1].principal == "bob");
  CHECK(open[1].milestone_id == "M-two");
  CHECK(open[1].epoch == 1);
  REQUIRE(open[1].events.size() == 1);
  check_same(open[1].events[0], s2[0]);
  CHECK(open[1].events[0].principal == "bob");
}

TEST_CASE("storage: every open is a new, higher instance",
          "[storage][backends]") {
  temp_dir tmp;
  std::int64_t last = 0;
  for (int i = 0; i < 3; ++i) {
    auto st = must_open(tmp.data());
    CHECK(st->instance() > last);
    last = st->instance();
  }
  // Where the journal keeps the last number given out.
  CHECK(count(tmp.journal(),
              dialect("SELECT value FROM meta WHERE key = 'instances'",
                      "SELECT last_value FROM instance_numbers"))
        == last);
}

TEST_CASE("storage: a write takes a session over and moves its epoch on, a "
          "stale writer is fenced, a claim changes neither",
          "[storage][backends]") {
  temp_dir tmp;
  auto events_of_s1 = "SELECT count(*) FROM events JOIN sessions USING (sid) WHERE session_id = 'S1'";
  auto epoch_of_s1 = "SELECT epoch FROM sessions WHERE session_id = 'S1'";
  auto holder_of_s1 = "SELECT holder FROM sessions WHERE session_id = 'S1'";
  std::int64_t first = 0;
  {
    auto st = must_open(tmp.data());
    first = st->instance();
    must_append(*st, {started("S1", t0)});
    CHECK(count(tmp.journal(), epoch_of_s1) == 1);
    CHECK(count(tmp.journal(), holder_of_s1) == first);
  }
  auto st = must_open(tmp.data());
  REQUIRE(st->instance() > first);
  SECTION("an append at an epoch the session is not at is fenced") {
    for (std::int64_t epoch : {0, 2, 7}) {
      INFO("epoch " << epoch);
      auto ev = task(event_kind::task_started, "S1", "T1", t0 + 1);
      ev.epoch = epoch;
      auto e = must_fail(st->append({ev}), error_kind::fenced, tmp.journal());
      CHECK(contains(e.message, "S1"));
      CHECK(contains(e.message, "epoch 1"));
    }
    CHECK(count(tmp.journal(), events_of_s1) == 1);
    CHECK(count(tmp.journal(), epoch_of_s1) == 1);
    CHECK(count(tmp.journal(), holder_of_s1) == first);
  }
  SECTION("a claim loads it as it is; a write at its epoch takes it over, "
          "until another instance writes") {
    auto c = must(st->claim(local_claim("S1")));
    REQUIRE(c.outcome == claim_result::loaded);
    CHECK(c.session.epoch == 1);
    CHECK(c.session.holder == first);
    CHECK(c.previous_holder == first);
    CHECK_FALSE(c.previous_alive); // its store is gone
    // A read: nothing changed.
    CHECK(count(tmp.journal(), epoch_of_s1) == 1);
    CHECK(count(tmp.journal(), holder_of_s1) == first);
    auto ev = task(event_kind::task_started, "S1", "T1", t0 + 1);
    ev.epoch = c.session.epoch;
    must_append(*st, {ev});
    CHECK(count(tmp.journal(), events_of_s1) == 2);
    CHECK(count(tmp.journal(), epoch_of_s1) == 2);
    CHECK(count(tmp.journal(), holder_of_s1) == st->instance());
    // The event keeps the epoch it was computed from.
    CHECK(count(tmp.journal(), "SELECT epoch FROM events"
                               " ORDER BY seq DESC LIMIT 1")
          == 1);
    // The same write again (a stale copy at epoch 1) is fenced now.
    must_fail(st->append({ev}), error_kind::fenced, tmp.journal());
    CHECK(count(tmp.journal(), events_of_s1) == 2);
    // Its own copy at 2 is current.
    CHECK(must(st->claim(local_claim("S1", 2))).outcome
          == claim_result::current);
    // Another instance (a raw connection here) writes to S1.
    exec_sql(tmp.journal(), "UPDATE sessions SET epoch = epoch + 1");
    auto end = task(event_kind::task_ended, "S1", "T1", t0 + 2);
    auto close = closing(event_kind::session_ended, "S1", t0 + 3);
    auto batch = chained({end, close}, {{"S1", 2}});
    auto e = must_fail(st->append(batch), error_kind::fenced, tmp.journal());
    CHECK(contains(e.message, "epoch 3"));
    CHECK(count(tmp.journal(), events_of_s1) == 2);
    CHECK(count(tmp.journal(),
                "SELECT count(*) FROM sessions WHERE state = 'open'")
          == 1);
    // It reloads, and writes at the epoch it loaded.
    auto again = must(st->claim(local_claim("S1", 2)));
    REQUIRE(again.outcome == claim_result::loaded);
    CHECK(again.session.epoch == 3);
    must_append(*st, chained({end, close}, {{"S1", 3}}));
    CHECK(count(tmp.journal(), epoch_of_s1) == 5);
    CHECK(text_sql(tmp.journal(), "SELECT state FROM sessions") == "ended");
  }
}

TEST_CASE("storage: a batch is written whole or not at all", "[storage][backends]") {
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
    // At the epochs the session is at: it is closed, not fenced.
    batch.push_back(closing(event_kind::session_ended, "S1", t0 + 12));
    batch.push_back(task(event_kind::task_started, "S1", "T2", t0 + 13));
    batch = chained(batch);
    auto e = must_fail(st->append(batch), error_kind::rejected, tmp.journal());
    CHECK(contains(e.message, "session S1 is not open"));
    nothing_of_s1();
  }
  SECTION("a payload that is not JSON") {
    batch.push_back(task(event_kind::task_ended, "S1", "T1", t0 + 12));
    batch = chained(batch);
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
  CHECK(contains(e.message, "supports (" + std::to_string(journal_schema_version) + ")"));
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
    t0_started.epoch = c.session.epoch;
    big.epoch = c.session.epoch + 1;
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
          "[storage][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, chained({started("A1", t0 + 100, "alice"),
                            task(event_kind::task_started, "A1", "T", t0 + 101),
                            closing(event_kind::session_ended, "A1", t0 + 150)}));
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
          "[storage][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st,
              chained({started("old-ended", t0),
                       task(event_kind::task_started, "old-ended", "T", t0 + 1),
                       closing(event_kind::session_ended, "old-ended", t0 + 100)}));
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

TEST_CASE("storage: the purge drops audit records and ended focus sessions "
          "older than the cutoff too",
          "[storage][backends]") {
  // Before: they were never deleted, so a token guesser's refusals grew a
  // busy server's journal without limit whatever the retention.
  temp_dir tmp;
  auto st = must_open(tmp.data());
  audit_entry old_refusal{"refusal", t0 + 100, "", "{}"};
  audit_entry new_refusal{"refusal", t0 + 900, "", "{}"};
  REQUIRE(err_of(st->record_audit({old_refusal, new_refusal})) == nullptr);
  {
    exec_sql(tmp.journal(),
            "INSERT INTO focus_sessions (session_id, principal, intent,"
            " started_wall_ns, ended_wall_ns) VALUES"
            " ('f-old', 'alice', 'x', " + std::to_string(t0) + ", "
            + std::to_string(t0 + 100) + "),"
            " ('f-new', 'alice', 'x', " + std::to_string(t0) + ", "
            + std::to_string(t0 + 900) + "),"
            " ('f-open', 'alice', 'x', " + std::to_string(t0) + ", NULL)");
  }
  constexpr std::int64_t hour = 3'600'000'000'000;
  CHECK(must(st->purge_closed_before(t0 + 500, t0 + hour, hour)) == 0);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM audit") == 1);
  CHECK(count(tmp.journal(), "SELECT wall_ns FROM audit") == t0 + 900);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM focus_sessions") == 2);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM focus_sessions"
                             " WHERE session_id = 'f-old'")
        == 0);
}

TEST_CASE("storage: a claim of an ended or expired session loads it as it "
          "is, and a claim of an open one changes nothing either",
          "[storage][backends]") {
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
  auto in_order = [&](const std::string& column) {
    return text_sql(tmp.journal(),
                    dialect("SELECT group_concat(" + column + ") FROM (SELECT "
                              + column + " FROM sessions ORDER BY sid)",
                            "SELECT string_agg(" + column
                              + "::text, ',' ORDER BY sid) FROM sessions"));
  };
  auto epochs = [&] { return in_order("epoch"); };
  CHECK(epochs() == "2,2,1"); // closing is a write: one epoch further
  auto st = must_open(tmp.data());
  auto ended = must(st->claim(local_claim("ended")));
  REQUIRE(ended.outcome == claim_result::loaded);
  CHECK(ended.session.state == session_state::ended);
  CHECK(ended.session.closed_wall_ns == t0 + 10);
  CHECK(ended.session.epoch == 2);
  CHECK(ended.session.holder == first);
  CHECK(ended.previous_holder == 0); // only said of an open session
  REQUIRE(ended.session.events.size() == 2);
  CHECK(ended.session.events[1].kind == event_kind::session_ended);
  auto expired = must(st->claim(local_claim("expired")));
  REQUIRE(expired.outcome == claim_result::loaded);
  CHECK(expired.session.state == session_state::expired);
  CHECK(expired.session.epoch == 2);
  // Its events too: an expired session is read as history.
  REQUIRE(expired.session.events.size() == 2);
  CHECK(expired.session.events[1].kind == event_kind::session_expired);
  // A caller whose copy is at its epoch hears that it expired, not
  // `current`; an ended copy at its epoch is current (only time_undo,
  // which moves the epoch on, changes an ended session).
  CHECK(must(st->claim(local_claim("expired", 2))).outcome
        == claim_result::loaded);
  CHECK(must(st->claim(local_claim("ended", 2))).outcome
        == claim_result::current);
  CHECK(must(st->claim(local_claim("ended", 1))).outcome
        == claim_result::loaded);
  auto open = must(st->claim(local_claim("open")));
  REQUIRE(open.outcome == claim_result::loaded);
  CHECK(open.session.state == session_state::open);
  CHECK(open.session.epoch == 1);
  CHECK(open.session.holder == first);
  CHECK(open.previous_holder == first);
  CHECK_FALSE(open.previous_alive);
  REQUIRE(open.session.events.size() == 1);
  CHECK(open.session.events[0].kind == event_kind::session_started);
  CHECK(must(st->claim(local_claim("open", 1))).outcome
        == claim_result::current);
  CHECK(epochs() == "2,2,1");
  CHECK(in_order("holder")
        == std::to_string(first) + "," + std::to_string(first) + ","
             + std::to_string(first));
}
