// The admin CLI's pieces (issue 31 item 6): the edge's rate limit on audit
// records of refusals, the refusal's journal record, export's JSON lines
// and their checks, the journal actor's audit queue, the read-only journal
// reader (audit, dump, an online backup while a store writes between its
// steps), import into an empty journal only, and the command line's usage
// errors. The real binary runs them in tests/integration/admin_cli.test.mjs.

#include "actors/journal.hpp"
#include "admin/admin.hpp"
#include "edge/refusal_audit.hpp"
#include "journal/audit.hpp"
#include "journal/bad_event.hpp"
#include "journal/dump.hpp"
#include "storage/pg_admin.hpp"
#include "storage/sqlite_admin.hpp"

#include "storage_fixture.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <sstream>

namespace {

using namespace std::chrono_literals;
using ttm::edge::refusal_audit;

const std::string zone_payload
  = R"({"by":{"principal":"alice","client":"c1","tool":"time_session_start"},)"
    R"("era":"2025","milestone_id":"M1","timezone":"UTC"})";

/// A small journal's events: a session with a run, ended, and one open.
std::vector<event> sample_events() {
  auto a = make_event(event_kind::session_started, "s-a", t0, zone_payload);
  a.principal = "alice";
  auto b = make_event(event_kind::session_started, "s-b", t0 + 10,
                      R"({"milestone_id":"M2","timezone":"Europe/Paris"})");
  b.principal = "bob";
  return chained(
    {a, b,
     make_event(event_kind::task_started, "s-a", t0 + 1,
                R"({"by":{"principal":"alice","client":"c1","tool":"time_task_start"}})",
                "t1"),
     make_event(event_kind::task_ended, "s-a", t0 + 2,
                R"({"status":"completed","metadata":{"k":"v"}})", "t1"),
     make_event(event_kind::session_ended, "s-a", t0 + 3)});
}

ttm::domain::refusal sample_refusal() {
  ttm::domain::refusal r;
  r.at = ttm::domain::wall_time{std::chrono::duration_cast<
    ttm::domain::wall_time::duration>(std::chrono::nanoseconds{t0 + 5})};
  r.status = 401;
  r.reason = "Unauthorized: the bearer token is not valid";
  r.client_address = "192.0.2.7";
  r.suppressed = 3;
  return r;
}

/// Every line of `reader`'s dump.
std::vector<std::string> dump_lines(journal_reader& reader) {
  std::vector<std::string> out{
    ttm::journal::dump_header(reader.schema_version())};
  dump_visitor v;
  auto add = [&](const auto& item) {
    out.push_back(ttm::journal::dump_line(item));
    return true;
  };
  v.on_event = add;
  v.on_preference = add;
  v.on_focus = add;
  v.on_audit = add;
  auto err = reader.dump(v);
  REQUIRE_FALSE(err);
  return out;
}

std::unique_ptr<journal_reader> must_read(const std::string& dir) {
  auto r = journal_reader::open(dir);
  INFO(describe(err_of(r)));
  REQUIRE(r.index() == 0);
  return std::move(std::get<0>(r));
}

} // namespace

TEST_CASE("refusal audit: one record per address per interval, the rest "
          "counted onto the next",
          "[admin][audit]") {
  refusal_audit audit{{10s, 100, 16}};
  refusal_audit::time_point t{};
  CHECK(audit.admit("a", t) == std::optional<std::size_t>{0});
  CHECK_FALSE(audit.admit("a", t + 1s));
  CHECK_FALSE(audit.admit("a", t + 9s));
  // Another address is not held back by the first.
  CHECK(audit.admit("b", t + 9s) == std::optional<std::size_t>{0});
  // The interval passed: recorded, with the two left out before.
  CHECK(audit.admit("a", t + 10s) == std::optional<std::size_t>{2});
  CHECK_FALSE(audit.admit("a", t + 11s));
}

TEST_CASE("refusal audit: a global cap per second over all addresses",
          "[admin][audit]") {
  refusal_audit audit{{10s, 3, 1000}};
  refusal_audit::time_point t{};
  int recorded = 0;
  for (int i = 0; i < 50; ++i)
    recorded += audit.admit("10.0.0." + std::to_string(i), t) ? 1 : 0;
  CHECK(recorded == 3);
  // Next second: an address left out is recorded with its count.
  CHECK(audit.admit("10.0.0.40", t + 1s) == std::optional<std::size_t>{1});
}

