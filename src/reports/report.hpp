#pragma once

// Execution reports of a tracking session (time_session_report; reusable
// for MCP resources): a model built once from the domain session in one
// zone, and pure renderers from the model to Markdown, CSV, JSON or HTML.
// Nothing here reads a clock: "now" comes in with the session.

#include "domain/history.hpp"
#include "domain/tracking.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::reports {

/// Version of the JSON report's shape (docs/tools.md); bump on any
/// incompatible change.
inline constexpr int json_report_version = 1;

/// One run of a task, as every format shows it.
struct report_run {
  std::string task_id;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  std::size_t run = 1;    ///< 1, 2, ... (a task started again after it ended)
  std::size_t ordinal = 0; ///< position among all runs of the report, from 0
  domain::run_status status = domain::run_status::in_progress;
  domain::wall_time start{};
  /// The end; for a running run the report's as-of instant.
  domain::wall_time end{};
  bool running = false;
  std::chrono::milliseconds duration{0}; ///< monotonic (so far, if running)
  /// From the session start to the run's start/end on the monotonic clock:
  /// where the timeline draws the bar (start to end, pauses included).
  std::chrono::milliseconds offset_start{0};
  std::chrono::milliseconds offset_end{0};
  /// The stretches the run was active (between its pauses), from the run's
  /// start, oldest first; together `duration` long. One for an unpaused run.
  struct active_span {
    std::chrono::milliseconds from{0};
    std::chrono::milliseconds to{0};
  };
  std::vector<active_span> active;
  domain::string_map metadata;
  domain::string_map completion_metadata;
  /// Paused time within the run (its pauses, time_tasks_edit): `duration`
  /// is the active time, without it.
  std::size_t pauses = 0;
  std::chrono::milliseconds paused{0};
  /// Each pause, oldest first (the JSON report shows them as the summary
  /// does: start_time, end_time, duration_ms).
  struct pause {
    domain::wall_time start{};
    std::optional<domain::wall_time> end; ///< unset: paused at the end
    std::chrono::milliseconds duration{0};
  };
  std::vector<pause> pause_list;
  /// Timestamped notes, oldest first.
  struct note {
    domain::wall_time at{};
    std::string text;
  };
  std::vector<note> notes;
  /// Its corrections (a run's start, end or status set by hand): when and
  /// why, oldest first; the times and durations shown are the corrected
  /// ones.
  struct correction {
    domain::wall_time at{};
    std::string reason;
    /// The run as it was before: start, end (unset: running), status.
    domain::wall_time start_before{};
    std::optional<domain::wall_time> end_before;
    domain::run_status status_before = domain::run_status::in_progress;
  };
  std::vector<correction> corrections;
};

/// A task's estimate against the time its runs took (issue 17).
struct report_estimate {
  std::string task_id;
  std::chrono::milliseconds estimate{0};
  std::chrono::milliseconds actual{0};
  std::string status; ///< its latest run's, or "not_started"
  std::chrono::milliseconds difference() const { return actual - estimate; }
};

/// A line of the session's audit trail (issue 17): a change, when, through
/// which tool and MCP session, and whether a later undo reverted it.
struct report_change {
  domain::wall_time at{};
  std::string change; ///< session_started, task_started, ..., change_undone
  std::string task_id;
  std::size_t operations = 0; ///< a bulk edit's
  std::string undid;          ///< change_undone: the kind it reverted
  std::string tool;           ///< empty: not recorded (an older journal)
  std::string client;
  bool undone = false;
};

/// Everything a report shows, times as instants plus the zone to show them
/// in, so each renderer formats what it needs.
struct report_model {
  std::string session_id;
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  bool ended = false;
  domain::zone tz = domain::zone::fixed(std::chrono::minutes{0});
  domain::wall_time start{};
  domain::wall_time end{}; ///< the session's end, or the as-of instant
  std::chrono::milliseconds total{0};
  std::chrono::milliseconds busy{0};
  std::chrono::milliseconds task_time{0};
  domain::string_map metadata;
  std::vector<std::string> tags;
  domain::task_counts counts;
  std::size_t task_count = 0;
  std::vector<report_run> runs; ///< by task (task_ids order), then run
  std::vector<std::string> not_started; ///< task ids never started
  /// The tasks with an estimate, in task order; empty: no estimates, and
  /// the reports show none.
  std::vector<report_estimate> estimates;
  std::chrono::milliseconds estimate_total{0};
  std::chrono::milliseconds estimate_actual{0};
  /// The audit trail, oldest first, when the session had a bulk edit or an
  /// undo (otherwise its runs say it all): empty, and not shown, else.
  std::vector<report_change> changes;
  /// Any run paused, noted or corrected: the reports show those details.
  bool edited() const;
};

