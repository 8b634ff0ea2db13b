// Issue 19: the chronometric tools, per-principal preferences and toolsets,
// through mcp::session on a fake clock, in memory (--ephemeral) and on a
// SQLite journal (a restart keeps both).

#include "domain/preferences.hpp"
#include "journaled_client.hpp"
#include "tools/toolsets.hpp"
#include "tools_snapshot.hpp"

#include <algorithm>
#include <variant>

namespace {

using namespace ttm;
using namespace ttm::test::session_client;
using namespace std::chrono_literals;

const std::string pv_key = "io.modelcontextprotocol/protocolVersion";
const std::string caps_key = "io.modelcontextprotocol/clientCapabilities";

/// One client of `principal`: its session shares the clock and the board
/// (one server) and, when given, a journal store.
struct principal_client {
  std::shared_ptr<domain::fake_clock> clock;
  tools::registry_ptr registry;
  storage::store* store;
  mcp::session state;
  int next_id = 1;

  principal_client(std::shared_ptr<domain::fake_clock> c,
                   std::shared_ptr<mcp::principal_board> board,
                   std::string principal, storage::store* st = nullptr,
                   std::vector<std::string> sets = {"all"},
                   std::string revision = "2025-11-25",
                   domain::preferences defaults = {})
    : clock(std::move(c)),
      registry(tools::make_registry({}, std::move(sets))),
      store(st),
      state([&] {
        mcp::session_config cfg{
          registry, clock, "America/New_York",
          {"time-tracker-mcp", "Time Tracker MCP", "0.1.0", "instructions"},
          domain::tracking_limits{}};
        cfg.journal = st != nullptr;
        cfg.principal = std::move(principal);
        cfg.board = std::move(board);
        cfg.defaults = std::move(defaults);
        return cfg;
      }()) {
    if (!revision.empty())
      run(initialize_request(revision));
  }

  rapidjson::Document run(const std::string& json) {
    auto step = state.handle(mcp::decode(json));
    for (;;) {
      if (!step.slot_for().empty()) {
        step = state.resume(true);
      } else if (!step.journal().empty()) {
        REQUIRE(store != nullptr);
        REQUIRE(std::holds_alternative<storage::ok>(store->append(step.journal())));
        step = state.resume_journal({storage::append_answer::stored, {}});
      } else if (step.principal()) {
        REQUIRE(store != nullptr);
        auto r = store->principal(*step.principal());
        auto* e = std::get_if<storage::error>(&r);
        step = e ? state.resume_principal({}, e->message)
                 : state.resume_principal(
                   std::get<storage::principal_state>(r), "");
      } else if (step.claim()) {
        auto r = store->claim(*step.claim());
        auto* e = std::get_if<storage::error>(&r);
        step = e ? state.resume_claim({}, e->message)
                 : state.resume_claim(std::get<storage::claim_result>(r), "");
      } else {
        REQUIRE_FALSE(step.waiting());
        break;
      }
    }
    REQUIRE_FALSE(step.output.response.empty());
    return parse(step.output.response);
  }

  reply call(const std::string& tool, const std::string& args) {
    auto res = run(tools_call(tool, args, std::to_string(next_id++)));
    INFO(tool << " " << args << " -> " << to_json(res));
    REQUIRE(res.HasMember("result"));
    return check_tool_result(res["result"], *registry, tool);
  }

  rapidjson::Document ok(const std::string& tool, const std::string& args) {
    auto r = call(tool, args);
    INFO(tool << " " << args << " -> " << to_json(r.sc));
    REQUIRE_FALSE(r.is_error);
    return std::move(r.sc);
  }

