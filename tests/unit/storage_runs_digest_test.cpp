// Unit tests for a closed session's runs digest (issue 32, schema 11) and
// for rows packed by an older build: the digest sums up its packing, the
// closing write stores it, schema 11 fills it in; a version-1 packing
// still reads, a damaged one reads from its events.

#include "storage_runs_fixture.hpp"

#include "history_read_fixture.hpp"

TEST_CASE("storage: a closed session's digest sums up its packing, an "
          "open one's has none, damage is refused",
          "[storage][stats][issue32]") {
  std::vector<stored_run> runs(4);
  // t1 twice (overlapping t2), t3 apart: busy is the union, truncated per
  // merged span; durations truncated per run.
  runs[0] = {"t1", 1'000'000'000, 1'010'500'000, 9'999'999,
             run_end::completed};
  runs[1] = {"t2", 1'005'000'000, 1'020'000'000, 15'000'000,
             run_end::failed};
  runs[2] = {"t3", 1'030'000'000, 1'031'700'000, 1'700'000,
             run_end::interrupted};
  runs[3] = {"t1", 1'040'000'000, 1'040'000'000, 0, run_end::skipped};
  auto digest = digest_of_packed(pack_runs(runs));
  REQUIRE(digest);
  CHECK(is_digest(*digest));
  runs_digest d;
  REQUIRE(read_digest(*digest, d));
  CHECK(d.runs == 4);
  CHECK(d.tasks == 3);
  CHECK(d.task_time_ms == 9 + 15 + 1 + 0);
  CHECK(d.busy_ms == 20 + 1 + 0);
  CHECK(d.completed == 1);
  CHECK(d.skipped == 1);
  CHECK(d.failed == 1);
  CHECK(d.interrupted == 1);
  CHECK(d.ended_ms == std::vector<std::int64_t>{0, 1, 9, 15});
  // A packing is never read as a digest, nor a digest as a packing.
  CHECK_FALSE(is_digest(pack_runs(runs)));
  CHECK_FALSE(runs_unpack(*digest));
  // An open session's packing (a run in progress, or an epoch): none.
  CHECK_FALSE(digest_of_packed(pack_runs(runs, 3)));
  runs[3].status = run_end::in_progress;
  CHECK_FALSE(digest_of_packed(pack_runs(runs)));
  CHECK_FALSE(digest_of_packed("\x01\x05"));
  // Cut short or with a byte over: refused.
  CHECK_FALSE(read_digest(digest->substr(0, digest->size() - 1), d));
  CHECK_FALSE(read_digest(*digest + '\0', d));
  CHECK(read_digest(std::string{"\x03\0\0\0\0\0\0\0\0", 9}, d));
  CHECK(d.runs == 0);
  // Read one duration at a time, or only checked: the same verdicts.
  digest_reader in{*digest};
  REQUIRE(in.ok());
  CHECK(in.counts().runs == 4);
  CHECK(in.counts().busy_ms == 21);
  std::vector<std::int64_t> one_by_one;
  for (std::int64_t v = 0; in.next(v);)
    one_by_one.push_back(v);
  CHECK(in.ok());
  CHECK(one_by_one == std::vector<std::int64_t>{0, 1, 9, 15});
  CHECK(digest_reads(*digest));
  for (const auto& bad : {digest->substr(0, digest->size() - 1),
                          *digest + '\0', std::string{"\x03\x09"},
                          std::string{"\x03\0\0\0\0\0\0\0\0\0", 10},
                          pack_runs(runs), std::string{}}) {
    INFO(bad.size());
    CHECK_FALSE(digest_reads(bad));
    CHECK_FALSE(read_digest(bad, d));
  }
}

