// time_session_list through mcp::session on a fake clock (issue 16): the
// rows and filters, keyset pages stable while sessions start, argument
// errors, and the query path: --ephemeral (the sessions a client holds)
// and the journal (a real SQLite store, two principals, a second server).

#include "journaled_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

std::vector<std::string> ids_of(const rapidjson::Value& sc) {
  std::vector<std::string> out;
  for (const auto& r : sc["sessions"].GetArray())
    out.push_back(str(r["session_id"]));
  return out;
}

} // namespace

TEST_CASE("time_session_list: rows, filters and pages of the caller's "
          "sessions (--ephemeral)",
          "[session_list]") {
  client c;
  auto a = c.start_session(R"(["t1","t2"])", R"(,"milestone_name":"Alpha Release","tags":["backend"])");
  c.clock->advance(1min);
  auto b = c.start_session(R"(["t3"])", R"(,"tags":["backend","urgent"])");
  c.clock->advance(1min);
  auto d = c.start_session(R"(["parse-input"])");
  c.ok("time_task_start", R"({"session_id":")" + a + R"(","task_id":"t1","task_name":"Write Parser"})");
  c.clock->advance(30s);
  c.ok("time_task_end", R"({"session_id":")" + a + R"(","task_id":"t1"})");
  c.ok("time_session_end", R"({"session_id":")" + a + R"("})");
  c.clock->advance(90s);

  auto all = c.ok("time_session_list", "{}");
  CHECK(ids_of(all) == std::vector<std::string>{d, b, a});
  CHECK(all["next_cursor"].IsNull());
  CHECK(str(all["timezone"]) == "America/New_York");
  const auto& ra = all["sessions"][2];
  CHECK(str(ra["milestone_id"]) == "M2");
  CHECK(str(ra["milestone_name"]) == "Alpha Release");
  CHECK(str(ra["status"]) == "ended");
  CHECK(str(ra["start_time"]) == "2025-12-14T09:45:32.123-05:00");
  CHECK(str(ra["end_time"]) == "2025-12-14T09:48:02.123-05:00");
  CHECK(integer(ra["total_duration_ms"]) == 150'000);
  CHECK(integer(ra["tasks_completed"]) == 1);
  CHECK(integer(ra["task_count"]) == 2);
  CHECK(strings(ra["tags"]) == std::vector<std::string>{"backend"});
  const auto& rd = all["sessions"][0];
  CHECK(str(rd["status"]) == "active");
  CHECK(rd["end_time"].IsNull());
  CHECK(integer(rd["total_duration_ms"]) == 120'000); // so far
  CHECK(rd["milestone_name"].IsNull());

  auto ids = [&](const std::string& args) {
    return ids_of(c.ok("time_session_list", args));
  };
  using v = std::vector<std::string>;
  CHECK(ids(R"({"status":"active"})") == v{d, b});
  CHECK(ids(R"({"status":"ended"})") == v{a});
  CHECK(ids(R"({"status":"expired"})").empty());
  CHECK(ids(R"({"tags":["backend"]})") == v{b, a});
  CHECK(ids(R"({"tags":["backend","urgent"]})") == v{b});
  CHECK(ids(R"({"text":"PARSE"})") == v{d, a}); // a task id; a task name
  CHECK(ids(R"({"text":"alpha"})") == v{a});
  CHECK(ids(R"({"milestone_id":"M2"})") == v{d, b, a});
  CHECK(ids(R"({"milestone_id":"M3"})").empty());
  CHECK(ids(R"({"started_after":"2025-12-14T09:46:32-05:00"})") == v{d, b});
  CHECK(ids(R"({"started_before":"2025-12-14T14:46:32Z"})") == v{a});
  CHECK(ids(R"({"started_after":"2025-12-14","timezone":"UTC"})")
        == v{d, b, a});

  // Pages: a session started between them does not move the next page.
  auto p1 = c.ok("time_session_list", R"({"limit":2})");
  CHECK(ids_of(p1) == v{d, b});
  REQUIRE(p1["next_cursor"].IsString());
  c.clock->advance(1min);
  auto e = c.start_session(R"(["x"])");
  auto p2 = c.ok("time_session_list", R"({"limit":2,"cursor":")"
                                         + str(p1["next_cursor"]) + "\"}");
  CHECK(ids_of(p2) == v{a});
  CHECK(p2["next_cursor"].IsNull());
  CHECK(ids(R"({"limit":1})") == v{e});

  // Another client (another principal's, or this one's after its end
  // without a journal) has none of them.
  client other;
  CHECK(ids_of(other.ok("time_session_list", "{}")).empty());
}

TEST_CASE("time_session_list: bad arguments are refused, naming the field",
          "[session_list]") {
  client c;
  auto msg = [&](const std::string& args, const std::string& code) {
    return str(c.fails("time_session_list", args, code)["message"]);
  };
  CHECK_THAT(msg(R"({"limit":0})", "VALIDATION_ERROR"),
             Catch::Contains("limit: 0 is out of range"));
  CHECK_THAT(msg(R"({"limit":101})", "VALIDATION_ERROR"),
             Catch::Contains("1 to 100"));
  CHECK_THAT(msg(R"({"cursor":"bm9wZQ"})", "VALIDATION_ERROR"),
             Catch::Contains("cursor: not a cursor"));
  CHECK_THAT(msg(R"({"cursor":"!!"})", "VALIDATION_ERROR"),
             Catch::Contains("cursor:"));
  CHECK_THAT(msg(R"({"started_after":"yesterday-ish"})", "VALIDATION_ERROR"),
             Catch::Contains("started_after:"));
  CHECK_THAT(msg(R"({"started_after":"2025-12-14","started_before":"2025-12-13"})",
                 "VALIDATION_ERROR"),
             Catch::Contains("started_before"));
  CHECK_THAT(msg(R"({"timezone":"Mars/Olympus"})", "INVALID_TIMEZONE"),
             Catch::Contains("timezone:"));
  // Schema-level: an unknown status never reaches the handler.
  auto res = c.rpc(c.call_json("time_session_list", R"({"status":"done"})"));
  CHECK(res["result"]["isError"].GetBool());
  CHECK(str(res["result"]["structuredContent"]["error_code"])
        == "VALIDATION_ERROR");
}

TEST_CASE("time_session_list: with a journal the query pauses the frame and "
          "lists every session of the principal, from any server",
          "[session_list][journal]") {
  test::temp_dir tmp;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  auto store1 = open_store(tmp.data());
  auto store2 = open_store(tmp.data()); // another server on the directory
  journaled alice{clock, *store1, "alice"};
  journaled bob{clock, *store1, "bob"};
  auto s1 = str(alice.ok("time_session_start",
                         R"({"milestone_id":"M1","task_ids":["a","b"]})")
                  ["session_id"]);
  clock->advance(1min);
  alice.ok("time_task_start", R"({"session_id":")" + s1 + R"(","task_id":"a"})");
  alice.ok("time_task_end", R"({"session_id":")" + s1 + R"(","task_id":"a"})");
  clock->advance(1min);
  auto s2 = str(alice.ok("time_session_start",
                         R"({"milestone_id":"M2","task_ids":["c"]})")
                  ["session_id"]);
  alice.ok("time_session_end", R"({"session_id":")" + s2 + R"("})");
  bob.ok("time_session_start", R"({"milestone_id":"B","task_ids":["z"]})");

  auto page = alice.ok("time_session_list", "{}");
  CHECK(alice.history_queries == 1);
  CHECK(ids_of(page) == std::vector<std::string>{s2, s1});
  CHECK(str(page["sessions"][0]["status"]) == "ended");
  CHECK(str(page["sessions"][1]["status"]) == "active");
  CHECK(integer(page["sessions"][1]["tasks_completed"]) == 1); // live state
  CHECK(integer(page["sessions"][1]["task_count"]) == 2);

  // Alice through another server (a reconnect, a restart, another editor
  // window) finds the same; bob only his own.
  journaled alice_elsewhere{clock, *store2, "alice"};
  CHECK(ids_of(alice_elsewhere.ok("time_session_list", "{}"))
        == std::vector<std::string>{s2, s1});
  CHECK(ids_of(bob.ok("time_session_list", "{}")).size() == 1);
  CHECK(ids_of(bob.ok("time_session_list", R"({"milestone_id":"M1"})"))
          .empty());
  // A listed id is one its owner can name there.
  auto sum = alice_elsewhere.ok("time_session_summary",
                                R"({"session_id":")" + s1 + "\"}");
  CHECK(integer(sum["tasks_completed"]) == 1);
}