TEST_CASE("refusal audit: a full address table turns records away, counted",
          "[admin][audit]") {
  refusal_audit audit{{10s, 100, 2}};
  refusal_audit::time_point t{};
  CHECK(audit.admit("a", t));
  CHECK(audit.admit("b", t));
  CHECK_FALSE(audit.admit("c", t)); // no room, and a and b are recent
  // Once a and b are past their interval they make room; c's refusal
  // left out rides on the next record.
  CHECK(audit.admit("c", t + 10s) == std::optional<std::size_t>{1});
}

TEST_CASE("a refusal's audit record: the codec's payload, back the same, "
          "no token",
          "[admin][audit]") {
  auto r = sample_refusal();
  auto e = ttm::journal::to_audit_entry(r);
  CHECK(e.kind == "refusal");
  CHECK(e.wall_ns == t0 + 5);
  CHECK(e.payload
        == R"({"status":401,"reason":"Unauthorized: the bearer token is not)"
           R"( valid","client_address":"192.0.2.7","suppressed":3})");
  auto back = ttm::journal::refusal_of(e);
  CHECK(back.status == 401);
  CHECK(back.reason == r.reason);
  CHECK(back.client_address == "192.0.2.7");
  CHECK(back.suppressed == 3);
  CHECK(back.principal.empty());
  CHECK(ttm::domain::to_ns(back.at) == t0 + 5);
  e.payload = R"({"reason":"x"})";
  CHECK_THROWS_AS(ttm::journal::refusal_of(e), ttm::journal::bad_event);
}

TEST_CASE("export lines: read back the same, each bad line named",
          "[admin][dump]") {
  using ttm::journal::dump_line;
  ttm::journal::dump_reader in;
  REQUIRE(in.add(ttm::journal::dump_header(8)));
  std::vector<std::string> lines;
  for (const auto& ev : sample_events())
    lines.push_back(dump_line(ev));
  lines.push_back(dump_line(preference_row{"alice", "timezone", "\"UTC\""}));
  focus_row f{"alice", {"f-1", "write docs", t0, t0 + 9, "done"}};
  lines.push_back(dump_line(f));
  lines.push_back(dump_line(ttm::journal::to_audit_entry(sample_refusal())));
  for (const auto& l : lines)
    REQUIRE(in.add(l));
  REQUIRE(in.finish());
  auto& d = in.dump();
  REQUIRE(d.events.size() == 5);
  REQUIRE(d.preferences.size() == 1);
  REQUIRE(d.focus.size() == 1);
  REQUIRE(d.audit.size() == 1);
  // Written again, the same lines.
  std::vector<std::string> again;
  for (const auto& ev : d.events)
    again.push_back(dump_line(ev));
  again.push_back(dump_line(d.preferences[0]));
  again.push_back(dump_line(d.focus[0]));
  again.push_back(dump_line(d.audit[0]));
  CHECK(again == lines);

  auto first_error = [&](std::vector<std::string> text) {
    ttm::journal::dump_reader r;
    for (const auto& l : text)
      if (!r.add(l))
        return r.error();
    return r.finish() ? std::string{} : r.error();
  };
  auto header = ttm::journal::dump_header(8);
  CHECK(first_error({}) == "line 1: no header line: the input is empty");
  CHECK(first_error({lines[0]}).rfind("line 1: not an export", 0) == 0);
  CHECK(first_error({ttm::journal::dump_header(99)})
        == "line 1: schema version 99 is not one this time-tracker-mcp reads"
           " (1 to 11)");
  CHECK(first_error({header, "{"}).rfind("line 2: not JSON", 0) == 0);
  CHECK(first_error({header, lines[2]})
        == "line 2: session s-a has no session_started event before this"
           " one");
  CHECK(first_error({header, lines[0], lines[0]})
        == "line 3: session s-a starts a second time");
  auto no_zone = lines[1];
  no_zone.replace(no_zone.find(R"(,"timezone":"Europe/Paris")"),
                  std::string{R"(,"timezone":"Europe/Paris")"}.size(), "");
  CHECK(first_error({header, no_zone})
        == "line 2: the session_started payload: payload lacks the string"
           " 'timezone'");
  auto unknown = lines[0];
  unknown.replace(unknown.find("session_started"), 15, "session_paused");
  CHECK(first_error({header, unknown})
        == "line 2: unknown event kind 'session_paused'");
  CHECK(first_error({header, R"({"what":1})"})
        == "line 2: neither the header, an event, a preference, a focus"
           " session nor an audit record");
}

