#include "tools/session_common.hpp"

#include "domain/absolute_time.hpp"
#include "domain/ascii.hpp"
#include "domain/calendar_math.hpp"
#include "domain/time_format.hpp"

#include <algorithm>

namespace ttm::tools {

using domain::format_duration;
using domain::format_duration_iso;
using domain::format_iso8601;

void counts_fields::set(const domain::task_counts& c) {
  tasks_completed = static_cast<std::int64_t>(c.completed);
  tasks_skipped = static_cast<std::int64_t>(c.skipped);
  tasks_failed = static_cast<std::int64_t>(c.failed);
  tasks_in_progress = static_cast<std::int64_t>(c.in_progress);
  tasks_not_started = static_cast<std::int64_t>(c.not_started);
  tasks_remaining = static_cast<std::int64_t>(c.remaining());
}

std::int64_t to_ms(std::chrono::milliseconds d) {
  return static_cast<std::int64_t>(d.count());
}

namespace {

/// "10m", "1.5h", "1h30m", "90s", "2d": numbers (a fraction allowed) each
/// followed by a unit, d(ays of 24 hours), h, m(in) or s; or nullopt.
std::optional<std::chrono::milliseconds> unit_estimate(std::string_view t) {
  if (t.empty())
    return std::nullopt;
  double total = 0;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t digits = i;
    while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.'))
      ++i;
    auto number = t.substr(digits, i - digits);
    if (number.empty() || number.size() > 9 || number.front() == '.'
        || number.back() == '.'
        || number.find('.') != number.rfind('.'))
      return std::nullopt;
    std::size_t unit = i;
    while (i < t.size() && t[i] >= 'a' && t[i] <= 'z')
      ++i;
    auto u = t.substr(unit, i - unit);
    double scale = u == "d"                  ? 86'400'000.0
                   : u == "h"                ? 3'600'000.0
                   : u == "m" || u == "min"  ? 60'000.0
                   : u == "s"                ? 1'000.0
                                             : 0.0;
    if (scale == 0)
      return std::nullopt;
    // Not std::stod, which reads the decimal point of the C locale.
    double value = 0;
    double place = 0;
    for (char c : number) {
      if (c == '.') {
        place = 1;
      } else if (place == 0) {
        value = value * 10 + (c - '0');
      } else {
        place /= 10;
        value += (c - '0') * place;
      }
    }
    total += value * scale;
  }
  return std::chrono::milliseconds{static_cast<std::int64_t>(total + 0.5)};
}

} // namespace

