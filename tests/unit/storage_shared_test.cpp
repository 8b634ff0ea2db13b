// Unit tests for src/storage, issue 15: several servers (here: several
// stores in one process) on one data directory.

#include "storage_fixture.hpp"


TEST_CASE("storage: two stores open on one directory at once, each its own "
          "instance",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  CHECK(a->instance() > 0);
  CHECK(b->instance() > a->instance());
  CHECK(a->describe() == b->describe());
  must_append(*a, {started("A1", t0)});
  must_append(*b, {started("B1", t0 + 1)});
  must_append(*a, {task(event_kind::task_started, "A1", "T1", t0 + 2)});
  must_append(*b, {task(event_kind::task_started, "B1", "T1", t0 + 3)});
  // Each sees what the other wrote.
  for (auto* st : {a.get(), b.get()}) {
    auto all = must(st->history({}));
    REQUIRE(all.size() == 2);
    CHECK(all[0].session_id == "B1");
    CHECK(all[0].holder == b->instance());
    CHECK(all[1].session_id == "A1");
    CHECK(all[1].holder == a->instance());
  }
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 4);
  // A third comes and goes; the first two carry on without it, and with
  // the first gone too, the second still writes.
  {
    auto c = must_open(tmp.data());
    CHECK(c->instance() > b->instance());
    must_append(*c, {started("C1", t0 + 4)});
  }
  a.reset();
  must_append(*b,
              {at_epoch(closing(event_kind::session_ended, "B1", t0 + 5), 2)});
  auto d = must_open(tmp.data());
  CHECK(d->instance() == b->instance() + 2);
  CHECK(count(tmp.journal(),
              pg_uri() ? "SELECT last_value FROM instance_numbers"
                       : "SELECT value FROM meta WHERE key = 'instances'")
        == d->instance());
}

TEST_CASE("storage: a claim is a read: the latest state, for the owner "
          "only, at the epoch it is at",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  auto s1 = started_in("S1", t0, "alice", modern);
  auto t1 = task(event_kind::task_started, "S1", "T1", t0 + 10);
  must_append(*a, {s1, t1});
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 2); // started, one write
  CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
  CHECK(text_of(tmp.journal(), "scope", "S1") == modern);

  auto c = must(b->claim(claim_of("S1", "alice", modern)));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.session_id == "S1");
  CHECK(c.session.principal == "alice");
  CHECK(c.session.state == session_state::open);
  CHECK(c.session.epoch == 2);
  CHECK(c.session.holder == a->instance()); // the last writer
  CHECK(c.previous_holder == a->instance());
  CHECK(c.previous_alive); // a's store is open: its process lives
  REQUIRE(c.session.events.size() == 2);
  check_same(c.session.events[0], s1);
  check_same(c.session.events[1], t1);
  for (const auto& ev : c.session.events) {
    CHECK(ev.principal == "alice"); // the owner's, whatever was written
    CHECK(ev.epoch == 2);
  }
  // Nothing written.
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
  CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());

  SECTION("a copy at the session's epoch is current, whoever wrote last, "
          "without a write") {
    for (auto* st : {a.get(), b.get()}) {
      auto again = must(st->claim(claim_of("S1", "alice", modern, 2)));
      CHECK(again.outcome == claim_result::current);
      CHECK(again.session.epoch == 2);
      CHECK(again.session.events.empty());
    }
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
    CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
  }
  SECTION("another principal, another era or an unknown id: not_found, and "
          "the session is left as it was") {
    for (auto req : {claim_of("S1", "bob", modern),
                     claim_of("S1", "alice", "2025"),
                     claim_of("S1", "bob", modern, 2),
                     claim_of("S1", "alice", "2025", 2),
                     claim_of("S2", "alice", modern),
                     claim_of("", "alice", modern)}) {
      INFO(req.session_id << " " << req.principal << " " << req.scope << " "
                          << req.known_epoch);
      req.now_wall_ns = t0 + hour_ns; // would record activity if it were found
      auto r = must(b->claim(req));
      CHECK(r.outcome == claim_result::not_found);
      CHECK(r.session.events.empty());
      CHECK(r.session.session_id.empty()); // nothing a stranger may read
    }
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
    CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
    CHECK(column_of(tmp.journal(), "last_wall_ns", "S1") == t0 + 10);
  }
  SECTION("a claim fences no one: the last writer writes on; the claimer's "
          "copy goes stale and it reloads") {
    must_append(*a, {at_epoch(task(event_kind::task_ended, "S1", "T1",
                                   t0 + 20),
                              2)});
    CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
    auto stale = must(b->claim(claim_of("S1", "alice", modern, 2)));
    REQUIRE(stale.outcome == claim_result::loaded);
    CHECK(stale.session.epoch == 3);
    CHECK(stale.session.events.size() == 3);
    CHECK(stale.previous_holder == a->instance());
    // Now b writes: it takes the session over, and a's copy is stale.
    must_append(*b, {at_epoch(closing(event_kind::session_ended, "S1",
                                      t0 + 30),
                              3)});
    CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 4);
    auto back = must(a->claim(claim_of("S1", "alice", modern, 3)));
    REQUIRE(back.outcome == claim_result::loaded);
    CHECK(back.session.state == session_state::ended);
    CHECK(back.session.epoch == 4);
  }
  SECTION("a stale copy is loaded; the last writer is not 'another' to "
          "itself") {
    auto own = must(a->claim(claim_of("S1", "alice", modern, 1)));
    REQUIRE(own.outcome == claim_result::loaded);
    CHECK(own.session.epoch == 2);
    CHECK(own.session.events.size() == 2);
    CHECK(own.previous_holder == 0);
    CHECK_FALSE(own.previous_alive);
    CHECK(column_of(tmp.journal(), "epoch", "S1") == 2);
  }
}

