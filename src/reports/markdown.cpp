// The Markdown report: the spec's template ("Execution Report
// Integration") field for field, then busy time, runs and a Mermaid gantt.

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include "domain/time_format.hpp"

#include <string_view>

namespace ttm::reports {

namespace {

/// User text on one line of prose: line breaks become spaces, and '<'
/// an entity (it would start inline HTML: a name shows as typed, never as
/// markup).
std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    char c = s[k];
    if (c == '\r' && k + 1 < s.size() && s[k + 1] == '\n')
      continue;
    if (c == '<')
      out += "&lt;";
    else
      out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

/// A table cell: `|` and `\` escaped, '<' an entity, line breaks as <br>
/// (GFM tables cannot hold a newline).
std::string cell(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    char c = s[k];
    if (c == '|' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\r') {
      if (k + 1 < s.size() && s[k + 1] == '\n')
        continue;
      out += "<br>";
    } else if (c == '\n') {
      out += "<br>";
    } else if (c == '<') {
      out += "&lt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string count_line(const char* label, std::size_t n) {
  return std::string("- **") + label + ":** " + std::to_string(n) + "\n";
}

/// The length of the JavaScript whitespace (what `\s` matches) at the
/// start of `s`, in UTF-8.
std::size_t js_space_prefix(std::string_view s) {
  static constexpr std::string_view spaces[] = {
    " ", "\t", "\v", "\f", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\x80",
    "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84",
    "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
    "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"};
  std::size_t at = 0;
  for (bool more = true; more;) {
    more = false;
    // Every space above starts with one of these bytes or a byte >= 0x80:
    // a label's usual first letter ends the scan at once.
    if (at >= s.size())
      break;
    auto c = static_cast<unsigned char>(s[at]);
    if (c < 0x80 && c != ' ' && c != '\t' && c != '\v' && c != '\f')
      break;
    for (auto sp : spaces)
      if (s.substr(at, sp.size()) == sp) {
        at += sp.size();
        more = true;
      }
  }
  return at;
}

/// A Mermaid gantt label or section: the characters its grammar reads as
/// syntax (`:` ends a label, `#` and `%%` start comments, `;` ends a
/// statement, line breaks end the line) and '<', '>' become look-alikes or
/// spaces, and a leading keyword is guarded so a task named "section x"
/// stays a task.
std::string mermaid_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    switch (c) {
      case ':':
        out += "\xEA\x9E\x89"; // ꞉ MODIFIER LETTER COLON
        break;
      case '#':
        out += "\xEF\xBC\x83"; // ＃ FULLWIDTH NUMBER SIGN
        break;
      case ';':
        out += "\xCD\xBE"; // ; GREEK QUESTION MARK (looks like ;)
        break;
      case '%':
        out += "\xEF\xBC\x85"; // ％ FULLWIDTH PERCENT SIGN
        break;
      case '<': // no markup, whatever Mermaid's security level
        out += "\xE2\x80\xB9"; // ‹
        break;
      case '>':
        out += "\xE2\x80\xBA"; // ›
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  auto first = out.find_first_not_of(' ');
  if (first == std::string::npos)
    return "(unnamed)";
  out = out.substr(first);
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  static constexpr std::string_view keywords[] = {
    "title", "section", "dateformat", "axisformat", "tickinterval",
    "excludes", "includes", "todaymarker", "weekday", "weekend",
    "inclusiveenddates", "topaxis", "acctitle", "accdescr", "click",
    "displaymode", "gantt"};
  // Mermaid's lexer skips JavaScript whitespace (`\s`: also \v, \f,
  // no-break and other Unicode spaces, the BOM) before it tries its
  // keywords: a task "\u00A0title x" was read as a title (found by
  // tests/fuzz/reports).
  // Only JavaScript whitespace ("\v"): Mermaid reads an empty label.
  if (js_space_prefix(out) == out.size())
    return "(unnamed)";
  // The longest keyword's length is all the comparison reads.
  std::string lower;
  for (char c : std::string_view{out}.substr(js_space_prefix(out), 24))
    lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (auto k : keywords)
    if (lower.compare(0, k.size(), k) == 0)
      return "\xE2\x80\xA3 " + out; // ‣
  return out;
}

/// Mermaid's tags for a run's status: done, active, crit (failed and
/// interrupted stand out in red).
const char* mermaid_tags(const report_run& r) {
  if (r.running)
    return "active, ";
  switch (r.status) {
    case domain::run_status::completed:
    case domain::run_status::skipped:
      return "done, ";
    case domain::run_status::failed:
      return "crit, ";
    case domain::run_status::interrupted:
      return "crit, done, ";
    case domain::run_status::in_progress:
      break;
  }
  return "active, ";
}

/// Each run's notes and corrections, in run order.
std::string notes_and_corrections(const report_model& m) {
  std::string md = "\n### Notes and Corrections\n\n";
  std::string any;
  for (const auto& r : m.runs) {
    std::string id = "**" + one_line(r.task_id) + "**";
    if (r.run > 1)
      id += " (run " + std::to_string(r.run) + ")";
    for (const auto& n : r.notes)
      any += "- " + id + ", note at " + text::friendly_time(n.at, m.tz)
             + ": " + one_line(n.text) + "\n";
    for (const auto& c : r.corrections)
      any += "- " + id + ", corrected at " + text::friendly_time(c.at, m.tz)
             + ": " + one_line(c.reason) + "\n";
    if (r.pauses > 0)
      any += "- " + id + ", paused " + std::to_string(r.pauses)
             + (r.pauses == 1 ? " time" : " times") + ", "
             + text::compact_duration(r.paused) + " in all\n";
  }
  return md + any;
}

/// Estimate, actual time and their difference per task, and in total.
std::string estimates_table(const report_model& m) {
  std::string md = "\n## Estimates\n\n";
  md += "| Task ID | Estimate | Actual | Difference | Status |\n";
  md += "|---|---|---|---|---|\n";
  for (const auto& e : m.estimates)
    md += "| " + cell(e.task_id) + " | "
          + text::compact_duration(e.estimate) + " | "
          + text::compact_duration(e.actual) + " | "
          + text::signed_duration(e.difference()) + " | " + e.status + " |\n";
  md += "| **Total** | " + text::compact_duration(m.estimate_total) + " | "
        + text::compact_duration(m.estimate_actual) + " | "
        + text::signed_duration(m.estimate_actual - m.estimate_total)
        + " |  |\n";
  return md;
}

/// The audit trail: every change, when, through which tool and MCP
/// session; undone ones struck through.
std::string changes_table(const report_model& m) {
  std::string md = "\n## Changes\n\n";
  md += "| Time | Change | Task | Tool | MCP Session |\n";
  md += "|---|---|---|---|---|\n";
  for (const auto& c : m.changes) {
    std::string what = c.change;
    if (c.change == "tasks_edited")
      what += " (" + std::to_string(c.operations)
              + (c.operations == 1 ? " operation)" : " operations)");
    if (!c.undid.empty())
      what += " of " + c.undid;
    if (c.undone)
      what = "~~" + what + "~~ (undone)";
    md += "| " + text::friendly_time(c.at, m.tz) + " | " + what + " | "
          + cell(c.task_id) + " | " + cell(c.tool) + " | " + cell(c.client)
          + " |\n";
  }
  return md;
}

} // namespace

std::string render_mermaid_gantt(const report_model& m) {
  std::string g = "gantt\n";
  g.reserve(256 + m.runs.size() * 96);
  g += "    title " + mermaid_text("Milestone " + m.milestone_id
                                   + (m.milestone_name
                                        ? " - " + *m.milestone_name
                                        : std::string{}))
       + "\n";
  g += "    dateFormat YYYY-MM-DD HH:mm:ss\n";
  g += "    axisFormat %H:%M:%S\n";
  const std::string* section = nullptr;
  for (const auto& r : m.runs) {
    if (section == nullptr || *section != r.task_id) {
      g += "    section " + mermaid_text(r.task_id) + "\n";
      section = &r.task_id;
    }
    std::string label = text::display_name(r);
    if (r.run > 1)
      label += " (run " + std::to_string(r.run) + ")";
    if (r.status != domain::run_status::completed)
      label += std::string(" (") + text::status_word(r) + ")";
    // One bar per active span, on the monotonic clock (so the bars have
    // the lengths the table states): a paused run's bar stops at each
    // pause and goes on, as "… (resumed)", after it, the last at its end.
    std::string id = "run" + std::to_string(r.ordinal + 1);
    for (std::size_t k = 0; k < r.active.size(); ++k) {
      const auto& a = r.active[k];
      text::append(g, "    ",
                   mermaid_text(k == 0 ? label : label + " (resumed)"), " :",
                   mermaid_tags(r), id,
                   k == 0 ? std::string{} : "_" + std::to_string(k + 1), ", ",
                   text::local_datetime(r.start + a.from, m.tz), ", ",
                   text::local_datetime(r.start + a.to, m.tz), "\n");
    }
    if (r.active.empty()) // paused from its start: a bar of no length
      g += "    " + mermaid_text(label) + " :" + mermaid_tags(r) + id + ", "
           + text::local_datetime(r.start, m.tz) + ", "
           + text::local_datetime(r.start, m.tz) + "\n";
  }
  return g;
}

std::string render_markdown(const report_model& m, const report_options& o) {
  std::string md = "# Milestone " + one_line(m.milestone_id)
                   + " Execution Report";
  if (m.milestone_name)
    md += ": " + one_line(*m.milestone_name);
  md += "\n";
  md += "**Execution Date:** " + text::friendly_date(m.start, m.tz) + "\n";
  md += "**Start Time:** " + text::friendly_time_zone(m.start, m.tz) + "\n";
  if (m.ended)
    md += "**End Time:** " + text::friendly_time_zone(m.end, m.tz) + "\n";
  else
    md += "**End Time:** still running (report as of "
          + text::friendly_time_zone(m.end, m.tz) + ")\n";
  md += "**Actual Duration:** " + domain::format_duration(m.total)
        + (m.ended ? "" : " so far") + "\n";
  md += "**Session:** " + m.session_id + " (" + (m.ended ? "ended" : "active")
        + ", times in " + m.tz.name() + ")\n";
  // The branch first, as the template has it; then the other metadata.
  for (const auto& [k, v] : m.metadata)
    if (k == "branch")
      md += "**Branch:** " + one_line(v) + "\n";
  for (const auto& [k, v] : m.metadata)
    if (k != "branch")
      md += "**" + one_line(k) + ":** " + one_line(v) + "\n";
  std::string tags;
  for (const auto& t : m.tags)
    tags += (tags.empty() ? "" : ", ") + one_line(t);
  md += "**Tags:** " + (tags.empty() ? std::string{"none"} : tags) + "\n";
  md += "\n---\n\n## Task Execution Log\n\n";
  md += "| Task ID | Task Name | Start | End | Duration | Status |\n";
  md += "|---|---|---|---|---|---|\n";
  md.reserve(md.size() + m.runs.size() * (o.include_gantt ? 256 : 128));
  for (const auto& r : m.runs) {
    std::string id = cell(r.task_id);
    if (r.run > 1)
      id += " (run " + std::to_string(r.run) + ")";
    text::append(md, "| ", id, " | ", cell(r.task_name ? *r.task_name : ""),
                 " | ", text::friendly_time(r.start, m.tz), " | ",
                 r.running ? std::string{"running"}
                           : text::friendly_time(r.end, m.tz),
                 " | ", text::run_duration(r), " | ", text::status_symbol(r),
                 " ", text::status_word(r),
                 r.corrections.empty() ? "" : " (corrected)", " |\n");
  }
  for (const auto& id : m.not_started)
    md += "| " + cell(id)
          + " |  |  |  |  | \xE2\x8F\xB3 not started |\n"; // ⏳
  if (m.edited())
    md += notes_and_corrections(m);
  if (!m.estimates.empty())
    md += estimates_table(m);
  if (!m.changes.empty())
    md += changes_table(m);
  const auto& c = m.counts;
  md += "\n---\n\n## Summary\n\n";
  md += "- **Tasks Completed:** " + std::to_string(c.completed) + "/"
        + std::to_string(m.task_count) + "\n";
  md += count_line("Tasks Skipped", c.skipped);
  md += count_line("Tasks Failed", c.failed);
  md += count_line("Tasks Interrupted", c.interrupted);
  md += count_line("Tasks In Progress", c.in_progress);
  md += count_line("Tasks Not Started", c.not_started);
  md += count_line("Runs", m.runs.size());
  md += "- **Total Duration:** " + domain::format_duration(m.total) + "\n";
  md += "- **Busy Time:** " + domain::format_duration(m.busy)
        + " (at least one task running)\n";
  md += "- **Summed Task Time:** " + domain::format_duration(m.task_time)
        + " (parallel runs each count)\n";
  if (o.include_gantt && !m.runs.empty())
    text::append(md, "\n## Timeline\n\n```mermaid\n", render_mermaid_gantt(m),
                 "```\n");
  return md;
}

} // namespace ttm::reports