std::variant<std::chrono::milliseconds, std::string>
parse_estimate(const std::string& text) {
  auto why = "estimate '" + text
             + "' is neither whole minutes (e.g. '15'), a number with a "
               "unit ('10m', '1.5h', '1h30m') nor an ISO 8601 duration "
               "('PT1H30M', 'P1D': a day is 24 hours)";
  auto year = std::chrono::milliseconds{std::chrono::hours{24 * 365}};
  auto bounded = [&](std::chrono::milliseconds ms)
    -> std::variant<std::chrono::milliseconds, std::string> {
    if (ms > year)
      return "estimate '" + text + "' is longer than a year";
    return ms;
  };
  if (!text.empty() && text.size() <= 7 && domain::all_digits(text))
    return std::chrono::milliseconds{std::stoll(text) * 60'000};
  auto lower = domain::ascii_lower(text);
  if (auto ms = unit_estimate(lower))
    return bounded(*ms);
  auto d = domain::parse_iso_duration(text);
  auto* ok = std::get_if<domain::iso_duration>(&d);
  // Years and months have no fixed length: not an amount of work.
  if (ok == nullptr || ok->negative || ok->years != 0 || ok->months != 0)
    return why;
  if (ok->weeks > 52 || ok->days > 366)
    return bounded(year + std::chrono::milliseconds{1});
  return bounded(ok->exact_part()
                 + std::chrono::hours{24 * (7 * ok->weeks + ok->days)});
}

const object_schema<pause_detail>& nested<pause_detail>::schema() {
  static const auto decl = [] {
    object_schema<pause_detail> s;
    s.add("start_time", &pause_detail::start_time, "ISO 8601 pause start.");
    s.add("end_time", &pause_detail::end_time,
          "ISO 8601 resume; null: still paused.");
    s.add("duration_ms", &pause_detail::duration_ms,
          "Its length (so far).");
    return s;
  }();
  return decl;
}

const object_schema<note_detail>& nested<note_detail>::schema() {
  static const auto decl = [] {
    object_schema<note_detail> s;
    s.add("time", &note_detail::time, "ISO 8601 time of the note.");
    s.add("text", &note_detail::text, "The note.");
    return s;
  }();
  return decl;
}

const object_schema<correction_detail>& nested<correction_detail>::schema() {
  static const auto decl = [] {
    using c = correction_detail;
    object_schema<c> s;
    s.add("time", &c::time, "ISO 8601 time of the correction.");
    s.add("reason", &c::reason, "Why, as given.");
    s.add("start_time_before", &c::start_time_before,
          "The run's start before the correction.");
    s.add("end_time_before", &c::end_time_before,
          "The run's end before the correction; null if it was running.");
    s.add("status_before", &c::status_before,
          "The run's status before the correction.");
    return s;
  }();
  return decl;
}

const object_schema<estimate_detail>& nested<estimate_detail>::schema() {
  static const auto decl = [] {
    using e = estimate_detail;
    object_schema<e> s;
    s.add("task_id", &e::task_id, "The task.");
    s.add("estimate_ms", &e::estimate_ms, "Its estimate.");
    s.add("actual_ms", &e::actual_ms, "Its runs' time (so far).");
    s.add("difference_ms", &e::difference_ms,
          "actual_ms - estimate_ms (> 0: over).");
    s.add("status", &e::status, "The task's status.");
    return s;
  }();
  return decl;
}

const object_schema<forecast_detail>& nested<forecast_detail>::schema() {
  static const auto decl = [] {
    using f = forecast_detail;
    object_schema<f> s;
    s.add("remaining_ms", &f::remaining_ms,
          "Projected time until every task is done, one after another.");
    s.add("remaining", &f::remaining, "remaining_ms, human-readable.");
    s.add("remaining_iso", &f::remaining_iso, "In ISO 8601.");
    s.add("projected_end_time", &f::projected_end_time,
          "ISO 8601: now plus remaining_ms.");
    s.add("basis", &f::basis, "What the projection rests on.")
      .one_of({"estimates", "median", "estimates_and_median"});
    s.add("tasks_left", &f::tasks_left, "Tasks not started or running.");
    s.add("message", &f::message,
          "E.g. 'On track to complete in approximately 10 minutes.'");
    return s;
  }();
  return decl;
}

const object_schema<task_detail>& nested<task_detail>::schema() {
  static const auto decl = [] {
    object_schema<task_detail> s;
    s.add("task_id", &task_detail::task_id, "Task ID.");
    s.add("task_name", &task_detail::task_name,
          "Name given at time_task_start.");
    s.add("external_task_id", &task_detail::external_task_id,
          "External task id given at time_task_start.");
    s.add("work_item_id", &task_detail::work_item_id,
          "Work item (Jira/GitHub issue) given at time_task_start.");
    s.add("run", &task_detail::run,
          "1, 2, ... (started again after it ended); null: never "
          "started.");
    s.add("start_time", &task_detail::start_time,
          "ISO 8601 start, in the session's zone.");
    s.add("end_time", &task_detail::end_time,
          "ISO 8601 end; null while running or never started.");
    s.add("duration", &task_detail::duration,
          "Human-readable duration (time so far while running).");
    s.add("duration_ms", &task_detail::duration_ms,
          "Duration in milliseconds, from the monotonic clock.");
    s.add("duration_iso", &task_detail::duration_iso,
          "ISO 8601 duration, e.g. PT2M34S.");
    s.add("duration_source", &task_detail::duration_source,
          "monotonic; wall_clock for a run across a machine restart (from "
          "the journal); corrected when time_tasks_edit corrected its "
          "times; null when never started.");
    s.add("status", &task_detail::status,
          "interrupted: running when the session ended.")
      .one_of({"in_progress", "completed", "skipped", "failed",
               "interrupted", "not_started"});
    s.add("metadata", &task_detail::metadata,
          "Metadata given at time_task_start.");
    s.add("completion_metadata", &task_detail::completion_metadata,
          "Metadata given at time_task_end.");
    s.add("active_ms", &task_detail::active_ms,
          "Paused runs: time running (= duration_ms).")
      .omit_when_empty();
    s.add("pauses", &task_detail::pauses,
          "Paused runs: each pause, oldest first.")
      .omit_when_empty();
    s.add("notes", &task_detail::notes,
          "The run's notes, oldest first.")
      .omit_when_empty();
    s.add("corrections", &task_detail::corrections,
          "The run's corrections, oldest first, with the values before.")
      .omit_when_empty();
    return s;
  }();
  return decl;
}

std::shared_ptr<output_schema<summary_result>>
make_summary_schema(bool for_end) {
  using r = summary_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("session_id", &r::session_id, "The session.");
  out->add("milestone_id", &r::milestone_id, "Milestone given at start.");
  out->add("milestone_name", &r::milestone_name,
           "Milestone name given at start.");
  out->add("status", &r::status,
           "'active' while open, 'ended' after time_session_end, 'expired' "
           "past its age or idle limit (read only).")
    .one_of({"active", "ended", "expired"});
  out->add("start_time", &r::start_time, "ISO 8601 session start.");
  out->add("start_time_friendly", &r::start_time_friendly,
           "Start, e.g. 'December 14, 2025 9:45:32 AM EST'.");
  out->add("end_time", &r::end_time,
           "ISO 8601 session end; the current time while active.");
  out->add("end_time_friendly", &r::end_time_friendly,
           "End (or now), human-readable.");
  out->add("total_duration", &r::total_duration,
           "Session duration, e.g. '11 minutes 46 seconds'.");
  out->add("total_duration_ms", &r::total_duration_ms,
           "In milliseconds (monotonic clock).");
  out->add("total_duration_iso", &r::total_duration_iso,
           "In ISO 8601.");
  out->add("busy_duration_ms", &r::busy_duration_ms,
           "Time any task was running (the union of the runs).");
  out->add("busy_duration", &r::busy_duration,
           "busy_duration_ms, human-readable.");
  out->add("busy_duration_iso", &r::busy_duration_iso,
           "In ISO 8601.");
  out->add("task_time_ms", &r::task_time_ms,
           "The runs' durations summed.");
  out->add("task_time", &r::task_time, "task_time_ms, human-readable.");
  out->add("task_time_iso", &r::task_time_iso, "In ISO 8601.");
  out->add("duration_source", &r::duration_source,
           "monotonic; wall_clock when the session or a run spans a "
           "machine restart (from the journal).")
    .one_of({"monotonic", "wall_clock"});
  out->add("task_count", &r::task_count, "Tasks registered at start.");
  add_counts(*out);
  out->add("tasks_interrupted", &r::tasks_interrupted,
           "Tasks still running when the session ended.");
  out->add("timezone", &r::timezone, "Zone of all timestamps.");
  out->add("metadata", &r::metadata, "Metadata given at start.");
  out->add("tags", &r::tags, "Tags given at start.");
  out->add("estimates", &r::estimates,
           "Per estimated task: estimate, actual, difference.")
    .omit_when_empty();
  out->add("estimate_total_ms", &r::estimate_total_ms,
           "Sum of the estimates.")
    .omit_when_empty();
  out->add("estimate_actual_ms", &r::estimate_actual_ms,
           "Actual time of the estimated tasks.")
    .omit_when_empty();
  out->add("estimate_difference_ms", &r::estimate_difference_ms,
           "estimate_actual_ms - estimate_total_ms.")
    .omit_when_empty();
  out->add("forecast", &r::forecast,
           "Active sessions: when the remaining tasks should be done (by "
           "estimates, else the median task); absent when ended or without "
           "a basis.")
    .omit_when_empty();
  out->add("tasks", &r::tasks,
           "One entry per run, in task_ids order; absent when "
           "include_task_details is false.")
    .omit_when_empty();
  if (for_end)
    out->add("already_ended", &r::already_ended,
             "True when the session had already ended: this is the summary "
             "from then, unchanged.");
  return out;
}

namespace {

std::chrono::milliseconds actual_of(const domain::tracked_task& t,
                                    domain::mono_time at) {
  std::chrono::milliseconds sum{0};
  for (const auto& r : t.runs)
    sum += r.duration(at);
  return sum;
}

void add_estimates(summary_result& r, const domain::tracking_session& s,
                   const domain::instant& end) {
  std::vector<estimate_detail> out;
  std::int64_t est = 0;
  std::int64_t act = 0;
  for (const auto& t : s.tasks) {
    if (!t.estimate)
      continue;
    estimate_detail d;
    d.task_id = t.id;
    d.estimate_ms = to_ms(*t.estimate);
    d.actual_ms = to_ms(actual_of(t, end.mono));
    d.difference_ms = d.actual_ms - d.estimate_ms;
    d.status = t.current() ? domain::to_string(t.current()->status)
                           : "not_started";
    est += d.estimate_ms;
    act += d.actual_ms;
    out.push_back(std::move(d));
  }
  if (out.empty())
    return;
  r.estimates = std::move(out);
  r.estimate_total_ms = est;
  r.estimate_actual_ms = act;
  r.estimate_difference_ms = act - est;
}

/// Spec Pattern 4: the remaining tasks' estimates, else the median of the
/// completed ones, each less the time it ran so far; none without a basis.
std::optional<forecast_detail> forecast_of(const domain::tracking_session& s,
                                           const domain::instant& now) {
  std::vector<std::chrono::milliseconds> done;
  for (const auto& t : s.tasks)
    if (t.current() && t.current()->status == domain::run_status::completed)
      done.push_back(actual_of(t, now.mono));
  std::optional<std::chrono::milliseconds> median;
  if (!done.empty()) {
    std::sort(done.begin(), done.end());
    auto n = done.size();
    median = n % 2 ? done[n / 2] : (done[n / 2 - 1] + done[n / 2]) / 2;
  }
  std::chrono::milliseconds left{0};
  bool by_estimate = false;
  bool by_median = false;
  std::int64_t tasks_left = 0;
  for (const auto& t : s.tasks) {
    const auto* cur = t.current();
    if (cur && cur->status != domain::run_status::in_progress)
      continue;
    ++tasks_left;
    auto basis = t.estimate ? t.estimate : median;
    if (!basis)
      return std::nullopt;
    (t.estimate ? by_estimate : by_median) = true;
    auto ran = cur ? cur->duration(now.mono) : std::chrono::milliseconds{0};
    if (*basis > ran)
      left += *basis - ran;
  }
  if (tasks_left == 0)
    return std::nullopt;
  forecast_detail f;
  f.remaining_ms = to_ms(left);
  // "approximately 10 minutes": whole minutes from a minute on.
  auto shown = left >= std::chrono::minutes{1}
                 ? std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::round<std::chrono::minutes>(left))
                 : std::chrono::round<std::chrono::seconds>(left);
  f.remaining = format_duration(shown);
  f.remaining_iso = format_duration_iso(
    std::chrono::duration_cast<std::chrono::milliseconds>(left));
  f.projected_end_time = format_iso8601(
    now.wall + std::chrono::duration_cast<domain::wall_time::duration>(left),
    s.tz);
  f.basis = by_estimate && by_median ? "estimates_and_median"
            : by_estimate            ? "estimates"
                                     : "median";
  f.tasks_left = tasks_left;
  f.message = "On track to complete in approximately " + f.remaining + " ("
              + std::to_string(tasks_left) + " task"
              + (tasks_left == 1 ? "" : "s") + " left).";
  return f;
}

} // namespace