  rapidjson::Document fails(const std::string& tool, const std::string& args,
                            const std::string& code) {
    auto r = call(tool, args);
    INFO(tool << " " << args << " -> " << to_json(r.sc));
    REQUIRE(r.is_error);
    CHECK(str(r.sc["error_code"]) == code);
    return std::move(r.sc);
  }
};

domain::wall_time at_utc(int h, int m) {
  return date::sys_days{date::year{2026} / 3 / 2} + std::chrono::hours{h}
         + std::chrono::minutes{m};
}

std::shared_ptr<domain::fake_clock> clock_at(domain::wall_time t) {
  return std::make_shared<domain::fake_clock>(t);
}

std::string level_of(principal_client& c, int threshold) {
  auto r = c.ok("request_break_if_needed",
                R"({"threshold_minutes":)" + std::to_string(threshold) + "}");
  REQUIRE(r.HasMember("result")); // 2025: the SEP-2106 wrap
  if (r["result"].IsNull())
    return "null";
  return str(r["result"]["level"]);
}

} // namespace

TEST_CASE("chronometric: the ladder and end-of-day rules", "[issue19]") {
  domain::preferences p;
  CHECK(domain::ladder_rung(p, 30min, false) == 0); // the caller's threshold
  CHECK(domain::ladder_rung(p, 60min, false) == 0);
  CHECK(domain::ladder_rung(p, 89min, false) == 0);
  CHECK(domain::ladder_rung(p, 90min, false) == 1);
  CHECK(domain::ladder_rung(p, 120min, false) == 2);
  CHECK(domain::ladder_rung(p, 60min, true) == 1);
  CHECK(domain::ladder_rung(p, 90min, true) == 2);
  CHECK(domain::ladder_rung(p, 200min, true) == 2);
  p.break_ladder = {10, 20, 30};
  CHECK(domain::ladder_rung(p, 25min, false) == 1);
  CHECK_FALSE(domain::after_end_of_day(p, 23 * 60));
  p.end_of_day_local = 18 * 60;
  CHECK_FALSE(domain::after_end_of_day(p, 17 * 60 + 59));
  CHECK(domain::after_end_of_day(p, 18 * 60));
  CHECK(domain::energy_zone_at(p, 0) == "night_owl_caution");
  CHECK(domain::energy_zone_at(p, 5 * 60 + 59) == "night_owl_caution");
  CHECK(domain::energy_zone_at(p, 6 * 60) == "morning_peak");
  CHECK(domain::energy_zone_at(p, 12 * 60) == "midday");
  CHECK(domain::energy_zone_at(p, 14 * 60) == "afternoon_dip");
  CHECK(domain::energy_zone_at(p, 17 * 60) == "evening_quiet");
  CHECK(domain::energy_zone_at(p, 22 * 60) == "night_owl_caution");
}

