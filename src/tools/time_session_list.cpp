// time_session_list (issue 16): the caller's tracking sessions, live and
// past, as compact rows, newest first, a page at a time. The handler checks
// every argument, then hands the query to the MCP layer (history_wait),
// which runs it for the caller's principal and era without blocking the
// client; `finish` formats the page.

#include "domain/absolute_time.hpp"
#include "domain/ascii.hpp"
#include "domain/history.hpp"
#include "domain/history_cursor.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"
#include "tools/session_common.hpp"
#include "tools/timestamp_format.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::tools {

namespace {

constexpr std::int64_t default_limit = 20;
constexpr std::int64_t max_limit = 100;
constexpr std::size_t max_filter_tags = 10;

struct list_args {
  std::optional<std::string> status;
  std::optional<std::string> milestone_id;
  std::vector<std::string> tags;
  std::optional<std::string> text;
  std::optional<std::string> started_after;
  std::optional<std::string> started_before;
  std::string timezone = "local";
  std::int64_t limit = default_limit;
  std::optional<std::string> cursor;
  std::string kind = "tracking";
};

struct list_row {
  std::string session_id;
  std::string kind = "tracking";
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  std::string status;
  std::string start_time;
  std::optional<std::string> end_time;
  std::int64_t total_duration_ms = 0;
  std::string total_duration;
  std::string total_duration_iso;
  std::int64_t tasks_completed = 0;
  std::int64_t task_count = 0;
  std::vector<std::string> tags;
  std::optional<std::string> intent;
  std::optional<std::string> note;
};

struct list_result {
  std::vector<list_row> sessions;
  std::optional<std::string> next_cursor;
  std::string timezone;
};

tool_error invalid(std::string message) {
  return {"VALIDATION_ERROR", std::move(message)};
}

/// A time argument through the shared grammar, read in `z`.
std::variant<domain::wall_time, tool_error>
read_time(const char* name, const std::string& text, const domain::zone& z,
          domain::wall_time now, const domain::time_words* words) {
  domain::time_input_options opts;
  opts.now = now;
  opts.in = &z;
  opts.words = words;
  // A filter's bound in a DST gap or overlap needs no question back.
  opts.on_conflict = domain::disambiguation::compatible;
  auto r = domain::parse_time_input(text, opts);
  if (auto* err = std::get_if<domain::time_input_error>(&r))
    return tool_error{err->code, std::string{name} + ": " + err->message,
                      err->suggestions};
  return std::get<domain::time_input>(r).instant;
}

slot_outcome<list_result> run(const list_args& args, tool_context& ctx) {
  // Every argument is checked before the query: a bad call changes and
  // reads nothing, and names the first offending field.
  domain::history_filter f;
  if (args.status) {
    f.status = domain::history_status_from(*args.status);
    if (!f.status)
      return invalid("status: '" + *args.status
                     + "' is not a session status; use active, ended or "
                       "expired");
  }
  if (args.limit < 1 || args.limit > max_limit)
    return invalid("limit: " + std::to_string(args.limit)
                   + " is out of range; give 1 to "
                   + std::to_string(max_limit) + " (default "
                   + std::to_string(default_limit) + ")");
  f.limit = static_cast<std::size_t>(args.limit);
  auto zone = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!zone.found)
    return tool_error{"INVALID_TIMEZONE", "timezone: " + zone.message,
                      std::move(zone.suggestions)};
  auto now = ctx.clock.wall_now();
  for (auto [name, arg, out] :
       {std::make_tuple("started_after", &args.started_after, &f.started_after),
        std::make_tuple("started_before", &args.started_before,
                        &f.started_before)}) {
    if (!*arg)
      continue;
    auto t = read_time(name, **arg, *zone.found, now, caller_time_words(ctx));
    if (auto* err = std::get_if<tool_error>(&t))
      return std::move(*err);
    *out = std::get<domain::wall_time>(t);
  }
  if (f.started_after && f.started_before
      && !(*f.started_after < *f.started_before))
    return invalid("started_before: it must be later than started_after");
  if (args.cursor) {
    f.before = domain::decode_history_cursor(*args.cursor);
    if (!f.before)
      return invalid("cursor: not a cursor of time_session_list; pass the "
                     "next_cursor of a previous reply unchanged, or omit it "
                     "for the first page");
  }
  f.milestone_id = args.milestone_id;
  f.tags = args.tags;
  if (args.text)
    f.text = domain::ascii_lower(*args.text);
  // The schema admits only the three names.
  f.kind = domain::history_kind_from(args.kind)
             .value_or(domain::history_kind::tracking);
  auto tz = *zone.found;
  auto limit = f.limit;
  return history_wait<list_result>{
    std::move(f),
    [tz, limit](const domain::history_page& page,
         tool_context& ctx) -> outcome<list_result> {
      list_result res;
      res.timezone = tz.name();
      auto now = ctx.clock.wall_now();
      auto span = [&](list_row& row, domain::wall_time start,
                      const std::optional<domain::wall_time>& end) {
        row.start_time = domain::format_iso8601(start, tz);
        if (end)
          row.end_time = domain::format_iso8601(*end, tz);
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
          end.value_or(now) - start);
        if (ms.count() < 0)
          ms = std::chrono::milliseconds{0};
        row.total_duration_ms = ms.count();
        row.total_duration = domain::format_duration(ms);
        row.total_duration_iso = domain::format_duration_iso(ms);
      };
      bool more = false;
      auto rows = domain::merged_rows(page, limit, more);
      for (const auto& any : rows) {
        list_row row;
        if (const auto* f = any.focus) {
          // Its own principal's list only (the query is the caller's).
          row.session_id = f->session_id;
          row.kind = "focus";
          row.status = f->end ? "ended" : "active";
          span(row, f->start, f->end);
          row.intent = f->intent;
          if (f->end)
            row.note = f->summary;
          res.sessions.push_back(std::move(row));
          continue;
        }
        const auto& r = *any.tracking;
        row.session_id = r.session_id;
        row.milestone_id = r.milestone_id;
        row.milestone_name = r.milestone_name;
        row.status = domain::to_string(r.status);
        span(row, r.start, r.end);
        row.tasks_completed = r.tasks_done;
        row.task_count = r.tasks_total;
        row.tags = r.tags;
        res.sessions.push_back(std::move(row));
      }
      if (more && !rows.empty())
        res.next_cursor = domain::encode_history_cursor(
          domain::to_ns(rows.back().start()), rows.back().id());
      return res;
    }};
}

} // namespace

