#pragma once

// What the five session tools share: the argument limits, the task counts
// every reply carries, and the session summary of time_session_end and
// time_session_summary (one declaration, one builder).

#include "domain/tracking.hpp"
#include "tools/tool.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::tools {

// Limits on what an agent may send; generous for real milestones, small
// enough that one call cannot exhaust memory.
inline constexpr std::size_t max_id_length = 256;
inline constexpr std::size_t max_name_length = 1024;
inline constexpr std::size_t max_metadata_entries = 64;
inline constexpr std::size_t max_metadata_value_length = 4096;
inline constexpr std::size_t max_tags = 64;
inline constexpr std::size_t tracking_estimates_max = 500;

/// Declares the `metadata` argument: a flat object of strings.
template <class Args>
void add_metadata_arg(input_schema<Args>& in, domain::string_map Args::*member,
                      const char* description) {
  in.add("metadata", member, description)
    .max_properties(max_metadata_entries)
    .item_max_length(max_metadata_value_length);
}

/// Declares the `session_id` argument. Over HTTP (2026-07-28) clients
/// repeat it in Mcp-Param-Session-Id: a proxy in front of several servers
/// can keep a session's calls on one of them (locality) without reading
/// bodies.
template <class Args>
void add_session_id_arg(input_schema<Args>& in, std::string Args::*member) {
  in.add("session_id", member, "Session ID from time_session_start.")
    .required()
    .min_length(1)
    .max_length(max_id_length)
    .mirror_header("Session-Id");
}

/// The task counts every session tool reports, consistent by construction:
/// task_count = completed + skipped + failed + in_progress + interrupted
/// + not_started, and tasks_remaining = not_started.
struct counts_fields {
  std::int64_t tasks_completed = 0;
  std::int64_t tasks_skipped = 0;
  std::int64_t tasks_failed = 0;
  std::int64_t tasks_in_progress = 0;
  std::int64_t tasks_not_started = 0;
  std::int64_t tasks_remaining = 0;

  void set(const domain::task_counts& c);
};

/// Declares the counts of a result that derives from counts_fields.
template <class Result>
void add_counts(output_schema<Result>& out) {
  using member = std::int64_t Result::*;
  out.add("tasks_completed", member{&Result::tasks_completed},
          "Tasks whose latest run completed.");
  out.add("tasks_skipped", member{&Result::tasks_skipped},
          "Tasks whose latest run was skipped.");
  out.add("tasks_failed", member{&Result::tasks_failed},
          "Tasks whose latest run failed.");
  out.add("tasks_in_progress", member{&Result::tasks_in_progress},
          "Tasks running now.");
  out.add("tasks_not_started", member{&Result::tasks_not_started},
          "Tasks never started.");
  out.add("tasks_remaining", member{&Result::tasks_remaining},
          "Equals tasks_not_started.");
}

/// A pause of a run, in a summary.
struct pause_detail {
  std::string start_time;
  std::optional<std::string> end_time;
  std::int64_t duration_ms = 0;
};

template <>
struct nested<pause_detail> {
  static const object_schema<pause_detail>& schema();
};

/// A note on a run, in a summary.
struct note_detail {
  std::string time;
  std::string text;
};

template <>
struct nested<note_detail> {
  static const object_schema<note_detail>& schema();
};

/// A correction of a run, in a summary: when, why, and what it was before.
struct correction_detail {
  std::string time;
  std::string reason;
  std::string start_time_before;
  std::optional<std::string> end_time_before;
  std::string status_before;
};

template <>
struct nested<correction_detail> {
  static const object_schema<correction_detail>& schema();
};

/// One entry of a summary's `tasks`: a run of a task, or a task never
/// started (status "not_started", times null).
struct task_detail {
  std::string task_id;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  std::optional<std::int64_t> run;
  std::optional<std::string> start_time;
  std::optional<std::string> end_time;
  std::optional<std::string> duration;
  std::optional<std::int64_t> duration_ms;
  std::optional<std::string> duration_iso;
  std::optional<std::string> duration_source;
  std::string status;
  domain::string_map metadata;
  domain::string_map completion_metadata;
  /// Only for runs that were paused / have notes (time_tasks_edit).
  std::optional<std::int64_t> active_ms;
  std::optional<std::vector<pause_detail>> pauses;
  std::optional<std::vector<note_detail>> notes;
  std::optional<std::vector<correction_detail>> corrections;
};

template <>
struct nested<task_detail> {
  static const object_schema<task_detail>& schema();
};

