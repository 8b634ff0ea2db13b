// Unit tests for store::list (issue 16, history): filters, keyset pages
// that stay put while sessions arrive, ownership, the migration of a
// journal written by schema 2 (schema 3's list rows, schema 4's packed
// runs), and the retention purge.

#include "storage_fixture.hpp"

#include "history_read_fixture.hpp"

namespace {

using ids_t = std::vector<std::string>;

ids_t ids(const list_page& p) {
  ids_t out;
  for (const auto& r : p.rows)
    out.push_back(r.session_id);
  return out;
}

list_query of(const std::string& principal, const std::string& scope = "2025") {
  list_query q;
  q.principal = principal;
  q.scope = scope;
  return q;
}

/// A session_started with tasks and tags, as the journal codec writes it.
event begun(const std::string& id, std::int64_t at, const std::string& who,
            const std::string& milestone, const std::string& name,
            const std::string& tags_json) {
  auto ev = make_event(event_kind::session_started, id, at,
                       R"({"milestone_id":")" + milestone
                         + R"(","milestone_name":")" + name
                         + R"(","task_ids":["t1","t2","t3"],"tags":)"
                         + tags_json + "}");
  ev.principal = who;
  return ev;
}

event ended_task(const std::string& id, const std::string& task_id,
                 std::int64_t at, const std::string& status) {
  return make_event(event_kind::task_ended, id, at,
                    R"({"status":")" + status + R"(","metadata":{}})", task_id);
}

event named_task(const std::string& id, const std::string& task_id,
                 std::int64_t at, const std::string& name) {
  return make_event(event_kind::task_started, id, at,
                    R"({"task_name":")" + name + R"(","metadata":{}})",
                    task_id);
}

constexpr std::int64_t day_ns = 86'400'000'000'000;

/// A session a day, D00 to D40, each running t1; every fifth one stays
/// open. Returns the ids days_query() lists, newest first (D40 starts when
/// its range ends: not in it).
std::vector<std::string> fill_days(store& st) {
  std::vector<std::string> newest_first;
  for (int d = 40; d >= 0; --d) {
    auto id = std::string{d < 10 ? "D0" : "D"} + std::to_string(d);
    auto at = t0 + d * day_ns;
    std::vector<event> evs{begun(id, at, "local", "M-1", "n", "[]"),
                           named_task(id, "t1", at + 1, "One")};
    if (d % 5 != 3) {
      evs.push_back(ended_task(id, "t1", at + 2, "completed"));
      evs.push_back(closing(event_kind::session_ended, id, at + 3));
    }
    must_append(st, chained(evs));
    if (d < 40)
      newest_first.push_back(id);
  }
  return newest_first;
}

/// Forty days of fill_days with their runs.
list_query days_query() {
  auto q = of("local");
  q.since_wall_ns = t0;
  q.until_wall_ns = t0 + 40 * day_ns;
  q.limit = 100;
  return q;
}

} // namespace

