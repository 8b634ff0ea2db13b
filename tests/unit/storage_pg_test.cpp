// The PostgreSQL backend's own behaviour (issue 32): migrations from many
// connections at once, leases, fencing after a pause, LISTEN/NOTIFY, and
// reconnecting after the server restarts. Hidden ([.pg]): they need a
// server, which ctest's unit.storage_pg starts (tests/scripts/storage_pg.sh:
// TTM_TEST_PG_URI, TTM_TEST_PG_DIR and TTM_TEST_PG_SCRIPT), with the shared
// storage tests ([backends]) against the same server.

#include "storage_fixture.hpp"
#include "pg_server_script.hpp"

#include "storage/pg_admin.hpp"
#include "storage/pg_conn.hpp"

#include <atomic>
#include <memory>
#include <thread>

namespace {

/// A wall clock the test moves (leases are measured by it).
struct test_wall {
  std::shared_ptr<std::atomic<std::int64_t>> now
    = std::make_shared<std::atomic<std::int64_t>>(t0);
  std::function<std::int64_t()> fn() const {
    auto n = now;
    return [n] { return n->load(); };
  }
  void advance(std::chrono::nanoseconds d) {
    *now += d.count();
  }
};

pg_options pg_for(const temp_dir& tmp, const test_wall& wall) {
  REQUIRE(pg_uri() != nullptr);
  auto o = pg_options_for(options_for(tmp.data()));
  o.lease = std::chrono::seconds{10};
  o.wall_now_ns = wall.fn();
  return o;
}

store_ptr must_open_pg(const pg_options& o) {
  auto r = open_postgresql(o);
  INFO(describe(err_of(r)));
  REQUIRE(std::holds_alternative<store_ptr>(r));
  return std::move(std::get<store_ptr>(r));
}

} // namespace

TEST_CASE("postgresql: servers starting at once migrate once, under the "
          "advisory lock, each its own instance",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  // The schema first (CREATE SCHEMA IF NOT EXISTS races itself): the
  // servers race for the journal's tables in it.
  raw_pg{tmp.journal()}.text("CREATE SCHEMA " + o.schema);
  constexpr int n = 6;
  std::vector<std::int64_t> instances(n, 0);
  std::vector<std::string> errors(n);
  std::vector<store_ptr> stores(n);
  {
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
      threads.emplace_back([&, i] {
        auto r = open_postgresql(o);
        if (auto* e = std::get_if<error>(&r)) {
          errors[i] = e->message;
          return;
        }
        stores[i] = std::move(std::get<store_ptr>(r));
        instances[i] = stores[i]->instance();
      });
    for (auto& t : threads)
      t.join();
  }
  for (int i = 0; i < n; ++i) {
    INFO(errors[i]);
    CHECK(errors[i].empty());
    CHECK(instances[i] > 0);
  }
  std::sort(instances.begin(), instances.end());
  CHECK(std::unique(instances.begin(), instances.end()) == instances.end());
  CHECK(count(tmp.journal(), "SELECT value FROM meta WHERE key ="
                             " 'schema_version'")
        == journal_schema_version);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM instances") == n);
  // Every store writes and sees the others' writes.
  for (int i = 0; i < n; ++i)
    must_append(*stores[i], {started("S" + std::to_string(i), t0 + i)});
  CHECK(must(stores[0]->history({})).size() == n);
}