TEST_CASE("storage: a claim by idempotency key finds the owner's newest "
          "session with that key",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  // A key starts a second session once the first is past the age limit
  // (a claim by it no longer finds that one): 1 h here, K-new 2 h later.
  auto opts = options_for(tmp.data());
  opts.max_age = std::chrono::hours{1};
  auto a = must_open(opts);
  auto b = must_open(tmp.data());
  must_append(*a, {started_in("K-old", t0, "alice", modern, "k-1")});
  must_append(*a, {started_in("K-new", t0 + 2 * hour_ns, "alice", modern,
                              "k-1")});
  must_append(*a, {started_in("K-bob", t0 + 200, "bob", modern, "k-1")});
  must_append(*a, {started_in("K-2025", t0 + 300, "alice", "2025", "k-1")});
  auto by_key = [](const std::string& principal, const std::string& scope,
                   std::int64_t since) {
    claim_request req;
    req.idempotency_key = "k-1";
    req.principal = principal;
    req.scope = scope;
    req.since_wall_ns = since;
    return req;
  };
  CHECK(text_of(tmp.journal(), "idempotency_key", "K-new") == "k-1");
  auto c = must(b->claim(by_key("alice", modern, t0)));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.session_id == "K-new");
  CHECK(c.session.epoch == 1);
  CHECK(c.session.holder == a->instance());
  CHECK(must(b->claim(by_key("bob", modern, t0))).session.session_id
        == "K-bob");
  CHECK(must(b->claim(by_key("alice", "2025", t0))).session.session_id
        == "K-2025");
  CHECK(must(b->claim(by_key("alice", modern, t0 + 2 * hour_ns + 1))).outcome
        == claim_result::not_found);
  CHECK(must(b->claim(by_key("carol", modern, t0))).outcome
        == claim_result::not_found);
  // An expired session with the key is not found by it: a new one starts.
  must_append(*b, {at_epoch(closing(event_kind::session_expired, "K-new",
                                    t0 + 2 * hour_ns + 400),
                            1)});
  auto older = must(b->claim(by_key("alice", modern, t0)));
  REQUIRE(older.outcome == claim_result::loaded);
  CHECK(older.session.session_id == "K-old");
}

