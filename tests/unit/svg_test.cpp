// The SVG renderers the HTML report and the MCP App share (issue 35;
// src/reports/svg_timeline.cpp, svg_bars.cpp): a bar per run, pauses as
// gaps, parallel runs on rows of their own, the estimate outline, nice
// ticks in the session's zone, every user text escaped.

#include "reports/report.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <chrono>
#include <string>
#include <vector>

using namespace ttm;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

namespace {

domain::zone zone_of(const std::string& name) {
  auto z = domain::resolve_zone(name, "UTC");
  REQUIRE(z.found);
  return *z.found;
}

/// 2025-12-14 14:45:32.123Z (9:45:32 AM in New York).
domain::wall_time t0() {
  return date::sys_days{date::year{2025} / 12 / 14} + 14h + 45min + 32s
         + 123ms;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos;
       at = s.find(what, at + 1))
    ++n;
  return n;
}

/// A run from `from` to `to` (offsets from t0), active all along unless
/// `active` says otherwise.
reports::report_run run(const std::string& task, milliseconds from,
                        milliseconds to,
                        std::vector<reports::report_run::active_span> active
                        = {}) {
  reports::report_run r;
  r.task_id = task;
  r.status = domain::run_status::completed;
  r.start = t0() + from;
  r.end = t0() + to;
  r.offset_start = from;
  r.offset_end = to;
  if (active.empty())
    active.push_back({0ms, to - from});
  milliseconds busy{0};
  for (const auto& a : active)
    busy += a.to - a.from;
  r.active = active;
  r.duration = busy;
  r.paused = (to - from) - busy;
  r.pauses = active.size() - 1;
  return r;
}

reports::report_model model(std::vector<reports::report_run> runs,
                            const std::string& zone = "UTC") {
  reports::report_model m;
  m.session_id = "s";
  m.milestone_id = "M";
  m.tz = zone_of(zone);
  m.start = t0();
  m.ended = true;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].ordinal = k;
    m.total = std::max(m.total, runs[k].offset_end);
  }
  m.end = t0() + m.total;
  m.runs = std::move(runs);
  return m;
}

/// The y attribute of the n-th bar.
std::string bar_y(const std::string& svg, std::size_t n) {
  auto at = svg.find("<rect class=\"bar ");
  for (std::size_t k = 0; k < n; ++k)
    at = svg.find("<rect class=\"bar ", at + 1);
  REQUIRE(at != std::string::npos);
  auto y = svg.find(" y=\"", at) + 4;
  return svg.substr(y, svg.find('"', y) - y);
}

std::vector<std::string> labels(const std::vector<reports::svg_tick>& ticks) {
  std::vector<std::string> out;
  for (const auto& t : ticks)
    out.push_back(t.label);
  return out;
}

} // namespace

TEST_CASE("svg: one focusable, labelled bar per run", "[svg]") {
  auto m = model({run("a", 0ms, 60s), run("b", 60s, 120s),
                  run("c", 120s, 125s)});
  auto svg = reports::render_svg_timeline(m);
  CHECK(count(svg, "<rect class=\"bar ") == 3);
  CHECK(count(svg, "tabindex=\"0\"") == 3);
  CHECK(count(svg, "<title>") == 3);
  CHECK(svg.find("aria-label=\"a: completed, 2:45:32 PM \xE2\x80\x93 2:46:32 "
                 "PM, 1m\"")
        != std::string::npos);
  // Inline in HTML: no namespace (the report names no URL); standalone
  // (the app's DOMParser) with it.
  CHECK(svg.find("xmlns") == std::string::npos);
  auto alone = reports::render_svg_timeline(m, {true});
  CHECK(alone.find("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/"
                   "svg\"")
        == 0);
  // The legend names every status.
  for (const char* st :
       {"completed", "skipped", "failed", "interrupted", "running"})
    CHECK(svg.find(std::string{"<rect class=\"key "} + st)
          != std::string::npos);
}

TEST_CASE("svg: a paused run has its gaps", "[svg]") {
  // Active 0-10 s and 20-30 s, paused between; then paused to its end.
  auto m = model({run("p", 0ms, 40s, {{0ms, 10s}, {20s, 30s}}),
                  run("q", 0ms, 40s)});
  auto svg = reports::render_svg_timeline(m);
  CHECK(count(svg, "<rect class=\"bar ") == 2);
  CHECK(count(svg, "<rect class=\"pause ") == 2);
  CHECK(svg.find("<rect class=\"key pause\"") != std::string::npos);
  CHECK(svg.find("paused 20s") != std::string::npos);
  // The first gap is the second quarter of the bar (the chart is 464 wide
  // from x=8): x=124, width 116.
  CHECK(svg.find("<rect class=\"pause completed\" aria-hidden=\"true\" "
                 "x=\"124.0\"")
        != std::string::npos);
  auto no_pause = reports::render_svg_timeline(model({run("q", 0ms, 40s)}));
  CHECK(no_pause.find("class=\"pause") == std::string::npos);
  CHECK(no_pause.find("key pause") == std::string::npos);
}