TEST_CASE("storage: the closing write stores the runs' digest with them, "
          "list hands it on for statistics (the runs without one), an "
          "undone close drops it and the next close writes it again",
          "[storage][stats][issue32][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, chained({started("S1", t0),
                            task_event(event_kind::task_started, "S1", "t1",
                                       t0 + 10),
                            task_event(event_kind::task_ended, "S1", "t1",
                                       t0 + 3'000'000, "failed"),
                            task_event(event_kind::task_started, "S1", "t2",
                                       t0 + 4'000'000)}));
  auto digests_of = [&] {
    auto q = stats_of("local");
    q.digests = true;
    return q;
  };
  // Open: no digest; the runs are handed on.
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                             " WHERE digest IS NOT NULL") == 0);
  CHECK_FALSE(is_digest(must(st->list(digests_of())).runs.packed(0)));
  must_append(*st, chained({closing(event_kind::session_ended, "S1",
                                    t0 + 9'000'000)},
                           {{"S1", 4}}));
  auto packed = std::string{must(st->list(stats_of("local"))).runs.packed(0)};
  auto expected = digest_of_packed(packed);
  REQUIRE(expected);
  auto page = must(st->list(digests_of()));
  REQUIRE(page.runs.size() == 1);
  CHECK(page.runs.packed(0) == *expected);
  runs_digest d;
  REQUIRE(read_digest(page.runs.packed(0), d));
  CHECK(d.runs == 2);
  CHECK(d.failed == 1);
  CHECK(d.interrupted == 1);
  CHECK(d.ended_ms == std::vector<std::int64_t>{2, 5});
  // A row from before schema 11 (no digest): its runs.
  exec_sql(tmp.journal(), "UPDATE sessions SET digest = NULL");
  CHECK(must(st->list(digests_of())).runs.packed(0) == packed);
  // A damaged digest: the runs are paired from the events instead.
  exec_sql(tmp.journal(), dialect("UPDATE sessions SET digest = x'0309'",
                                  "UPDATE sessions SET digest = '\\x0309'"));
  CHECK(same(must(st->list(digests_of())).runs.at(0),
             *unpack_runs(packed)));
  // The close undone: open again, runs and digest gone; closed again
  // later, both written again (t2 now runs until the new close).
  auto undo = at_epoch(make_event(event_kind::change_undone, "S1",
                                  t0 + 10'000'000),
                       5);
  must_append(*st, {undo});
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                             " WHERE digest IS NOT NULL OR runs IS NOT"
                             " NULL") == 0);
  must_append(*st, chained({closing(event_kind::session_ended, "S1",
                                    t0 + 20'000'000)},
                           {{"S1", 6}}));
  packed = std::string{must(st->list(stats_of("local"))).runs.packed(0)};
  REQUIRE(read_digest(must(st->list(digests_of())).runs.packed(0), d));
  CHECK(must(st->list(digests_of())).runs.packed(0)
        == *digest_of_packed(packed));
  CHECK(d.ended_ms == std::vector<std::int64_t>{2, 16});
}

TEST_CASE("storage: a damaged digest reaches a list's sink unchecked, and "
          "read_history reads that session's runs from its events instead",
          "[storage][stats][history][issue32][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  must_append(*st, one_task_session());
  auto packed = std::string{must(st->list(stats_of("local"))).runs.packed(0)};
  auto q = stats_of("local");
  q.digests = true;
  const auto now = ttm::domain::wall_time{
    std::chrono::duration_cast<ttm::domain::wall_time::duration>(
      std::chrono::nanoseconds{t0 + 9'000'000})};
  auto before = ttm::journal::read_history(*st, q, now);
  REQUIRE_FALSE(before.error);
  CHECK_FALSE(before.reread);
  // Its counts cannot be read (the first varint runs past the end).
  exec_sql(tmp.journal(), dialect("UPDATE sessions SET digest = x'03FF'",
                                  "UPDATE sessions SET digest ="
                                  " '\\x03ff'::bytea"));
  std::string handed;
  auto page = must(st->list(q, [&](list_page& p, std::size_t upto) {
    REQUIRE(upto == 1);
    handed = std::string{p.runs.packed(0)};
  }));
  if (pg_uri())
    CHECK(handed == std::string{"\x03\xff"}); // unchecked, as stored
  else
    CHECK(handed.empty()); // SQLite hands the page on whole, checked
  auto after = ttm::journal::read_history(*st, q, now);
  REQUIRE_FALSE(after.error);
  CHECK(after.reread == (pg_uri() != nullptr));
  auto want = page_of(before, now);
  auto got = page_of(after, now);
  REQUIRE(want.runs.size() == 1);
  REQUIRE(got.runs.size() == 1);
  // Before: the digest; after: the runs it sums up, from the events.
  REQUIRE(want.runs[0].digest);
  CHECK(want.runs[0].digest->runs == 1);
  CHECK(want.runs[0].digest->interrupted == 1);
  CHECK_FALSE(got.runs[0].digest);
  REQUIRE(got.runs[0].runs.size() == 1);
  CHECK(got.runs[0].runs[0].status == ttm::domain::run_status::interrupted);
  CHECK(got.runs[0].runs[0].duration
        == std::chrono::milliseconds{
          want.runs[0].digest->ended.at(0)});
}

