// Unit tests for the MCP session's parts on their own: the journal's
// claims and epochs (mcp/journal_claims.hpp), the caller's preferences and
// their cache (mcp/principal_prefs.hpp), and the one list of protocol
// revisions (protocol/mcp.hpp). The frame state machine that uses them is
// tested through mcp::session (mcp_session_test.cpp, journal_test.cpp, ...).

#include "mcp/journal_claims.hpp"
#include "mcp/principal_prefs.hpp"
#include "mcp/session.hpp"
#include "mcp/wire.hpp"
#include "protocol/mcp.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_json.hpp"

#include <chrono>
#include <string>
#include <type_traits>

using namespace ttm;
using namespace std::chrono_literals;
using ttm::test::parse;
using ttm::test::str;

// A session without a frame in progress moves (benches and tests build one
// and assign it); its handler_view lives with the frame.
static_assert(std::is_move_constructible_v<mcp::session>);
static_assert(std::is_move_assignable_v<mcp::session>);

namespace {

domain::change change_of(domain::change::kind_t kind, const std::string& id) {
  domain::change c;
  c.kind = kind;
  c.session_id = id;
  return c;
}

protocol::message message(const std::string& json) {
  auto f = mcp::decode(json);
  REQUIRE(f.messages.size() == 1);
  return f.messages[0];
}

std::string call_json(const std::string& tool, const std::string& args) {
  return R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")"
         + tool + R"(","arguments":)" + args + "}}";
}

} // namespace

