// Unit tests for src/storage, issue 15: a session's epoch as its version.
// Every write checks it and moves it on (compare-and-set); a claim is a
// read that records activity at most once a minute; a limit's expiry
// (`if_due`) stands only if the journal's record agrees it is due.

#include "storage_fixture.hpp"

namespace {

constexpr std::int64_t minute_ns = 60'000'000'000;

/// The epochs of the events of `session`, oldest first: "1,1,2".
std::string event_epochs(const std::string& journal,
                         const std::string& session) {
  return raw_db{journal}.text(
    "SELECT group_concat(epoch) FROM (SELECT e.epoch FROM events e"
    " JOIN sessions USING (sid) WHERE session_id = '" + session
    + "' ORDER BY seq)");
}

/// A limit's expiry of `session` at `wall_ns`, at `epoch`.
event due_expiry(const std::string& session, std::int64_t wall_ns,
                 std::int64_t epoch, const char* reason = "idle") {
  auto ev = make_event(event_kind::session_expired, session, wall_ns,
                       std::string{R"({"reason":")"} + reason + "\"}");
  ev.epoch = epoch;
  ev.if_due = true;
  return ev;
}

} // namespace

TEST_CASE("storage: within one batch, each event of a session is one epoch "
          "further than the one before",
          "[storage][issue15]") {
  temp_dir tmp;
  auto st = must_open(tmp.data());
  auto j = tmp.journal();
  SECTION("started and written in one batch") {
    must_append(*st, {started("S1", t0),
                      at_epoch(task(event_kind::task_started, "S1", "T1",
                                    t0 + 1),
                               1),
                      at_epoch(task(event_kind::task_started, "S1", "T2",
                                    t0 + 2),
                               2),
                      at_epoch(task(event_kind::task_ended, "S1", "T1",
                                    t0 + 3),
                               3)});
    CHECK(column_of(j, "epoch", "S1") == 4);
    CHECK(event_epochs(j, "S1") == "1,1,2,3");
    CHECK(column_of(j, "holder", "S1") == st->instance());
    CHECK(column_of(j, "last_wall_ns", "S1") == t0 + 3);
  }
  SECTION("two sessions interleaved: each its own count") {
    must_append(*st, {started("S1", t0), started("S2", t0)});
    must_append(*st, {at_epoch(task(event_kind::task_started, "S1", "T1",
                                    t0 + 1),
                               1),
                      at_epoch(task(event_kind::task_started, "S2", "T1",
                                    t0 + 2),
                               1),
                      at_epoch(task(event_kind::task_ended, "S1", "T1",
                                    t0 + 3),
                               2),
                      at_epoch(closing(event_kind::session_ended, "S2",
                                       t0 + 4),
                               2)});
    CHECK(column_of(j, "epoch", "S1") == 3);
    CHECK(column_of(j, "epoch", "S2") == 3);
    CHECK(event_epochs(j, "S1") == "1,1,2");
    CHECK(event_epochs(j, "S2") == "1,1,2");
    CHECK(text_of(j, "state", "S2") == "ended");
  }
  SECTION("a batch that gives two events one epoch is fenced at the second, "
          "and writes nothing") {
    must_append(*st, {started("S1", t0)});
    auto e = must_fail(
      st->append({at_epoch(task(event_kind::task_started, "S1", "T1", t0 + 1),
                           1),
                  at_epoch(task(event_kind::task_started, "S1", "T2", t0 + 2),
                           1)}),
      error_kind::fenced, j);
    CHECK(contains(e.message, "epoch 2, the writer had 1"));
    CHECK(column_of(j, "epoch", "S1") == 1);
    CHECK(events_of(j, "S1") == 1);
    // One that skips an epoch is fenced too.
    must_fail(st->append({at_epoch(task(event_kind::task_started, "S1", "T1",
                                        t0 + 1),
                                   1),
                          at_epoch(task(event_kind::task_started, "S1", "T2",
                                        t0 + 2),
                                   3)}),
              error_kind::fenced, j);
    CHECK(column_of(j, "epoch", "S1") == 1);
    CHECK(events_of(j, "S1") == 1);
  }
  SECTION("a session_started in the batch begins at 1, whatever its event "
          "says") {
    auto s = started("S1", t0);
    s.epoch = 42;
    must_append(*st, {s, at_epoch(task(event_kind::task_started, "S1", "T1",
                                       t0 + 1),
                                  1)});
    CHECK(column_of(j, "epoch", "S1") == 2);
    CHECK(event_epochs(j, "S1") == "1,1");
  }
  // A claim afterwards loads it at the epoch its last write left.
  auto c = must(st->claim(local_claim("S1")));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.epoch == column_of(j, "epoch", "S1"));
}