TEST_CASE("journal reader: read-only beside a writing store, audit, by "
          "records, dump",
          "[admin][storage]") {
  temp_dir tmp;
  auto dir = tmp.path().string();
  auto st = must_open(dir);
  must_append(*st, sample_events());
  REQUIRE(err_of(st->record_audit(
            {ttm::journal::to_audit_entry(sample_refusal())}))
          == nullptr);
  auto reader = must_read(dir);
  CHECK(reader->schema_version() == journal_schema_version);
  auto h = must(reader->health());
  CHECK(h.integrity == "ok");
  CHECK(h.journal_mode == "wal");
  CHECK(h.sessions == 2);
  CHECK(h.events == 5);

  audit_query all;
  auto by = must(reader->events_by(all));
  REQUIRE(by.size() == 2); // the events that record who made them
  CHECK(by[0].kind == event_kind::session_started);
  auto who = ttm::journal::by_of(by[1]);
  CHECK(who.principal == "alice");
  CHECK(who.tool == "time_task_start");
  audit_query bob;
  bob.principal = "bob";
  CHECK(must(reader->events_by(bob)).empty());
  audit_query late;
  late.since_wall_ns = t0 + 1;
  CHECK(must(reader->events_by(late)).size() == 1);
  auto refusals = must(reader->audit(all));
  REQUIRE(refusals.size() == 1);
  CHECK(ttm::journal::refusal_of(refusals[0]).client_address == "192.0.2.7");
  late.since_wall_ns = t0 + 6;
  CHECK(must(reader->audit(late)).empty());

  // Every principal's sessions when the query names none.
  auto* sessions = must(reader->sessions());
  list_query q;
  auto page = must(sessions->list(q));
  REQUIRE(page.rows.size() == 2);
  CHECK(page.rows[0].principal == "bob");
  CHECK(page.rows[1].principal == "alice");
  auto one = must(reader->session("s-a"));
  REQUIRE(one);
  CHECK(one->events.size() == 4);
  CHECK_FALSE(must(reader->session("nope")));
  // Read-only: a write through it fails, the journal unchanged.
  CHECK(err_of(sessions->append({started("s-c", t0 + 20)})) != nullptr);
  CHECK(dump_lines(*reader).size() == 1 + 5 + 1);
}

TEST_CASE("backup: a consistent copy while a store commits between its "
          "steps",
          "[admin][storage]") {
  temp_dir tmp;
  auto dir = (tmp.path() / "live").string();
  auto st = must_open(dir);
  // Enough pages for many steps of one page.
  for (int i = 0; i < 200; ++i)
    must_append(*st, chained({started("s-" + std::to_string(i), t0 + i),
                              task(event_kind::task_started,
                                   "s-" + std::to_string(i), "t", t0 + i)}));
  auto reader = must_read(dir);
  int steps = 0;
  int written = 0;
  auto dest = (tmp.path() / "copy").string();
  auto copied = must(reader->backup(dest, 1, [&](std::int64_t, std::int64_t) {
    ++steps;
    // A server's commit between two steps: not in the copy (it is the
    // journal as the backup began), and it does not restart it.
    must_append(*st, {started("w-" + std::to_string(written++), t0 + 1000)});
  }));
  CHECK(copied > 10);
  CHECK(steps == copied);
  CHECK(written > 10);
  auto copy = must_read(dest);
  auto h = must(copy->health());
  CHECK(h.integrity == "ok");
  CHECK(h.sessions == 200);
  CHECK(h.events == 400);
  // A server opens the copy, and its sessions are there.
  auto restored = must_open(dest);
  list_query q;
  q.limit = 1000;
  CHECK(must(restored->list(q)).rows.size() == 200);
  // Never over a journal.
  CHECK(must_fail(reader->backup(dest, 1), error_kind::rejected, dest)
          .message.find("exists") != std::string::npos);
}

