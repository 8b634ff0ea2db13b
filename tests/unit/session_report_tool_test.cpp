// time_session_report through the MCP session on a fake clock (results
// checked against the output schema): active and ended sessions, every
// format, the timezone argument, refusals that change nothing. Rendering
// details are in report_test.cpp; ownership in session_tools_test.cpp.

#include "session_client.hpp"

using namespace ttm;
using namespace ttm::test::session_client;

namespace {

bool has(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("time_session_report: an active session as of now, then ended",
          "[session_report]") {
  client c;
  auto sid = c.start_session(R"(["M2-001","M2-002"])",
                             R"(,"milestone_name":"Commit + Lifecycle")");
  c.ok("time_task_start",
       task_args(sid, "M2-001", R"(,"task_name":"Create model")"));
  c.clock->advance(73s);
  auto md = c.ok("time_session_report", session_args(sid));
  CHECK(str(md["format"]) == "markdown");
  CHECK(str(md["mime_type"]) == "text/markdown; charset=utf-8");
  CHECK(str(md["status"]) == "active");
  CHECK(str(md["timezone"]) == "America/New_York");
  CHECK(str(md["session_id"]) == sid);
  auto text = str(md["report"]);
  CHECK(text.rfind(
          "# Milestone M2 Execution Report: Commit + Lifecycle\n"
          "**Execution Date:** December 14, 2025\n"
          "**Start Time:** 9:45:32 AM EST\n"
          "**End Time:** still running (report as of 9:46:45 AM EST)\n"
          "**Actual Duration:** 1 minute 13 seconds so far\n",
          0)
        == 0);
  CHECK(has(text, "| M2-001 | Create model | 9:45:32 AM | running | 1m 13s |"));
  CHECK(has(text, "```mermaid\ngantt\n"));
  // Read-only: the session is as it was (the task still runs).
  auto summary = c.ok("time_session_summary", session_args(sid));
  CHECK(integer(summary["tasks_in_progress"]) == 1);
  CHECK(str(summary["status"]) == "active");

  c.ok("time_session_end", session_args(sid));
  auto ended = c.ok("time_session_report",
                    session_args(sid, R"(,"include_gantt":false)"));
  CHECK(str(ended["status"]) == "ended");
  CHECK(has(str(ended["report"]), "**End Time:** 9:46:45 AM EST\n"));
  CHECK(has(str(ended["report"]), "\xE2\x9A\xA0\xEF\xB8\x8F interrupted"));
  CHECK_FALSE(has(str(ended["report"]), "mermaid"));
}

TEST_CASE("time_session_report: every format, and another zone",
          "[session_report]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  c.ok("time_task_start", task_args(sid, "a"));
  c.clock->advance(2s);
  c.ok("time_task_end", task_args(sid, "a"));

  auto csv = c.ok("time_session_report",
                  session_args(sid, R"(,"format":"csv")"));
  CHECK(str(csv["mime_type"]) == "text/csv; charset=utf-8; header=present");
  CHECK(str(csv["report"]).rfind("session_id,milestone_id,task_id,", 0) == 0);

  auto json = c.ok("time_session_report",
                   session_args(sid, R"(,"format":"json","timezone":"UTC")"));
  CHECK(str(json["mime_type"]) == "application/json");
  CHECK(str(json["timezone"]) == "UTC");
  auto doc = parse(str(json["report"]));
  CHECK(integer(doc["version"]) == 1);
  CHECK(str(doc["session"]["start_time"]) == "2025-12-14T14:45:32.123+00:00");
  CHECK(doc["runs"].Size() == 1);
  CHECK(integer(doc["runs"][0]["duration_ms"]) == 2000);

  auto html = c.ok("time_session_report",
                   session_args(sid, R"(,"format":"html",)"
                                     R"("timezone":"Tokyo Standard Time")"));
  CHECK(str(html["timezone"]) == "Asia/Tokyo");
  CHECK(str(html["report"]).rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(has(str(html["report"]), "11:45:32 PM JST"));
}

TEST_CASE("time_session_report: bad arguments are refused, naming them",
          "[session_report]") {
  client c;
  auto sid = c.start_session(R"(["a"])");
  auto zone = c.fails("time_session_report",
                      session_args(sid, R"(,"timezone":"America/NewYork")"),
                      "INVALID_TIMEZONE");
  CHECK(has(str(zone["message"]), "timezone"));
  c.fails("time_session_report", session_args(sid, R"(,"format":"pdf")"),
          "VALIDATION_ERROR");
  c.fails("time_session_report",
          session_args("0f0e0d0c-0b0a-4908-8706-050403020100"),
          "SESSION_NOT_FOUND");
  // None of it touched the session.
  CHECK(integer(c.ok("time_session_summary", session_args(sid))
                  ["tasks_not_started"])
        == 1);
}
