// Issue 17 in the session reports: estimates (per task and in total),
// pauses, notes and corrected runs, and the audit trail of a session with
// bulk edits and undos (Markdown and JSON), in every format (golden files
// tests/golden/report_edited.*; TTM_UPDATE_GOLDEN=1 rewrites them and
// fails: golden.hpp); a
// report without any of them keeps its old shape (report_test.cpp).

#include "reports/report.hpp"

#include "golden.hpp"
#include "session_client.hpp"

using namespace ttm;
using namespace ttm::reports;
using namespace std::chrono_literals;
using namespace ttm::test::session_client;
using ttm::test::check_golden;

namespace {

/// From 09:45:32.123 EST: a (estimate 5 min) runs 3 min around a 3-minute
/// pause and a note; b (10 min) ends by a correction after 8 min; c (no
/// estimate) fails after 2 min; d (3 min) never starts.
report_model edited_model(client& c) {
  auto sid = str(c.ok("time_session_start",
                      R"({"milestone_id":"M9","task_ids":["a","b","c","d"],
                          "estimates":{"a":"5","b":"PT10M","d":"3"}})")
                   ["session_id"]);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"start","task_id":"a"},
      {"op":"start","task_id":"b"}])"));
  c.clock->advance(2min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"pause","task_id":"a"},
      {"op":"note","task_id":"a","text":"waiting on review, \"CI\""}])"));
  c.clock->advance(3min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"resume","task_id":"a"}])"));
  c.clock->advance(1min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"end","task_id":"a"}])"));
  c.clock->advance(4min);
  c.ok("time_tasks_edit", edit_args(sid, R"([{"op":"correct","task_id":"b",
      "end_time":"2025-12-14T09:53:32.123-05:00","reason":"forgot to end it"},
      {"op":"start","task_id":"c"}])"));
  c.clock->advance(2min);
  c.ok("time_tasks_edit",
       edit_args(sid, R"([{"op":"end","task_id":"c","status":"failed"}])"));
  // A start taken back: the audit trail shows it, struck through.
  c.ok("time_task_start", R"({"session_id":")" + sid + R"(","task_id":"d"})");
  c.ok("time_undo", R"({"session_id":")" + sid + "\"}");
  c.ok("time_session_end", R"({"session_id":")" + sid + "\"}");
  const auto* s = c.state.tracker().find(sid);
  REQUIRE(s != nullptr);
  auto m = build_report(*s, domain::now_of(*c.clock), s->tz);
  m.session_id = "3f2b9c1e-0000-4000-8000-00000000000b"; // minted at random
  return m;
}

} // namespace

TEST_CASE("report: estimates, pauses, notes and corrections in every "
          "format (golden files)",
          "[report][issue17]") {
  client c;
  auto m = edited_model(c);
  REQUIRE(m.estimates.size() == 3);
  CHECK(m.estimates[0].actual == 3min);
  CHECK(m.estimates[0].difference() == -2min);
  CHECK(m.estimates[1].actual == 8min);
  CHECK(m.estimates[2].status == "not_started");
  CHECK(m.estimate_total == 18min);
  CHECK(m.estimate_actual == 11min);
  REQUIRE(m.runs.size() == 3);
  CHECK(m.runs[0].paused == 3min);
  CHECK(m.runs[0].pauses == 1);
  CHECK(m.runs[1].corrections.size() == 1);
  check_golden("report_edited.md", render_report(m, report_format::markdown));
  check_golden("report_edited.csv", render_report(m, report_format::csv));
  check_golden("report_edited.json", render_report(m, report_format::json));
  check_golden("report_edited.html", render_report(m, report_format::html));
}

TEST_CASE("report: a paused run's timeline spans its start to its end, the "
          "pause a gap (issue 29)",
          "[report][issue29]") {
  client c;
  auto m = edited_model(c);
  // a: 09:45:32 - 09:51:32 in the table, active 2 min, paused 3, active 1.
  const auto& a = m.runs[0];
  CHECK(a.offset_end - a.offset_start == 6min);
  REQUIRE(a.active.size() == 2);
  CHECK(a.active[0].from == 0min);
  CHECK(a.active[0].to == 2min);
  CHECK(a.active[1].from == 5min);
  CHECK(a.active[1].to == 6min);
  auto gantt = render_mermaid_gantt(m);
  CHECK(gantt.find("    a :done, run1, 2025-12-14 09:45:32, "
                   "2025-12-14 09:47:32\n")
        != std::string::npos);
  // The last bar of the run ends where the run ends.
  CHECK(gantt.find("    a (resumed) :done, run1_2, 2025-12-14 09:50:32, "
                   "2025-12-14 09:51:32\n")
        != std::string::npos);
  auto html = render_report(m, report_format::html);
  // The bar is 6 of the session's 12 minutes (464 wide chart from x=8,
  // svg_timeline.cpp), with a gap for the pause from minute 2 to 5.
  CHECK(html.find("data-task=\"a\" data-run=\"1\" data-status=\"completed\" ")
        != std::string::npos);
  CHECK(html.find("x=\"8.0\" y=\"40\" width=\"232.0\"") != std::string::npos);
  CHECK(html.find("<rect class=\"pause completed\" aria-hidden=\"true\" "
                  "x=\"85.3\" y=\"42.5\" width=\"116.0\"")
        != std::string::npos);
  CHECK(html.find("9:45:32 AM – 9:51:32 AM, 3m, paused 3m")
        != std::string::npos);
}