summary_result summarize(const domain::tracking_session& s,
                         domain::instant now, bool include_task_details) {
  summary_result r;
  const auto& z = s.tz;
  auto end = s.end ? *s.end : now;
  r.session_id = s.id;
  r.milestone_id = s.milestone_id;
  r.milestone_name = s.milestone_name;
  r.status = s.expired ? "expired" : s.ended() ? "ended" : "active";
  r.start_time = format_iso8601(s.start.wall, z);
  r.start_time_friendly = domain::format_friendly(s.start.wall, z);
  r.end_time = format_iso8601(end.wall, z);
  r.end_time_friendly = domain::format_friendly(end.wall, z);
  auto total = s.elapsed(now.mono);
  r.total_duration = format_duration(total);
  r.total_duration_ms = to_ms(total);
  r.total_duration_iso = format_duration_iso(total);
  auto totals = s.task_totals(end.mono);
  r.busy_duration_ms = to_ms(totals.busy);
  r.busy_duration = format_duration(totals.busy);
  r.busy_duration_iso = format_duration_iso(totals.busy);
  r.task_time_ms = to_ms(totals.task_time);
  r.task_time = format_duration(totals.task_time);
  r.task_time_iso = format_duration_iso(totals.task_time);
  // Any span whose ends lie in different boots was measured by the wall
  // clock; so are the totals that include it.
  bool wall = s.start.boot != end.boot;
  for (const auto& t : s.tasks)
    for (const auto& run : t.runs)
      wall = wall || run.start.boot != (run.end ? *run.end : end).boot;
  r.duration_source = wall ? "wall_clock" : "monotonic";
  auto counts = s.counts();
  r.set(counts);
  r.task_count = static_cast<std::int64_t>(s.tasks.size());
  r.tasks_interrupted = static_cast<std::int64_t>(counts.interrupted);
  r.timezone = z.name();
  r.metadata = s.metadata;
  r.tags = s.tags;
  add_estimates(r, s, end);
  if (!s.ended())
    r.forecast = forecast_of(s, now);
  if (!include_task_details)
    return r;
  std::vector<task_detail> details;
  details.reserve(s.tasks.size());
  for (const auto& t : s.tasks) {
    if (t.runs.empty()) {
      task_detail d;
      d.task_id = t.id;
      d.task_name = t.name;
      d.status = "not_started";
      details.push_back(std::move(d));
      continue;
    }
    for (const auto& run : t.runs) {
      task_detail d;
      d.task_id = t.id;
      d.task_name = run.task_name;
      d.external_task_id = run.external_task_id;
      d.work_item_id = run.work_item_id;
      d.run = static_cast<std::int64_t>(run.number);
      d.start_time = format_iso8601(run.start.wall, z);
      if (run.end)
        d.end_time = format_iso8601(run.end->wall, z);
      auto took = run.duration(end.mono);
      d.duration = format_duration(took);
      d.duration_ms = to_ms(took);
      d.duration_iso = format_duration_iso(took);
      d.duration_source = domain::duration_source(run.start,
                                                  run.end ? *run.end : end);
      d.status = domain::to_string(run.status);
      d.metadata = run.metadata;
      d.completion_metadata = run.completion_metadata;
      if (!run.pauses.empty()) {
        d.active_ms = d.duration_ms;
        std::vector<pause_detail> ps;
        auto stop = run.end ? *run.end : end;
        for (const auto& p : run.pauses) {
          pause_detail pd;
          pd.start_time = format_iso8601(p.start.wall, z);
          if (p.end)
            pd.end_time = format_iso8601(p.end->wall, z);
          auto to = p.end ? p.end->mono : stop.mono;
          pd.duration_ms = to > p.start.mono
                             ? to_ms(std::chrono::duration_cast<
                                     std::chrono::milliseconds>(
                                 to - p.start.mono))
                             : 0;
          ps.push_back(std::move(pd));
        }
        d.pauses = std::move(ps);
      }
      if (!run.corrections.empty()) {
        d.duration_source = "corrected";
        std::vector<correction_detail> cs;
        for (const auto& c : run.corrections)
          cs.push_back({format_iso8601(c.at.wall, z), c.reason,
                        format_iso8601(c.start_before, z),
                        c.end_before ? std::optional<std::string>{
                                         format_iso8601(*c.end_before, z)}
                                     : std::nullopt,
                        domain::to_string(c.status_before)});
        d.corrections = std::move(cs);
      }
      if (!run.notes.empty()) {
        std::vector<note_detail> ns;
        for (const auto& n : run.notes)
          ns.push_back({format_iso8601(n.at.wall, z), n.text});
        d.notes = std::move(ns);
      }
      details.push_back(std::move(d));
    }
  }
  r.tasks = std::move(details);
  return r;
}