TEST_CASE("time_session_list: an ended session outlives the age and idle "
          "limits in the journal: summary and report answer, before and "
          "after the sweep, here and through another server",
          "[session_list][journal]") {
  test::temp_dir tmp;
  auto clock = std::make_shared<domain::fake_clock>(example_start());
  auto store1 = open_store(tmp.data());
  auto store2 = open_store(tmp.data());
  journaled alice{clock, *store1, "alice"};
  auto s1 = str(alice.ok("time_session_start",
                         R"({"milestone_id":"M1","task_ids":["a"]})")
                  ["session_id"]);
  alice.ok("time_task_start", R"({"session_id":")" + s1 + R"(","task_id":"a"})");
  clock->advance(10min);
  alice.ok("time_task_end", R"({"session_id":")" + s1 + R"(","task_id":"a"})");
  alice.ok("time_session_end", R"({"session_id":")" + s1 + R"("})");
  // Past both limits (1 day of age, 4 hours idle by default).
  clock->advance(std::chrono::hours{24 * 40});
  auto args = R"({"session_id":")" + s1 + R"("})";
  CHECK(integer(alice.ok("time_session_summary", args)["tasks_completed"])
        == 1);
  // The sweep trims it from memory without calling it expired.
  auto gone = alice.state.expire_due();
  CHECK(gone == std::vector<std::string>{s1});
  CHECK_FALSE(alice.state.tracker().remembers_expired(s1));
  auto report = alice.ok("time_session_report", args);
  CHECK(str(report["status"]) == "ended");
  journaled elsewhere{clock, *store2, "alice"};
  CHECK(integer(elsewhere.ok("time_session_summary", args)["tasks_completed"])
        == 1);
  // An open session past its limits still expires, as before.
  auto s2 = str(alice.ok("time_session_start",
                         R"({"milestone_id":"M2","task_ids":["b"]})")
                  ["session_id"]);
  clock->advance(std::chrono::hours{25});
  auto res = alice.run(tools_call("time_session_summary",
                                  R"({"session_id":")" + s2 + R"("})", "99"));
  auto r = check_tool_result(res["result"], *alice.registry,
                             "time_session_summary");
  CHECK(r.is_error);
  CHECK(str(r.sc["error_code"]) == "SESSION_EXPIRED");
}