TEST_CASE("import: into an empty journal only, in one transaction",
          "[admin][storage]") {
  temp_dir tmp;
  auto live = (tmp.path() / "live").string();
  {
    auto st = must_open(live);
    must_append(*st, sample_events());
    REQUIRE(err_of(st->record_audit(
              {ttm::journal::to_audit_entry(sample_refusal())}))
            == nullptr);
  }
  auto lines = dump_lines(*must_read(live));
  ttm::journal::dump_reader in;
  for (const auto& l : lines)
    REQUIRE(in.add(l));
  REQUIRE(in.finish());
  auto target = (tmp.path() / "imported").string();
  CHECK(must(import_journal(options_for(target), in.dump())) == 5);
  CHECK(dump_lines(*must_read(target)) == lines);
  // Twice: refused, nothing added.
  auto err = must_fail(import_journal(options_for(target), in.dump()),
                       error_kind::rejected, target);
  CHECK(err.message.find("is not empty") != std::string::npos);
  CHECK(dump_lines(*must_read(target)) == lines);
  // A dump the store refuses half-way (a task event of a session ended
  // before it): nothing of it is written.
  auto broken = in.dump();
  broken.events.push_back(broken.events[2]); // task_started after the end
  auto fresh = (tmp.path() / "fresh").string();
  CHECK(err_of(import_journal(options_for(fresh), broken)) != nullptr);
  CHECK(must(must_read(fresh)->health()).events == 0);
}

TEST_CASE("admin command line: usage errors exit 2, faults 1, help 0",
          "[admin][cli]") {
  auto run = [](std::vector<std::string> args, std::string* err = nullptr) {
    std::ostringstream out, e;
    auto code = ttm::admin::run(args, out, e, [](const char*) -> const char* {
      return nullptr;
    });
    if (err)
      *err = e.str();
    return code;
  };
  std::string err;
  CHECK(run({"sessions"}, &err) == 2);
  CHECK(run({"sessions", "frob"}, &err) == 2);
  CHECK(err.find("unknown subcommand 'frob'") != std::string::npos);
  CHECK(run({"export", "--frob"}, &err) == 2);
  CHECK(err == "time-tracker-mcp export: unknown option '--frob'\n"
               "Run 'time-tracker-mcp export --help' for usage.\n");
  CHECK(run({"backup", "--data-dir"}, &err) == 2);
  CHECK(err.find("option --data-dir needs a value (DIR)") != std::string::npos);
  CHECK(run({"export", "--data-dir", "/a", "--data-dir", "/b"}, &err) == 2);
  // No data directory: neither HOME nor XDG_STATE_HOME here.
  CHECK(run({"export"}, &err) == 2);
  CHECK(err.find("no data directory") != std::string::npos);
  CHECK(run({"export", "--data-dir", "/nonexistent/ttm"}, &err) == 1);
  CHECK(run({"check", "--help"}) == 0);
  CHECK(ttm::admin::is_command("backup"));
  CHECK_FALSE(ttm::admin::is_command("stdio"));
}

namespace {

/// The refusals the journal of `dir` holds: read back through the admin
/// CLI's reader of its backend (the store the test opened stays the
/// actor's).
std::vector<audit_entry> audit_of(const std::string& dir) {
  audit_query all;
  if (pg_uri())
    return must(ttm::storage::pg_audit(pg_options_for(options_for(dir)), all));
  return must(must_read(dir)->audit(all));
}

} // namespace

