// time_stats (issue 16): the caller's sessions started in a date range,
// grouped by milestone, tag, day, week or task, with session and task
// counts, total / busy / task time, median and p90 run durations, and run
// outcomes; each group's numbers and the totals. Like time_session_list
// the handler checks every argument and hands the query to the MCP layer
// (history_wait, with runs); `finish` computes the groups.

#include "domain/stats.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "reports/report.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"
#include "tools/timestamp_format.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::tools {

namespace {

using namespace std::chrono_literals;

/// Sessions one call reads at most (a bound on its work): more in the
/// range and the reply says `truncated` (the newest are counted).
constexpr std::size_t max_sessions = 10'000;
constexpr auto default_range = std::chrono::hours{24 * 30};
constexpr auto max_range = std::chrono::hours{24 * 366};

const std::vector<std::string>& weekdays() {
  static const std::vector<std::string> v{"sunday",   "monday", "tuesday",
                                          "wednesday", "thursday", "friday",
                                          "saturday"};
  return v;
}

struct stats_args {
  std::string group_by = "day";
  std::optional<std::string> from;
  std::optional<std::string> to;
  std::string timezone = "local";
  std::string week_start = "monday";
  std::optional<std::string> status;
  std::optional<std::string> milestone_id;
  std::vector<std::string> tags;
};

struct numbers_out {
  std::int64_t sessions = 0;
  std::int64_t tasks = 0;
  std::int64_t runs = 0;
  std::int64_t total_duration_ms = 0;
  std::int64_t busy_duration_ms = 0;
  std::int64_t task_time_ms = 0;
  std::optional<std::int64_t> median_task_ms;
  std::optional<std::int64_t> p90_task_ms;
  std::int64_t runs_completed = 0;
  std::int64_t runs_skipped = 0;
  std::int64_t runs_failed = 0;
  std::int64_t runs_interrupted = 0;
  std::int64_t runs_in_progress = 0;
  std::int64_t focus_sessions = 0;
  std::int64_t focus_time_ms = 0;

