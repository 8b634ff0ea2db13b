// Unit tests for src/storage, issue 32 item 2: MCP sessions of the 2025 eras
// kept in the journal (store::put_mcp_session and the rest), so that every
// server on a data directory answers every Mcp-Session-Id.

#include "fault_vfs.hpp"
#include "storage_fixture.hpp"

namespace {

mcp_session_record record(const std::string& id, std::int64_t at,
                          const std::string& principal = "alice") {
  mcp_session_record r;
  r.id = id;
  r.principal = principal;
  r.state = R"({"revision":"2025-06-18","log_level":null})";
  r.created_wall_ns = at;
  r.last_wall_ns = at;
  return r;
}

} // namespace

TEST_CASE("storage: an MCP session stored by one server is read by another, "
          "field for field, until removed",
          "[storage][issue32][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  CHECK_FALSE(must(b->get_mcp_session("S-1")).has_value());
  must(a->put_mcp_session(record("S-1", t0)));
  auto got = must(b->get_mcp_session("S-1"));
  REQUIRE(got.has_value());
  CHECK(got->id == "S-1");
  CHECK(got->principal == "alice");
  CHECK(got->state == R"({"revision":"2025-06-18","log_level":null})");
  CHECK(got->created_wall_ns == t0);
  CHECK(got->last_wall_ns == t0);

  // A new state (logging/setLevel on B) keeps the owner and created time;
  // another principal cannot overwrite it.
  auto next = record("S-1", t0 + 5'000);
  next.state = R"({"revision":"2025-06-18","log_level":"debug"})";
  must(b->put_mcp_session(next));
  auto stranger = record("S-1", t0 + 6'000, "mallory");
  stranger.state = R"({"revision":"2025-03-26"})";
  must(b->put_mcp_session(stranger));
  got = must(a->get_mcp_session("S-1"));
  REQUIRE(got.has_value());
  CHECK(got->principal == "alice");
  CHECK(got->state == next.state);
  CHECK(got->created_wall_ns == t0);
  CHECK(got->last_wall_ns == t0 + 5'000);

  // DELETE through B: gone for A, once.
  CHECK(must(b->remove_mcp_session("S-1")));
  CHECK_FALSE(must(b->remove_mcp_session("S-1")));
  CHECK_FALSE(must(a->get_mcp_session("S-1")).has_value());
}

TEST_CASE("storage: idle MCP sessions are listed oldest first and removed "
          "once, unless used since",
          "[storage][issue32][backends]") {
  temp_dir tmp;
  auto a = must_open(tmp.data());
  auto b = must_open(tmp.data());
  must(a->put_mcp_session(record("old", t0)));
  must(a->put_mcp_session(record("older", t0 - 10)));
  must(a->put_mcp_session(record("fresh", t0 + 100)));
  CHECK(must(a->mcp_sessions_due(t0 + 50, 10))
        == std::vector<std::string>{"older", "old"});
  CHECK(must(a->mcp_sessions_due(t0 + 50, 1))
        == std::vector<std::string>{"older"});
  // Used since the listing (through another server): not removed.
  must(b->touch_mcp_sessions({"old", "unknown"}, t0 + 200));
  CHECK(must(b->get_mcp_session("old"))->last_wall_ns == t0 + 200);
  CHECK_FALSE(must(a->remove_mcp_session("old", t0 + 50)));
  // A touch never moves the time back.
  must(b->touch_mcp_sessions({"old"}, t0 + 150));
  CHECK(must(b->get_mcp_session("old"))->last_wall_ns == t0 + 200);
  // Both servers notice "older": one removes it.
  CHECK(must(a->remove_mcp_session("older", t0 + 50)));
  CHECK_FALSE(must(b->remove_mcp_session("older", t0 + 50)));
  CHECK(must(a->mcp_sessions_due(t0 + 50, 10)).empty());
  CHECK(count(tmp.journal(), "SELECT count(*) FROM mcp_sessions") == 2);
}

TEST_CASE("storage: MCP sessions are written without a sync of their own",
          "[storage][issue32]") {
  namespace fv = ttm::test::fault_vfs;
  temp_dir tmp;
  auto opts = options_for(tmp.data());
  opts.vfs = fv::name();
  auto st = must_open(opts); // sync_mode::full
  fv::reset();
  must(st->put_mcp_session(record("S-1", t0)));
  must(st->touch_mcp_sessions({"S-1"}, t0 + 60));
  CHECK(must(st->remove_mcp_session("S-1", t0 + 120)));
  CHECK(fv::counted()[static_cast<std::size_t>(fv::kind::sync)] == 0);
  CHECK(fv::counted()[static_cast<std::size_t>(fv::kind::write)] > 0);
  // A tracking change right after still syncs (FULL is back).
  must(st->put_mcp_session(record("S-2", t0)));
  must_append(*st, {started("T1", t0)});
  CHECK(fv::counted()[static_cast<std::size_t>(fv::kind::sync)] > 0);
  CHECK(must(st->get_mcp_session("S-2")).has_value());
}

TEST_CASE("storage: schema 9 adds the MCP sessions to a journal of schema 8",
          "[storage][issue32]") {
  temp_dir tmp;
  {
    auto st = must_open(tmp.data());
    must_append(*st, {started("T1", t0)});
  }
  {
    raw_db db{tmp.journal()};
    db.exec("DROP TABLE mcp_sessions; PRAGMA user_version = 8");
  }
  auto st = must_open(tmp.data());
  CHECK(count(tmp.journal(), "PRAGMA user_version") == journal_schema_version);
  CHECK(journal_schema_version == 11);
  must(st->put_mcp_session(record("S-1", t0)));
  CHECK(must(st->get_mcp_session("S-1")).has_value());
  CHECK(must(st->history({})).size() == 1);
}