TEST_CASE("journal claims: a call's session is claimed by handle or by key",
          "[mcp][claims]") {
  domain::fake_clock clock{domain::wall_time{1700000000s}};
  domain::tracker tracker{domain::tracking_limits{}};
  mcp::journal_claims claims{"alice", "boot-1", "client-1"};

  SECTION("a handle names the session; one not held here has no epoch") {
    auto msg = message(call_json("time_session_summary",
                                 R"({"session_id":"s-1"})"));
    REQUIRE(msg.handle == "s-1");
    auto req = claims.claim_for(msg, protocol::era::legacy, tracker, clock);
    REQUIRE(req);
    CHECK(req->session_id == "s-1");
    CHECK(req->principal == "alice");
    CHECK(req->scope == "2025");
    CHECK(req->known_epoch == 0);
    CHECK(req->idempotency_key.empty());
    CHECK(req->now_wall_ns == domain::to_ns(clock.wall_now()));
    auto modern = claims.claim_for(msg, protocol::era::modern, tracker, clock);
    REQUIRE(modern);
    CHECK(modern->scope == "2026-07-28");
  }
  SECTION("an idempotency key not held here is looked up in the journal") {
    auto msg = message(call_json(
      "time_session_start",
      R"({"milestone_id":"M1","tasks":[{"id":"a"}],"idempotency_key":"k-1"})"));
    REQUIRE(msg.lookup == "k-1");
    auto req = claims.claim_for(msg, protocol::era::legacy, tracker, clock);
    REQUIRE(req);
    CHECK(req->session_id.empty());
    CHECK(req->idempotency_key == "k-1");
    // Only sessions young enough to be live may answer for the key.
    CHECK(req->since_wall_ns
          == domain::to_ns(clock.wall_now() - tracker.limits().max_age));
  }
  SECTION("calls that name no session, and other methods, claim nothing") {
    CHECK_FALSE(claims.claim_for(message(call_json("time_get_current", "{}")),
                                 protocol::era::legacy, tracker, clock));
    CHECK_FALSE(claims.claim_for(
      message(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"),
      protocol::era::legacy, tracker, clock));
  }
}

TEST_CASE("journal claims: events carry the epochs their sessions reach",
          "[mcp][claims]") {
  domain::tracker tracker{domain::tracking_limits{}};
  mcp::journal_claims claims{"alice", "boot-1", "client-1"};
  using domain::change;
  const auto legacy = protocol::era::legacy;

  SECTION("a start begins at 1; later changes count on from it") {
    std::vector<change> batch{change_of(change::session_started, "s"),
                              change_of(change::task_ended, "s"),
                              change_of(change::task_ended, "s")};
    auto events = claims.to_events(batch, tracker, legacy, "tool", true);
    REQUIRE(events.size() == 3);
    CHECK(events[1].epoch == 1);
    CHECK(events[2].epoch == 2);
    CHECK(events[0].principal == "alice");
    // In flight: what a call sent meanwhile is checked against the epoch
    // this write leaves.
    CHECK(claims.current_epoch("s") == 3);
    claims.abandon();
    CHECK(claims.current_epoch("s") == 0);
  }
  SECTION("a stored write moves a held session on; a refused one does not") {
    claims.hold("s", 4);
    auto events = claims.to_events({change_of(change::task_ended, "s")},
                                   tracker, legacy, "tool", true);
    REQUIRE(events.size() == 1);
    CHECK(events[0].epoch == 4);
    CHECK(claims.current_epoch("s") == 5);
    claims.abandon();
    CHECK(claims.current_epoch("s") == 4);

    claims.to_events({change_of(change::task_ended, "s")}, tracker, legacy,
                     "tool", true);
    // Stored, but the tracker no longer holds it: not moved on.
    claims.stored(tracker);
    CHECK(claims.current_epoch("s") == 4);
  }
  SECTION("an expiry outside a frame leaves the write in flight alone") {
    claims.hold("s", 2);
    claims.hold("t", 7);
    claims.to_events({change_of(change::task_ended, "s")}, tracker, legacy,
                     "tool", true);
    auto expiry = change_of(change::session_expired, "t");
    expiry.reason = "idle";
    auto events = claims.to_events({expiry}, tracker, legacy, {}, false);
    REQUIRE(events.size() == 1);
    CHECK(events[0].epoch == 7);
    CHECK(events[0].if_due); // a limit's expiry: only if the journal agrees
    CHECK(claims.current_epoch("t") == 0); // no longer held
    CHECK(claims.current_epoch("s") == 3); // the write still in flight
  }
  SECTION("a closing expiry stands whatever the journal thinks is due") {
    claims.hold("s", 1);
    auto closed = change_of(change::session_expired, "s");
    closed.reason = "closed";
    auto events = claims.to_events({closed}, tracker, legacy, {}, false);
    REQUIRE(events.size() == 1);
    CHECK_FALSE(events[0].if_due);
  }
}

TEST_CASE("journal claims: stale copies are those still at the epoch asked "
          "about",
          "[mcp][claims]") {
  mcp::journal_claims claims{"alice", "boot-1", "client-1"};
  claims.hold("a", 3);
  claims.hold("b", 5);
  // "b" was written since the question (epoch 4 asked, 5 now): current.
  CHECK(claims.stale({{"a", 3}, {"b", 4}}, {"a", "b"})
        == std::vector<std::string>{"a"});
  // Not asked about, or not held: nothing to let go of.
  CHECK(claims.stale({{"a", 3}}, {"c"}).empty());
  claims.forget("a");
  CHECK(claims.stale({{"a", 3}}, {"a"}).empty());
}

TEST_CASE("principal prefs: the journal's answer is trusted for 5 s",
          "[mcp][prefs]") {
  mcp::principal_prefs prefs;
  domain::mono_time t0{std::chrono::hours{1}};
  CHECK(prefs.cached(t0) == nullptr);
  prefs.remember({{"locale", R"("de-DE")"}}, t0);
  REQUIRE(prefs.cached(t0 + 4999ms) != nullptr);
  CHECK(prefs.cached(t0 + 4999ms)->front().first == "locale");
  CHECK(mcp::prefs_cache_ttl == 5s);
  CHECK(prefs.cached(t0 + mcp::prefs_cache_ttl) == nullptr);
  // A later answer (its own change included) starts the time again.
  prefs.remember({}, t0 + 10s);
  REQUIRE(prefs.cached(t0 + 14s) != nullptr);
  CHECK(prefs.cached(t0 + 14s)->empty());
}

TEST_CASE("principal prefs: the caller's locale and week start fill in "
          "omitted arguments",
          "[mcp][prefs]") {
  mcp::principal_prefs prefs;
  auto registry = tools::make_registry({}, {"all"});
  auto tool = [&](const char* name) -> const tools::tool& {
    const auto* t = registry->find(name);
    REQUIRE(t != nullptr);
    return *t;
  };
  rapidjson::Document none;
  none.SetObject();
  // Nothing read for this message: the arguments stay as they are.
  CHECK_FALSE(prefs.with_preferences(tool("time_convert"), none));

  const mcp::pref_entries stored{{"timezone", R"("Europe/Berlin")"},
                                 {"locale", R"("de-DE")"},
                                 {"week_start", R"("sunday")"}};
  prefs.take(domain::preferences{}, &stored, "America/New_York");
  CHECK(prefs.zone() == "Europe/Berlin");
  auto convert = prefs.with_preferences(tool("time_convert"), none);
  REQUIRE(convert);
  CHECK(str((*convert)["locale"]) == "de-DE");
  CHECK(str((*convert)["week_start"]) == "sunday");

  // An argument the caller gave stands; one the tool does not take is not
  // added; a tool without the rule gets nothing.
  auto given = parse(R"({"locale":"fr-FR"})");
  CHECK_FALSE(prefs.with_preferences(tool("time_get_current"), given));
  auto start = prefs.with_preferences(tool("time_session_start"), none);
  CHECK_FALSE(start);
  CHECK_FALSE(prefs.with_preferences(tool("time_undo"), none));

  // The next message reads its own.
  prefs.clear();
  CHECK(prefs.zone().empty());
  CHECK_FALSE(prefs.with_preferences(tool("time_convert"), none));

  // Unreadable preferences: the defaults stand in (no zone of the
  // caller's: the server's).
  prefs.take(domain::preferences{}, nullptr, "America/New_York");
  CHECK(prefs.zone().empty());
  auto defaults = prefs.with_preferences(tool("time_convert"), none);
  REQUIRE(defaults);
  CHECK(str((*defaults)["locale"]) == "en-US");
  CHECK(str((*defaults)["week_start"]) == "monday");
}

TEST_CASE("principal prefs: a call without its zone reads the caller's",
          "[mcp][prefs]") {
  auto registry = tools::make_registry({}, {"all"});
  auto needs = [&](const std::string& tool, const std::string& args) {
    return mcp::principal_prefs::needs_zone(message(call_json(tool, args)),
                                            *registry);
  };
  CHECK(needs("time_get_current", "{}"));
  CHECK(needs("time_get_current", R"({"timezone":"LOCAL"})"));
  CHECK_FALSE(needs("time_get_current", R"({"timezone":"Asia/Tokyo"})"));
  CHECK(needs("time_convert", R"({"time":"9:00"})"));
  // A report's default zone is its session's: only 'local' is the caller's.
  CHECK_FALSE(needs("time_session_report", R"({"session_id":"s"})"));
  CHECK(needs("time_session_report",
              R"({"session_id":"s","timezone":"local"})"));
  // Tools that take no zone, unknown tools, other methods: no.
  CHECK_FALSE(needs("time_undo", "{}"));
  CHECK_FALSE(needs("no_such_tool", "{}"));
  CHECK_FALSE(mcp::principal_prefs::needs_zone(
    message(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"), *registry));
}

TEST_CASE("revisions: every spelling derives from the one list",
          "[protocol][revisions]") {
  auto all = parse(protocol::all_revisions_json);
  REQUIRE(all.IsArray());
  REQUIRE(all.Size()
          == protocol::modern_revisions.size()
               + protocol::supported_revisions.size());
  // Newest first: the modern revisions, then the 2025 ones.
  CHECK(str(all[0]) == std::string{protocol::modern_revision});
  for (std::size_t i = 0; i < protocol::supported_revisions.size(); ++i)
    CHECK(str(all[static_cast<rapidjson::SizeType>(all.Size() - 1 - i)])
          == std::string{protocol::supported_revisions[i]});
  CHECK(protocol::supported_revisions_text
        == "2025-03-26, 2025-06-18, 2025-11-25");
  CHECK(protocol::latest_revision == protocol::supported_revisions.back());
  CHECK(protocol::batching_revision == "2025-03-26");
}