outcome<domain::tracking_session*> use_session(tool_context& ctx,
                                               const std::string& id,
                                               domain::instant now) {
  auto res = ctx.tracker.use(id, now);
  if (auto* err = std::get_if<domain::tracking_error>(&res)) {
    auto out = to_tool_error(std::move(*err));
    if (out.code == "SESSION_NOT_FOUND")
      out.maybe_focus = id;
    return out;
  }
  return std::get<domain::tracking_session*>(res);
}

/// LIMIT_REACHED naming the limit the supervisor refused with: the global
/// cap counts ended sessions until they make room; the shares count only
/// open ones, so ending sessions frees them.
tool_error limit_reached(const domain::slot_answer& answer,
                         const tool_context& ctx) {
  if (answer.limit.empty()
      || answer.limit == "max_tracking_sessions")
    return tool_error{
      "LIMIT_REACHED",
      "The limit of "
        + std::to_string(answer.limit.empty()
                           ? ctx.tracker.limits().max_sessions
                           : answer.value)
        + " open tracking sessions (max_tracking_sessions) is reached. "
          "End sessions you no longer need with time_session_end: "
          "ended sessions make room for new ones.",
      {},
      "max_tracking_sessions"};
  bool per_principal = answer.limit == "max_tracking_sessions_per_principal";
  return tool_error{
    "LIMIT_REACHED",
    "The limit of " + std::to_string(answer.value) + " open tracking sessions "
      + (per_principal ? "per principal" : "per MCP session") + " ("
      + answer.limit
      + ") is reached. End sessions you no longer need with "
        "time_session_end: only open sessions count against this limit.",
    {},
    answer.limit};
}

} // namespace ttm::tools
