// Unit tests for src/storage, issue 15: the schema-2 migration, an older
// server holding the directory, expiry of sessions no server holds, a
// journal kept busy.

#include "storage_fixture.hpp"

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
    CHECK(db.integer("PRAGMA user_version") == journal_schema_version);
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
  CHECK(m1.session.epoch == 1);
  CHECK(m1.session.holder == 0);
  CHECK(m1.previous_holder == 0);
  CHECK(m1.session.events.size() == 2);
  must_append(*st, {at_epoch(task(event_kind::task_ended, "M1", "T1", t0 + 30),
                             1)});
  CHECK(column_of(j, "last_wall_ns", "M1") == t0 + 30);
  CHECK(column_of(j, "holder", "M1") == st->instance());
  CHECK(ids_of(all_orphans(*st)) == names{"L1"});
  auto l1 = must(st->claim(local_claim("L1")));
  REQUIRE(l1.outcome == claim_result::loaded);
  CHECK(l1.session.epoch == 1);
  // Opened again: nothing more to migrate.
  st.reset();
  auto again = must_open(tmp.data());
  CHECK(again->instance() == 5);
  CHECK(count(j, "PRAGMA user_version") == journal_schema_version);
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
  CHECK(contains(e.message, "(pid 424242)"));
  CHECK(contains(e.message, "from before servers shared a directory"));
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
  result<std::vector<std::string>>
  stale(const std::vector<std::pair<std::string, std::int64_t>>& held)
    override {
    return inner_.stale(held);
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
  using store::list;
  result<list_page> list(const list_query& q, const list_sink& sink) override {
    return inner_.list(q, sink);
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
          "[storage][issue15][backends]") {
  using namespace std::chrono;
  temp_dir tmp;
  ttm::domain::fake_clock clock{ttm::domain::wall_time{nanoseconds{t0}}};
  ttm::domain::tracking_limits limits;
  limits.max_idle = hours{4};
  limits.max_age = hours{24};
  auto now_ns = [&] { return ttm::domain::to_ns(clock.wall_now()); };
  auto dying = must_open(tmp.data());
  auto live = must_open(tmp.data());
  // As a server opens it: its expiries checked against the journal's record.
  auto opts = options_for(tmp.data());
  opts.max_idle = limits.max_idle;
  opts.max_age = limits.max_age;
  auto expirer = must_open(opts);
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
  auto reason_of = [&](const std::string& session) {
    return text_sql(j, dialect("SELECT json_extract(payload, '$.reason')",
                               "SELECT payload::json ->> 'reason'")
                         + " FROM events JOIN sessions USING (sid) WHERE"
                           " session_id = '" + session
                         + "' AND kind = 'session_expired'");
  };
  CHECK(reason_of("D1")
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
  must(live->release({{"L1", 1}})); // not the epoch it is at: nothing
  CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 0);
  must(live->release({{"L1", 2}}));
  auto last = ttm::journal::expire_orphans(*expirer, limits, clock);
  CHECK(last.error.empty());
  CHECK(last.expired == 1);
  CHECK(text_of(j, "state", "L1") == "expired");
  CHECK(reason_of("L1")
        == "age");
}

TEST_CASE("storage: expire_orphans leaves an orphan written or named "
          "meanwhile to the server that did",
          "[storage][issue15][backends]") {
  using namespace std::chrono;
  temp_dir tmp;
  ttm::domain::fake_clock clock{ttm::domain::wall_time{nanoseconds{t0}}};
  ttm::domain::tracking_limits limits;
  limits.max_idle = hours{4};
  auto wall = ttm::domain::to_ns(clock.wall_now());
  std::int64_t dead = 0;
  {
    auto dying = must_open(tmp.data());
    dead = dying->instance();
    must_append(*dying, {started("D1", wall), started("D2", wall + 1)});
  }
  auto claimer = must_open(tmp.data());
  auto opts = options_for(tmp.data());
  opts.max_idle = limits.max_idle;
  opts.max_age = limits.max_age;
  auto expirer = must_open(opts);
  clock.advance(hours{5});
  auto now = ttm::domain::to_ns(clock.wall_now());
  auto j = tmp.journal();
  bool claimed = false;
  std::function<void(const claim_result&)> then;
  between_store racing{*expirer, [&] {
                         auto req = local_claim("D1");
                         req.now_wall_ns = now;
                         auto c = must(claimer->claim(req));
                         claimed = c.outcome == claim_result::loaded;
                         then(c);
                       }};
  SECTION("written: its epoch moved on") {
    then = [&](const claim_result& c) {
      must_append(*claimer,
                  {at_epoch(task(event_kind::task_started, "D1", "T1", now),
                            c.session.epoch)});
    };
    auto run = ttm::journal::expire_orphans(racing, limits, clock);
    CHECK(run.error.empty());
    CHECK(run.expired == 1); // D2 only
    CHECK(text_of(j, "state", "D1") == "open");
    CHECK(column_of(j, "holder", "D1") == claimer->instance());
    CHECK(events_of(j, "D1") == 2);
  }
  SECTION("named only: a claim is activity, and the journal finds the "
          "expiry not due") {
    then = [](const claim_result&) {};
    auto run = ttm::journal::expire_orphans(racing, limits, clock);
    CHECK(run.error.empty());
    CHECK(run.expired == 1); // D2 only
    CHECK(text_of(j, "state", "D1") == "open");
    CHECK(column_of(j, "holder", "D1") == dead); // a read takes nothing
    CHECK(column_of(j, "epoch", "D1") == 1);
    CHECK(column_of(j, "last_wall_ns", "D1") == now);
    CHECK(events_of(j, "D1") == 1);
    // Still an orphan (its holder is dead), idle again in 4 hours.
    CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 0);
    clock.advance(limits.max_idle + seconds{1});
    CHECK(ttm::journal::expire_orphans(*expirer, limits, clock).expired == 1);
    CHECK(text_of(j, "state", "D1") == "expired");
  }
  CHECK(claimed);
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