/// The report of `s` as of `now`, its times shown in `tz`. Open sessions
/// end "now"; running runs end there too, marked running.
report_model build_report(const domain::tracking_session& s,
                          domain::instant now, const domain::zone& tz);

/// The report of a focus session (mark_session_start / _end) as of `now`:
/// milestone "focus" named by its intent, metadata kind=focus and its
/// summary (as "note"), and its span as the one run of task "focus" (completed once
/// ended, else running).
report_model build_focus_report(const domain::focus_row& f,
                                domain::wall_time now,
                                const domain::zone& tz);

enum class report_format { markdown, csv, json, html };

/// "markdown", "csv", "json", "html".
const char* to_string(report_format f);
/// The format named `name` (as to_string spells it), or nullopt.
std::optional<report_format> parse_report_format(std::string_view name);
/// "text/markdown", "text/csv", "application/json", "text/html" (with
/// "; charset=utf-8" for the text ones).
const char* mime_type(report_format f);

struct report_options {
  /// Markdown: a Mermaid gantt block of every run.
  bool include_gantt = true;
};

/// The report text in `f`.
std::string render_report(const report_model& m, report_format f,
                          const report_options& opts = {});

// One renderer per format (markdown.cpp, csv.cpp, json.cpp, html.cpp).
std::string render_markdown(const report_model& m, const report_options& o);
std::string render_csv(const report_model& m);
std::string render_json(const report_model& m);
std::string render_html(const report_model& m, const report_options& o);

/// The Mermaid gantt chart of every run (no code fence), one section per
/// task so parallel runs show as overlapping bars.
std::string render_mermaid_gantt(const report_model& m);

// -- SVG: one renderer for the HTML report and the MCP App (docs/app.md) --

struct svg_options {
  /// A document of its own (the app parses it as image/svg+xml): with the
  /// SVG namespace. Inline in HTML (the report) it needs none, and the
  /// report names no URL.
  bool standalone = false;
};

/// The timeline of `m` (svg_timeline.cpp): a row per run, pauses as gaps,
/// status as a CSS class (completed, skipped, failed, interrupted,
/// running) with a legend, the estimate as an outline, an axis in m.tz
/// with nice ticks (svg_ticks). Every bar is focusable, labelled and
/// titled. Colours come from the embedding page's CSS.
std::string render_svg_timeline(const report_model& m,
                                const svg_options& o = {});

/// One bar of a bar chart: its label, its length and what its tooltip
/// and accessible name add (e.g. "3 sessions, 12 runs").
struct svg_bar {
  std::string label;
  std::chrono::milliseconds value{0};
  std::string detail;
};

/// A horizontal bar chart of durations (svg_bars.cpp; time_stats in the
/// app), titled `title`, a bar per entry in the given order.
std::string render_svg_bars(const std::string& title,
                            const std::vector<svg_bar>& bars,
                            const svg_options& o = {});

/// An axis tick: its offset from the axis start and its label.
struct svg_tick {
  std::chrono::milliseconds at{0};
  std::string label;
};

/// Ticks over [start, start + span] in `tz` at a "nice" step (1 s, 2 s,
/// 5 s, 10 s, 15 s, 30 s, 1 min, ..., 1 h, 2 h, 3 h, 6 h, 12 h, 1 d, 2 d,
/// 7 d): at most `max_ticks`, on the step's local boundaries, labelled
/// H:MM:SS, H:MM or the date as the step needs (a time tick on a new day
/// names the day too).
std::vector<svg_tick> svg_ticks(domain::wall_time start,
                                std::chrono::milliseconds span,
                                const domain::zone& tz, int max_ticks = 6);

} // namespace ttm::reports
