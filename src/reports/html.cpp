// The HTML report: one self-contained page (inline CSS, inline SVG, no
// script, no external request) with the report and a timeline of the runs.
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

/// Text and attribute values: & < > " ' escaped.
std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

constexpr const char* style = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#1f2328;max-width:1100px}
h1{font-size:1.6em;margin-bottom:.3em}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}
dl.facts dt{font-weight:600}dl.facts dd{margin:0;white-space:pre-wrap}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #d0d7de;padding:.3em .6em;text-align:left;vertical-align:top;white-space:pre-wrap}
th{background:#f6f8fa}
svg.timeline{border:1px solid #d0d7de;background:#fff}
svg .axis{stroke:#d0d7de}svg text{font-size:12px;fill:#1f2328}
.completed{--c:#2da44e}.skipped{--c:#8c959f}.failed{--c:#cf222e}
.interrupted{--c:#bf8700}.running{--c:#0969da}
.bar{fill:var(--c)}
.pause{fill:#fff;fill-opacity:.6;pointer-events:none}
.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle;background:var(--c)}
</style>
)";

// Timeline geometry (px).
constexpr int label_width = 280;
constexpr int chart_width = 760;
constexpr int row_height = 26;
constexpr int bar_height = 18;
constexpr int axis_height = 30;

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// Labels longer than the label column are cut (the full name is in the
/// bar's tooltip and the table).
std::string shorten(const std::string& s) {
  constexpr std::size_t max = 40;
  if (s.size() <= max)
    return s;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut; // not inside a UTF-8 sequence
  return s.substr(0, cut) + "\xE2\x80\xA6"; // …
}

/// A paused run's pauses: lighter stretches over its bar, between its
/// active spans (and after the last, if it ended paused).
template <class X>
std::string pause_gaps(const report_run& r, const X& x_of, int y) {
  std::string s;
  auto length = r.offset_end - r.offset_start;
  auto gap = [&](std::chrono::milliseconds from, std::chrono::milliseconds to) {
    // Under a millisecond is the spans' rounding, not a pause.
    if (to - from <= std::chrono::milliseconds{1})
      return;
    double x0 = x_of((r.offset_start + from).count());
    double x1 = x_of((r.offset_start + to).count());
    s += "<rect class=\"pause\" x=\"" + px(x0) + "\" y=\""
         + std::to_string(y + 1) + "\" width=\"" + px(x1 - x0)
         + "\" height=\"" + std::to_string(bar_height) + "\"/>\n";
  };
  std::chrono::milliseconds at{0};
  for (const auto& a : r.active) {
    gap(at, a.from);
    at = a.to;
  }
  gap(at, length);
  return s;
}

std::string timeline(const report_model& m) {
  long long span = std::max<long long>(m.total.count(), 1);
  for (const auto& r : m.runs)
    span = std::max<long long>(span, r.offset_end.count());
  int height = axis_height + static_cast<int>(m.runs.size()) * row_height + 10;
  int width = label_width + chart_width + 20;
  auto wide = std::to_string(width);
  auto high = std::to_string(height);
  std::string s = "<svg class=\"timeline\" width=\"" + wide + "\" height=\""
                  + high + "\" viewBox=\"0 0 " + wide + " " + high
                  + "\" role=\"img\" aria-label=\"Timeline of the task "
                    "runs\">\n";
  auto x_of = [&](long long ms) {
    return label_width + static_cast<double>(ms) / span * chart_width;
  };
  // (No xmlns: inline SVG in HTML needs none, and the page names no URL.)
  // Six ticks: start, end and four between, labelled in the report's zone.
  for (int k = 0; k <= 5; ++k) {
    long long at = span * k / 5;
    double x = x_of(at);
    s += "<line class=\"axis\" x1=\"" + px(x) + "\" y1=\"" + px(axis_height - 6)
         + "\" x2=\"" + px(x) + "\" y2=\"" + std::to_string(height) + "\"/>";
    const char* anchor = k == 0 ? "start" : k == 5 ? "end" : "middle";
    s += "<text class=\"tick\" x=\"" + px(x) + "\" y=\"16\" text-anchor=\""
         + anchor + "\">"
         + esc(text::friendly_time(m.start + std::chrono::milliseconds{at},
                                   m.tz))
         + "</text>\n";
  }
  for (const auto& r : m.runs) {
    int y = axis_height + static_cast<int>(r.ordinal) * row_height;
    std::string label = r.task_id;
    if (r.run > 1)
      label += " (run " + std::to_string(r.run) + ")";
    s += "<text class=\"label\" x=\"4\" y=\"" + std::to_string(y + 14) + "\">"
         + esc(shorten(label)) + "</text>";
    double x0 = x_of(r.offset_start.count());
    // A run too short to see still gets a visible sliver.
    double w = std::max(2.0, x_of(r.offset_end.count()) - x0);
    s += "<rect class=\"bar " + std::string{text::status_word(r)}
         + "\" data-task=\"" + esc(r.task_id) + "\" data-run=\""
         + std::to_string(r.run) + "\" data-status=\"" + text::status_word(r)
         + "\" x=\"" + px(x0) + "\" y=\"" + std::to_string(y + 1)
         + "\" width=\"" + px(w) + "\" height=\""
         + std::to_string(bar_height) + "\" rx=\"3\"><title>"
         + esc(text::display_name(r) + " — " + text::status_word(r) + ", "
               + text::friendly_time(r.start, m.tz) + " – "
               + (r.running ? std::string{"now"}
                            : text::friendly_time(r.end, m.tz))
               + " (" + text::compact_duration(r.duration)
               + (r.pauses > 0 ? ", paused " + text::compact_duration(r.paused)
                               : std::string{})
               + ")")
         + "</title></rect>\n";
    s += pause_gaps(r, x_of, y);
  }
  s += "</svg>\n";
  return s;
}

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
    h += "<h2>Timeline</h2>\n<p class=\"legend\">";
    for (const char* st :
         {"completed", "skipped", "failed", "interrupted", "running"})
      h += std::string("<span><i class=\"") + st + "\"></i>" + st + "</span>";
    if (std::any_of(m.runs.begin(), m.runs.end(),
                    [](const report_run& r) { return r.pauses > 0; }))
      h += "<span>lighter: paused</span>";
    h += "</p>\n" + timeline(m);
  }
  h += "<h2>Task Execution Log</h2>\n<table>\n<thead><tr><th>Task ID</th>"
       "<th>Task Name</th><th>Start</th><th>End</th><th>Duration</th>"
       "<th>Status</th></tr></thead>\n<tbody>\n";
  for (const auto& r : m.runs) {
    std::string id = r.task_id;
    if (r.run > 1)
      id += " (run " + std::to_string(r.run) + ")";
    h += "<tr class=\"" + std::string{text::status_word(r)} + "\"><td>"
         + esc(id) + "</td><td>" + esc(r.task_name ? *r.task_name : "")
         + "</td><td>" + esc(text::friendly_time(r.start, m.tz)) + "</td><td>"
         + esc(r.running ? std::string{"running"}
                         : text::friendly_time(r.end, m.tz))
         + "</td><td>" + esc(text::run_duration(r)) + "</td><td>"
         + text::status_symbol(r) + " " + text::status_word(r)
         + (r.corrections.empty() ? "" : " (corrected)") + "</td></tr>\n";
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