TEST_CASE("storage: list shows an owner's sessions as summary rows, newest "
          "first, filtered",
          "[storage][history][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, chained({begun("S1", t0, "alice", "M-1", "Release 1",
                                  R"(["backend","urgent"])"),
                            named_task("S1", "t1", t0 + 1, "Write Parser"),
                            ended_task("S1", "t1", t0 + 2, "completed"),
                            named_task("S1", "t2", t0 + 3, "Docs"),
                            ended_task("S1", "t2", t0 + 4, "skipped"),
                            closing(event_kind::session_ended, "S1", t0 + 9)}));
  must_append(*st, {begun("S2", t0 + 10, "alice", "M-2", "Audit",
                          R"(["backend"])")});
  must_append(*st, {begun("S3", t0 + 20, "alice", "M-1", "Release 1", "[]"),
                    closing(event_kind::session_expired, "S3", t0 + 30)});
  must_append(*st, {begun("B1", t0 + 15, "bob", "M-1", "Release 1", "[]")});

  auto all = must(st->list(of("alice")));
  CHECK(ids(all) == ids_t{"S3", "S2", "S1"});
  CHECK_FALSE(all.more);
  const auto& s1 = all.rows[2];
  CHECK(s1.milestone_id == "M-1");
  CHECK(s1.milestone_name == "Release 1");
  CHECK(s1.state == session_state::ended);
  CHECK(s1.started_wall_ns == t0);
  CHECK(s1.closed_wall_ns == t0 + 9);
  CHECK(s1.tags == ids_t{"backend", "urgent"});
  CHECK(s1.tasks_total == 3);
  CHECK(s1.tasks_done == 1); // t2 was skipped, t3 never started
  CHECK(all.rows[1].state == session_state::open);
  CHECK_FALSE(all.rows[1].closed_wall_ns);
  CHECK(all.rows[0].state == session_state::expired);

  auto q = of("alice");
  q.state = session_state::open;
  CHECK(ids(must(st->list(q))) == ids_t{"S2"});
  q = of("alice");
  q.milestone_id = "M-1";
  CHECK(ids(must(st->list(q))) == ids_t{"S3", "S1"});
  q = of("alice");
  q.tags = {"backend"};
  CHECK(ids(must(st->list(q))) == ids_t{"S2", "S1"});
  q.tags = {"backend", "urgent"};
  CHECK(ids(must(st->list(q))) == ids_t{"S1"});
  q.tags = {"nope"};
  CHECK(must(st->list(q)).rows.empty());
  q = of("alice");
  q.text = "parser"; // a task's name, case folded
  CHECK(ids(must(st->list(q))) == ids_t{"S1"});
  q.text = "audit"; // the milestone's name
  CHECK(ids(must(st->list(q))) == ids_t{"S2"});
  q.text = "t3"; // a declared task id
  CHECK(ids(must(st->list(q))) == ids_t{"S3", "S2", "S1"});
  q = of("alice");
  q.since_wall_ns = t0 + 10;
  q.until_wall_ns = t0 + 20;
  CHECK(ids(must(st->list(q))) == ids_t{"S2"});
  // Ownership: another principal, or the other era, sees none of them.
  CHECK(ids(must(st->list(of("bob")))) == ids_t{"B1"});
  CHECK(must(st->list(of("carol"))).rows.empty());
  CHECK(must(st->list(of("alice", "2026-07-28"))).rows.empty());
}

TEST_CASE("storage: list pages by keyset and stays stable while new "
          "sessions arrive",
          "[storage][history][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  // Two at the same instant: the id breaks the tie.
  for (auto [id, at] : std::vector<std::pair<std::string, std::int64_t>>{
         {"A", t0}, {"B", t0 + 1}, {"C", t0 + 1}, {"D", t0 + 2}, {"E", t0 + 3}})
    must_append(*st, {begun(id, at, "local", "M", "m", "[]")});
  auto q = of("local");
  q.limit = 2;
  auto p1 = must(st->list(q));
  CHECK(ids(p1) == ids_t{"E", "D"});
  CHECK(p1.more);
  // Newer sessions arrive between the pages: the next pages do not move.
  must_append(*st, {begun("F", t0 + 4, "local", "M", "m", "[]")});
  must_append(*st, {begun("G", t0 + 5, "local", "M", "m", "[]")});
  q.before = std::make_pair(p1.rows.back().started_wall_ns,
                            p1.rows.back().session_id);
  auto p2 = must(st->list(q));
  CHECK(ids(p2) == ids_t{"C", "B"});
  CHECK(p2.more);
  q.before = std::make_pair(p2.rows.back().started_wall_ns,
                            p2.rows.back().session_id);
  auto p3 = must(st->list(q));
  CHECK(ids(p3) == ids_t{"A"});
  CHECK_FALSE(p3.more);
}

TEST_CASE("storage: list follows the retention purge",
          "[storage][history][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, {begun("old", t0, "local", "M", "m", "[]"),
                    closing(event_kind::session_ended, "old", t0 + 10)});
  must_append(*st, {begun("new", t0 + 100, "local", "M", "m", "[]"),
                    closing(event_kind::session_ended, "new", t0 + 1000)});
  constexpr std::int64_t hour = 3'600'000'000'000;
  CHECK(must(st->purge_closed_before(t0 + 500, t0 + hour, hour)) == 1);
  CHECK(ids(must(st->list(of("local")))) == ids_t{"new"});
}

