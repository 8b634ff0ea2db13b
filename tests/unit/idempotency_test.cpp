// Issue 20 item 4: time_session_start's idempotency_key. A retried start
// with the same key (same owner, while the session is held) returns the
// first reply without a second session or another slot; different
// arguments are IDEMPOTENCY_KEY_REUSED; the key is journaled with the start
// and restored by replay.

#include "journal/codec.hpp"
#include "journal/replay.hpp"
#include "journaled_client.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

const char* const keyed_start
  = R"({"milestone_id":"M7","milestone_name":"Seven","task_ids":["a","b"],)"
    R"("timezone":"Europe/Paris","metadata":{"k":"v"},"tags":["t"],)"
    R"("idempotency_key":"retry-1"})";

/// The same arguments with one replaced: `from` by `to`.
std::string with(std::string text, const std::string& from,
                 const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("idempotency: a retried start returns the first reply without a "
          "second session or slot",
          "[session_tools][issue20]") {
  client c;
  auto first = c.ok("time_session_start", keyed_start);
  CHECK_FALSE(boolean(first["already_started"]));
  c.clock->advance(30s);

  // The retry does not pause for a slot: it takes none.
  auto step = c.step(c.call_json("time_session_start", keyed_start));
  REQUIRE_FALSE(step.waiting());
  auto res = parse(step.output.response);
  auto again = check_tool_result(res["result"], *c.registry,
                                 "time_session_start");
  REQUIRE_FALSE(again.is_error);
  CHECK(boolean(again.sc["already_started"]));
  CHECK(str(again.sc["session_id"]) == str(first["session_id"]));
  CHECK(str(again.sc["start_time"]) == str(first["start_time"]));
  CHECK(str(again.sc["start_time_friendly"])
        == str(first["start_time_friendly"]));
  CHECK(str(again.sc["timezone"]) == "Europe/Paris");
  CHECK(integer(again.sc["task_count"]) == 2);
  CHECK(c.state.tracker().size() == 1);
  CHECK(step.output.created.empty());

  SECTION("'local' and the zone it names are the same argument") {
    client d{"2025-11-25", {}, "Europe/Paris"};
    auto one = d.ok("time_session_start", keyed_start);
    auto two = d.ok("time_session_start",
                    with(keyed_start, "Europe/Paris", "local"));
    CHECK(str(two["session_id"]) == str(one["session_id"]));
  }

  SECTION("an ended session still answers its key") {
    auto sid = str(first["session_id"]);
    c.ok("time_session_end", session_args(sid));
    auto after_end = c.ok("time_session_start", keyed_start);
    CHECK(str(after_end["session_id"]) == sid);
    CHECK(boolean(after_end["already_started"]));
  }

  SECTION("another key, or none, starts another session") {
    auto other = c.ok("time_session_start",
                      with(keyed_start, "retry-1", "retry-2"));
    CHECK(str(other["session_id"]) != str(first["session_id"]));
    CHECK_FALSE(boolean(other["already_started"]));
    auto none = c.ok("time_session_start",
                     with(keyed_start, R"(,"idempotency_key":"retry-1")", ""));
    CHECK(str(none["session_id"]) != str(first["session_id"]));
    CHECK(c.state.tracker().size() == 3);
  }
}

TEST_CASE("idempotency: the same key with other arguments is "
          "IDEMPOTENCY_KEY_REUSED and changes nothing",
          "[session_tools][issue20]") {
  client c;
  auto first = c.ok("time_session_start", keyed_start);
  auto sid = str(first["session_id"]);
  struct variant {
    const char* from;
    const char* to;
    const char* field;
  };
  for (const auto& v : {
         variant{R"("M7")", R"("M8")", "milestone_id"},
         variant{R"("Seven")", R"("Eight")", "milestone_name"},
         variant{R"(["a","b"])", R"(["b","a"])", "task_ids"},
         variant{R"("Europe/Paris")", R"("UTC")", "timezone"},
         variant{R"({"k":"v"})", R"({"k":"w"})", "metadata"},
         variant{R"(["t"])", R"(["t","u"])", "tags"},
       }) {
    INFO("changed: " << v.field);
    auto err = c.fails("time_session_start", with(keyed_start, v.from, v.to),
                       "IDEMPOTENCY_KEY_REUSED");
    auto msg = str(err["message"]);
    CHECK(msg.find("'retry-1'") != std::string::npos);
    CHECK(msg.find(sid) != std::string::npos);
    CHECK(msg.find(std::string{"'"} + v.field + "'") != std::string::npos);
    CHECK(c.state.tracker().size() == 1);
  }
  // The first session is untouched and its key still works.
  auto again = c.ok("time_session_start", keyed_start);
  CHECK(str(again["session_id"]) == sid);
}

TEST_CASE("idempotency: a key belongs to its owner and lives as long as its "
          "session",
          "[session_tools][issue20]") {
  client a;
  auto first = a.ok("time_session_start", keyed_start);

  SECTION("another client's key is its own") {
    client b{"2025-11-25", {}, "America/New_York", example_start(), a.clock};
    auto theirs = b.ok("time_session_start", keyed_start);
    CHECK(str(theirs["session_id"]) != str(first["session_id"]));
    CHECK_FALSE(boolean(theirs["already_started"]));
  }

  SECTION("once the session expired, the key starts a new one") {
    a.clock->advance(domain::tracking_limits{}.max_idle + 1s);
    auto fresh = a.ok("time_session_start", keyed_start);
    CHECK(str(fresh["session_id"]) != str(first["session_id"]));
    CHECK_FALSE(boolean(fresh["already_started"]));
    // The expired one is gone; the key now names the new session.
    auto again = a.ok("time_session_start", keyed_start);
    CHECK(str(again["session_id"]) == str(fresh["session_id"]));
  }
}

TEST_CASE("idempotency: bad keys are VALIDATION_ERROR",
          "[session_tools][issue20]") {
  client c;
  c.fails("time_session_start",
          with(keyed_start, R"("retry-1")", R"("")"), "VALIDATION_ERROR");
  c.fails("time_session_start",
          with(keyed_start, R"("retry-1")", "\"" + std::string(257, 'k') + "\""),
          "VALIDATION_ERROR");
  c.fails("time_session_start", with(keyed_start, R"("retry-1")", "7"),
          "VALIDATION_ERROR");
  CHECK(c.state.tracker().size() == 0);
  c.ok("time_session_start",
       with(keyed_start, R"("retry-1")", "\"" + std::string(256, 'k') + "\""));
}

TEST_CASE("idempotency: the key is journaled with the start and restored by "
          "replay, and a rolled-back start frees it",
          "[journal][issue20]") {
  domain::fake_clock clock{example_start()};
  domain::tracker tr{domain::tracking_limits{}};
  tr.record_changes(true);
  auto utc = *domain::resolve_zone("UTC", "UTC").found;
  domain::session_request req;
  req.milestone_id = "M";
  req.task_ids = {"a"};
  req.idempotency_key = "k-1";

  SECTION("replay") {
    tr.add("s", req, utc, domain::now_of(clock));
    REQUIRE(tr.find_by_key("k-1") == tr.find("s"));
    storage::stored_session stored;
    stored.session_id = "s";
    stored.principal = "local";
    for (const auto& ch : tr.take_changes())
      stored.events.push_back(
        journal::to_event(ch, "local", clock.boot_id()));
    REQUIRE(stored.events.size() == 1);
    CHECK(stored.events[0].payload.find(R"("idempotency_key":"k-1")")
          != std::string::npos);
    domain::tracker fresh{domain::tracking_limits{}};
    std::vector<std::string> problems;
    journal::replay(fresh, {stored}, clock, "UTC", problems);
    CHECK(problems.empty());
    const auto* back = fresh.find_by_key("k-1");
    REQUIRE(back != nullptr);
    CHECK(back->id == "s");
    CHECK(back->bytes == tr.find("s")->bytes);
    // Without a key, nothing is written (older journals look the same).
    domain::session_request plain = req;
    plain.idempotency_key.reset();
    tr.add("t", plain, utc, domain::now_of(clock));
    auto changes = tr.take_changes();
    REQUIRE(changes.size() == 1);
    CHECK(journal::to_event(changes[0], "local", clock.boot_id())
            .payload.find("idempotency_key")
          == std::string::npos);
  }

  SECTION("rollback") {
    tr.commit();
    tr.add("s", req, utc, domain::now_of(clock));
    tr.rollback();
    CHECK(tr.find("s") == nullptr);
    CHECK(tr.find_by_key("k-1") == nullptr);
  }

  SECTION("eviction") {
    tr.add("s", req, utc, domain::now_of(clock));
    tr.end_session(*tr.find("s"), domain::now_of(clock));
    tr.evict("s");
    CHECK(tr.find_by_key("k-1") == nullptr);
  }
}

TEST_CASE("idempotency: the decoder lifts an idempotency_key for the journal "
          "lookup, like a session id",
          "[protocol][issue20]") {
  auto keyed = mcp::decode(tools_call("time_session_start", keyed_start, "1"));
  REQUIRE(keyed.messages.size() == 1);
  CHECK_FALSE(keyed.messages[0].lookup.empty());
  CHECK(keyed.messages[0].handle.empty());
  auto plain = mcp::decode(tools_call(
    "time_session_start", R"({"milestone_id":"M","task_ids":[]})", "2"));
  REQUIRE(plain.messages.size() == 1);
  CHECK(plain.messages[0].lookup.empty());
}

TEST_CASE("idempotency: two keyed starts in one batch make one session",
          "[session_tools][issue20]") {
  client c{"2025-03-26"};
  auto a = c.call_json("time_session_start", keyed_start);
  auto b = c.call_json("time_session_start", keyed_start);
  auto first = c.step("[" + a + "," + b + "]");
  REQUIRE(first.waiting()); // the first start asks for a slot
  auto done = c.state.resume(true);
  REQUIRE_FALSE(done.waiting()); // the second takes none
  auto out = parse(done.output.response);
  REQUIRE(out.Size() == 2);
  auto one = check_tool_result(out[0]["result"], *c.registry,
                               "time_session_start");
  auto two = check_tool_result(out[1]["result"], *c.registry,
                               "time_session_start");
  REQUIRE_FALSE(one.is_error);
  REQUIRE_FALSE(two.is_error);
  CHECK(str(two.sc["session_id"]) == str(one.sc["session_id"]));
  CHECK_FALSE(boolean(one.sc["already_started"]));
  CHECK(boolean(two.sc["already_started"]));
  CHECK(c.state.tracker().size() == 1);
}

TEST_CASE("idempotency: a retry compares with the start as made, not with "
          "the tasks bulk edits added or removed since",
          "[session_tools][issue17][issue20]") {
  const std::string start = with(keyed_start, R"("tags":["t"],)",
                                 R"("tags":["t"],"estimates":{"a":"15"},)");
  auto edit_tasks = [](auto& c, const std::string& sid) {
    c.ok("time_tasks_edit",
         R"({"session_id":")" + sid + R"(","operations":[
           {"op":"add","task_id":"c","estimate":"5"},
           {"op":"remove","task_id":"b"}]})");
  };
  SECTION("in memory") {
    client c;
    auto sid = str(c.ok("time_session_start", start)["session_id"]);
    edit_tasks(c, sid);
    auto again = c.ok("time_session_start", start);
    CHECK(str(again["session_id"]) == sid);
    CHECK(boolean(again["already_started"]));
    // The tasks as they are now are not the request that started it.
    c.fails("time_session_start",
            with(start, R"(["a","b"])", R"(["a","c"])"),
            "IDEMPOTENCY_KEY_REUSED");
    c.fails("time_session_start",
            with(start, R"({"a":"15"})", R"({"a":"15","c":"5"})"),
            "IDEMPOTENCY_KEY_REUSED");
  }
  SECTION("journaled, retried through another MCP session (replayed)") {
    test::temp_dir tmp;
    auto store = open_store(tmp.data());
    auto clock = std::make_shared<domain::fake_clock>(example_start());
    journaled first{clock, *store, "local"};
    auto sid = str(first.ok("time_session_start", start)["session_id"]);
    edit_tasks(first, sid);
    journaled retry{clock, *store, "local"};
    auto again = retry.ok("time_session_start", start);
    CHECK(str(again["session_id"]) == sid);
    CHECK(boolean(again["already_started"]));
  }
}
