// Unit tests for a session's runs in the journal (issue 16, statistics;
// schema 4): pairing events into runs, the packed form kept in a closed
// session's row (round trip, damage refused), the closing write that packs
// them, and list's fallback to the events when a row has no packing.

#include "storage_runs_fixture.hpp"

#include <random>

TEST_CASE("storage: runs pair a session's events: restarts, outcomes, "
          "interrupted at the close, monotonic within a boot",
          "[storage][stats]") {
  using k = event_kind;
  auto runs = pair_runs({
    ev(k::task_started, "a", 100, 10, "b1"),
    ev(k::task_started, "b", 150, 60, "b1"),
    ev(k::task_ended, "a", 300, 205, "b1", "skipped"), // mono: 195 ns
    ev(k::task_started, "a", 400, 300, "b1"),
    ev(k::task_ended, "b", 900, 5, "b2", "failed"), // another boot: wall
    ev(k::task_ended, "zzz", 950, 6, "b2", "completed"), // never started
    ev(k::task_started, "c", 960, 7, "b2"),
    ev(k::session_ended, "", 1000, 50, "b2"),
  });
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].task_id == "a");
  CHECK(runs[0].status == run_end::skipped);
  CHECK(runs[0].duration_ns == 195);
  CHECK(runs[0].end_wall_ns == 300);
  CHECK(runs[1].task_id == "b");
  CHECK(runs[1].status == run_end::failed);
  CHECK(runs[1].duration_ns == 750);
  CHECK(runs[2].task_id == "a"); // its second run: interrupted at the end
  CHECK(runs[2].status == run_end::interrupted);
  CHECK(runs[2].end_wall_ns == 1000);
  CHECK(runs[2].duration_ns == 600); // boots differ: wall clock
  CHECK(runs[3].status == run_end::interrupted);
  CHECK(runs[3].duration_ns == 43);
  // Open: a run without an end stays in progress.
  auto open = pair_runs({ev(k::task_started, "a", 100, 10, "b1")});
  REQUIRE(open.size() == 1);
  CHECK(open[0].status == run_end::in_progress);
  CHECK_FALSE(open[0].end_wall_ns);
}