template <>
struct nested<list_row> {
  static const object_schema<list_row>& schema() {
    static const auto decl = [] {
      object_schema<list_row> s;
      s.add("session_id", &list_row::session_id, "Session ID.");
      s.add("kind", &list_row::kind,
            "tracking, or focus (mark_session_start: no milestone, tasks "
            "or tags).")
        .one_of({"tracking", "focus"});
      s.add("milestone_id", &list_row::milestone_id,
            "The milestone (\"\" for focus).");
      s.add("milestone_name", &list_row::milestone_name,
            "The milestone's name, if it was given.");
      s.add("status", &list_row::status,
            "active, ended, or expired (past its age or idle limit, or "
            "ended with the client's connection).")
        .one_of({"active", "ended", "expired"});
      s.add("start_time", &list_row::start_time,
            "ISO 8601 start, in the zone of `timezone`.");
      s.add("end_time", &list_row::end_time,
            "ISO 8601 end (or expiry); null while active.");
      s.add("total_duration_ms", &list_row::total_duration_ms,
            "Start to end (to now while active), by the wall clock.");
      s.add("total_duration", &list_row::total_duration,
            "total_duration_ms, human-readable.");
      s.add("total_duration_iso", &list_row::total_duration_iso,
            "total_duration_ms in ISO 8601.");
      s.add("tasks_completed", &list_row::tasks_completed,
            "Tasks whose latest run completed.");
      s.add("task_count", &list_row::task_count, "Tasks registered.");
      s.add("tags", &list_row::tags, "The session's tags.");
      s.add("intent", &list_row::intent, "focus: your intent.");
      s.add("note", &list_row::note,
            "focus, ended: the summary given to mark_session_end.");
      return s;
    }();
    return decl;
  }
};

tool make_time_session_list() {
  using a = list_args;
  auto in = std::make_shared<input_schema<a>>();
  in->add("status", &a::status, "Only sessions in this state.")
    .one_of({"active", "ended", "expired"});
  in->add("milestone_id", &a::milestone_id, "Only this milestone's sessions.")
    .min_length(1)
    .max_length(max_id_length);
  in->add("tags", &a::tags, "Only sessions with all these tags.")
    .max_items(max_filter_tags)
    .item_min_length(1)
    .item_max_length(max_id_length);
  in->add("text", &a::text,
          "In a milestone's or task's id or name (case-insensitive).")
    .min_length(1)
    .max_length(max_id_length);
  in->add("started_after", &a::started_after,
          "Started at or after (any time form).")
    .min_length(1)
    .max_length(128);
  in->add("started_before", &a::started_before,
          "Started before (same forms).")
    .min_length(1)
    .max_length(128);
  in->add("timezone", &a::timezone,
          "Zone of dates and times ('local': the user's).")
    .default_to("local")
    .min_length(1)
    .max_length(max_id_length);
  in->add("limit", &a::limit, "Rows per page, 1 to 100.")
    .default_to(default_limit);
  in->add("cursor", &a::cursor,
          "next_cursor of the previous page.")
    .min_length(1)
    .max_length(1024);
  in->add("kind", &a::kind,
          "focus: mark_session_start's.")
    .one_of({"tracking", "focus", "all"})
    .default_to("tracking");

  using r = list_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("sessions", &r::sessions, "The page, newest start first.");
  out->add("next_cursor", &r::next_cursor,
           "Pass as `cursor` for the next (older) page; null on the last "
           "page.");
  out->add("timezone", &r::timezone, "The zone of the times shown.");
  tool_spec<a, r> spec;
  spec.name = "time_session_list";
  spec.cost = cost::heavy; // reads every session of the range
  spec.toolset = "history";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", true, false, false};
  spec.role = role::session_list;
  spec.title = "List tracking sessions";
  spec.description
    = "Your tracking sessions, active and past, newest first: id, "
      "milestone, status, times, duration, tasks done/total, tags. kind "
      "focus/all adds focus sessions.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