TEST_CASE("svg: parallel runs are on rows of their own", "[svg]") {
  auto m = model({run("a", 0ms, 60s), run("b", 10s, 50s)});
  auto svg = reports::render_svg_timeline(m);
  CHECK(bar_y(svg, 0) != bar_y(svg, 1));
  // Side by side in time: both bars start near the left.
  CHECK(svg.find("data-task=\"b\"") != std::string::npos);
}

TEST_CASE("svg: the estimate is an outline on its task's first run",
          "[svg]") {
  auto m = model({run("a", 0ms, 60s), run("b", 60s, 90s)});
  m.estimates.push_back({"a", 120s, 60s, "completed"});
  auto svg = reports::render_svg_timeline(m);
  CHECK(count(svg, "<rect class=\"estimate\"") == 1);
  // The axis reaches the estimate's end (120 s): the outline spans the
  // whole chart, the run half of it.
  CHECK(svg.find("<rect class=\"estimate\" aria-hidden=\"true\" x=\"8.0\" "
                 "y=\"37.5\" width=\"464.0\"")
        != std::string::npos);
  CHECK(svg.find("estimate 2m") != std::string::npos);
  CHECK(svg.find("<rect class=\"key estimate\"") != std::string::npos);
}

TEST_CASE("svg: nice ticks from seconds to days", "[svg]") {
  auto utc = zone_of("UTC");
  // 10 s: every 2 s, with seconds.
  CHECK(labels(reports::svg_ticks(t0(), 10s, utc))
        == std::vector<std::string>{"14:45:34", "14:45:36", "14:45:38",
                                    "14:45:40", "14:45:42"});
  // 5 min: every minute.
  CHECK(labels(reports::svg_ticks(t0(), 5min, utc))
        == std::vector<std::string>{"14:46", "14:47", "14:48", "14:49",
                                    "14:50"});
  // 3 h: every hour.
  CHECK(labels(reports::svg_ticks(t0(), 3h, utc))
        == std::vector<std::string>{"15:00", "16:00", "17:00"});
  // 3 days: every day, by date.
  CHECK(labels(reports::svg_ticks(t0(), 72h, utc))
        == std::vector<std::string>{"Dec 15", "Dec 16", "Dec 17"});
  // A span over midnight names the day where it changes.
  CHECK(labels(reports::svg_ticks(t0() + 8h, 3h, utc))
        == std::vector<std::string>{"Dec 14 23:00", "Dec 15 00:00", "01:00"});
  // Each tick's offset from the start is where its label says.
  auto ticks = reports::svg_ticks(t0(), 5min, utc);
  CHECK(ticks.front().at == 27877ms); // 14:46:00.000 - 14:45:32.123
  // Shorter than a second: the start.
  CHECK(labels(reports::svg_ticks(t0(), 300ms, utc))
        == std::vector<std::string>{"14:45:32"});
}

TEST_CASE("svg: the axis is in the session's zone", "[svg]") {
  auto ny = zone_of("America/New_York");
  CHECK(labels(reports::svg_ticks(t0(), 3h, ny))
        == std::vector<std::string>{"10:00", "11:00", "12:00"});
  auto kathmandu = zone_of("Asia/Kathmandu"); // +05:45
  CHECK(labels(reports::svg_ticks(t0(), 3h, kathmandu)).front() == "21:00");
  auto svg = reports::render_svg_timeline(
    model({run("a", 0ms, 3h)}, "America/New_York"));
  CHECK(svg.find(">10:00</text>") != std::string::npos);
  CHECK(svg.find("times in America/New_York") != std::string::npos);
}

TEST_CASE("svg: hostile names are escaped", "[svg]") {
  auto hostile = run("<script>alert(1)</script>", 0ms, 60s);
  hostile.task_name = "\"quoted\" & 'single' </title></rect><svg onload=x>";
  auto svg = reports::render_svg_timeline(model({hostile}), {true});
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("<svg onload") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;")
        != std::string::npos);
  CHECK(svg.find("&quot;quoted&quot; &amp; &#39;single&#39;")
        != std::string::npos);
  auto bars = reports::render_svg_bars(
    "by <b>tag</b>", {{"<img src=x>", 90s, "1 \"session\""}}, {true});
  CHECK(bars.find("<img") == std::string::npos);
  CHECK(bars.find("<b>") == std::string::npos);
  CHECK(bars.find("&lt;img src=x&gt; \xC2\xB7 1m 30s") != std::string::npos);
  CHECK(bars.find("1 &quot;session&quot;") != std::string::npos);
}

TEST_CASE("svg: the stats bar chart, a bar per group, the longest full",
          "[svg]") {
  std::vector<reports::svg_bar> groups{{"2025-12-14", 2h, "2 sessions"},
                                       {"2025-12-15", 1h, ""},
                                       {"", 0ms, ""}};
  auto svg = reports::render_svg_bars("Task time by day", groups, {true});
  CHECK(count(svg, "<rect class=\"bar stat\"") == 3);
  CHECK(svg.find("width=\"464.0\"") != std::string::npos);
  CHECK(svg.find("width=\"232.0\"") != std::string::npos);
  CHECK(svg.find("(none)") != std::string::npos);
  std::vector<reports::svg_bar> many(45, {"k", 1s, ""});
  auto capped = reports::render_svg_bars("t", many);
  CHECK(count(capped, "<rect class=\"bar stat\"") == 40);
  CHECK(capped.find(">and 5 more</text>") != std::string::npos);
}