TEST_CASE("storage: schema 11 adds the digests to a journal of schema 10: "
          "each closed session's, from its packed runs, and a row left without "
          "one is read from its runs",
          "[storage][stats][issue32][backends]") {
  temp_dir tmp;
  std::string packed;
  {
    auto st = must_open(tmp.data());
    must_append(*st, one_task_session());
    packed = std::string{must(st->list(stats_of("local"))).runs.packed(0)};
  }
  exec_sql(tmp.journal(),
           "ALTER TABLE sessions DROP COLUMN digest; "
             + dialect("PRAGMA user_version = 10",
                       "UPDATE meta SET value = '10' WHERE key ="
                       " 'schema_version'"));
  const auto version = dialect("PRAGMA user_version",
                               "SELECT value FROM meta WHERE key ="
                               " 'schema_version'");
  {
    auto st = must_open(tmp.data());
    CHECK(count(tmp.journal(), version) == journal_schema_version);
    CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                               " WHERE digest IS NULL") == 0);
    auto q = stats_of("local");
    q.digests = true;
    CHECK(must(st->list(q)).runs.packed(0) == *digest_of_packed(packed));
  }
  // A row the step left without one (a packing it could not read as a
  // closed session's): its runs, as before.
  exec_sql(tmp.journal(), "UPDATE sessions SET digest = NULL");
  auto st = must_open(tmp.data());
  auto q = stats_of("local");
  q.digests = true;
  CHECK(must(st->list(q)).runs.packed(0) == packed);
}

namespace {

void put_varint(std::string& out, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7)
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
}

void put_signed(std::string& out, std::int64_t v) {
  put_varint(out, (static_cast<std::uint64_t>(v) << 1)
                    ^ static_cast<std::uint64_t>(v >> 63));
}

/// `bytes` as a literal of the journal's SQL dialect.
std::string bytes_literal(const std::string& bytes) {
  std::string hex;
  for (unsigned char c : bytes) {
    static const char digits[] = "0123456789abcdef";
    hex += digits[c >> 4];
    hex += digits[c & 15];
  }
  return dialect("X'" + hex + "'", "'\\x" + hex + "'::bytea");
}

} // namespace

TEST_CASE("storage: a row packed by an older build (version 1) is read from "
          "its packing, a damaged one from its events",
          "[storage][stats][backends]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    must_append(*st, one_task_session());
  }
  // Version 1 as older builds wrote it, with numbers the events do not
  // give (so that where they came from shows): t1 completed, 20..500 ns
  // after t0, active 123 ns.
  std::string v1{"\x01\x01\x02t1", 5};
  put_signed(v1, t0 + 20); // from 0, the run before's start
  v1.push_back(static_cast<char>(run_end::completed));
  put_signed(v1, 480); // end from start
  put_varint(v1, 123); // active time
  exec_sql(tmp.journal(), "UPDATE sessions SET digest = NULL, runs = "
                            + bytes_literal(v1));
  {
    auto st = must_open(tmp.data());
    auto page = must(st->list(stats_of("local")));
    REQUIRE(page.runs.size() == 1);
    auto runs = page.runs[0];
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].task_id == "t1");
    CHECK(runs[0].start_wall_ns == t0 + 20);
    CHECK(runs[0].end_wall_ns == t0 + 500);
    CHECK(runs[0].duration_ns == 123);
    CHECK(runs[0].status == run_end::completed);
  }
  // Damaged (version 4 cut short): the events are paired instead, the run
  // interrupted at the session's end.
  stored_run r;
  r.task_id = "t1";
  r.start_wall_ns = t0 + 20;
  r.end_wall_ns = t0 + 500;
  r.duration_ns = 123;
  r.status = run_end::completed;
  auto v4 = pack_runs({r});
  REQUIRE(is_closed_packing(v4));
  exec_sql(tmp.journal(),
           "UPDATE sessions SET runs = "
             + bytes_literal(v4.substr(0, v4.size() - 1)));
  auto st = must_open(tmp.data());
  auto page = must(st->list(stats_of("local")));
  REQUIRE(page.runs.size() == 1);
  auto runs = page.runs[0];
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].start_wall_ns == t0 + 10);
  CHECK(runs[0].end_wall_ns == t0 + 2'000'000);
  CHECK(runs[0].status == run_end::interrupted);
}