namespace {

/// A journal as a schema-2 server left it: schema 1, then the schema-2
/// step (both verbatim from sqlite_schema.cpp).
constexpr const char* schema_2 = R"sql(
    PRAGMA application_id = 1414810954;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
      WITHOUT ROWID;
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
    ALTER TABLE sessions ADD COLUMN holder INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN scope TEXT NOT NULL DEFAULT '2025';
    ALTER TABLE sessions ADD COLUMN idempotency_key TEXT;
    ALTER TABLE sessions ADD COLUMN last_wall_ns INTEGER NOT NULL DEFAULT 0;
    UPDATE meta SET key = 'instances' WHERE key = 'epoch';
    INSERT INTO meta (key, value) VALUES ('purged_wall_ns', '0');
    CREATE INDEX sessions_by_key ON sessions (principal, scope, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
    PRAGMA user_version = 2;
)sql";

} // namespace

TEST_CASE("storage: a schema-2 journal migrates to the current schema, its list rows "
          "and runs taken from its events",
          "[storage][history]") {
  temp_dir tmp;
  fs::create_directory(tmp.data());
  auto at = [](std::int64_t d) { return std::to_string(t0 + d); };
  {
    sqlite3* raw = nullptr;
    REQUIRE(sqlite3_open(tmp.journal().c_str(), &raw) == SQLITE_OK);
    sqlite3_close(raw);
    raw_db db{tmp.journal()};
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(schema_2);
    db.exec("INSERT INTO sessions (sid, session_id, principal, milestone_id,"
            " state, epoch, started_wall_ns, closed_wall_ns, holder, scope,"
            " last_wall_ns) VALUES"
            " (1, 'OLD', 'local', 'M-9', 'ended', 5, " + at(0) + ", "
            + at(50) + ", 0, '2025', " + at(50) + "),"
            " (2, 'OPEN', 'local', 'M-8', 'open', 2, " + at(100)
            + ", NULL, 0, '2025', " + at(101) + ")");
    db.exec("INSERT INTO events (sid, kind, task_id, wall_ns, mono_ns,"
            " boot_id, epoch, payload) VALUES"
            " (1, 'session_started', NULL, " + at(0) + ", 1, 'b', 1,"
            "  '{\"milestone_id\":\"M-9\",\"milestone_name\":\"Old One\","
            "\"task_ids\":[\"a\",\"b\"],\"tags\":[\"x\"]}'),"
            " (1, 'task_started', 'a', " + at(1) + ", 2, 'b', 2,"
            "  '{\"task_name\":\"Migrate Data\",\"metadata\":{}}'),"
            " (1, 'task_ended', 'a', " + at(2) + ", 3, 'b', 3,"
            "  '{\"status\":\"completed\",\"metadata\":{}}'),"
            " (1, 'session_ended', NULL, " + at(50) + ", 4, 'b', 4, '{}'),"
            " (2, 'session_started', NULL, " + at(100) + ", 5, 'b', 1,"
            "  '{\"milestone_id\":\"M-8\",\"task_ids\":[\"c\"]}')");
  }
  auto st = must_open(tmp.data());
  {
    raw_db db{tmp.journal()};
    CHECK(db.integer("PRAGMA user_version") == journal_schema_version);
    CHECK(db.text("PRAGMA quick_check") == "ok");
    // Schema 4 packed the closed session's runs, not the open one's.
    CHECK(db.integer("SELECT count(*) FROM sessions WHERE runs IS NOT NULL"
                     " AND session_id = 'OLD'")
          == 1);
    CHECK(db.integer("SELECT count(*) FROM sessions WHERE runs IS NULL")
          == 1);
  }
  {
    auto q = of("local");
    q.with_runs = true;
    auto page = must(st->list(q));
    REQUIRE(page.runs.size() == 2);
    CHECK(page.runs[0].empty()); // OPEN: no task ran
    REQUIRE(page.runs[1].size() == 1);
    CHECK(page.runs[1][0].task_id == "a");
    CHECK(page.runs[1][0].status == run_end::completed);
    CHECK(page.runs[1][0].duration_ns == 1); // monotonic 2 -> 3
  }
  auto all = must(st->list(of("local")));
  REQUIRE(ids(all) == ids_t{"OPEN", "OLD"});
  const auto& old = all.rows[1];
  CHECK(old.milestone_name == "Old One");
  CHECK(old.tags == ids_t{"x"});
  CHECK(old.tasks_total == 2);
  CHECK(old.tasks_done == 1);
  CHECK_FALSE(all.rows[0].milestone_name);
  CHECK(all.rows[0].tags.empty());
  CHECK(all.rows[0].tasks_total == 1);
  auto q = of("local");
  q.text = "migrate data";
  CHECK(ids(must(st->list(q))) == ids_t{"OLD"});
  q.text = "old one";
  CHECK(ids(must(st->list(q))) == ids_t{"OLD"});
  // The migrated open session keeps working: a task's name joins it.
  must_append(*st, {at_epoch(named_task("OPEN", "c", t0 + 200, "Fresh Name"),
                             2)});
  q.text = "fresh";
  CHECK(ids(must(st->list(q))) == ids_t{"OPEN"});
}