TEST_CASE("storage: a stale writer's append is fenced and writes nothing",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started("S1", t0), started("S2", t0 + 1)});
  must_append(*a, {task(event_kind::task_started, "S1", "T1", t0 + 2)});
  // b loads S1 (epoch 2) and writes to it: S1 at 3, b's now.
  auto c = must(b->claim(local_claim("S1")));
  REQUIRE(c.outcome == claim_result::loaded);
  REQUIRE(c.session.epoch == 2);
  must_append(*b, {at_epoch(task(event_kind::task_started, "S1", "T2", t0 + 3),
                            2)});
  REQUIRE(column_of(tmp.journal(), "holder", "S1") == b->instance());
  auto before_s1 = events_of(tmp.journal(), "S1");
  auto before_s2 = events_of(tmp.journal(), "S2");
  auto last_s2 = column_of(tmp.journal(), "last_wall_ns", "S2");
  // a's copy of S1 is at 2.
  SECTION("one event") {
    auto e = must_fail(a->append({at_epoch(task(event_kind::task_ended, "S1",
                                                "T1", t0 + 4),
                                           2)}),
                       error_kind::fenced, tmp.journal());
    CHECK(contains(e.message, "S1"));
    CHECK(contains(e.message, "epoch 3"));
    CHECK(contains(e.message, "had 2"));
  }
  SECTION("a batch with a session it is current on: none of it") {
    must_fail(a->append({task(event_kind::task_started, "S2", "T9", t0 + 4),
                         at_epoch(task(event_kind::task_ended, "S1", "T1",
                                       t0 + 5),
                                  2)}),
              error_kind::fenced, tmp.journal());
  }
  SECTION("closing the session") {
    must_fail(a->append({at_epoch(closing(event_kind::session_ended, "S1",
                                          t0 + 4),
                                  2)}),
              error_kind::fenced, tmp.journal());
  }
  CHECK(events_of(tmp.journal(), "S1") == before_s1);
  CHECK(events_of(tmp.journal(), "S2") == before_s2);
  CHECK(column_of(tmp.journal(), "last_wall_ns", "S2") == last_s2);
  CHECK(column_of(tmp.journal(), "epoch", "S2") == 1);
  CHECK(text_of(tmp.journal(), "state", "S1") == "open");
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 3);
  CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());
  // a still writes its other session; b writes on; a, reloaded, writes too.
  must_append(*a, {task(event_kind::task_started, "S2", "T9", t0 + 6)});
  must_append(*b, {at_epoch(task(event_kind::task_ended, "S1", "T2", t0 + 7),
                            3)});
  auto reloaded = must(a->claim(local_claim("S1", 2)));
  REQUIRE(reloaded.outcome == claim_result::loaded);
  CHECK(reloaded.session.epoch == 4);
  CHECK(reloaded.previous_holder == b->instance());
  CHECK(reloaded.previous_alive);
  must_append(*a, {at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 8),
                            4)});
  CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
  CHECK(column_of(tmp.journal(), "epoch", "S1") == 5);
}

TEST_CASE("storage: two stores ending the same task: the first write wins, "
          "the other is fenced and reloads it ended",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started_in("S1", t0, "alice", modern),
                   task(event_kind::task_started, "S1", "T1", t0 + 1)});
  // Both hold a copy with T1 running at epoch 2: a from its write, b from
  // its claim. Both end T1, computed from that epoch.
  auto bc = must(b->claim(claim_of("S1", "alice", modern)));
  REQUIRE(bc.outcome == claim_result::loaded);
  REQUIRE(bc.session.epoch == 2);
  auto by_a = at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 10), 2);
  auto by_b = at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 11), 2);
  store* winner = nullptr;
  store* loser = nullptr;
  std::int64_t won_at = 0;
  SECTION("the claimer writes first") {
    must_append(*b, {by_b});
    must_fail(a->append({by_a}), error_kind::fenced, tmp.journal());
    winner = b.get();
    loser = a.get();
    won_at = t0 + 11;
  }
  SECTION("the last writer writes first") {
    must_append(*a, {by_a});
    must_fail(b->append({by_b}), error_kind::fenced, tmp.journal());
    winner = a.get();
    loser = b.get();
    won_at = t0 + 10;
  }
  CHECK(count(tmp.journal(),
              "SELECT count(*) FROM events WHERE kind = 'task_ended'")
        == 1);
  CHECK(column_of(tmp.journal(), "holder", "S1") == winner->instance());
  // The fenced one reloads and finds T1 ended by the other: it answers
  // already_ended.
  auto lc = must(loser->claim(claim_of("S1", "alice", modern, 2)));
  REQUIRE(lc.outcome == claim_result::loaded);
  CHECK(lc.session.epoch == 3);
  CHECK(lc.previous_holder == winner->instance());
  CHECK(lc.previous_alive);
  REQUIRE(lc.session.events.size() == 3);
  CHECK(lc.session.events[2].kind == event_kind::task_ended);
  CHECK(lc.session.events[2].at.wall_ns == won_at);
  // Its reload fenced no one: the winner's copy is still current...
  CHECK(must(winner->claim(claim_of("S1", "alice", modern, 3))).outcome
        == claim_result::current);
  // ... until the loser writes from its reload; then the winner is stale.
  must_append(*loser, {at_epoch(closing(event_kind::session_ended, "S1",
                                        t0 + 12),
                                3)});
  must_fail(winner->append({at_epoch(closing(event_kind::session_ended, "S1",
                                             t0 + 13),
                                     3)}),
            error_kind::fenced, tmp.journal());
  CHECK(text_of(tmp.journal(), "state", "S1") == "ended");
  CHECK(column_of(tmp.journal(), "closed_wall_ns", "S1") == t0 + 12);
  CHECK(column_of(tmp.journal(), "holder", "S1") == loser->instance());
}

