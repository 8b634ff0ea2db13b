// The SVG timeline of a session's runs, shared by the HTML report (inline)
// and the MCP App (a standalone document in a tool result's _meta; see
// docs/app.md): one renderer, so both show the same picture. Every piece of
// user text is escaped (fuzz.reports checks it); colours are CSS classes,
// so the page (the report's style, the app's theme) decides them.

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include <date/date.h>

#include <algorithm>
#include <array>
#include <map>

namespace ttm::reports {

namespace {

using std::chrono::milliseconds;
using text::esc;
using text::append;
using text::px;

// Geometry (viewBox units): narrow enough that a 400 px wide view keeps
// its 11-12 px text readable, a label line above each bar.
constexpr int width = 480;
constexpr int x0 = 8;
constexpr int chart_width = width - 2 * x0;
constexpr int top = 22;      // below the tick labels
constexpr int row_height = 36;
constexpr int bar_offset = 18; // below the label's descenders
constexpr int bar_height = 14;
constexpr std::size_t label_max = 64;

constexpr long long second = 1000;
constexpr long long minute = 60 * second;
constexpr long long hour = 60 * minute;
constexpr long long day = 24 * hour;

long long floor_div(long long a, long long b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0);
}

std::string two(long long v) {
  return (v < 10 ? "0" : "") + std::to_string(v);
}

/// "Nov 27" of a local day number (days since 1970-01-01).
std::string day_label(long long days) {
  static constexpr std::array<const char*, 12> months{
    "Jan", "Feb", "Mar", "Apr", "May", "Jun",
    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  date::year_month_day ymd{date::sys_days{date::days{days}}};
  return std::string{months[static_cast<unsigned>(ymd.month()) - 1]} + " "
         + std::to_string(static_cast<unsigned>(ymd.day()));
}

/// The axis and its grid lines.
std::string axis(long long span, int bottom,
                 const std::vector<svg_tick>& ticks) {
  std::string s;
  auto x_of = [&](long long ms) {
    return x0 + static_cast<double>(ms) / span * chart_width;
  };
  for (const auto& t : ticks) {
    double x = x_of(t.at.count());
    s += "<line class=\"axis\" aria-hidden=\"true\" x1=\"" + px(x)
         + "\" y1=\"" + std::to_string(top - 6) + "\" x2=\"" + px(x)
         + "\" y2=\"" + std::to_string(bottom) + "\"/>";
    const char* anchor = x < x0 + 40           ? "start"
                         : x > width - x0 - 40 ? "end"
                                               : "middle";
    s += "<text class=\"tick\" x=\"" + px(x) + "\" y=\"12\" text-anchor=\""
         + anchor + "\">" + esc(t.label) + "</text>\n";
  }
  return s;
}

std::string run_label(const report_run& r) {
  std::string label = text::display_name(r);
  if (r.run > 1)
    label += " (run " + std::to_string(r.run) + ")";
  return label;
}

/// What a bar says to a reader and a screen reader: task, status, times,
/// duration (and pauses, estimate).
std::string run_summary(const report_model& m, const report_run& r,
                        const report_estimate* est) {
  std::string s = run_label(r) + ": " + text::status_word(r) + ", "
                  + text::friendly_time(r.start, m.tz) + " \xE2\x80\x93 "
                  + (r.running ? std::string{"now"}
                               : text::friendly_time(r.end, m.tz))
                  + ", " + text::compact_duration(r.duration);
  if (r.pauses > 0)
    s += ", paused " + text::compact_duration(r.paused);
  if (est != nullptr)
    s += ", estimate " + text::compact_duration(est->estimate);
  return s;
}

/// A paused run's pauses: gaps in its bar between its active spans (and
/// after the last, if it ended paused).
std::string pause_gaps(const report_run& r, long long span, int y) {
  std::string s;
  auto x_of = [&](long long ms) {
    return x0 + static_cast<double>(ms) / span * chart_width;
  };
  auto gap = [&](milliseconds from, milliseconds to) {
    // Under a millisecond is the spans' rounding, not a pause.
    if (to - from <= milliseconds{1})
      return;
    double a = x_of((r.offset_start + from).count());
    double b = x_of((r.offset_start + to).count());
    append(s, "<rect class=\"pause ", text::status_word(r),
           "\" aria-hidden=\"true\" x=\"", px(a), "\" y=\"", px(y + 2.5),
           "\" width=\"", px(std::max(1.0, b - a)), "\" height=\"",
           std::to_string(bar_height - 5), "\"/>\n");
  };
  milliseconds at{0};
  for (const auto& a : r.active) {
    gap(at, a.from);
    at = a.to;
  }
  gap(at, r.offset_end - r.offset_start);
  return s;
}

/// The legend: the statuses, and pauses and estimates when shown.
std::string legend(int y, bool pauses, bool estimates, int& height) {
  std::vector<std::pair<std::string, std::string>> keys;
  for (const char* st :
       {"completed", "skipped", "failed", "interrupted", "running"})
    keys.emplace_back(std::string{"key "} + st, st);
  if (pauses)
    keys.emplace_back("key pause", "paused");
  if (estimates)
    keys.emplace_back("key estimate", "estimate");
  std::string s;
  double x = x0;
  int row = 0;
  for (const auto& [cls, word] : keys) {
    double w = 14 + 6.5 * static_cast<double>(word.size()) + 14;
    if (x + w > width - x0) {
      x = x0;
      ++row;
    }
    int yy = y + row * 18;
    s += "<rect class=\"" + cls + "\" aria-hidden=\"true\" x=\"" + px(x)
         + "\" y=\"" + std::to_string(yy) + "\" width=\"10\" height=\"10\" "
           "rx=\"2\"/><text class=\"legend\" x=\""
         + px(x + 14) + "\" y=\"" + std::to_string(yy + 9) + "\">" + word
         + "</text>";
    x += w;
  }
  height = (row + 1) * 18;
  return s + "\n";
}

} // namespace

std::vector<svg_tick> svg_ticks(domain::wall_time start, milliseconds span,
                                const domain::zone& tz, int max_ticks) {
  static constexpr std::array<long long, 20> steps{
    second,     2 * second, 5 * second,  10 * second, 15 * second,
    30 * second, minute,    2 * minute,  5 * minute,  10 * minute,
    15 * minute, 30 * minute, hour,      2 * hour,    3 * hour,
    6 * hour,   12 * hour,  day,         2 * day,     7 * day};
  long long length = std::max<long long>(span.count(), 1);
  long long step = 0;
  for (auto s : steps)
    if (length / s < max_ticks) {
      step = s;
      break;
    }
  if (step == 0) // past 6 weeks: whole weeks
    step = (length / max_ticks / (7 * day) + 1) * 7 * day;
  // On the step's boundaries in local time (weeks from a Monday: day 0,
  // 1970-01-01, was a Thursday).
  long long l0 = tz.local_at(start).since_epoch.count();
  long long base = step % (7 * day) == 0 ? 4 * day : 0;
  long long first = (floor_div(l0 - base - 1, step) + 1) * step + base;
  bool crosses = floor_div(l0, day) != floor_div(l0 + length, day);
  std::vector<svg_tick> out;
  long long previous_day = 0;
  for (long long l = first; l <= l0 + length; l += step) {
    auto res = tz.resolve(domain::local_time{milliseconds{l}});
    auto at = std::chrono::duration_cast<milliseconds>(res.earlier - start);
    if (at.count() < 0 || at.count() > length)
      continue;
    long long d = floor_div(l, day);
    long long in_day = l - d * day;
    std::string label;
    if (step >= day) {
      label = day_label(d);
    } else {
      label = two(in_day / hour) + ":" + two(in_day / minute % 60);
      if (step < minute)
        label += ":" + two(in_day / second % 60);
      if (crosses && (out.empty() || d != previous_day))
        label = day_label(d) + " " + label;
    }
    previous_day = d;
    out.push_back({at, std::move(label)});
  }
  if (out.empty()) { // shorter than a step: the start
    long long in_day = l0 - floor_div(l0, day) * day;
    out.push_back({milliseconds{0}, two(in_day / hour) + ":"
                                      + two(in_day / minute % 60) + ":"
                                      + two(in_day / second % 60)});
  }
  return out;
}

std::string render_svg_timeline(const report_model& m, const svg_options& o) {
  // The estimates, each drawn on its task's first run.
  std::map<std::string, const report_estimate*> estimate_of;
  for (const auto& e : m.estimates)
    if (e.estimate.count() > 0)
      estimate_of.emplace(e.task_id, &e);
  long long span = std::max<long long>(m.total.count(), 1);
  for (const auto& r : m.runs) {
    span = std::max<long long>(span, r.offset_end.count());
    auto e = estimate_of.find(r.task_id);
    if (e != estimate_of.end() && r.run == 1)
      span = std::max<long long>(span, (r.offset_start
                                        + e->second->estimate).count());
  }
  bool pauses = std::any_of(m.runs.begin(), m.runs.end(),
                            [](const report_run& r) { return r.pauses > 0; });
  int rows_bottom = top + static_cast<int>(m.runs.size()) * row_height;
  int legend_height = 0;
  auto keys = legend(rows_bottom + 22, pauses, !estimate_of.empty(),
                     legend_height);
  int height = rows_bottom + 22 + legend_height + 4;
  auto ticks = svg_ticks(m.start, milliseconds{span}, m.tz);
  auto x_of = [&](long long ms) {
    return x0 + static_cast<double>(ms) / span * chart_width;
  };
  auto wide = std::to_string(width);
  auto high = std::to_string(height);
  std::string s = "<svg class=\"timeline\"";
  // About 700 bytes a run: one allocation, not a dozen doublings.
  s.reserve(2048 + m.runs.size() * 768);
  if (o.standalone)
    s += " xmlns=\"http://www.w3.org/2000/svg\"";
  s += " width=\"" + wide + "\" height=\"" + high + "\" viewBox=\"0 0 "
       + wide + " " + high
       + "\" role=\"group\" aria-label=\"Timeline of the task runs, times "
         "in "
       + esc(m.tz.name()) + "\">\n";
  s += axis(span, rows_bottom, ticks);
  for (const auto& r : m.runs) {
    int y = top + static_cast<int>(r.ordinal) * row_height;
    auto e = estimate_of.find(r.task_id);
    const report_estimate* est
      = e != estimate_of.end() && r.run == 1 ? e->second : nullptr;
    const char* status = text::status_word(r);
    append(s, "<text class=\"label\" x=\"", std::to_string(x0), "\" y=\"",
           std::to_string(y + 11), "\">",
           esc(text::shorten(run_label(r), label_max)), " \xC2\xB7 ",
           text::compact_duration(r.duration), "</text>");
    double bx = x_of(r.offset_start.count());
    // A run too short to see still gets a visible sliver.
    double bw = std::max(2.0, x_of(r.offset_end.count()) - bx);
    int by = y + bar_offset;
    if (est != nullptr)
      s += "<rect class=\"estimate\" aria-hidden=\"true\" x=\"" + px(bx)
           + "\" y=\"" + px(by - 2.5) + "\" width=\""
           + px(std::max(2.0, x_of((r.offset_start + est->estimate).count())
                                - bx))
           + "\" height=\"" + std::to_string(bar_height + 5)
           + "\" rx=\"3\"/>";
    auto summary = esc(run_summary(m, r, est));
    append(s, "<rect class=\"bar ", status, "\" data-task=\"", esc(r.task_id),
           "\" data-run=\"", std::to_string(r.run), "\" data-status=\"",
           status, "\" tabindex=\"0\" aria-label=\"", summary, "\" x=\"",
           px(bx), "\" y=\"", std::to_string(by), "\" width=\"", px(bw),
           "\" height=\"", std::to_string(bar_height),
           "\" rx=\"3\"><title>", summary, "</title></rect>\n");
    s += pause_gaps(r, span, by);
  }
  s += keys;
  s += "<text class=\"caption\" x=\"" + std::to_string(width - x0)
       + "\" y=\"" + std::to_string(rows_bottom + 14)
       + "\" text-anchor=\"end\">times in " + esc(m.tz.name()) + "</text>\n";
  s += "</svg>\n";
  return s;
}

} // namespace ttm::reports