TEST_CASE("postgresql: a journal of a newer schema is refused, untouched; "
          "another application's tables too",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  { must_open_pg(o); }
  raw_pg{tmp.journal()}.text(
    "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  auto r = open_postgresql(o);
  auto e = must_fail(r, error_kind::newer_schema, tmp.journal());
  CHECK(contains(e.message, "schema version 99"));
  CHECK(count(tmp.journal(), "SELECT value FROM meta WHERE key ="
                             " 'schema_version'")
        == 99);

  temp_dir other;
  auto o2 = pg_for(other, wall);
  raw_pg{other.journal()}.text("CREATE SCHEMA " + o2.schema
                               + "; CREATE TABLE " + o2.schema
                               + ".things (x int)");
  must_fail(open_postgresql(o2), error_kind::corrupt, other.journal());
}

TEST_CASE("postgresql: an expired lease makes an instance's sessions "
          "orphans and claimable; renewing keeps them",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  auto a = must_open_pg(o);
  auto b = must_open_pg(o);
  must_append(*a, {started("S1", t0)});
  CHECK(all_orphans(*b).empty()); // a's lease runs
  auto held = must(b->claim(local_claim("S1")));
  REQUIRE(held.outcome == claim_result::loaded);
  CHECK(held.previous_holder == a->instance());
  CHECK(held.previous_alive);

  // a renews in time (a third of the lease), b too: nothing changes.
  for (int i = 0; i < 6; ++i) {
    wall.advance(std::chrono::seconds{3});
    must(a->renew_lease());
    must(b->renew_lease());
    CHECK(all_orphans(*b).empty());
  }
  // a stops renewing (paused, partitioned): past its lease its session is
  // an orphan to b, and a claim says its holder is gone.
  wall.advance(std::chrono::seconds{11});
  must(b->renew_lease());
  CHECK(ids_of(all_orphans(*b)) == names{"S1"});
  auto gone = must(b->claim(local_claim("S1")));
  CHECK(gone.previous_holder == a->instance());
  CHECK_FALSE(gone.previous_alive);
  // Back: a renews, and holds it again.
  must(a->renew_lease());
  CHECK(all_orphans(*b).empty());
  CHECK(a->lease_renewal() == std::chrono::nanoseconds{
                                std::chrono::seconds{10}}
                                / 3);
}

TEST_CASE("postgresql: a server paused past its lease is fenced when it "
          "resumes, writes nothing stale, and reloads",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  o.max_idle = std::chrono::seconds{60};
  auto a = must_open_pg(o);
  auto b = must_open_pg(o);
  must_append(*a, {started("S1", t0),
                   at_epoch(task(event_kind::task_started, "S1", "T1", t0), 1)});
  // a pauses (SIGSTOP) for two minutes: its lease runs out, and b expires
  // the session as an orphan, idle past its limit.
  wall.advance(std::chrono::minutes{2});
  must(b->renew_lease());
  auto due = must(b->orphans_due(INT64_MAX, *wall.now - 60'000'000'000, 10));
  REQUIRE(ids_of(due) == names{"S1"});
  auto expire = closing(event_kind::session_expired, "S1", *wall.now);
  expire.epoch = due[0].epoch;
  expire.if_due = true;
  must_append(*b, {expire});
  // a resumes: renews its lease, and its write from the copy it had is
  // fenced, nothing written.
  must(a->renew_lease());
  auto late = a->append(
    {at_epoch(task(event_kind::task_ended, "S1", "T1", *wall.now), 2)});
  must_fail(late, error_kind::fenced, tmp.journal());
  CHECK(events_of(tmp.journal(), "S1") == 3);
  auto reload = must(a->claim(local_claim("S1", 2)));
  REQUIRE(reload.outcome == claim_result::loaded);
  CHECK(reload.session.state == session_state::expired);
  CHECK(reload.session.holder == b->instance());
}

TEST_CASE("postgresql: a write notifies the other servers (LISTEN/NOTIFY); "
          "a copy it made stale is found without polling",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  auto a = must_open_pg(o);
  auto b = must_open_pg(o);
  PGconn* listener = PQconnectdb(pg_uri());
  REQUIRE(PQstatus(listener) == CONNECTION_OK);
  PQclear(PQexec(listener, "LISTEN ttm_journal"));
  must_append(*a, {started("S1", t0)});
  CHECK(must(b->claim(local_claim("S1"))).session.epoch == 1);
  CHECK(must(b->stale({{"S1", 1}})).empty());
  must_append(*a, {at_epoch(task(event_kind::task_started, "S1", "T1", t0), 1)});
  // The raw listener hears both commits: "<id> <epoch after>".
  std::vector<std::string> heard;
  for (int i = 0; i < 100 && heard.size() < 2; ++i) {
    PQconsumeInput(listener);
    while (auto* n = PQnotifies(listener)) {
      heard.emplace_back(n->extra);
      PQfreemem(n);
    }
    if (heard.size() < 2)
      std::this_thread::sleep_for(std::chrono::milliseconds{10}); // delivery
  }
  CHECK(heard == names{"S1 1", "S1 2"});
  PQfinish(listener);
  // b's copy at epoch 1 is stale; its own writes do not make its copies
  // stale; a copy at the latest epoch is current.
  std::vector<std::string> stale;
  for (int i = 0; i < 100 && stale.empty(); ++i) {
    stale = must(b->stale({{"S1", 1}}));
    if (stale.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds{10}); // delivery
  }
  CHECK(stale == names{"S1"});
  CHECK(must(b->stale({{"S1", 2}})).empty());
  must_append(*b, {at_epoch(task(event_kind::task_ended, "S1", "T1", t0), 2)});
  CHECK(must(b->stale({{"S1", 3}})).empty());
}

TEST_CASE("postgresql: while the server is down every call fails (io, "
          "STORAGE_UNAVAILABLE upstream), never a wrong answer; the store "
          "reconnects by itself",
          "[.pg]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  auto a = must_open_pg(o);
  must_append(*a, {started("S1", t0)});
  REQUIRE(ttm::test::pg_server_script("stop") == 0);
  auto write = a->append(
    {at_epoch(task(event_kind::task_started, "S1", "T1", t0 + 1), 1)});
  auto e = must_fail(write, error_kind::io, tmp.journal());
  CHECK(contains(e.message, "PostgreSQL"));
  must_fail(a->claim(local_claim("S1")), error_kind::io, tmp.journal());
  must_fail(a->history({}), error_kind::io, tmp.journal());
  must_fail(a->stale({{"S1", 1}}), error_kind::io, tmp.journal());
  must_fail(a->renew_lease(), error_kind::io, tmp.journal());
  REQUIRE(ttm::test::pg_server_script("start") == 0);
  // The next call reconnects; the refused write was not written.
  auto back = must(a->claim(local_claim("S1")));
  REQUIRE(back.outcome == claim_result::loaded);
  CHECK(back.session.epoch == 1);
  CHECK(back.session.events.size() == 1);
  must_append(*a, {at_epoch(task(event_kind::task_started, "S1", "T1",
                                 t0 + 2),
                            1)});
  CHECK(events_of(tmp.journal(), "S1") == 2);
  // And it hears other servers' writes again.
  auto b = must_open_pg(o);
  must_append(*b, {at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 3),
                            2)});
  std::vector<std::string> stale;
  for (int i = 0; i < 100 && stale.empty(); ++i) {
    stale = must(a->stale({{"S1", 2}}));
    if (stale.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds{10}); // delivery
  }
  CHECK(stale == names{"S1"});
}

namespace {

std::vector<std::string> page_ids(const list_page& p) {
  std::vector<std::string> out;
  for (const auto& r : p.rows)
    out.push_back(r.session_id + "/" + std::to_string(r.tasks_done));
  return out;
}

} // namespace

TEST_CASE("postgresql: schema 10 migrates a journal of schema 9: the audit "
          "command's index of events done by another principal; the same "
          "pages",
          "[.pg][issue32]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  list_query q;
  q.principal = "local";
  q.scope = "2025";
  q.text = "number 7";
  q.tags = {"a"};
  list_page before;
  {
    auto st = must_open_pg(o);
    for (const char* id : {"S1", "S2", "S3"}) {
      std::vector<event> batch{started(id, t0)};
      for (int n = 0; n < 10; ++n)
        batch.push_back(make_event(
          event_kind::task_started, id, t0 + n,
          R"({"task_name":"task number )" + std::to_string(n) + R"("})",
          "t" + std::to_string(n)));
      must_append(*st, chained(batch));
    }
    before = must(st->list(q));
    REQUIRE(before.rows.size() == 3);
  }
  const std::string indexed = "SELECT count(*) FROM pg_indexes WHERE"
                              " schemaname = current_schema() AND indexname"
                              " = 'events_by_actor'";
  REQUIRE(count(tmp.journal(), indexed) == 1);
  raw_pg{tmp.journal()}.text(
    "DROP INDEX events_by_actor;"
    " UPDATE meta SET value = '9' WHERE key = 'schema_version'");
  auto st = must_open_pg(o);
  CHECK(count(tmp.journal(), "SELECT value FROM meta WHERE key ="
                             " 'schema_version'")
        == journal_schema_version);
  CHECK(count(tmp.journal(), indexed) == 1);
  CHECK(page_ids(must(st->list(q))) == page_ids(before));
}

TEST_CASE("postgresql: schema 11 migrates a journal of schema 10: each "
          "closed session gets its digest, from its packed runs, and an open "
          "one none",
          "[.pg][issue32]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  {
    auto st = must_open_pg(o);
    must_append(*st, chained({started("S1", t0),
                              make_event(event_kind::task_started, "S1",
                                         t0 + 10, R"({"metadata":{}})", "t1"),
                              closing(event_kind::session_ended, "S1",
                                      t0 + 2'000'000),
                              started("S2", t0)}));
  }
  const std::string with_digest = "SELECT count(*) FROM sessions WHERE"
                                  " digest IS NOT NULL";
  REQUIRE(count(tmp.journal(), with_digest) == 1);
  raw_pg{tmp.journal()}.text(
    "CREATE TABLE kept AS SELECT sid, digest FROM sessions;"
    " ALTER TABLE sessions DROP COLUMN digest;"
    " UPDATE meta SET value = '10' WHERE key = 'schema_version'");
  auto st = must_open_pg(o);
  CHECK(count(tmp.journal(), "SELECT value FROM meta WHERE key ="
                             " 'schema_version'")
        == journal_schema_version);
  CHECK(count(tmp.journal(), with_digest) == 1);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions s JOIN kept k"
                             " ON k.sid = s.sid WHERE s.digest"
                             " IS NOT DISTINCT FROM k.digest")
        == 2);
}

