#include "reports/report.hpp"

#include <algorithm>
#include <stdexcept>

namespace ttm::reports {

using std::chrono::milliseconds;

report_model build_report(const domain::tracking_session& s,
                          domain::instant now, const domain::zone& tz) {
  report_model m;
  auto end = s.end ? *s.end : now;
  m.session_id = s.id;
  m.milestone_id = s.milestone_id;
  m.milestone_name = s.milestone_name;
  m.ended = s.ended();
  m.tz = tz;
  m.start = s.start.wall;
  m.end = end.wall;
  m.total = s.elapsed(now.mono);
  auto totals = s.task_totals(end.mono);
  m.busy = totals.busy;
  m.task_time = totals.task_time;
  m.metadata = s.metadata;
  m.tags = s.tags;
  m.counts = s.counts();
  m.task_count = s.tasks.size();
  for (const auto& t : s.tasks) {
    if (t.runs.empty())
      m.not_started.push_back(t.id);
    for (const auto& run : t.runs) {
      report_run r;
      r.task_id = t.id;
      r.task_name = run.task_name;
      r.external_task_id = run.external_task_id;
      r.work_item_id = run.work_item_id;
      r.run = run.number;
      r.ordinal = m.runs.size();
      r.status = run.status;
      r.start = run.start.wall;
      r.running = !run.end;
      r.end = run.end ? run.end->wall : end.wall;
      r.duration = run.duration(end.mono);
      // Monotonic offsets: the bars agree with the durations even if the
      // wall clock was stepped during the session.
      auto since = run.start.mono - s.start.mono;
      r.offset_start = std::chrono::duration_cast<milliseconds>(since);
      if (r.offset_start.count() < 0)
        r.offset_start = milliseconds{0};
      auto stop_at = run.end ? run.end->mono : end.mono;
      auto from_run = [&](domain::mono_time t) {
        return std::chrono::duration_cast<milliseconds>(t - run.start.mono);
      };
      // The bar spans start to end; a paused run's is longer than its
      // active time, and its active spans show where the pauses fall.
      r.offset_end = r.offset_start + std::max(from_run(stop_at), milliseconds{0});
      for (const auto& [from, to] : run.active_spans(end.mono))
        r.active.push_back({from_run(from), from_run(to)});
      r.metadata = run.metadata;
      r.completion_metadata = run.completion_metadata;
      auto stop = run.end ? run.end->mono : end.mono;
      for (const auto& p : run.pauses) {
        auto to = std::min(p.end ? p.end->mono : stop, stop);
        auto took = to > p.start.mono ? std::chrono::duration_cast<milliseconds>(
                                          to - p.start.mono)
                                      : milliseconds{0};
        r.paused += took;
        r.pause_list.push_back(
          {p.start.wall,
           p.end ? std::optional<domain::wall_time>{p.end->wall}
                 : std::nullopt,
           took});
      }
      r.pauses = run.pauses.size();
      for (const auto& n : run.notes)
        r.notes.push_back({n.at.wall, n.text});
      for (const auto& c : run.corrections)
        r.corrections.push_back(
          {c.at.wall, c.reason, c.start_before, c.end_before, c.status_before});
      m.runs.push_back(std::move(r));
    }
    if (t.estimate) {
      report_estimate e;
      e.task_id = t.id;
      e.estimate = *t.estimate;
      for (const auto& run : t.runs)
        e.actual += run.duration(end.mono);
      e.status = t.current() ? domain::to_string(t.current()->status)
                             : "not_started";
      m.estimate_total += e.estimate;
      m.estimate_actual += e.actual;
      m.estimates.push_back(std::move(e));
    }
  }
  bool notable = false;
  for (const auto& a : s.audit)
    notable = notable || a.kind == domain::change::tasks_edited
              || a.kind == domain::change::change_undone;
  if (notable)
    for (const auto& a : s.audit) {
      report_change c;
      c.at = a.at.wall;
      c.change = domain::to_string(static_cast<domain::change::kind_t>(a.kind));
      c.task_id = a.task_id;
      c.operations = a.ops;
      if (a.kind == domain::change::change_undone)
        c.undid
          = domain::to_string(static_cast<domain::change::kind_t>(a.undid));
      c.tool = a.by.tool;
      c.client = a.by.client;
      c.undone = a.undone;
      m.changes.push_back(std::move(c));
    }
  return m;
}

bool report_model::edited() const {
  for (const auto& r : runs)
    if (r.pauses > 0 || !r.notes.empty() || !r.corrections.empty())
      return true;
  return false;
}

report_model build_focus_report(const domain::focus_row& f,
                                domain::wall_time now,
                                const domain::zone& tz) {
  // A focus session is one span: one run of task "focus" named by the
  // intent, so every format (and the timeline) shows it as it shows runs.
  report_model m;
  auto end = f.end.value_or(now);
  if (end < f.start)
    end = f.start;
  m.session_id = f.session_id;
  m.milestone_id = "focus";
  m.milestone_name = f.intent;
  m.ended = f.end.has_value();
  m.tz = tz;
  m.start = f.start;
  m.end = end;
  m.total = std::chrono::duration_cast<milliseconds>(end - f.start);
  m.busy = m.total;
  m.task_time = m.total;
  m.metadata.emplace_back("kind", "focus");
  if (f.end && !f.summary.empty())
    m.metadata.emplace_back("note", f.summary);
  m.task_count = 1;
  report_run r;
  r.task_id = "focus";
  r.task_name = f.intent;
  r.status = f.end ? domain::run_status::completed
                   : domain::run_status::in_progress;
  (f.end ? m.counts.completed : m.counts.in_progress) = 1;
  r.start = f.start;
  r.end = end;
  r.running = !f.end;
  r.duration = m.total;
  r.offset_end = m.total;
  r.active.push_back({milliseconds{0}, m.total});
  m.runs.push_back(std::move(r));
  return m;
}

const char* to_string(report_format f) {
  switch (f) {
    case report_format::markdown:
      return "markdown";
    case report_format::csv:
      return "csv";
    case report_format::json:
      return "json";
    case report_format::html:
      return "html";
  }
  return "markdown";
}

std::optional<report_format> parse_report_format(std::string_view name) {
  for (auto f : {report_format::markdown, report_format::csv,
                 report_format::json, report_format::html})
    if (name == to_string(f))
      return f;
  return std::nullopt;
}

const char* mime_type(report_format f) {
  switch (f) {
    case report_format::markdown:
      return "text/markdown; charset=utf-8";
    case report_format::csv:
      return "text/csv; charset=utf-8; header=present";
    case report_format::json:
      return "application/json";
    case report_format::html:
      return "text/html; charset=utf-8";
  }
  return "text/plain; charset=utf-8";
}

std::string render_report(const report_model& m, report_format f,
                          const report_options& opts) {
  switch (f) {
    case report_format::markdown:
      return render_markdown(m, opts);
    case report_format::csv:
      return render_csv(m);
    case report_format::json:
      return render_json(m);
    case report_format::html:
      return render_html(m, opts);
  }
  throw std::invalid_argument("render_report: unknown format");
}

} // namespace ttm::reports