  void set(const domain::stats_numbers& n) {
    sessions = n.sessions;
    tasks = n.tasks;
    runs = n.runs;
    total_duration_ms = n.total.count();
    busy_duration_ms = n.busy.count();
    task_time_ms = n.task_time.count();
    if (n.median)
      median_task_ms = n.median->count();
    if (n.p90)
      p90_task_ms = n.p90->count();
    runs_completed = n.completed;
    runs_skipped = n.skipped;
    runs_failed = n.failed;
    runs_interrupted = n.interrupted;
    runs_in_progress = n.in_progress;
    focus_sessions = n.focus_sessions;
    focus_time_ms = n.focus_time.count();
  }
};

struct group_out : numbers_out {
  std::string key;
};

struct stats_result {
  std::string group_by;
  std::string from;
  std::string to;
  std::string timezone;
  std::vector<group_out> groups;
  numbers_out totals;
  bool truncated = false;
};

template <class T>
void add_numbers(object_schema<T>& s) {
  using m = std::int64_t T::*;
  using o = std::optional<std::int64_t> T::*;
  s.add("session_count", m{&T::sessions}, "Sessions.");
  s.add("tasks_started", m{&T::tasks}, "Tasks that ran (per session).");
  s.add("run_count", m{&T::runs}, "Task runs (a re-run counts again).");
  s.add("total_duration_ms", m{&T::total_duration_ms},
        "The sessions' durations, start to end (to now while active).");
  s.add("busy_duration_ms", m{&T::busy_duration_ms},
        "Per session, the time any of its runs was running; summed.");
  s.add("task_time_ms", m{&T::task_time_ms},
        "The runs' durations summed (parallel runs each count).");
  s.add("median_task_ms", o{&T::median_task_ms},
        "Median duration of the runs that ended (any status); null if "
        "none.");
  s.add("p90_task_ms", o{&T::p90_task_ms},
        "90th percentile (nearest rank) of the same; null if none.");
  s.add("runs_completed", m{&T::runs_completed}, "Runs ended completed.");
  s.add("runs_skipped", m{&T::runs_skipped}, "Runs ended skipped.");
  s.add("runs_failed", m{&T::runs_failed}, "Runs ended failed.");
  s.add("runs_interrupted", m{&T::runs_interrupted},
        "Runs still running when their session ended or expired.");
  s.add("runs_in_progress", m{&T::runs_in_progress}, "Runs running now.");
  s.add("focus_session_count", m{&T::focus_sessions},
        "Focus sessions (mark_session_start) started here; not in "
        "`session_count`. Milestone, tag and task groups have none.");
  s.add("focus_time_ms", m{&T::focus_time_ms},
        "Their durations summed (to now while open).");
}

tool_error invalid(std::string message) {
  return {"VALIDATION_ERROR", std::move(message)};
}

/// Task time per group as a bar chart, for the MCP App.
std::string chart(const stats_result& res) {
  std::vector<reports::svg_bar> bars;
  for (const auto& g : res.groups) {
    reports::svg_bar b;
    b.label = g.key.empty() && res.group_by == "tag" ? "(untagged)" : g.key;
    b.value = std::chrono::milliseconds{g.task_time_ms};
    auto count = [](std::int64_t n, const char* what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    b.detail = count(g.sessions, "session") + ", " + count(g.runs, "run")
               + ", " + std::to_string(g.runs_completed) + " completed";
    bars.push_back(std::move(b));
  }
  return reports::render_svg_bars("Task time by " + res.group_by + ", "
                                    + res.from.substr(0, 10) + " to "
                                    + res.to.substr(0, 10),
                                  bars, {true});
}

slot_outcome<stats_result> run(const stats_args& args, tool_context& ctx) {
  auto by = domain::stats_group_from(args.group_by);
  if (!by)
    return invalid("group_by: '" + args.group_by
                   + "' is not a grouping; use milestone, tag, day, week or "
                     "task");
  unsigned week_start = 1;
  {
    const auto& days = weekdays();
    auto it = std::find(days.begin(), days.end(), args.week_start);
    if (it == days.end())
      return invalid("week_start: '" + args.week_start
                     + "' is not a weekday; use monday ... sunday");
    week_start = static_cast<unsigned>(it - days.begin());
  }
  domain::history_filter f;
  if (args.status) {
    f.status = domain::history_status_from(*args.status);
    if (!f.status)
      return invalid("status: '" + *args.status
                     + "' is not a session status; use active, ended or "
                       "expired");
  }
  auto zone = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!zone.found)
    return tool_error{"INVALID_TIMEZONE", "timezone: " + zone.message,
                      std::move(zone.suggestions)};
  const auto& z = *zone.found;
  auto now = ctx.clock.wall_now();
  // Month and weekday names in the caller's locale too (no argument here).
  const auto* words = caller_time_words(ctx);
  auto read = [&](const char* name, const std::string& text)
    -> std::variant<domain::wall_time, tool_error> {
    domain::time_input_options opts;
    opts.now = now;
    opts.in = &z;
    opts.words = words;
    opts.on_conflict = domain::disambiguation::compatible;
    auto r = domain::parse_time_input(text, opts);
    if (auto* err = std::get_if<domain::time_input_error>(&r))
      return tool_error{err->code, std::string{name} + ": " + err->message,
                        err->suggestions};
    return std::get<domain::time_input>(r).instant;
  };
  domain::wall_time to = now;
  if (args.to) {
    auto t = read("to", *args.to);
    if (auto* err = std::get_if<tool_error>(&t))
      return std::move(*err);
    to = std::get<domain::wall_time>(t);
  }
  domain::wall_time from = to - default_range;
  if (args.from) {
    auto t = read("from", *args.from);
    if (auto* err = std::get_if<tool_error>(&t))
      return std::move(*err);
    from = std::get<domain::wall_time>(t);
  }
  if (!(from < to))
    return invalid("to: it must be later than from");
  if (to - from > max_range)
    return invalid("from: the range is longer than 366 days; ask for a "
                   "shorter one");
  f.started_after = from;
  f.started_before = to;
  f.milestone_id = args.milestone_id;
  f.tags = args.tags;
  f.limit = max_sessions;
  f.runs = true;
  // By task reads the runs; the other groupings a closed session's digest
  // (5,000 small values a month instead of 250,000 runs to decode).
  f.digests = *by != domain::stats_group::task;
  // Focus sessions count apart (focus_session_count, focus_time_ms).
  f.kind = domain::history_kind::all;
  stats_result head;
  head.group_by = args.group_by;
  head.from = domain::format_iso8601(from, z);
  head.to = domain::format_iso8601(to, z);
  head.timezone = z.name();
  return history_wait<stats_result>{
    std::move(f),
    [head, by, z, week_start](const domain::history_page& page,
                              tool_context& c) -> outcome<stats_result> {
      auto res = head;
      auto stats = domain::compute_stats(page.runs, page.task_ids, *by, z,
                                          week_start);
      domain::add_focus(stats, page.focus, *by, z, week_start,
                        c.clock.wall_now());
      res.totals.set(stats.totals);
      for (const auto& g : stats.groups) {
        group_out row;
        row.set(g.numbers);
        row.key = g.key;
        res.groups.push_back(std::move(row));
      }
      res.truncated = page.more || page.focus_more;
      if (c.ui_view) // the MCP App's bar chart (docs/app.md)
        c.view_svg = chart(res);
      return res;
    }};
}

} // namespace

