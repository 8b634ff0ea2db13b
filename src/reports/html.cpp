// The HTML report: one self-contained page (inline CSS, inline SVG, no
// script, no external request) with the report and a timeline of the runs
// (svg_timeline.cpp, the renderer the MCP App shows too).
// Every piece of user text is escaped: milestone and task names are the
// agent's, not ours.

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include "domain/time_format.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace ttm::reports {

namespace {

using text::esc;

constexpr const char* style = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#1f2328;max-width:1100px}
h1{font-size:1.6em;margin-bottom:.3em}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;white-space:pre-wrap}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #d0d7de;padding:.3em .6em;text-align:left;vertical-align:top;white-space:pre-wrap}
th{background:#f6f8fa}
svg.timeline{border:1px solid #d0d7de;background:#fff;width:100%;max-width:720px;height:auto}
svg .axis{stroke:#d0d7de}svg text{font-size:11px;fill:#1f2328}
svg .label{font-size:12px}svg .caption{fill:#57606a}
.completed{--c:#2da44e}.skipped{--c:#8c959f}.failed{--c:#cf222e}
.interrupted{--c:#bf8700}.running{--c:#0969da}
.bar,.key{fill:var(--c)}
.pause{fill:#fff;stroke:var(--c);stroke-dasharray:2 2;pointer-events:none}
.key.pause{fill:#fff;stroke:#57606a}
.estimate{fill:none;stroke:#57606a;stroke-dasharray:4 3}
</style>
)";

void fact(std::string& h, const std::string& name, const std::string& value) {
  h += "<dt>" + esc(name) + "</dt><dd>" + esc(value) + "</dd>\n";
}

/// Each run's notes, corrections and pauses (issue 17).
std::string notes_and_corrections(const report_model& m) {
  std::string h = "<h3>Notes and Corrections</h3>\n<ul class=\"notes\">\n";
  for (const auto& r : m.runs) {
    std::string id = r.task_id;
    if (r.run > 1)
      id += " (run " + std::to_string(r.run) + ")";
    auto line = [&](const std::string& what, const std::string& text) {
      h += "<li><strong>" + esc(id) + "</strong>, " + esc(what) + ": "
           + esc(text) + "</li>\n";
    };
    for (const auto& n : r.notes)
      line("note at " + text::friendly_time(n.at, m.tz), n.text);
    for (const auto& c : r.corrections)
      line("corrected at " + text::friendly_time(c.at, m.tz), c.reason);
    if (r.pauses > 0)
      line("paused " + std::to_string(r.pauses)
             + (r.pauses == 1 ? " time" : " times"),
           text::compact_duration(r.paused) + " in all");
  }
  return h + "</ul>\n";
}

/// Estimate, actual time and their difference per task, and in total.
std::string estimates_table(const report_model& m) {
  std::string h = "<h2>Estimates</h2>\n<table class=\"estimates\">\n"
                  "<thead><tr><th>Task ID</th><th>Estimate</th><th>Actual"
                  "</th><th>Difference</th><th>Status</th></tr></thead>\n"
                  "<tbody>\n";
  auto row = [&](const std::string& id, std::chrono::milliseconds est,
                 std::chrono::milliseconds act, const std::string& status) {
    h += "<tr><td>" + esc(id) + "</td><td>" + text::compact_duration(est)
         + "</td><td>" + text::compact_duration(act) + "</td><td>"
         + text::signed_duration(act - est) + "</td><td>" + esc(status)
         + "</td></tr>\n";
  };
  for (const auto& e : m.estimates)
    row(e.task_id, e.estimate, e.actual, e.status);
  row("Total", m.estimate_total, m.estimate_actual, "");
  return h + "</tbody>\n</table>\n";
}

} // namespace

std::string render_html(const report_model& m, const report_options& o) {
  std::string title = "Milestone " + m.milestone_id + " Execution Report";
  if (m.milestone_name)
    title += ": " + *m.milestone_name;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                  "<meta charset=\"utf-8\">\n<title>" + esc(title)
                  + "</title>\n" + style + "</head>\n<body>\n<h1>" + esc(title)
                  + "</h1>\n<dl class=\"facts\">\n";
  h.reserve(8192 + m.runs.size() * (o.include_gantt ? 1024 : 256));
  fact(h, "Execution Date", text::friendly_date(m.start, m.tz));
  fact(h, "Start Time", text::friendly_time_zone(m.start, m.tz));
  fact(h, "End Time", m.ended ? text::friendly_time_zone(m.end, m.tz)
                              : "still running (report as of "
                                  + text::friendly_time_zone(m.end, m.tz)
                                  + ")");
  fact(h, "Actual Duration",
       domain::format_duration(m.total) + (m.ended ? "" : " so far"));
  fact(h, "Session", m.session_id + " (" + (m.ended ? "ended" : "active")
                       + ", times in " + m.tz.name() + ")");
  for (const auto& [k, v] : m.metadata)
    fact(h, k == "branch" ? "Branch" : k, v);
  std::string tags;
  for (const auto& t : m.tags)
    tags += (tags.empty() ? "" : ", ") + t;
  fact(h, "Tags", tags.empty() ? "none" : tags);
  h += "</dl>\n";
  if (o.include_gantt && !m.runs.empty()) {
    // The same renderer as the MCP App's (svg_timeline.cpp).
    h += "<h2>Timeline</h2>\n";
    h += render_svg_timeline(m);
  }
  h += "<h2>Task Execution Log</h2>\n<table>\n<thead><tr><th>Task ID</th>"
       "<th>Task Name</th><th>Start</th><th>End</th><th>Duration</th>"
       "<th>Status</th></tr></thead>\n<tbody>\n";
  for (const auto& r : m.runs) {
    std::string id = r.task_id;
    if (r.run > 1)
      id += " (run " + std::to_string(r.run) + ")";
    text::append(
      h, "<tr class=\"", text::status_word(r), "\"><td>", esc(id),
      "</td><td>", esc(r.task_name ? *r.task_name : ""), "</td><td>",
      esc(text::friendly_time(r.start, m.tz)), "</td><td>",
      esc(r.running ? std::string{"running"}
                    : text::friendly_time(r.end, m.tz)),
      "</td><td>", esc(text::run_duration(r)), "</td><td>",
      text::status_symbol(r), " ", text::status_word(r),
      r.corrections.empty() ? "" : " (corrected)", "</td></tr>\n");
  }
  for (const auto& id : m.not_started)
    h += "<tr class=\"not_started\"><td>" + esc(id)
         + "</td><td></td><td></td><td></td><td></td><td>not started</td>"
           "</tr>\n";
  h += "</tbody>\n</table>\n";
  if (m.edited())
    h += notes_and_corrections(m);
  if (!m.estimates.empty())
    h += estimates_table(m);
  h += "<h2>Summary</h2>\n<ul>\n";
  const auto& c = m.counts;
  auto item = [&](const std::string& k, const std::string& v) {
    h += "<li><strong>" + k + ":</strong> " + esc(v) + "</li>\n";
  };
  item("Tasks Completed",
       std::to_string(c.completed) + "/" + std::to_string(m.task_count));
  item("Tasks Skipped", std::to_string(c.skipped));
  item("Tasks Failed", std::to_string(c.failed));
  item("Tasks Interrupted", std::to_string(c.interrupted));
  item("Tasks In Progress", std::to_string(c.in_progress));
  item("Tasks Not Started", std::to_string(c.not_started));
  item("Runs", std::to_string(m.runs.size()));
  item("Total Duration", domain::format_duration(m.total));
  item("Busy Time", domain::format_duration(m.busy));
  item("Summed Task Time", domain::format_duration(m.task_time));
  h += "</ul>\n</body>\n</html>\n";
  return h;
}

} // namespace ttm::reports