TEST_CASE("storage: a limit's expiry (if_due) is written only when the "
          "journal's record says the limit has passed",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.max_idle = std::chrono::hours{4};
  opts.max_age = std::chrono::hours{24};
  auto st = must_open(opts);
  auto j = tmp.journal();
  must_append(*st, {started("S1", t0)});
  SECTION("not idle long enough: fenced, nothing written") {
    auto e = must_fail(st->append({due_expiry("S1", t0 + 4 * hour_ns, 1)}),
                       error_kind::fenced, j);
    CHECK(contains(e.message, "not due"));
    CHECK(text_of(j, "state", "S1") == "open");
    CHECK(column_of(j, "epoch", "S1") == 1);
    CHECK(events_of(j, "S1") == 1);
    // A moment later it is.
    must_append(*st, {due_expiry("S1", t0 + 4 * hour_ns + 1, 1)});
    CHECK(text_of(j, "state", "S1") == "expired");
  }
  SECTION("activity recorded by a claim (another server's call) puts it "
          "off") {
    auto other = must_open(opts);
    auto req = local_claim("S1", 1);
    req.now_wall_ns = t0 + 3 * hour_ns;
    REQUIRE(must(other->claim(req)).outcome == claim_result::current);
    CHECK(column_of(j, "last_wall_ns", "S1") == t0 + 3 * hour_ns);
    // This server's copy saw no call for 5 h; the journal saw one 2 h ago.
    must_fail(st->append({due_expiry("S1", t0 + 5 * hour_ns, 1)}),
              error_kind::fenced, j);
    CHECK(text_of(j, "state", "S1") == "open");
    CHECK(events_of(j, "S1") == 1);
    must_append(*st, {due_expiry("S1", t0 + 7 * hour_ns + 1, 1)});
    CHECK(text_of(j, "state", "S1") == "expired");
  }
  SECTION("activity recorded by a write puts it off") {
    must_append(*st, {at_epoch(task(event_kind::task_started, "S1", "T1",
                                    t0 + 3 * hour_ns),
                               1)});
    must_fail(st->append({due_expiry("S1", t0 + 5 * hour_ns, 2)}),
              error_kind::fenced, j);
    CHECK(text_of(j, "state", "S1") == "open");
    must_append(*st, {due_expiry("S1", t0 + 7 * hour_ns + 1, 2)});
    CHECK(text_of(j, "state", "S1") == "expired");
  }
  SECTION("the age limit passes whatever the activity") {
    auto req = local_claim("S1", 1);
    req.now_wall_ns = t0 + 24 * hour_ns;
    REQUIRE(must(st->claim(req)).outcome == claim_result::current);
    must_fail(st->append({due_expiry("S1", t0 + 24 * hour_ns, 1, "age")}),
              error_kind::fenced, j);
    must_append(*st, {due_expiry("S1", t0 + 24 * hour_ns + 1, 1, "age")});
    CHECK(text_of(j, "state", "S1") == "expired");
  }
  SECTION("an expiry that is not a limit's (evicted) is not checked") {
    auto ev = due_expiry("S1", t0 + 1, 1, "evicted");
    ev.if_due = false;
    must_append(*st, {ev});
    CHECK(text_of(j, "state", "S1") == "expired");
  }
  SECTION("a due expiry at a stale epoch is still fenced") {
    must_append(*st, {at_epoch(task(event_kind::task_started, "S1", "T1",
                                    t0 + 1),
                               1)});
    auto e = must_fail(st->append({due_expiry("S1", t0 + 48 * hour_ns, 1)}),
                       error_kind::fenced, j);
    CHECK(contains(e.message, "epoch 2"));
    CHECK(text_of(j, "state", "S1") == "open");
  }
}