TEST_CASE("journal actor: refusals queue, are written together a moment "
          "later, and a full queue counts the rest onto the next",
          "[admin][audit][actors][backends]") {
  temp_dir tmp;
  auto dir = tmp.path().string();
  std::shared_ptr<store> st = must_open(dir);
  caf::actor_system_config cfg;
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto& sched
    = dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
  ttm::actors::journal_config jc;
  jc.store = st;
  jc.clock = std::make_shared<ttm::domain::fake_clock>(
    ttm::domain::wall_time{std::chrono::seconds{1'800'000'000}});
  jc.audit_queue = 4;
  auto journal = sys.spawn(ttm::actors::journal_behavior, jc);
  // The testing scheduler runs nothing by itself: a failed REQUIRE must
  // still stop the actor, or ~actor_system waits for it for ever.
  struct stop_on_exit {
    caf::actor_system& sys;
    caf::scheduler::test_coordinator& sched;
    ttm::actors::journal_actor journal;
    ~stop_on_exit() {
      caf::anon_send_exit(journal, caf::exit_reason::user_shutdown);
      sched.run();
    }
  } stop{sys, sched, journal};
  sched.run();
  auto refused = [&](int i) {
    ttm::actors::audited_refusal r;
    r.wall_ns = t0 + i;
    r.status = 401;
    r.reason = "Unauthorized";
    r.client_address = "192.0.2." + std::to_string(i);
    caf::anon_send(journal, ttm::actors::audit_atom::value, r);
  };
  for (int i = 0; i < 6; ++i)
    refused(i);
  sched.run();
  // Queued, not written yet: one write for them all, a moment later.
  CHECK(audit_of(dir).empty());
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  auto written = audit_of(dir);
  REQUIRE(written.size() == 4);
  CHECK(ttm::journal::refusal_of(written[3]).client_address == "192.0.2.3");
  // The two past the queue's room ride on the next one.
  refused(6);
  sched.run();
  sched.trigger_timeouts();
  sched.run();
  written = audit_of(dir);
  REQUIRE(written.size() == 5);
  auto last = ttm::journal::refusal_of(written[4]);
  CHECK(last.client_address == "192.0.2.6");
  CHECK(last.suppressed == 2);
}

// -- issue 32: audit and check on a PostgreSQL journal ------------------------
//
// Hidden ([.pg]): they need the server ctest's unit.storage_pg starts
// (TTM_TEST_PG_URI). The same journal written to SQLite and to PostgreSQL
// through the storage interface, then the real commands on each: the same
// output and exit codes.

namespace {

struct admin_run {
  int code;
  std::string out;
  std::string err;
};

admin_run run_admin(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  auto code = ttm::admin::run(args, out, err, [](const char*) -> const char* {
    return nullptr; // no HOME: every command names its journal
  });
  return {code, out.str(), err.str()};
}

/// The test server's URI with the search_path of `schema` (a server's
/// --journal takes the schema the same way).
std::string uri_with_schema(const std::string& schema) {
  std::string u = pg_uri();
  return u + (u.find('?') == std::string::npos ? "?" : "&")
         + "options=-csearch_path%3D" + schema;
}

void fill_sample(store& st) {
  must_append(st, sample_events());
  REQUIRE(err_of(st.record_audit(
            {ttm::journal::to_audit_entry(sample_refusal())}))
          == nullptr);
}

bool require_pg_server() {
  REQUIRE(pg_uri() != nullptr);
  return true;
}

/// The set-up of the cases below: the test server (required), a SQLite
/// journal directory, a PostgreSQL schema named for a directory of the case
/// and the --journal URI that reaches it.
struct pg_admin_case {
  bool has_server = require_pg_server(); // before pg_uri() is read below
  temp_dir tmp;
  std::string lite = (tmp.path() / "sqlite").string();
  std::string pgdir = (tmp.path() / "pg").string();
  std::string uri = uri_with_schema(pg_schema_for(pgdir));

  /// The sample journal in both.
  void fill_both() const {
    auto s = open_sqlite(options_for(lite));
    REQUIRE(std::holds_alternative<store_ptr>(s));
    fill_sample(*std::get<store_ptr>(s));
    fill_sample(*must_open(pgdir)); // PostgreSQL: TTM_TEST_PG_URI is set
  }
};

} // namespace

TEST_CASE_METHOD(pg_admin_case,
                 "admin audit on PostgreSQL (--journal): the same lines and "
                 "exit codes as on SQLite",
                 "[.pg][pg_admin]") {
  fill_both();
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--since", "2024-12-01"},
        {"--since", "2024-12-01", "--format", "json"},
        {"--since", "2024-12-01", "--principal", "alice"},
        {"--since", "2024-12-01", "--principal", "bob"},
        {"--since", "2024-12-14T14:05:32.123Z", "--until",
         "2024-12-14T15:06:00+01:00", "--timezone", "Europe/Paris"},
        {"--since", "2030-01-01"}}) {
    std::vector<std::string> a{"audit", "--data-dir", lite};
    a.insert(a.end(), extra.begin(), extra.end());
    auto on_sqlite = run_admin(a);
    a.insert(a.begin() + 3, {"--journal", uri});
    auto on_pg = run_admin(a);
    INFO(on_sqlite.err << on_pg.err);
    CHECK(on_sqlite.code == 0);
    CHECK(on_pg.code == on_sqlite.code);
    CHECK(on_pg.out == on_sqlite.out);
    CHECK(on_pg.err == on_sqlite.err);
  }
  // Something was compared: alice's two events and the refusal.
  auto all = run_admin({"audit", "--data-dir", lite, "--journal", uri,
                        "--since", "2024-12-01"});
  CHECK(contains(all.out, "time_task_start"));
  CHECK(contains(all.out, "401 from 192.0.2.7"));
  // No journal in the schema, a server that cannot be reached: faults (1).
  temp_dir none;
  auto empty = run_admin({"audit", "--data-dir", lite, "--journal",
                          uri_with_schema(pg_schema_for(none.data())),
                          "--since", "2024-12-01"});
  CHECK(empty.code == 1);
  CHECK(contains(empty.err, "no journal"));
  auto away = run_admin({"audit", "--data-dir", lite, "--journal",
                         "postgresql://ttm@127.0.0.1:1/ttm", "--since",
                         "2024-12-01"});
  CHECK(away.code == 1);
  CHECK(contains(away.err, "time-tracker-mcp audit: "));
  // A newer schema: refused, as SQLite's reader refuses one.
  raw_pg{pgdir}.text("UPDATE meta SET value = '99' WHERE key ="
                     " 'schema_version'");
  auto newer = run_admin({"audit", "--data-dir", lite, "--journal", uri,
                          "--since", "2024-12-01"});
  CHECK(newer.code == 1);
  CHECK(contains(newer.err, "schema version 99"));
}

TEST_CASE_METHOD(pg_admin_case,
                 "admin check on PostgreSQL (--journal): integrity, schema "
                 "and durability lines, exit 1 on any fault",
                 "[.pg][pg_admin]") {
  auto check = [&] {
    return run_admin({"check", "--data-dir", lite, "--journal", uri});
  };
  // No schema the URL's search_path names: a server could not create the
  // journal, and check says what to create (issue 32).
  auto nowhere = check();
  INFO(nowhere.out << nowhere.err);
  CHECK(contains(nowhere.out, "FAULT journal: there is no journal in"
                              " postgresql://"));
  CHECK(contains(nowhere.out, "CREATE SCHEMA"));
  CHECK(nowhere.code == 1);
  // Nothing there yet: fine, a server creates it (as SQLite's "none yet").
  raw_pg{pgdir}.text("CREATE SCHEMA " + pg_schema_for(pgdir));
  auto fresh = check();
  INFO(fresh.out << fresh.err);
  CHECK(contains(fresh.out, "ok    journal: none yet in postgresql://"));
  CHECK_FALSE(contains(fresh.out, "FAULT journal"));

  fill_both();
  auto lite_check = run_admin({"check", "--data-dir", lite});
  auto pg_check = check();
  INFO(lite_check.out << pg_check.out << pg_check.err);
  CHECK(contains(lite_check.out, "ok    journal integrity: PRAGMA"
                                 " integrity_check: ok (2 sessions, 5"
                                 " events)"));
  CHECK(contains(pg_check.out, "ok    journal integrity: PostgreSQL 15"));
  CHECK(contains(pg_check.out, "every row read: ok (2 sessions, 5 events)"));
  auto schema_line = "ok    journal schema: version "
                     + std::to_string(journal_schema_version) + " (current)";
  CHECK(contains(lite_check.out, schema_line));
  CHECK(contains(pg_check.out, schema_line));
  // The test server runs with fsync and synchronous_commit off
  // (pg_server.sh): a crash could lose acknowledged changes, a fault.
  CHECK(contains(pg_check.out, "FAULT journal WAL: fsync off,"
                               " synchronous_commit off: a crash can lose"
                               " acknowledged changes"));
  CHECK(pg_check.code == 1);
  CHECK(raw_pg{pgdir}.text("SELECT count(*) FROM instances") == "0");

  // What the constraints let through: a kind no build knows, a session
  // whose session_started is gone.
  raw_pg{pgdir}.text(
    "INSERT INTO events (sid, kind, wall_ns, mono_ns, boot_id, epoch,"
    " payload) SELECT sid, 'session_paused', 1, 1, 'b', 1, '{}' FROM"
    " sessions WHERE session_id = 's-a'");
  raw_pg{pgdir}.text("DELETE FROM events WHERE seq = (SELECT min(seq) FROM"
                     " events JOIN sessions USING (sid) WHERE session_id ="
                     " 's-b')");
  auto damaged = check();
  INFO(damaged.out);
  CHECK(contains(damaged.out, "FAULT journal integrity: PostgreSQL"));
  CHECK(contains(damaged.out, "events of unknown kind 'session_paused'"));
  CHECK(contains(damaged.out, "session s-b does not begin with"
                              " session_started"));
  CHECK(damaged.code == 1);

  raw_pg{pgdir}.text("UPDATE meta SET value = '99' WHERE key ="
                     " 'schema_version'");
  auto newer = check();
  CHECK(contains(newer.out, "FAULT journal schema: version 99 (this build"
                            " writes"));
  CHECK(newer.code == 1);

  // Another application's tables; a server that cannot be reached.
  temp_dir other;
  auto schema = pg_schema_for(other.data());
  raw_pg{other.data()}.text("CREATE SCHEMA " + schema + "; CREATE TABLE "
                            + schema + ".things (x int)");
  auto foreign = run_admin({"check", "--data-dir", lite, "--journal",
                            uri_with_schema(schema)});
  CHECK(contains(foreign.out, "FAULT journal integrity: PostgreSQL"));
  CHECK(contains(foreign.out, "tables of another application, no journal"));
  CHECK(foreign.code == 1);
  auto away = run_admin({"check", "--data-dir", lite, "--journal",
                         "postgresql://ttm@127.0.0.1:1/ttm"});
  CHECK(contains(away.out, "FAULT journal: "));
  CHECK(away.code == 1);
}

namespace {

/// Restarts the test server (tests/scripts/pg_server.sh, as ctest's
/// unit.storage_pg runs it), `env` before the command; true when it did.
bool restart_pg(const std::string& env) {
  auto* script = std::getenv("TTM_TEST_PG_SCRIPT");
  auto* dir = std::getenv("TTM_TEST_PG_DIR");
  REQUIRE(script != nullptr);
  REQUIRE(dir != nullptr);
  auto line = env + " bash '" + script + "' restart '" + dir + "' >/dev/null";
  return std::system(line.c_str()) == 0;
}

} // namespace

TEST_CASE_METHOD(pg_admin_case,
                 "admin check on a healthy PostgreSQL journal (fsync and "
                 "synchronous_commit on): no fault, exit 0",
                 "[.pg][pg_admin]") {
  fill_sample(*must_open(pgdir));
  // The test server runs without fsync (pg_server.sh): this case alone
  // runs on one with PostgreSQL's durable settings, then back.
  REQUIRE(restart_pg("PG_DURABLE=1"));
  struct back_to_fast {
    ~back_to_fast() {
      CHECK(restart_pg(""));
    }
  } back;
  auto healthy = run_admin({"check", "--data-dir", lite, "--journal", uri});
  INFO(healthy.out << healthy.err);
  CHECK(contains(healthy.out, "every row read: ok (2 sessions, 5 events)"));
  CHECK(contains(healthy.out, "ok    journal WAL: fsync on,"
                              " synchronous_commit on\n"));
  CHECK_FALSE(contains(healthy.out, "FAULT"));
  CHECK(healthy.code == 0);
}