TEST_CASE("storage: released sessions and a dead holder's are orphans, a "
          "live holder's are not",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must_append(*a, {started("S1", t0), started("S2", t0 + 1),
                   started("S3", t0 + 2)});
  must_append(*a, {task(event_kind::task_started, "S1", "T1", t0 + 50)});
  must_append(*b, {started("B1", t0 + 3)});
  CHECK(all_orphans(*a).empty());
  CHECK(all_orphans(*b).empty());

  // A release names the epoch it holds at (S1: 2, after its task); another
  // epoch or another instance's release changes nothing.
  must(a->release({{"S1", 1}, {"S2", 7}}));
  CHECK(column_of(tmp.journal(), "holder", "S1") == a->instance());
  must(a->release({{"S1", 2}}));
  must(b->release({{"S3", 1}}));
  CHECK(column_of(tmp.journal(), "holder", "S1") == 0);
  CHECK(column_of(tmp.journal(), "holder", "S2") == a->instance());
  CHECK(column_of(tmp.journal(), "holder", "S3") == a->instance());
  for (auto* st : {a.get(), b.get()}) {
    auto o = all_orphans(*st);
    REQUIRE(o.size() == 1);
    CHECK(o[0].session_id == "S1");
    CHECK(o[0].principal == "local");
    CHECK(o[0].epoch == 2);
    CHECK(o[0].started_wall_ns == t0);
    CHECK(o[0].last_wall_ns == t0 + 50); // its latest event
  }
  // The cutoffs: started before the age cutoff or idle since before the
  // idle cutoff.
  CHECK(must(b->orphans_due(t0, t0 + 50, 100)).empty());
  CHECK(ids_of(must(b->orphans_due(t0 + 1, t0, 100))) == names{"S1"});
  CHECK(ids_of(must(b->orphans_due(t0, t0 + 51, 100))) == names{"S1"});

  // The holder's process ends: the rest of its sessions are orphans now.
  auto dead = a->instance();
  a.reset();
  CHECK(ids_of(all_orphans(*b)) == names{"S1", "S2", "S3"});
  CHECK(all_orphans(*b, 2).size() == 2);
  CHECK(all_orphans(*b, 0).empty());
  CHECK(column_of(tmp.journal(), "holder", "S2") == dead); // as it was

  // A claim is a read: the session stays an orphan...
  auto c = must(b->claim(local_claim("S2")));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.previous_holder == dead);
  CHECK_FALSE(c.previous_alive);
  auto released = must(b->claim(local_claim("S1")));
  REQUIRE(released.outcome == claim_result::loaded);
  CHECK(released.previous_holder == 0);
  CHECK_FALSE(released.previous_alive);
  CHECK(ids_of(all_orphans(*b)) == names{"S1", "S2", "S3"});
  // ... and a write makes it held again (by a live instance): not one.
  must_append(*b, {at_epoch(task(event_kind::task_started, "S2", "T1",
                                 t0 + 60),
                            c.session.epoch)});
  must_append(*b, {at_epoch(task(event_kind::task_ended, "S1", "T1", t0 + 61),
                            released.session.epoch)});
  CHECK(column_of(tmp.journal(), "holder", "S1") == b->instance());
  CHECK(ids_of(all_orphans(*b)) == names{"S3"});
  // A new store on the directory sees b alive, and S3 dead.
  auto d = must_open(tmp.data());
  CHECK(ids_of(all_orphans(*d)) == names{"S3"});
}