/// A task's estimate against its actual time (the sum of its runs).
struct estimate_detail {
  std::string task_id;
  std::int64_t estimate_ms = 0;
  std::int64_t actual_ms = 0;
  std::int64_t difference_ms = 0; ///< actual - estimate
  std::string status;
};

template <>
struct nested<estimate_detail> {
  static const object_schema<estimate_detail>& schema();
};

/// When an active session is projected to end.
struct forecast_detail {
  std::int64_t remaining_ms = 0;
  std::string remaining;
  std::string remaining_iso;
  std::string projected_end_time;
  std::string basis; ///< estimates, median, estimates_and_median
  std::int64_t tasks_left = 0;
  std::string message;
};

template <>
struct nested<forecast_detail> {
  static const object_schema<forecast_detail>& schema();
};

/// The reply of time_session_end and time_session_summary.
struct summary_result : counts_fields {
  std::string session_id;
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  std::string status; ///< "active" or "ended"
  std::string start_time;
  std::string start_time_friendly;
  std::string end_time;
  std::string end_time_friendly;
  std::string total_duration;
  std::int64_t total_duration_ms = 0;
  std::string total_duration_iso;
  std::int64_t busy_duration_ms = 0;
  std::string busy_duration;
  std::string busy_duration_iso;
  std::int64_t task_time_ms = 0;
  std::string task_time;
  std::string task_time_iso;
  std::string duration_source;
  std::int64_t task_count = 0;
  std::int64_t tasks_interrupted = 0;
  std::string timezone;
  domain::string_map metadata;
  std::vector<std::string> tags;
  std::optional<std::vector<task_detail>> tasks;
  /// Sessions with estimates (issue 17).
  std::optional<std::vector<estimate_detail>> estimates;
  std::optional<std::int64_t> estimate_total_ms;
  std::optional<std::int64_t> estimate_actual_ms;
  std::optional<std::int64_t> estimate_difference_ms;
  /// Active sessions, when estimates or finished tasks give a basis.
  std::optional<forecast_detail> forecast;
  bool already_ended = false; ///< time_session_end only
};

/// Declares the summary fields; `for_end` adds `already_ended`.
std::shared_ptr<output_schema<summary_result>>
make_summary_schema(bool for_end);

/// The summary of `s` at `now` (open sessions: end_time is now and running
/// tasks show their time so far).
summary_result summarize(const domain::tracking_session& s,
                         domain::instant now, bool include_task_details);

/// The session named by a call, owned by this client, marked active.
outcome<domain::tracking_session*> use_session(tool_context& ctx,
                                               const std::string& id,
                                               domain::instant now);

/// Runs `f(session, now)` on the session named by a call (read at one
/// instant), or returns why there is none. For the tools that change it:
/// one that expired (history, read only) answers SESSION_EXPIRED.
template <class Result, class F>
outcome<Result> on_session(tool_context& ctx, const std::string& id, F f) {
  auto now = domain::now_of(ctx.clock);
  auto found = use_session(ctx, id, now);
  if (auto* err = std::get_if<tool_error>(&found))
    return std::move(*err);
  auto* s = std::get<domain::tracking_session*>(found);
  if (s->expired)
    return to_tool_error(ctx.tracker.expired_error(*s));
  return f(*s, now);
}

/// As on_session, for the tools that only read a session: an expired one
/// too, as its history.
template <class Result, class F>
outcome<Result> read_session(tool_context& ctx, const std::string& id, F f) {
  auto now = domain::now_of(ctx.clock);
  auto found = use_session(ctx, id, now);
  if (auto* err = std::get_if<tool_error>(&found))
    return std::move(*err);
  return f(*std::get<domain::tracking_session*>(found), now);
}

std::int64_t to_ms(std::chrono::milliseconds d);

/// LIMIT_REACHED for a refused slot (a start, or time_undo reopening an
/// ended session), naming the limit the supervisor refused with.
tool_error limit_reached(const domain::slot_answer& answer,
                         const tool_context& ctx);

/// An estimate as an agent writes it: whole minutes ("15"), numbers with
/// units ("10m", "1.5h", "1h30m") or an ISO 8601 duration without years
/// or months ("PT1H30M", "P1D": days of 24 hours); at most a year; or why
/// not.
std::variant<std::chrono::milliseconds, std::string>
parse_estimate(const std::string& text);

// One function per session tool, each in its own translation unit.
tool make_time_session_start(const domain::tracking_limits& limits);
tool make_time_task_start();
tool make_time_task_end();
tool make_time_tasks_edit();
tool make_time_undo();
tool make_time_session_end();
tool make_time_session_summary();
tool make_time_session_report();

} // namespace ttm::tools