TEST_CASE("postgresql: a journal URL whose search_path names no schema, or a "
          "schema without a journal: the server and the admin commands say "
          "what is missing and how to create it",
          "[.pg][issue32]") {
  temp_dir tmp;
  test_wall wall;
  auto o = pg_for(tmp, wall);
  // The URL's search_path (as an operator writes it), naming no schema.
  auto missing = o;
  missing.schema.clear();
  missing.conninfo = std::string{pg_uri()} + "?options=-csearch_path%3D"
                     + o.schema + "_nowhere";
  auto opened = open_postgresql(missing);
  auto* e = err_of(opened);
  REQUIRE(e != nullptr);
  CHECK(e->kind == error_kind::io);
  CHECK(contains(e->message, "search_path (" + o.schema + "_nowhere)"));
  CHECK(contains(e->message, "names none that exists"));
  CHECK(contains(e->message, "CREATE SCHEMA"));
  auto health = pg_health(missing);
  auto audit = pg_audit(missing, audit_query{});
  auto events = pg_events_by(missing, audit_query{});
  for (const error* r :
       {err_of(health), err_of(audit), err_of(events)}) {
    REQUIRE(r != nullptr);
    CHECK(contains(r->message, "CREATE SCHEMA"));
  }
  // A schema that exists with no journal in it: export creates none, and
  // says how one is made.
  raw_pg{tmp.journal()}.text("CREATE SCHEMA " + o.schema + "_empty");
  auto empty = missing;
  empty.conninfo = std::string{pg_uri()} + "?options=-csearch_path%3D"
                   + o.schema + "_empty";
  dump_visitor v;
  auto none = dump_journal_pg(empty, v);
  REQUIRE(none);
  CHECK(contains(none->message, "there is no journal in"));
  CHECK(contains(none->message, "--journal"));
  CHECK(contains(none->message, "import"));
  CHECK(count(tmp.journal(), "SELECT count(*) FROM pg_tables WHERE"
                             " schemaname = '"
                               + o.schema + "_empty'")
        == 0);
  auto empty_audit = pg_audit(empty, audit_query{});
  REQUIRE(err_of(empty_audit) != nullptr);
  CHECK(contains(err_of(empty_audit)->message, "there is no journal in"));
}