template <>
struct nested<numbers_out> {
  static const object_schema<numbers_out>& schema() {
    static const auto decl = [] {
      object_schema<numbers_out> s;
      add_numbers(s);
      return s;
    }();
    return decl;
  }
};

template <>
struct nested<group_out> {
  static const object_schema<group_out>& schema() {
    static const auto decl = [] {
      object_schema<group_out> s;
      s.add("key", &group_out::key,
            "The milestone id, tag (\"\" for untagged sessions), day or "
            "week's first day (YYYY-MM-DD in `timezone`), or task id.");
      add_numbers(s);
      return s;
    }();
    return decl;
  }
};

tool make_time_stats() {
  using a = stats_args;
  auto in = std::make_shared<input_schema<a>>();
  in->add("group_by", &a::group_by,
          "day and week: of the start, in `timezone`.")
    .default_to("day")
    .one_of({"milestone", "tag", "day", "week", "task"});
  in->add("from", &a::from,
          "Started at or after (any time form); default: 30 days before "
          "`to`.")
    .min_length(1)
    .max_length(128);
  in->add("to", &a::to,
          "Started before; default now, at most 366 days after `from`.")
    .min_length(1)
    .max_length(128);
  in->add("timezone", &a::timezone,
          "Zone of dates, days and weeks (default: the user's).")
    .default_to("local")
    .min_length(1)
    .max_length(max_id_length);
  in->add("week_start", &a::week_start, "First day of a week.")
    .default_to("monday")
    .one_of(weekdays());
  in->add("status", &a::status, "Only sessions in this state.")
    .one_of({"active", "ended", "expired"});
  in->add("milestone_id", &a::milestone_id, "Only this milestone's sessions.")
    .min_length(1)
    .max_length(max_id_length);
  in->add("tags", &a::tags, "Only sessions with all these tags.")
    .max_items(10)
    .item_min_length(1)
    .item_max_length(max_id_length);

  using r = stats_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("group_by", &r::group_by, "The grouping.");
  out->add("from", &r::from, "ISO 8601 start of the range (inclusive).");
  out->add("to", &r::to, "ISO 8601 end of the range (exclusive).");
  out->add("timezone", &r::timezone, "The zone of days, weeks and times.");
  out->add("groups", &r::groups,
           "One entry per group: days and weeks in time order, the others "
           "by task time, largest first.");
  out->add("totals", &r::totals, "Over every session in the range.");
  out->add("truncated", &r::truncated,
           "True when more than 10,000 sessions (or focus sessions) "
           "matched: the newest 10,000 are counted; ask for a shorter "
           "range.");
  tool_spec<a, r> spec;
  spec.name = "time_stats";
  spec.cost = cost::heavy; // reads every session of the range
  spec.toolset = "history";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", true, false, true};
  spec.title = "Session statistics";
  spec.description
    = "Statistics of your sessions started in a range (default: 30 days) by "
      "milestone, tag, day, week or task: counts, times, median and p90 "
      "run, outcomes.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.ui_resource = std::string{timeline_view_uri};
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