TEST_CASE("storage: max_open_sessions counts the open sessions of the whole "
          "directory",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.max_open_sessions = 2;
  auto a = must_open(opts);
  auto b = must_open(opts);
  must_append(*a, {started("S1", t0)});
  must_append(*b, {started("S2", t0 + 1)});
  for (auto* st : {a.get(), b.get()}) {
    auto e = must_fail(st->append({started("S3", t0 + 2)}), error_kind::limit,
                       tmp.journal());
    CHECK(contains(e.message, "2 tracking sessions"));
  }
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 2);
  // Closing one frees its place for anyone, whole batches only.
  must_append(*b, {closing(event_kind::session_ended, "S2", t0 + 3)});
  must_fail(a->append({started("S3", t0 + 4), started("S4", t0 + 4)}),
            error_kind::limit, tmp.journal());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 2);
  must_append(*a, {started("S3", t0 + 4)});
  must_fail(b->append({started("S4", t0 + 5)}), error_kind::limit,
            tmp.journal());
  must_append(*a, {closing(event_kind::session_expired, "S1", t0 + 6)});
  must_append(*b, {started("S4", t0 + 7)});
  CHECK(count(tmp.journal(),
              "SELECT count(*) FROM sessions WHERE state = 'open'")
        == 2);
  CHECK(must(a->open_sessions()) == 2);
  CHECK(must(b->open_sessions()) == 2);
  // Events of open sessions are not limited.
  must_append(*a, {task(event_kind::task_started, "S3", "T1", t0 + 8)});
  // A store without a limit (0) is not held to another's.
  auto c = must_open(tmp.data());
  must_append(*c, {started("S5", t0 + 9)});
  CHECK(must(a->open_sessions()) == 3);
}

TEST_CASE("storage: one purge per interval over all stores on the directory",
          "[storage][issue15][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  auto ended_session = [&](store& st, const std::string& id,
                           std::int64_t at) {
    must_append(st, {started(id, at),
                     closing(event_kind::session_ended, id, at + 1)});
  };
  ended_session(*a, "E1", t0);
  ended_session(*b, "E2", t0 + 10);
  auto now = t0 + 48 * hour_ns;
  auto cutoff = now - 24 * hour_ns;
  // The first purge ever runs.
  CHECK(must(a->purge_closed_before(cutoff, now, hour_ns)) == 2);
  ended_session(*a, "E3", t0 + 20);
  // Within the hour, the other store's purge (and a's own) does nothing.
  CHECK(must(b->purge_closed_before(cutoff, now + hour_ns / 2, hour_ns))
        == std::nullopt);
  CHECK(must(a->purge_closed_before(cutoff, now + hour_ns - 1, hour_ns))
        == std::nullopt);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 1);
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == now);
  // An hour after, the first to ask purges.
  CHECK(must(b->purge_closed_before(cutoff, now + hour_ns, hour_ns)) == 1);
  CHECK(must(a->purge_closed_before(cutoff, now + hour_ns, hour_ns))
        == std::nullopt);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 0);
  CHECK(count(tmp.journal(), "SELECT count(*) FROM events") == 0);
  CHECK(count(tmp.journal(),
              "SELECT value FROM meta WHERE key = 'purged_wall_ns'")
        == now + hour_ns);
}