TEST_CASE("storage: packed runs read back as written, damage is refused",
          "[storage][stats]") {
  std::mt19937_64 rng{16};
  for (int round = 0; round < 200; ++round) {
    std::vector<stored_run> runs(rng() % 60);
    std::int64_t at = t0 + static_cast<std::int64_t>(rng() % 1'000'000);
    for (auto& r : runs) {
      r.task_id = std::string(rng() % 40, static_cast<char>('a' + rng() % 26));
      if (rng() % 5 == 0)
        r.task_id += "\xc3\xbc\"\\"; // any bytes
      at += static_cast<std::int64_t>(rng() % 10'000'000'000ULL)
            - (rng() % 4 == 0 ? 20'000'000'000LL : 0); // back in time too
      r.start_wall_ns = at;
      r.status = static_cast<run_end>(rng() % 5);
      if (r.status != run_end::in_progress) {
        r.end_wall_ns = at + static_cast<std::int64_t>(rng() % 1'000'000'000);
        r.duration_ns = static_cast<std::int64_t>(rng() % 1'000'000'000);
      }
    }
    auto packed = pack_runs(runs);
    auto back = unpack_runs(packed);
    REQUIRE(back);
    CHECK(same(*back, runs));
    CHECK(runs_unpack(packed));
    if (!packed.empty()) {
      // Any cut is damage, never a shorter list.
      auto cut = rng() % packed.size();
      if (cut > 0 && cut < packed.size()) {
        CHECK_FALSE(unpack_runs(std::string_view{packed}.substr(0, cut)));
        CHECK_FALSE(runs_unpack(std::string_view{packed}.substr(0, cut)));
      }
      CHECK_FALSE(unpack_runs(packed + "x"));
      CHECK_FALSE(runs_unpack(packed + "x"));
    }
  }
  for (const auto& bad : {std::string{}, std::string{"\x03\x00", 2},
                          std::string{"\x01\xff\xff\xff\x0f", 5}}) {
    CHECK_FALSE(unpack_runs(bad));
    CHECK_FALSE(runs_unpack(bad));
  }
  CHECK(unpack_runs(std::string{"\x01\x00", 2})->empty());
  CHECK(runs_unpack(std::string{"\x01\x00", 2}));
  // A status beyond the known ones is damage; so is a run in progress in
  // a closed session's packing, and a negative active time.
  stored_run one;
  one.task_id = "a";
  one.status = run_end::completed;
  one.end_wall_ns = 5;
  auto packed = pack_runs({one});
  REQUIRE(is_closed_packing(packed));
  for (char status : {'\x09', '\x00'}) {
    auto bad = packed;
    bad[4] = status; // after version, count, id length, id
    CHECK_FALSE(runs_unpack(bad));
  }
  // Its active time: its span (5 ns) less the last byte (zigzag).
  one.duration_ns = 5;
  packed = pack_runs({one});
  REQUIRE(packed.size() == 8);
  CHECK(packed[7] == 0);
  packed[7] = 10; // 5 less: none
  CHECK(unpack_runs(packed)->at(0).duration_ns == 0);
  packed[7] = 12; // 6 less: below none
  CHECK_FALSE(runs_unpack(packed));
  // Version 1: an active time beyond int64 (2^63) reads as none, refused.
  const std::string v1{"\x01\x01\x01" "a" "\x00\x01\x00"
                       "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
                       17};
  CHECK_FALSE(runs_unpack(v1));
  CHECK(runs_unpack(v1.substr(0, 7) + "\x05"));
}

TEST_CASE("storage: a closed session's packing is ~13 bytes a run of tasks "
          "run back to back, and version 1 (written before) still reads",
          "[storage][stats]") {
  // 50 tasks, one after another, each a few minutes, unpaused (the active
  // time a few ns off the span: monotonic against wall clock).
  std::vector<stored_run> runs(50);
  std::int64_t at = t0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto& r = runs[i];
    r.task_id = "t" + std::to_string(i);
    r.start_wall_ns = at;
    at += 60'000'000'000 + static_cast<std::int64_t>(i) * 7'000'000'123;
    r.end_wall_ns = at;
    r.duration_ns = (at - r.start_wall_ns) - 40;
    r.status = i % 7 == 0 ? run_end::failed : run_end::completed;
  }
  auto packed = pack_runs(runs);
  CHECK(is_closed_packing(packed));
  CHECK(packed.size() <= 16 + runs.size() * 13);
  auto back = unpack_runs(packed);
  REQUIRE(back);
  CHECK(same(*back, runs));
  // Version 1 as it was written (start from the run before's start, end
  // from the start, active time): 2 runs of "a", ended, skipped.
  const std::string v1{"\x01\x02"
                       "\x01" "a" "\x14" "\x01" "\x0a" "\x04"
                       "\x01" "a" "\x06" "\x02" "\x02" "\x01",
                       14};
  CHECK(is_closed_packing(v1));
  auto old = unpack_runs(v1);
  REQUIRE(old);
  REQUIRE(old->size() == 2);
  CHECK((*old)[0].start_wall_ns == 10);
  CHECK((*old)[0].end_wall_ns == 15);
  CHECK((*old)[0].duration_ns == 4);
  CHECK((*old)[0].status == run_end::completed);
  CHECK((*old)[1].start_wall_ns == 13);
  CHECK((*old)[1].end_wall_ns == 14);
  CHECK((*old)[1].duration_ns == 1);
  CHECK((*old)[1].status == run_end::skipped);
  CHECK(digest_of_packed(v1));
  CHECK_FALSE(is_closed_packing(pack_runs({}, 3))); // open: version 2
}

TEST_CASE("storage: a page's runs, packed one after another, read back per "
          "row, and the reader gives each run's fields as packed",
          "[storage][stats]") {
  std::vector<stored_run> ended(2);
  ended[0].task_id = "a";
  ended[0].start_wall_ns = t0;
  ended[0].end_wall_ns = t0 + 7;
  ended[0].duration_ns = 5;
  ended[0].status = run_end::failed;
  ended[1] = ended[0];
  ended[1].start_wall_ns = t0 + 3; // the same task again
  ended[1].status = run_end::interrupted;
  std::vector<stored_run> open(1);
  open[0].task_id = "b";
  open[0].start_wall_ns = t0 + 1;
  open[0].as_of_wall_ns = t0 + 9;
  open[0].duration_ns = 4;
  open[0].running = false;
  packed_runs_list list;
  CHECK(list.empty());
  list.add(pack_runs(ended));
  list.add(pack_runs({}));
  list.add(pack_runs(open, 7));
  REQUIRE(list.size() == 3);
  CHECK(same(list[0], ended));
  CHECK(list.at(1).empty());
  CHECK(same(list[2], open));
  CHECK_FALSE(list[2].at(0).running);
  CHECK(packed_epoch(list.packed(2)) == 7);
  CHECK_THROWS(list.at(3));
  runs_reader in{list.packed(2)};
  REQUIRE(in.ok());
  CHECK(in.size() == 1);
  run_view v;
  REQUIRE(in.next(v));
  CHECK(v.task_id == "b");
  CHECK(v.start_wall_ns == t0 + 1);
  CHECK(v.status == run_end::in_progress);
  CHECK(v.as_of_wall_ns == t0 + 9);
  CHECK(v.duration_ns == 4);
  CHECK_FALSE(v.running);
  CHECK_FALSE(in.next(v));
  CHECK(in.ok());
  runs_reader two{list.packed(0)};
  REQUIRE(two.next(v));
  CHECK(v.end_wall_ns == t0 + 7);
  REQUIRE(two.next(v));
  CHECK(v.task_id == "a");
  CHECK(v.start_wall_ns == t0 + 3);
  CHECK(v.status == run_end::interrupted);
  CHECK(v.end_wall_ns == t0 + 7);
  CHECK_FALSE(two.next(v));
  CHECK(two.ok());
}

TEST_CASE("storage: the write that closes a session packs its runs into "
          "its row, list reads them there, or pairs the events without",
          "[storage][stats][history][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto first = started("S1", t0);
  must_append(*st, chained({first,
                            task_event(event_kind::task_started, "S1", "t1",
                                       t0 + 10),
                            task_event(event_kind::task_ended, "S1", "t1",
                                       t0 + 30, "skipped"),
                            task_event(event_kind::task_started, "S1", "t2",
                                       t0 + 40)}));
  // Open: nothing packed; runs from the events, t2 in progress.
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                             " WHERE runs IS NOT NULL") == 0);
  auto open = must(st->list(stats_of("local")));
  REQUIRE(open.runs.size() == 1);
  REQUIRE(open.runs[0].size() == 2);
  CHECK(open.runs[0][1].status == run_end::in_progress);

  must_append(*st, chained({closing(event_kind::session_expired, "S1",
                                    t0 + 100)},
                           {{"S1", 4}}));
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                             " WHERE runs IS NOT NULL") == 1);
  auto closed = must(st->list(stats_of("local")));
  REQUIRE(closed.runs.size() == 1);
  const auto& runs = closed.runs[0];
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].task_id == "t1");
  CHECK(runs[0].status == run_end::skipped);
  CHECK(runs[0].duration_ns == 20);
  CHECK(runs[1].task_id == "t2");
  CHECK(runs[1].status == run_end::interrupted);
  CHECK(runs[1].end_wall_ns == t0 + 100);
  CHECK(runs[1].duration_ns == 60);

  // Without the packing (or with one this version cannot read), list
  // pairs the events and gets the same runs.
  exec_sql(tmp.journal(), "UPDATE sessions SET runs = NULL");
  CHECK(same(must(st->list(stats_of("local"))).runs.at(0), runs));
  exec_sql(tmp.journal(), dialect("UPDATE sessions SET runs = x'09'",
                                  "UPDATE sessions SET runs = '\\x09'"));
  CHECK(same(must(st->list(stats_of("local"))).runs.at(0), runs));
}