// -- issue 32: the history on PostgreSQL, one statement a page ---------------
// The same assertions on both backends ([backends]): tasks done counted
// where the server computes them (bulk edits, undone events), the text
// filter as a literal substring, pages that end exactly at the last match,
// and statistics' runs from packed rows, from events, and from events when
// a packed value is damaged.

TEST_CASE("storage: list counts tasks done through bulk edits and undone "
          "events, and filters text literally",
          "[storage][history][backends][issue32]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  // t1 completed. t4 completed, its end undone, then ended again. A bulk
  // edit starts and ends t2 (completed by default: done), ends t3 as
  // failed, and passes over an op that is neither (rename).
  must_append(*st, chained({begun("S1", t0, "alice", "M-1", "Release 1",
                                  R"(["x"])"),
                            named_task("S1", "t1", t0 + 1, "50% Done_OK"),
                            ended_task("S1", "t1", t0 + 2, "completed"),
                            named_task("S1", "t4", t0 + 3, "Four"),
                            ended_task("S1", "t4", t0 + 4, "completed")}));
  auto undo = at_epoch(make_event(event_kind::change_undone, "S1", t0 + 5), 5);
  undo.principal = "alice";
  must_append(*st, {undo}); // t4's end
  auto redo = at_epoch(ended_task("S1", "t4", t0 + 6, "completed"), 6);
  redo.principal = "alice";
  auto edit = at_epoch(
    make_event(event_kind::tasks_edited, "S1", t0 + 7,
               R"({"ops":[{"op":"start","task_id":"t2"},)"
               R"({"op":"rename","task_id":"t2","name":"Two"},)"
               R"({"op":"end","task_id":"t2"},)"
               R"({"op":"end","task_id":"t3","status":"failed"}]})"),
    7);
  edit.principal = "alice";
  must_append(*st, {redo, edit});
  auto row = must(st->list(of("alice")));
  REQUIRE(ids(row) == ids_t{"S1"});
  CHECK(row.rows[0].tasks_done == 3); // t1, t4 (ended again), t2
  // Undo the bulk edit: t2 and t3 as they were (t2 never started).
  auto undo2 = at_epoch(make_event(event_kind::change_undone, "S1", t0 + 8),
                        8);
  undo2.principal = "alice";
  must_append(*st, {undo2});
  CHECK(must(st->list(of("alice"))).rows[0].tasks_done == 2);

  // The text is a substring, never a pattern: % and _ are themselves.
  auto q = of("alice");
  for (const char* hit : {"50% done_ok", "% done", "_ok", "%", "release 1"}) {
    q.text = hit;
    INFO(hit);
    CHECK(ids(must(st->list(q))) == ids_t{"S1"});
  }
  for (const char* miss : {"0%_", "50%done", "d_ne", "%%"}) {
    q.text = miss;
    INFO(miss);
    CHECK(must(st->list(q)).rows.empty());
  }
}