TEST_CASE("postgresql: a statement's rows in binary format read as in text: "
          "integers of every width and sign, booleans, text, bytea, NULL",
          "[.pg][issue32]") {
  // time_stats's page (pg_list.cpp) asks for binary rows: its packed runs
  // as bytes, not hex; pg_row reads either format.
  REQUIRE(pg_uri() != nullptr);
  detail::pg_conn conn{pg_uri(), "", "test"};
  REQUIRE_FALSE(conn.ensure().has_value());
  const std::string sql
    = "SELECT 0, -1, 70000::int4, -70000::int4, (-3)::int2, 300::int2,"
      " 1700000000123456789::bigint, (-1700000000123456789)::bigint,"
      " true, false, 'naïve'::text, '\\x00ff0a'::bytea, NULL::bigint, ''";
  for (bool binary : {false, true}) {
    INFO("binary " << binary);
    detail::pg_params params;
    if (binary)
      params.binary();
    detail::pg_rows rows;
    REQUIRE_FALSE(conn.query(sql, params, "cannot test", &rows).has_value());
    REQUIRE(rows.size() == 1);
    auto row = rows[0];
    CHECK(PQfformat(row.r, 11) == (binary ? 1 : 0));
    CHECK(row.int64(0) == 0);
    CHECK(row.int64(1) == -1);
    CHECK(row.int64(2) == 70000);
    CHECK(row.int64(3) == -70000);
    CHECK(row.int64(4) == -3);
    CHECK(row.int64(5) == 300);
    CHECK(row.int64(6) == 1700000000123456789);
    CHECK(row.int64(7) == -1700000000123456789);
    CHECK(row.boolean(8));
    CHECK_FALSE(row.boolean(9));
    CHECK(row.text(10) == "naïve");
    CHECK(row.bytes(11) == std::string{"\x00\xff\n", 3});
    CHECK(row.null(12));
    CHECK_FALSE(row.null(13));
    CHECK(row.text(13).empty());
  }
}