TEST_CASE("storage: without limits in its options, a store does not check "
          "an if_due expiry",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto st = must_open(tmp.data()); // max_age, max_idle: 0
  must_append(*st, {started("S1", t0), started("S2", t0)});
  must_append(*st, {due_expiry("S1", t0 + 1, 1)});
  CHECK(text_of(tmp.journal(), "state", "S1") == "expired");
  // One limit set: only it counts.
  st.reset();
  auto opts = options_for(tmp.data());
  opts.max_age = std::chrono::hours{24};
  st = must_open(opts);
  must_fail(st->append({due_expiry("S2", t0 + 23 * hour_ns, 1)}),
            error_kind::fenced, tmp.journal());
  must_append(*st, {due_expiry("S2", t0 + 24 * hour_ns + 1, 1, "age")});
  CHECK(text_of(tmp.journal(), "state", "S2") == "expired");
}

TEST_CASE("storage: a claim records the call as activity only when the "
          "record is over a minute old, and changes nothing else",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  auto j = tmp.journal();
  must_append(*a, {started("S1", t0)});
  auto last = [&] { return column_of(j, "last_wall_ns", "S1"); };
  auto claim_at = [&](store& st, std::int64_t now, std::int64_t known) {
    auto req = local_claim("S1", known);
    req.now_wall_ns = now;
    return must(st.claim(req));
  };
  // Within the minute: a pure read.
  CHECK(claim_at(*b, t0 + 30'000'000'000, 1).outcome
        == claim_result::current);
  CHECK(last() == t0);
  CHECK(claim_at(*b, t0 + minute_ns, 0).outcome == claim_result::loaded);
  CHECK(last() == t0);
  // Past it: recorded, by a caller whose copy is current...
  CHECK(claim_at(*b, t0 + minute_ns + 1, 1).outcome
        == claim_result::current);
  CHECK(last() == t0 + minute_ns + 1);
  // ... and then not again within the minute,
  CHECK(claim_at(*a, t0 + 2 * minute_ns, 1).outcome
        == claim_result::current);
  CHECK(last() == t0 + minute_ns + 1);
  // ... by one that loads it as well, and never backwards.
  CHECK(claim_at(*b, t0 + 3 * minute_ns, 0).outcome == claim_result::loaded);
  CHECK(last() == t0 + 3 * minute_ns);
  CHECK(claim_at(*b, t0, 0).outcome == claim_result::loaded);
  CHECK(last() == t0 + 3 * minute_ns);
  // Neither the epoch nor the holder moved, and nothing was appended.
  CHECK(column_of(j, "epoch", "S1") == 1);
  CHECK(column_of(j, "holder", "S1") == a->instance());
  CHECK(events_of(j, "S1") == 1);
  // A stranger's claim records nothing.
  auto stranger = claim_of("S1", "mallory", "2025");
  stranger.now_wall_ns = t0 + hour_ns;
  CHECK(must(b->claim(stranger)).outcome == claim_result::not_found);
  CHECK(last() == t0 + 3 * minute_ns);
  // Nor does a claim of a closed session.
  must_append(*a, {at_epoch(closing(event_kind::session_ended, "S1",
                                    t0 + 4 * minute_ns),
                            1)});
  CHECK(claim_at(*b, t0 + hour_ns, 2).outcome == claim_result::current);
  CHECK(claim_at(*b, t0 + hour_ns, 1).outcome == claim_result::loaded);
  CHECK(last() == t0 + 4 * minute_ns);
}