TEST_CASE("storage: list pages of a filtered history end exactly at the last "
          "match, with or without tasks done",
          "[storage][history][backends][issue32]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  // 12 ended sessions; every third is M-7 and tagged team:1 (4 match).
  for (int i = 0; i < 12; ++i) {
    auto id = "S" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    auto m = i % 3 == 0 ? "M-7" : "M-1" + std::to_string(i);
    auto tags = i % 3 == 0 ? R"(["team:1","area:2"])" : R"(["team:2"])";
    must_append(*st, chained({begun(id, t0 + i * 10, "local", m, "n", tags),
                              named_task(id, "t1", t0 + i * 10 + 1, "Task"),
                              ended_task(id, "t1", t0 + i * 10 + 2,
                                         i % 2 ? "completed" : "failed"),
                              closing(event_kind::session_ended, id,
                                      t0 + i * 10 + 5)}));
  }
  auto q = of("local");
  q.state = session_state::ended;
  q.tags = {"team:1"};
  q.text = "m-7";
  q.limit = 4; // exactly the matches: no more
  auto all = must(st->list(q));
  CHECK(ids(all) == ids_t{"S09", "S06", "S03", "S00"});
  CHECK_FALSE(all.more);
  std::vector<std::int64_t> done;
  for (const auto& r : all.rows)
    done.push_back(r.tasks_done);
  CHECK(done == std::vector<std::int64_t>{1, 0, 1, 0});
  q.limit = 2;
  auto p1 = must(st->list(q));
  CHECK(ids(p1) == ids_t{"S09", "S06"});
  CHECK(p1.more);
  q.before = std::make_pair(p1.rows.back().started_wall_ns,
                            p1.rows.back().session_id);
  auto p2 = must(st->list(q));
  CHECK(ids(p2) == ids_t{"S03", "S00"});
  CHECK_FALSE(p2.more); // the page ends at the last match
  q.before = std::make_pair(p2.rows.back().started_wall_ns,
                            p2.rows.back().session_id);
  auto p3 = must(st->list(q));
  CHECK(p3.rows.empty());
  CHECK_FALSE(p3.more);
  // A cursor within a time window: the rows older than it in the window.
  q = of("local");
  q.text = "m-7";
  q.before = std::make_pair(t0 + 60, std::string{"S06"});
  q.since_wall_ns = t0;
  q.until_wall_ns = t0 + 40;
  CHECK(ids(must(st->list(q))) == ids_t{"S03", "S00"});

  // Statistics over the same page: packed runs, one damaged (read from its
  // events instead), and an open session's (from its events).
  must_append(*st, chained({begun("OPEN", t0 + 500, "local", "M-7", "n",
                                  R"(["team:1"])"),
                            named_task("OPEN", "t9", t0 + 501, "Nine")}));
  exec_sql(tmp.journal(),
           dialect("UPDATE sessions SET runs = X'01FF' WHERE session_id ="
                   " 'S03'",
                   "UPDATE sessions SET runs = '\\x01ff'::bytea WHERE"
                   " session_id = 'S03'"));
  q = of("local");
  q.tags = {"team:1"};
  q.with_runs = true;
  auto stats = must(st->list(q));
  REQUIRE(ids(stats) == ids_t{"OPEN", "S09", "S06", "S03", "S00"});
  REQUIRE(stats.runs.size() == 5);
  REQUIRE(stats.runs[0].size() == 1);
  CHECK(stats.runs[0][0].task_id == "t9");
  CHECK(stats.runs[0][0].status == run_end::in_progress);
  for (std::size_t i = 1; i < 5; ++i) {
    INFO(stats.rows[i].session_id);
    REQUIRE(stats.runs[i].size() == 1);
    CHECK(stats.runs[i][0].task_id == "t1");
    CHECK(stats.runs[i][0].start_wall_ns == stats.rows[i].started_wall_ns + 1);
    CHECK(stats.runs[i][0].status
          == (i % 2 ? run_end::completed : run_end::failed));
  }
}

TEST_CASE("storage: schema 10 (PostgreSQL's history step) opens a journal of "
          "schema 9 unchanged",
          "[storage][issue32]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    must_append(*st, chained({begun("S1", t0, "local", "M-7", "n", "[]"),
                              named_task("S1", "t1", t0 + 1, "Task"),
                              ended_task("S1", "t1", t0 + 2, "completed")}));
  }
  {
    raw_db db{tmp.journal()};
    db.exec("PRAGMA user_version = 9");
  }
  auto st = must_open(tmp.data());
  CHECK(count(tmp.journal(), "PRAGMA user_version") == journal_schema_version);
  CHECK(journal_schema_version == 11);
  auto q = of("local");
  q.text = "task";
  auto page = must(st->list(q));
  REQUIRE(ids(page) == ids_t{"S1"});
  CHECK(page.rows[0].tasks_done == 1);
}

