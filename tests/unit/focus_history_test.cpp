// Issue 19: focus sessions (mark_session_start / _end) in history: listed
// by time_session_list with `kind`, counted by time_stats, reported by
// time_session_report by their id; each principal sees only its own. On a
// SQLite journal (a restart keeps them) and in memory (--ephemeral).

#include "domain/history.hpp"
#include "domain/stats.hpp"
#include "journaled_client.hpp"
#include "reports/report.hpp"

#include <string>
#include <vector>

namespace {

using namespace ttm;
using namespace ttm::test::session_client;
using namespace std::chrono_literals;

domain::wall_time march(int day, int h, int m = 0) {
  return date::sys_days{date::year{2026} / 3 / day} + std::chrono::hours{h}
         + std::chrono::minutes{m};
}

std::vector<std::string> kinds_of(const rapidjson::Value& sessions) {
  std::vector<std::string> out;
  for (const auto& s : sessions.GetArray())
    out.push_back(str(s["kind"]));
  return out;
}

} // namespace

TEST_CASE("focus sessions appear in list, stats and reports, per principal",
          "[focus][history]") {
  test::temp_dir dir;
  auto store = open_store(dir.data());
  auto clock = std::make_shared<domain::fake_clock>(march(2, 9));
  journaled alice{clock, *store, "alice"};
  journaled bob{clock, *store, "bob"};

  auto tracking = str(alice.ok("time_session_start",
                               R"({"milestone_id":"M1","task_ids":["a"]})")
                        ["session_id"]);
  clock->advance(10min);
  auto first = str(alice.ok("mark_session_start",
                            R"({"intent":"draft the plan"})")["session_id"]);
  clock->advance(30min);
  alice.ok("mark_session_end", R"({"summary":"plan drafted"})");
  clock->set_wall(march(3, 14));
  auto second = str(alice.ok("mark_session_start",
                             R"({"intent":"review Bob's PR"})")["session_id"]);
  clock->advance(5min);
  auto bobs = str(bob.ok("mark_session_start",
                         R"({"intent":"bob's secret"})")["session_id"]);

  SECTION("time_session_list: tracking by default, focus or all on request") {
    auto def = alice.ok("time_session_list", R"({"timezone":"UTC"})");
    CHECK(kinds_of(def["sessions"]) == std::vector<std::string>{"tracking"});
    CHECK(str(def["sessions"][0]["session_id"]) == tracking);
    CHECK(def["sessions"][0]["intent"].IsNull());

    auto all = alice.ok("time_session_list",
                        R"({"kind":"all","timezone":"UTC"})");
    REQUIRE(all["sessions"].Size() == 3);
    CHECK(kinds_of(all["sessions"])
          == std::vector<std::string>{"focus", "focus", "tracking"});
    const auto& open = all["sessions"][0];
    CHECK(str(open["session_id"]) == second);
    CHECK(str(open["status"]) == "active");
    CHECK(str(open["intent"]) == "review Bob's PR");
    CHECK(open["end_time"].IsNull());
    CHECK(open["total_duration_ms"].GetInt64() == 5 * 60'000);
    const auto& ended = all["sessions"][1];
    CHECK(str(ended["session_id"]) == first);
    CHECK(str(ended["status"]) == "ended");
    CHECK(str(ended["note"]) == "plan drafted");
    CHECK(str(ended["milestone_id"]).empty());
    CHECK(ended["total_duration_ms"].GetInt64() == 30 * 60'000);
    CHECK(str(ended["start_time"]) == "2026-03-02T09:10:00.000+00:00");

    auto focus = alice.ok("time_session_list",
                          R"({"kind":"focus","status":"ended"})");
    REQUIRE(focus["sessions"].Size() == 1);
    CHECK(str(focus["sessions"][0]["session_id"]) == first);
    auto text = alice.ok("time_session_list",
                         R"({"kind":"all","text":"REVIEW"})");
    REQUIRE(text["sessions"].Size() == 1);
    CHECK(str(text["sessions"][0]["session_id"]) == second);
    // A milestone or tag filter: focus sessions have neither.
    auto ms = alice.ok("time_session_list",
                       R"({"kind":"all","milestone_id":"M1"})");
    CHECK(kinds_of(ms["sessions"]) == std::vector<std::string>{"tracking"});

    // Pages across both kinds: one row each, the cursor keeps its place.
    std::vector<std::string> ids;
    std::string cursor;
    for (int i = 0; i < 4; ++i) {
      auto args = std::string{R"({"kind":"all","limit":1)"}
                  + (cursor.empty() ? "" : R"(,"cursor":")" + cursor + "\"")
                  + "}";
      auto page = alice.ok("time_session_list", args);
      for (const auto& s : page["sessions"].GetArray())
        ids.push_back(str(s["session_id"]));
      if (page["next_cursor"].IsNull())
        break;
      cursor = str(page["next_cursor"]);
    }
    CHECK(ids == std::vector<std::string>{second, first, tracking});

    // Bob sees his own focus session only, Alice never sees his.
    auto b = bob.ok("time_session_list", R"({"kind":"all"})");
    REQUIRE(b["sessions"].Size() == 1);
    CHECK(str(b["sessions"][0]["session_id"]) == bobs);
    for (const auto& s : all["sessions"].GetArray())
      CHECK(str(s["session_id"]) != bobs);
  }

  SECTION("a restart keeps them listed") {
    journaled again{clock, *store, "alice"};
    auto all = again.ok("time_session_list", R"({"kind":"focus"})");
    CHECK(all["sessions"].Size() == 2);
  }

  SECTION("time_stats counts focus time per day and in total") {
    auto st = alice.ok("time_stats", R"({"group_by":"day","from":"2026-03-01",)"
                                     R"("to":"2026-03-05","timezone":"UTC"})");
    REQUIRE(st["groups"].Size() == 2);
    CHECK(str(st["groups"][0]["key"]) == "2026-03-02");
    CHECK(st["groups"][0]["session_count"].GetInt64() == 1);
    CHECK(st["groups"][0]["focus_session_count"].GetInt64() == 1);
    CHECK(st["groups"][0]["focus_time_ms"].GetInt64() == 30 * 60'000);
    // A day with only a focus session gets a group of its own.
    CHECK(str(st["groups"][1]["key"]) == "2026-03-03");
    CHECK(st["groups"][1]["session_count"].GetInt64() == 0);
    CHECK(st["groups"][1]["focus_session_count"].GetInt64() == 1);
    CHECK(st["groups"][1]["focus_time_ms"].GetInt64() == 5 * 60'000);
    CHECK(st["totals"]["session_count"].GetInt64() == 1);
    CHECK(st["totals"]["focus_session_count"].GetInt64() == 2);
    CHECK(st["totals"]["focus_time_ms"].GetInt64() == 35 * 60'000);
    // By milestone: the totals only.
    auto by_ms = alice.ok("time_stats",
                          R"({"group_by":"milestone","from":"2026-03-01"})");
    REQUIRE(by_ms["groups"].Size() == 1);
    CHECK(by_ms["groups"][0]["focus_session_count"].GetInt64() == 0);
    CHECK(by_ms["totals"]["focus_session_count"].GetInt64() == 2);
    auto b = bob.ok("time_stats",
                    R"({"from":"2026-03-01","to":"2026-03-05"})");
    CHECK(b["totals"]["focus_session_count"].GetInt64() == 1);
    CHECK(b["totals"]["session_count"].GetInt64() == 0);
  }

  SECTION("time_session_report renders a focus session by its id") {
    auto md = alice.ok("time_session_report",
                       R"({"session_id":")" + first + R"(","timezone":"UTC"})");
    CHECK(str(md["session_id"]) == first);
    CHECK(str(md["status"]) == "ended");
    CHECK(str(md["report"]).find("draft the plan") != std::string::npos);
    auto json = alice.ok("time_session_report",
                         R"({"session_id":")" + second
                           + R"(","format":"json"})");
    CHECK(str(json["status"]) == "active");
    auto doc = parse(str(json["report"]));
    CHECK(doc.IsObject());
    // Another principal's focus session: not found, exactly as a stranger's
    // tracking session; the error never quotes the intent.
    auto res = bob.run(tools_call("time_session_report",
                                  R"({"session_id":")" + first + R"("})",
                                  "99"));
    auto r = check_tool_result(res["result"], *bob.registry,
                               "time_session_report");
    REQUIRE(r.is_error);
    CHECK(str(r.sc["error_code"]) == "SESSION_NOT_FOUND");
    CHECK(to_json(r.sc).find("draft") == std::string::npos);
    // A tracking session still reports as before.
    auto t = alice.ok("time_session_report",
                      R"({"session_id":")" + tracking + R"("})");
    CHECK(str(t["report"]).find("M1") != std::string::npos);
  }

  SECTION("a tracking tool given a focus id says what it is (issue 29)") {
    for (auto [tool, more] :
         {std::pair{"time_session_summary", ""},
          std::pair{"time_task_start", R"(,"task_id":"a")"},
          std::pair{"time_undo", ""}}) {
      INFO(tool);
      std::string args = R"({"session_id":")" + first + "\"" + more + "}";
      auto res = alice.run(tools_call(tool, args, "98"));
      auto r = check_tool_result(res["result"], *alice.registry, tool);
      REQUIRE(r.is_error);
      CHECK(str(r.sc["error_code"]) == "SESSION_NOT_FOUND");
      CHECK(str(r.sc["message"])
            == "'" + first
                 + "' is one of your focus sessions (mark_session_start), "
                   "not a tracking session: time_session_report reads it "
                   "by this id, get_time_context shows the open one and "
                   "mark_session_end ends it. This tool takes the "
                   "session_id that time_session_start returned.");
      // Bob's view of Alice's focus id: as of any unknown id.
      auto b = bob.run(tools_call(tool, args, "97"));
      auto rb = check_tool_result(b["result"], *bob.registry, tool);
      REQUIRE(rb.is_error);
      CHECK(str(rb.sc["message"])
            == "You have no tracking session '" + first
                 + "'; use the session_id that time_session_start "
                   "returned.");
    }
  }
}

TEST_CASE("focus sessions in history without a journal (--ephemeral)",
          "[focus][history]") {
  auto clock = std::make_shared<domain::fake_clock>(march(2, 9));
  auto board = std::make_shared<mcp::principal_board>();
  auto registry = tools::make_registry({}, {"all"});
  auto make = [&](std::string principal) {
    mcp::session_config cfg{
      registry, clock, "UTC",
      {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", "instructions"},
      domain::tracking_limits{}};
    cfg.principal = std::move(principal);
    cfg.board = board;
    return cfg;
  };
  mcp::session alice{make("alice")};
  mcp::session bob{make("bob")};
  int id = 1;
  auto call = [&](mcp::session& s, const std::string& tool,
                  const std::string& args) {
    if (id == 1) {
      s.handle(mcp::decode(initialize_request("2025-11-25")));
    }
    auto step = s.handle(mcp::decode(tools_call(tool, args,
                                                std::to_string(++id))));
    REQUIRE_FALSE(step.waiting());
    auto res = parse(step.output.response);
    INFO(to_json(res));
    auto r = check_tool_result(res["result"], *registry, tool);
    REQUIRE_FALSE(r.is_error);
    return std::move(r.sc);
  };
  bob.handle(mcp::decode(initialize_request("2025-11-25")));
  auto first = str(call(alice, "mark_session_start",
                        R"({"intent":"write tests"})")["session_id"]);
  clock->advance(20min);
  call(alice, "mark_session_end", "{}");
  call(bob, "mark_session_start", R"({"intent":"other"})");

  auto list = call(alice, "time_session_list", R"({"kind":"all"})");
  REQUIRE(list["sessions"].Size() == 1);
  CHECK(str(list["sessions"][0]["session_id"]) == first);
  CHECK(str(list["sessions"][0]["kind"]) == "focus");
  CHECK(list["sessions"][0]["total_duration_ms"].GetInt64() == 20 * 60'000);
  auto st = call(alice, "time_stats", R"({"group_by":"week"})");
  CHECK(st["totals"]["focus_session_count"].GetInt64() == 1);
  CHECK(st["totals"]["focus_time_ms"].GetInt64() == 20 * 60'000);
  auto rep = call(alice, "time_session_report",
                  R"({"session_id":")" + first + R"(","format":"csv"})");
  CHECK(str(rep["report"]).find("write tests") != std::string::npos);
}

TEST_CASE("merged_rows: newest first across kinds, more when either has more",
          "[focus][history]") {
  domain::history_page page;
  domain::history_row t;
  t.session_id = "b";
  t.start = march(2, 10);
  page.rows.push_back(t);
  domain::focus_row f;
  f.session_id = "a";
  f.start = march(2, 10); // same start: the larger id first
  page.focus.push_back(f);
  f.session_id = "c";
  f.start = march(2, 8);
  page.focus.push_back(f);
  bool more = false;
  auto rows = domain::merged_rows(page, 2, more);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id() == "b");
  CHECK(rows[1].id() == "a");
  CHECK(more);
  rows = domain::merged_rows(page, 3, more);
  CHECK(rows.size() == 3);
  CHECK_FALSE(more);
  page.focus_more = true;
  domain::merged_rows(page, 3, more);
  CHECK(more);
}

TEST_CASE("a call without its zone reuses the preferences read within "
          "prefs_cache_ttl, the client's own change shows at once",
          "[focus][preferences]") {
  test::temp_dir dir;
  auto store = open_store(dir.data());
  auto clock = std::make_shared<domain::fake_clock>(march(2, 9));
  journaled a{clock, *store, "alice"};
  journaled other{clock, *store, "alice"}; // another window or server
  auto zone_of = [&](journaled& c) {
    return str(c.ok("time_get_current", "{}")["timezone"]);
  };
  CHECK(zone_of(a) == "America/New_York"); // the server's zone
  CHECK(a.principal_ops == 1);
  CHECK(zone_of(a) == "America/New_York");
  CHECK(a.principal_ops == 1); // cached: no journal wait
  a.ok("time_preferences_set", R"({"timezone":"Asia/Tokyo"})");
  CHECK(a.principal_ops == 2);
  CHECK(zone_of(a) == "Asia/Tokyo"); // its own change, at once
  CHECK(a.principal_ops == 2);
  // Another client's change shows once the cache expired.
  other.ok("time_preferences_set", R"({"timezone":"Europe/Berlin"})");
  clock->advance(std::chrono::seconds{4});
  CHECK(zone_of(a) == "Asia/Tokyo");
  clock->advance(mcp::prefs_cache_ttl);
  CHECK(zone_of(a) == "Europe/Berlin");
  CHECK(a.principal_ops == 3);
  // A call naming its zone reads nothing.
  a.ok("time_get_current", R"({"timezone":"UTC"})");
  CHECK(a.principal_ops == 3);
}