TEST_CASE("storage: an open session's runs packed with their pauses "
          "(version 2) read back, its close without runs ends them there",
          "[storage][stats][issue17][backends]") {
  // As the journal hands them over: run a ended (3 of its 5 s active), b
  // paused after 2 s, c running with 1 s active when stored.
  std::vector<stored_run> given(3);
  given[0].task_id = "a";
  given[0].start_wall_ns = t0 + 10;
  given[0].end_wall_ns = t0 + 5'000'000'010;
  given[0].duration_ns = 3'000'000'000;
  given[0].status = run_end::completed;
  given[1].task_id = "b";
  given[1].start_wall_ns = t0 + 20;
  given[1].duration_ns = 2'000'000'000;
  given[1].as_of_wall_ns = t0 + 6'000'000'000;
  given[1].running = false;
  given[2].task_id = "c";
  given[2].start_wall_ns = t0 + 30;
  given[2].duration_ns = 1'000'000'000;
  given[2].as_of_wall_ns = t0 + 6'000'000'000;
  auto packed = pack_runs(given);
  CHECK(packed[0] == 2); // a run in progress
  auto back = unpack_runs(packed);
  REQUIRE(back);
  CHECK(same(*back, given));
  CHECK((*back)[1].as_of_wall_ns == t0 + 6'000'000'000);
  CHECK_FALSE((*back)[1].running);
  CHECK((*back)[2].running);
  // Every run ended: a closed session's packing.
  CHECK(is_closed_packing(pack_runs({given[0]})));

  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto evs = chained({started("S1", t0),
                      task_event(event_kind::task_started, "S1", "a", t0 + 10),
                      task_event(event_kind::task_started, "S1", "b", t0 + 20),
                      task_event(event_kind::task_started, "S1", "c", t0 + 30)});
  evs.back().runs = given;
  must_append(*st, evs);
  auto open = must(st->list(stats_of("local")));
  REQUIRE(open.runs.size() == 1);
  CHECK(same(open.runs[0], given));
  // Expired by the directory's sweep (no tracking model at hand): the
  // kept runs end at the expiry, a running one accrues until then.
  must_append(*st, chained({closing(event_kind::session_expired, "S1",
                                    t0 + 10'000'000'000)},
                           {{"S1", 4}}));
  auto closed = must(st->list(stats_of("local")));
  REQUIRE(closed.runs.size() == 1);
  const auto& runs = closed.runs[0];
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].duration_ns == 3'000'000'000);
  CHECK(runs[1].status == run_end::interrupted);
  CHECK(runs[1].duration_ns == 2'000'000'000); // paused: nothing more
  CHECK(runs[1].end_wall_ns == t0 + 10'000'000'000);
  CHECK(runs[2].status == run_end::interrupted);
  CHECK(runs[2].duration_ns == 5'000'000'000); // 1 s + 4 s since

  // A packing that an event written since left behind (an older server's,
  // without runs) is not used: the events are paired, at the close too.
  auto s2 = chained({started("S2", t0),
                     task_event(event_kind::task_started, "S2", "a", t0 + 10)});
  s2.back().runs = std::vector<stored_run>{given[2]};
  must_append(*st, s2);
  auto kept = must(st->list(stats_of("local")));
  REQUIRE(kept.runs.size() == 2);
  CHECK(kept.runs[0].at(0).duration_ns == 1'000'000'000); // S2, newest
  must_append(*st, chained({task_event(event_kind::task_ended, "S2", "a",
                                       t0 + 50)},
                           {{"S2", 2}}));
  auto paired = must(st->list(stats_of("local")));
  CHECK(paired.runs[0].at(0).duration_ns == 40);
  CHECK(paired.runs[0].at(0).status == run_end::completed);
  must_append(*st, chained({closing(event_kind::session_ended, "S2",
                                    t0 + 100)},
                           {{"S2", 3}}));
  CHECK(must(st->list(stats_of("local"))).runs[0].at(0).duration_ns == 40);
}

TEST_CASE("storage: tags with escapes read back through SQLite's JSON",
          "[storage][history][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto ev = make_event(event_kind::session_started, "S1", t0,
                       R"({"milestone_id":"M","tags":["plain","q\"uote","b\\s","\u00fc,x"]})");
  must_append(*st, {ev});
  auto q = stats_of("local");
  q.with_runs = false;
  auto page = must(st->list(q));
  REQUIRE(page.rows.size() == 1);
  CHECK(page.rows[0].tags
        == std::vector<std::string>{"plain", "q\"uote", "b\\s", "\xc3\xbc,x"});
}
