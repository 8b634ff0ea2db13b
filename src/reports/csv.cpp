// The CSV report: RFC 4180 (CRLF line ends, a header row, fields with a
// comma, quote or line break quoted and quotes doubled), one row per run,
// columns in a stable order. Cells a spreadsheet would read as a formula
// are neutralised (OWASP's advice: a leading apostrophe).

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include "domain/time_format.hpp"

#include <algorithm>
#include <string_view>

namespace ttm::reports {

namespace {

void field(std::string& out, std::string_view v, bool first = false) {
  if (!first)
    out += ',';
  // =, +, -, @ start a formula; tab and CR do in some spreadsheets too.
  bool formula = !v.empty()
                 && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@'
                     || v[0] == '\t' || v[0] == '\r');
  bool quote = formula || v.find_first_of(",\"\r\n") != std::string_view::npos;
  if (!quote) {
    out += v;
    return;
  }
  out += '"';
  if (formula)
    out += '\'';
  for (char c : v) {
    if (c == '"')
      out += '"';
    out += c;
  }
  out += '"';
}

} // namespace

std::string render_csv(const report_model& m) {
  std::string out;
  static constexpr std::string_view columns[] = {
    "session_id",  "milestone_id", "task_id",     "task_name",
    "run",         "status",       "start_time",  "end_time",
    "duration_ms", "duration",     "external_task_id", "work_item_id"};
  // Sessions with estimates, pauses, notes or corrections (issue 17) get
  // five columns more; other reports keep their columns as they were.
  static constexpr std::string_view edit_columns[] = {
    "active_ms", "paused_ms", "corrected", "notes", "task_estimate_ms"};
  bool more = m.edited() || !m.estimates.empty();
  bool first = true;
  for (auto c : columns) {
    field(out, c, first);
    first = false;
  }
  if (more)
    for (auto c : edit_columns)
      field(out, c);
  out += "\r\n";
  for (const auto& r : m.runs) {
    field(out, m.session_id, true);
    field(out, m.milestone_id);
    field(out, r.task_id);
    field(out, r.task_name ? *r.task_name : "");
    field(out, std::to_string(r.run));
    field(out, text::status_word(r));
    field(out, domain::format_iso8601(r.start, m.tz));
    field(out, r.running ? "" : domain::format_iso8601(r.end, m.tz));
    field(out, std::to_string(r.duration.count()));
    field(out, text::compact_duration(r.duration));
    field(out, r.external_task_id ? *r.external_task_id : "");
    field(out, r.work_item_id ? *r.work_item_id : "");
    if (more) {
      field(out, std::to_string(r.duration.count()));
      field(out, std::to_string(r.paused.count()));
      field(out, r.corrections.empty() ? "false" : "true");
      std::string notes;
      for (const auto& n : r.notes)
        notes += (notes.empty() ? "" : "\n") + n.text;
      field(out, notes);
      auto e = std::find_if(m.estimates.begin(), m.estimates.end(),
                            [&](const auto& x) { return x.task_id == r.task_id; });
      field(out, e == m.estimates.end() ? ""
                                        : std::to_string(e->estimate.count()));
    }
    out += "\r\n";
  }
  return out;
}

} // namespace ttm::reports