TEST_CASE("storage: statistics over a long range keep the page's order, stop "
          "at its limit and pair open sessions' events",
          "[storage][history][backends][issue32]") {
  // PostgreSQL reads such a range in time windows (4 of 10 days here, some
  // sessions starting on a window's first instant), a statement each.
  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto newest_first = fill_days(*st);
  auto q = days_query();
  CHECK(ids(must(st->list(q))) == newest_first);
  q.with_runs = true;
  auto all = must(st->list(q));
  REQUIRE(ids(all) == newest_first);
  CHECK_FALSE(all.more);
  REQUIRE(all.runs.size() == 40);
  for (std::size_t i = 0; i < 40; ++i) {
    INFO(all.rows[i].session_id);
    REQUIRE(all.runs[i].size() == 1);
    CHECK(all.runs[i][0].start_wall_ns == all.rows[i].started_wall_ns + 1);
    CHECK(all.runs[i][0].status
          == ((39 - i) % 5 == 3 ? run_end::in_progress : run_end::completed));
  }
  // Limits that end inside a window, at a window's end, and at the last
  // row.
  for (std::size_t limit : {13u, 10u, 40u}) {
    INFO(limit);
    q.limit = limit;
    auto page = must(st->list(q));
    CHECK(ids(page) == ids_t(newest_first.begin(),
                             newest_first.begin()
                               + static_cast<std::ptrdiff_t>(limit)));
    CHECK(page.more == (limit < 40));
    CHECK(page.runs.size() == limit);
  }
}

TEST_CASE("storage: statistics' rows handed on as they are read come in page "
          "order with their runs, a damaged closed packing's as stored, and "
          "read_history reads the page again with that session's events",
          "[storage][history][backends][issue32]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto newest_first = fill_days(*st);
  auto q = days_query();
  q.with_runs = true;
  const auto now = ttm::domain::wall_time{
    std::chrono::duration_cast<ttm::domain::wall_time::duration>(
      std::chrono::nanoseconds{t0 + 50 * day_ns})};
  auto before = ttm::journal::read_history(*st, q, now);
  REQUIRE_FALSE(before.error);
  CHECK_FALSE(before.reread);
  // D37 (third newest, closed): its packing damaged (version 1, then a
  // count its bytes cannot hold).
  exec_sql(tmp.journal(),
           dialect("UPDATE sessions SET runs = X'01FF' WHERE session_id ="
                   " 'D37'",
                   "UPDATE sessions SET runs = '\\x01ff'::bytea WHERE"
                   " session_id = 'D37'"));
  std::vector<std::size_t> calls;
  ids_t handed;
  auto page = must(st->list(q, [&](list_page& p, std::size_t upto) {
    REQUIRE(upto > (calls.empty() ? 0 : calls.back()));
    REQUIRE(upto <= p.rows.size());
    REQUIRE(p.runs.size() >= upto);
    for (auto i = handed.size(); i < upto; ++i) {
      INFO(p.rows[i].session_id);
      if (p.rows[i].session_id == "D37") {
        CHECK(p.runs.packed(i) == std::string{"\x01\xff"});
      } else {
        REQUIRE(p.runs[i].size() == 1);
        CHECK(p.runs[i][0].start_wall_ns == p.rows[i].started_wall_ns + 1);
      }
      handed.push_back(std::move(p.rows[i].session_id)); // the sink's
    }
    calls.push_back(upto);
  }));
  CHECK_FALSE(page.more);
  if (pg_uri()) {
    // PostgreSQL: the rows of each window as it arrives (4 of them),
    // D37's among them unchecked.
    CHECK(calls.size() == 4);
    CHECK(calls.back() == 40);
    CHECK(handed == newest_first);
  } else {
    CHECK(calls.empty()); // SQLite hands the page on whole, checked
    CHECK(ids(page) == newest_first);
  }

  // The journal's read: the same runs as before the damage, D37's paired
  // from its events (PostgreSQL: in a second read, without a sink).
  auto after = ttm::journal::read_history(*st, q, now);
  REQUIRE_FALSE(after.error);
  CHECK(after.reread == (pg_uri() != nullptr));
  auto want = page_of(before, now);
  auto got = page_of(after, now);
  REQUIRE(got.runs.size() == want.runs.size());
  REQUIRE(got.runs.size() == 40);
  for (std::size_t i = 0; i < want.runs.size(); ++i) {
    INFO(want.runs[i].session_id);
    CHECK(got.runs[i].session_id == want.runs[i].session_id);
    REQUIRE(got.runs[i].runs.size() == 1);
    REQUIRE(want.runs[i].runs.size() == 1);
    CHECK(got.runs[i].runs[0].start == want.runs[i].runs[0].start);
    CHECK(got.runs[i].runs[0].end == want.runs[i].runs[0].end);
    CHECK(got.runs[i].runs[0].status == want.runs[i].runs[0].status);
  }
}