TEST_CASE("storage: two stores starting sessions with one idempotency key at "
          "once: the second is fenced, one session stands",
          "[storage][issue34][backends]") {
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.max_age = std::chrono::hours{24};
  auto a = must_open(opts);
  auto b = must_open(opts);
  // Both looked the key up (not found) before either wrote: a writes first.
  must_append(*a, {started_in("K-a", t0, "alice", modern, "k-1")});
  auto e = must_fail(b->append({started_in("K-b", t0 + 1, "alice", modern,
                                           "k-1")}),
                     error_kind::fenced, tmp.journal());
  CHECK(contains(e.message, "K-a"));
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 1);
  // A whole batch or nothing: a session without the key beside it too.
  must_fail(b->append({started("S-plain", t0 + 2, "alice"),
                       started_in("K-b", t0 + 2, "alice", modern, "k-1")}),
            error_kind::fenced, tmp.journal());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 1);
  // b's retry claims by the key: a's session.
  claim_request req;
  req.idempotency_key = "k-1";
  req.principal = "alice";
  req.scope = modern;
  req.since_wall_ns = t0 - 24 * hour_ns;
  auto c = must(b->claim(req));
  REQUIRE(c.outcome == claim_result::loaded);
  CHECK(c.session.session_id == "K-a");
  // The key is the owner's, in its scope: others start freely.
  must_append(*b, {started_in("K-bob", t0 + 3, "bob", modern, "k-1")});
  must_append(*b, {started_in("K-2025", t0 + 4, "alice", "2025", "k-1")});
  must_append(*b, {started_in("K-other", t0 + 5, "alice", modern, "k-2")});
  // Ended, the session still holds its key; expired, it lets it go.
  must_append(*a, {at_epoch(closing(event_kind::session_ended, "K-a",
                                    t0 + 6),
                            1)});
  must_fail(b->append({started_in("K-b", t0 + 7, "alice", modern, "k-1")}),
            error_kind::fenced, tmp.journal());
  must_append(*a, {at_epoch(closing(event_kind::session_expired, "K-2025",
                                    t0 + 8),
                            1)});
  must_append(*b, {started_in("K-2025b", t0 + 9, "alice", "2025", "k-1")});
  // Past the age limit (sessions older are expired by it), the key starts
  // a new session, as a claim by it finds none.
  must_append(*b, {started_in("K-b", t0 + 25 * hour_ns, "alice", modern,
                              "k-1")});
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions"
                             " WHERE idempotency_key = 'k-1'")
        == 5);
}

TEST_CASE("storage: max_open_per_principal counts a principal's open "
          "sessions over the whole directory",
          "[storage][issue34][backends]") {
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.max_open_sessions = 10;
  opts.max_open_per_principal = 2;
  auto a = must_open(opts);
  // One server after another: the first has exited, its sessions open.
  {
    auto gone = must_open(opts);
    must_append(*gone, {started("A1", t0, "alice")});
  }
  must_append(*a, {started("A2", t0 + 1, "alice")});
  auto b = must_open(opts);
  auto e = must_fail(b->append({started("A3", t0 + 2, "alice")}),
                     error_kind::limit, tmp.journal());
  CHECK(contains(e.message, "2 tracking sessions of principal alice"));
  CHECK(contains(e.message, "--max-tracking-sessions-per-principal"));
  CHECK(e.limit_option == "max_tracking_sessions_per_principal");
  CHECK(e.limit_value == 2);
  // Another principal has a share of its own.
  must_append(*b, {started("B1", t0 + 3, "bob"), started("B2", t0 + 3, "bob")});
  must_fail(a->append({started("B3", t0 + 4, "bob")}), error_kind::limit,
            tmp.journal());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM sessions") == 4);
  // Ending one frees its place, for any server; an undone end takes it
  // back.
  must_append(*b, {at_epoch(closing(event_kind::session_ended, "A1", t0 + 5),
                            1)});
  must_append(*b, {started("A3", t0 + 6, "alice")});
  auto undo = at_epoch(make_event(event_kind::change_undone, "A1", t0 + 7),
                       2);
  undo.principal = "alice";
  must_fail(a->append({undo}), error_kind::limit, tmp.journal());
  CHECK(text_of(tmp.journal(), "state", "A1") == "ended");
  // The global cap names its own option.
  auto small = options_for(tmp.data());
  small.max_open_sessions = 4;
  small.max_open_per_principal = 4;
  auto c = must_open(small);
  auto g = must_fail(c->append({started("C1", t0 + 8, "carol")}),
                     error_kind::limit, tmp.journal());
  CHECK(g.limit_option == "max_tracking_sessions");
  CHECK(g.limit_value == 4);
}