TEST_CASE("chronometric: request_break_if_needed climbs the ladder on a fake "
          "clock, one rung harder after end_of_day_local",
          "[issue19]") {
  // 08:00 in New York (the server's zone: no preference set).
  auto clock = clock_at(at_utc(13, 0));
  auto board = std::make_shared<mcp::principal_board>();
  principal_client c{clock, board, "alice"};
  CHECK(level_of(c, 30) == "null"); // no focus session
  c.fails("request_break_if_needed", R"({"threshold_minutes":0})",
          "INVALID_THRESHOLD");
  c.fails("request_break_if_needed", R"({"threshold_minutes":-5})",
          "INVALID_THRESHOLD");
  const std::string intent = "draft the \"migration\" plan, nothing else ✓";
  c.ok("mark_session_start", R"({"intent":"draft the \"migration\" plan, nothing else ✓"})");
  clock->advance(29min);
  CHECK(level_of(c, 30) == "null");
  clock->advance(1min);
  // The document must outlive `due`, which points into it.
  auto due_doc = c.ok("request_break_if_needed", R"({"threshold_minutes":30})");
  const auto& due = due_doc["result"];
  CHECK(str(due["level"]) == "gentle");
  CHECK(str(due["prior_intent"]) == intent); // verbatim
  CHECK(str(due["elapsed_iso"]) == "PT30M");
  CHECK(str(due["elapsed"]) == "30 minutes");
  CHECK(due["elapsed_ms"].GetInt64() == 30 * 60'000);
  CHECK_FALSE(due["error"].GetBool());
  CHECK(str(due["suggested_action"]) == "check_intent");
  CHECK(level_of(c, 120) == "null"); // the caller's threshold decides
  clock->advance(60min);
  CHECK(level_of(c, 30) == "nudge");
  clock->advance(30min);
  auto hard_doc = c.ok("request_break_if_needed", R"({"threshold_minutes":30})");
  const auto& hard = hard_doc["result"];
  CHECK(str(hard["level"]) == "hard");
  CHECK(str(hard["suggested_action"]) == "wrap_up");
  // A new session at 10:00; end of day 10:30 local.
  c.ok("time_preferences_set", R"({"end_of_day_local":"10:30"})");
  c.ok("mark_session_start", R"({"intent":"second"})");
  clock->advance(29min);
  CHECK(level_of(c, 20) == "gentle"); // 10:29: not yet
  clock->advance(2min);
  CHECK(level_of(c, 20) == "nudge"); // 10:31, 31 min: gentle + 1
  clock->advance(59min);
  CHECK(level_of(c, 20) == "hard"); // 90 min: nudge + 1
  c.ok("time_preferences_set", R"({"break_ladder":[100,110,200]})");
  CHECK(level_of(c, 20) == "nudge"); // 90 min < 100: gentle + 1
}

TEST_CASE("chronometric: focus sessions, time context and idle status",
          "[issue19]") {
  auto clock = clock_at(at_utc(13, 0)); // 08:00 New York
  auto board = std::make_shared<mcp::principal_board>();
  principal_client c{clock, board, "alice"};
  auto ctx = c.ok("get_time_context", "{}");
  CHECK(str(ctx["now"]) == "2026-03-02T08:00:00.000-05:00");
  CHECK(str(ctx["day_of_week"]) == "Monday");
  CHECK(ctx["time_since_last_prompt"].IsNull());
  CHECK(ctx["current_session_length"].IsNull());
  CHECK(str(ctx["energy_zone"]) == "morning_peak");
  c.fails("mark_session_end", "{}", "NO_OPEN_SESSION");
  clock->advance(5min);
  auto first = c.ok("mark_session_start", R"({"intent":"one"})");
  CHECK(is_uuid_v4(str(first["session_id"])));
  CHECK(str(first["start_time"]) == "2026-03-02T08:05:00.000-05:00");
  CHECK_FALSE(first["error"].GetBool());
  CHECK_FALSE(first.HasMember("auto_closed_prior_session"));
  clock->advance(45min);
  ctx = c.ok("get_time_context", "{}");
  CHECK(str(ctx["current_session_length_iso"]) == "PT45M");
  CHECK(str(ctx["current_session_length"]) == "45 minutes");
  CHECK(ctx["current_session_length_ms"].GetInt64() == 45 * 60'000);
  CHECK(str(ctx["time_since_last_prompt_iso"]) == "PT45M");
  CHECK(ctx["time_since_last_prompt_ms"].GetInt64() == 45 * 60'000);
  auto second = c.ok("mark_session_start", R"({"intent":"two"})");
  const auto& closed = second["auto_closed_prior_session"];
  CHECK(str(closed["session_id"]) == str(first["session_id"]));
  CHECK(str(closed["duration_iso"]) == "PT45M");
  CHECK(str(closed["duration"]) == "45 minutes");
  CHECK(closed["duration_ms"].GetInt64() == 45 * 60'000);
  CHECK(str(closed["start_time"]) == str(first["start_time"]));
  CHECK(str(closed["end_time"]) == "2026-03-02T08:50:00.000-05:00");
  // Policy 'error': refused, nothing changed, the intent in no error.
  c.ok("time_preferences_set", R"({"session_overlap_policy":"error"})");
  auto refused = c.fails("mark_session_start", R"({"intent":"secret words"})",
                         "SESSION_ALREADY_OPEN");
  CHECK(to_json(refused).find("secret") == std::string::npos);
  clock->advance(15min);
  auto end = c.ok("mark_session_end", R"({"summary":"done"})");
  CHECK(str(end["session_id"]) == str(second["session_id"]));
  CHECK(str(end["duration_iso"]) == "PT15M");
  CHECK(str(end["duration"]) == "15 minutes");
  CHECK(end["duration_ms"].GetInt64() == 15 * 60'000);
  CHECK(str(end["end_time"]) == "2026-03-02T09:05:00.000-05:00");
  c.fails("mark_session_end", "{}", "NO_OPEN_SESSION");
  // idle_status: consent first; a result, never an error.
  auto idle = c.ok("idle_status", "{}");
  CHECK_FALSE(idle["consent_granted"].GetBool());
  CHECK(str(idle["hyperfocus_signal"]) == "unknown");
  CHECK_FALSE(idle.HasMember("activity_idle_duration"));
  CHECK_FALSE(idle.HasMember("activity_idle_duration_ms"));
  CHECK_FALSE(idle.HasMember("activity_idle_duration_iso"));
  c.ok("time_preferences_set", R"({"idle_consent":true})");
  clock->advance(2min);
  idle = c.ok("idle_status", "{}");
  CHECK(idle["consent_granted"].GetBool());
  CHECK(str(idle["activity_source"]) == "mcp_requests");
  CHECK(str(idle["activity_idle_duration_iso"]) == "PT2M");
  CHECK(str(idle["activity_idle_duration"]) == "2 minutes");
  CHECK(idle["activity_idle_duration_ms"].GetInt64() == 2 * 60'000);
  CHECK(str(idle["hyperfocus_signal"]) == "active_here");
  clock->advance(20min);
  idle = c.ok("idle_status", "{}");
  CHECK(str(idle["hyperfocus_signal"]) == "idle_here");
}

TEST_CASE("chronometric: the null result is null in 2026-07-28 and "
          "{result: null} in 2025 (SEP-2106's wrap), each era listing its "
          "schema",
          "[issue19]") {
  auto clock = clock_at(at_utc(13, 0));
  auto board = std::make_shared<mcp::principal_board>();
  principal_client legacy{clock, board, "alice"};
  auto r = legacy.run(tools_call("request_break_if_needed",
                                 R"({"threshold_minutes":5})", "7"));
  CHECK(to_json(r["result"]["structuredContent"]) == R"({"result":null})");
  CHECK(str(r["result"]["content"][0]["text"]) == R"({"result":null})");
  auto schema_of = [&](principal_client& c, const std::string& list_json) {
    auto list = c.run(list_json);
    for (const auto& t : list["result"]["tools"].GetArray())
      if (str(t["name"]) == "request_break_if_needed")
        return to_json(t["outputSchema"]);
    FAIL("not listed");
    return std::string{};
  };
  auto legacy_schema = parse(schema_of(
    legacy, R"({"jsonrpc":"2.0","id":70,"method":"tools/list"})"));
  CHECK(str(legacy_schema["type"]) == "object");
  CHECK(str(legacy_schema["properties"]["result"]["anyOf"][0]["type"])
        == "null");
  principal_client modern{clock, board, "alice", nullptr, {"all"}, ""};
  auto meta = R"({")" + pv_key + R"(":"2026-07-28",")" + caps_key + R"(":{}})";
  auto m = modern.run(
    R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"request_break_if_needed","arguments":{"threshold_minutes":5},"_meta":)"
    + meta + "}}");
  INFO(to_json(m));
  auto modern_schema = parse(schema_of(
    modern, R"({"jsonrpc":"2.0","id":71,"method":"tools/list","params":{"_meta":)"
              + meta + "}}"));
  CHECK_FALSE(modern_schema.HasMember("type")); // a non-object root
  CHECK(str(modern_schema["anyOf"][0]["type"]) == "null");
  CHECK(modern_schema["anyOf"][1] == legacy_schema["properties"]["result"]["anyOf"][1]);
  CHECK(m["result"]["structuredContent"].IsNull());
  CHECK(str(m["result"]["content"][0]["text"]) == "null");
  CHECK_FALSE(m["result"]["isError"].GetBool());
  // Due: the same object in both eras.
  legacy.ok("mark_session_start", R"({"intent":"x"})");
  clock->advance(6min);
  auto due = modern.run(
    R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"request_break_if_needed","arguments":{"threshold_minutes":5},"_meta":)"
    + meta + "}}");
  CHECK(str(due["result"]["structuredContent"]["level"]) == "gentle");
}

TEST_CASE("preferences: validated partial updates, all or nothing, the "
          "principal's zone where timezone is omitted, two principals "
          "isolated",
          "[issue19]") {
  auto clock = clock_at(at_utc(13, 0));
  auto board = std::make_shared<mcp::principal_board>();
  principal_client alice{clock, board, "alice"};
  principal_client alice2{clock, board, "alice"}; // another window
  principal_client bob{clock, board, "bob"};
  auto p = alice.ok("time_preferences_get", "{}");
  CHECK(str(p["timezone"]) == "America/New_York"); // the server's zone
  CHECK(str(p["week_start"]) == "monday");
  CHECK(p["customized"].Empty());
  auto bad = alice.fails(
    "time_preferences_set",
    R"({"timezone":"Europe/Berln","week_start":"sunday","break_ladder":[90,60,120],"end_of_day_local":"25:00","energy_bands":{"midday":"12:00"}})",
    "VALIDATION_ERROR");
  auto msg = str(bad["message"]);
  for (const char* field : {"timezone:", "break_ladder:", "end_of_day_local:",
                            "energy_bands:", "Europe/Berlin"})
    CHECK(msg.find(field) != std::string::npos);
  // Nothing was applied, not even the valid week_start.
  CHECK(str(alice.ok("time_preferences_get", "{}")["week_start"]) == "monday");
  auto set = alice.ok("time_preferences_set",
                      R"({"timezone":"Tokyo Standard Time","week_start":"sunday"})");
  CHECK(str(set["timezone"]) == "Asia/Tokyo");
  CHECK(strings(set["customized"])
        == std::vector<std::string>{"timezone", "week_start"});
  // Omitted or 'local': the principal's zone, in every window of it.
  CHECK(str(alice2.ok("time_get_current", "{}")["timezone"]) == "Asia/Tokyo");
  CHECK(str(alice.ok("time_get_current", R"({"timezone":"local"})")["timezone"])
        == "Asia/Tokyo");
  CHECK(str(alice.ok("time_get_current", R"({"timezone":"UTC"})")["timezone"])
        == "UTC");
  CHECK(str(alice.ok("get_time_context", "{}")["now"])
        == "2026-03-02T22:00:00.000+09:00");
  // Bob sees none of it.
  CHECK(str(bob.ok("time_get_current", "{}")["timezone"]) == "America/New_York");
  CHECK(bob.ok("time_preferences_get", "{}")["customized"].Empty());
  alice.ok("mark_session_start", R"({"intent":"alice's"})");
  bob.fails("mark_session_end", "{}", "NO_OPEN_SESSION");
  CHECK(bob.ok("get_time_context", "{}")["current_session_length"].IsNull());
  CHECK(str(alice2.ok("get_time_context", "{}")["current_session_length_iso"])
        == "PT0S");
  // Reset: back to the server's default.
  auto reset = alice.ok("time_preferences_set", R"({"reset":["timezone"]})");
  CHECK(str(reset["timezone"]) == "America/New_York");
  CHECK(strings(reset["customized"]) == std::vector<std::string>{"week_start"});
  alice.fails("time_preferences_set",
              R"({"timezone":"UTC","reset":["timezone"]})", "VALIDATION_ERROR");
}

TEST_CASE("preferences: the caller's locale and week start stand in for "
          "omitted arguments",
          "[issue19]") {
  auto clock = clock_at(at_utc(13, 0)); // Monday 2026-03-02
  principal_client c{clock, std::make_shared<mcp::principal_board>(), "a"};
  auto week = [&](const std::string& extra) {
    return str(c.ok("time_convert",
                    R"({"time":"start of week","to_timezones":["UTC"])"
                      + extra + "}")["source"]["timestamp"]);
  };
  c.ok("time_preferences_set", R"({"week_start":"sunday","locale":"de-DE"})");
  CHECK(week(R"(,"from_timezone":"local")") == "2026-03-01T00:00:00.000-05:00");
  CHECK(week(R"(,"from_timezone":"local","week_start":"monday")")
        == "2026-03-02T00:00:00.000-05:00");
  CHECK(week(R"(,"from_timezone":"UTC")") == "2026-03-02T00:00:00.000+00:00");
  c.ok("time_preferences_set", R"({"timezone":"Europe/Berlin"})");
  auto friendly = [&](const std::string& extra) {
    return str(c.ok("time_get_current",
                    R"({"format":"friendly")" + extra + "}")["timestamp"]);
  };
  CHECK(friendly("") == "2. März 2026 um 14:00:00 CET");
  CHECK(friendly(R"(,"locale":"en-US")") == "March 2, 2026 2:00:00 PM CET");
  // A call naming its zone reads no preferences (it never waits for the
  // journal): the built-in defaults apply.
  CHECK(friendly(R"(,"timezone":"Europe/Berlin")")
        == "March 2, 2026 2:00:00 PM CET");
  CHECK(week(R"(,"from_timezone":"local")") == "2026-03-01T00:00:00.000+01:00");
}

TEST_CASE("preferences: server defaults from the config apply under the "
          "principal's own",
          "[issue19]") {
  domain::preferences defaults;
  defaults.timezone = "Europe/Berlin";
  defaults.idle_consent = true;
  auto clock = clock_at(at_utc(13, 0));
  principal_client c{clock, std::make_shared<mcp::principal_board>(), "a",
                     nullptr, {"all"}, "2025-11-25", defaults};
  CHECK(str(c.ok("time_get_current", "{}")["timezone"]) == "Europe/Berlin");
  CHECK(c.ok("idle_status", "{}")["consent_granted"].GetBool());
  c.ok("time_preferences_set", R"({"timezone":"UTC"})");
  CHECK(str(c.ok("time_get_current", "{}")["timezone"]) == "UTC");
}

TEST_CASE("preferences and focus sessions: in the journal, per principal, "
          "after a restart",
          "[issue19]") {
  ttm::test::temp_dir dir;
  auto clock = clock_at(at_utc(13, 0));
  std::string session_id;
  {
    auto store = open_store(dir.path().string());
    principal_client c{clock, std::make_shared<mcp::principal_board>(),
                       "alice", store.get()};
    c.ok("time_preferences_set",
         R"({"timezone":"Asia/Kolkata","session_overlap_policy":"error"})");
    session_id = str(c.ok("mark_session_start", R"({"intent":"kept"})")["session_id"]);
    c.fails("mark_session_start", R"({"intent":"no"})", "SESSION_ALREADY_OPEN");
    c.fails("time_preferences_set", R"({"locale":"xx-QQ-bad!"})",
            "VALIDATION_ERROR");
  }
  clock->advance(100min);
  auto store = open_store(dir.path().string());
  principal_client c{clock, std::make_shared<mcp::principal_board>(), "alice",
                     store.get()};
  principal_client bob{clock, std::make_shared<mcp::principal_board>(), "bob",
                       store.get()};
  auto p = c.ok("time_preferences_get", "{}");
  CHECK(str(p["timezone"]) == "Asia/Kolkata");
  CHECK(str(p["session_overlap_policy"]) == "error");
  CHECK(str(c.ok("time_get_current", "{}")["timezone"]) == "Asia/Kolkata");
  auto due_doc = c.ok("request_break_if_needed", R"({"threshold_minutes":60})");
  const auto& due = due_doc["result"];
  CHECK(str(due["prior_intent"]) == "kept");
  CHECK(str(due["level"]) == "nudge");
  bob.fails("mark_session_end", "{}", "NO_OPEN_SESSION");
  CHECK(str(bob.ok("time_get_current", "{}")["timezone"]) == "America/New_York");
  auto end = c.ok("mark_session_end", "{}");
  CHECK(str(end["session_id"]) == session_id);
  CHECK(str(end["duration_iso"]) == "PT1H40M");
  CHECK(str(end["duration"]) == "1 hour 40 minutes");
}

TEST_CASE("toolsets: parsing, the default set, listing and refusal",
          "[issue19]") {
  std::string error;
  CHECK(*tools::parse_toolsets("time, history", error)
        == std::vector<std::string>{"time", "history"});
  CHECK(tools::parse_toolsets("all", error)->size() == 6);
  CHECK(*tools::parse_toolsets("edit", error)
        == std::vector<std::string>{"edit"}); // accepted, empty for now
  CHECK_FALSE(tools::parse_toolsets("time,bogus", error));
  CHECK(error.find("bogus") != std::string::npos);
  CHECK(error.find("chronometric") != std::string::npos);
  CHECK(tools::make_registry()->toolsets()
        == std::vector<std::string>{"time", "tracking", "history",
                                    "chronometric"});
  // 'edit' alone: accepted, with a start-up warning (issue 29).
  CHECK(tools::toolsets_warnings({"time", "tracking", "edit"}).empty());
  CHECK(tools::toolsets_warnings({"time", "history"}).empty());
  auto warned = tools::toolsets_warnings({"edit"});
  REQUIRE(warned.size() == 1);
  CHECK(warned[0].find("'edit' without 'tracking'") != std::string::npos);
  auto clock = clock_at(at_utc(13, 0));
  principal_client c{clock, std::make_shared<mcp::principal_board>(), "a",
                     nullptr, {"time"}};
  auto list = c.run(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");
  std::vector<std::string> names;
  for (const auto& t : list["result"]["tools"].GetArray())
    names.push_back(str(t["name"]));
  // The 'time' toolset's tools (as their declarations say), in the order
  // of the reviewed snapshot: the clock, conversion and arithmetic.
  auto every_set = tools::make_registry({}, {"all"});
  std::vector<std::string> time_set;
  for (const auto& n : test::snapshot_tool_names("all"))
    if (every_set->toolset_of(n) == "time")
      time_set.push_back(n);
  CHECK(names == time_set);
  for (const char* n : {"time_get_current", "time_convert", "time_calculate"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  auto refused = c.run(tools_call("get_time_context", "{}", "4"));
  REQUIRE(refused.HasMember("error"));
  CHECK(refused["error"]["code"] == -32602);
  auto text = str(refused["error"]["message"]);
  CHECK(text.find("--toolsets") != std::string::npos);
  CHECK(text.find("chronometric") != std::string::npos);
  // A tool no set has: unknown, not "disabled".
  principal_client every{clock, std::make_shared<mcp::principal_board>(), "a"};
  auto missing = every.run(tools_call("time_redo", "{}", "5"));
  REQUIRE(missing.HasMember("error"));
  CHECK(str(missing["error"]["message"]).find("--toolsets") == std::string::npos);
  // With 'time' only, a zone-less call needs no preference tools.
  CHECK(str(c.ok("time_get_current", "{}")["timezone"]) == "America/New_York");
}
