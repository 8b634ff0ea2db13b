// The chronometric tools (the peer mcp-chronometric's contract, by its
// names): get_time_context, mark_session_start, mark_session_end,
// request_break_if_needed, idle_status. Focus sessions and preferences are
// the calling principal's, kept in the journal (principal_wait); the time
// since its previous request comes from the MCP layer (per server). A focus
// session's intent is the user's private text: it is stored and quoted back
// by request_break_if_needed, never logged or put in an error.

#include "domain/ids.hpp"
#include "domain/time_format.hpp"
#include "domain/zones.hpp"
#include "tools/preferences.hpp"
#include "tools/registry.hpp"

#include <chrono>

namespace ttm::tools {

namespace {

using std::chrono::milliseconds;

/// The principal's zone (its preference, else the server's), and its
/// preferences. A zone that no longer resolves reads as UTC.
struct principal_view {
  domain::preferences prefs;
  domain::zone zone;
  bool zone_known = true;
};

principal_view view_of(const domain::principal_state& st,
                       const tool_context& ctx) {
  auto p = effective_preferences(ctx.defaults, st.prefs, ctx.local_zone);
  auto lookup = domain::resolve_zone(
    p.timezone.empty() ? ctx.local_zone : p.timezone, ctx.local_zone);
  if (lookup.found)
    return {std::move(p), std::move(*lookup.found), true};
  return {std::move(p), *domain::resolve_zone("UTC", "UTC").found, false};
}

std::string iso(domain::wall_time t, const domain::zone& z) {
  return domain::format_iso8601(t, z);
}

std::string iso_duration(domain::wall_time::duration d) {
  return domain::format_duration_iso(
    std::chrono::duration_cast<milliseconds>(d));
}

std::int64_t minutes_of_day(domain::wall_time t, const domain::zone& z) {
  auto ms = z.local_at(t).since_epoch.count();
  constexpr std::int64_t day = 24 * 60 * 60 * 1000;
  return ((ms % day + day) % day) / 60000;
}

template <class Result, class F>
principal_wait<Result> read_then(F f) {
  return {{}, std::move(f)};
}

// -- get_time_context ---------------------------------------------------------

struct no_args {};

struct context_result {
  std::string now;
  std::string timezone;
  std::string day_of_week;
  std::optional<std::string> time_since_last_prompt;
  std::optional<std::string> current_session_length;
  std::string energy_zone;
};

outcome<context_result> context_of(const domain::principal_state& st,
                                   tool_context& ctx) {
  auto v = view_of(st, ctx);
  auto now = ctx.clock.wall_now();
  context_result r;
  r.now = iso(now, v.zone);
  r.timezone = v.zone.name();
  r.day_of_week = domain::day_of_week(now, v.zone);
  if (ctx.previous_request)
    r.time_since_last_prompt = iso_duration(now - *ctx.previous_request);
  if (st.open)
    r.current_session_length
      = iso_duration(now - st.open->start);
  r.energy_zone = v.zone_known
                    ? domain::energy_zone_at(v.prefs,
                                             minutes_of_day(now, v.zone))
                    : "unknown";
  return r;
}

tool make_get_time_context() {
  using r = context_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("now", &r::now, "ISO 8601 with offset, in your zone.");
  out->add("timezone", &r::timezone, "Your zone (preferences).");
  out->add("day_of_week", &r::day_of_week, "e.g. 'Monday'.");
  out->add("time_since_last_prompt", &r::time_since_last_prompt,
           "ISO 8601 duration since your previous request; null: first.");
  out->add("current_session_length", &r::current_session_length,
           "Of the open focus session; null: none.");
  out->add("energy_zone", &r::energy_zone, "Clock band in your zone.")
    .one_of({"morning_peak", "midday", "afternoon_dip", "evening_quiet",
             "night_owl_caution", "unknown"});
  tool_spec<no_args, r> spec;
  spec.name = "get_time_context";
  spec.toolset = "chronometric";
  spec.instructions = {phase::each, "get_time_context at the start of a turn"};
  spec.title = "Time context";
  spec.description
    = "Now, weekday, time since your last request, open focus session "
      "length, energy zone. Call at the start of a turn.";
  spec.input = std::make_shared<input_schema<no_args>>();
  spec.output = std::move(out);
  spec.annotations = hint::read_only;
  spec.handler = [](const no_args&, tool_context&) -> slot_outcome<r> {
    return read_then<r>(context_of);
  };
  return make_tool(std::move(spec));
}

// -- mark_session_start / mark_session_end ------------------------------------

struct closed_focus {
  std::string session_id;
  std::string started_at;
  std::string ended_at;
  std::string duration;
};

closed_focus closed_of(const domain::focus_row& f, const domain::zone& z) {
  auto start = f.start;
  auto end = f.end.value_or(f.start);
  return {f.session_id, iso(start, z), iso(end, z), iso_duration(end - start)};
}

} // namespace

template <>
struct nested<closed_focus> {
  static const object_schema<closed_focus>& schema() {
    static const auto s = [] {
      object_schema<closed_focus> s;
      s.add("session_id", &closed_focus::session_id, "Its id.");
      s.add("started_at", &closed_focus::started_at, "ISO 8601.");
      s.add("ended_at", &closed_focus::ended_at, "ISO 8601.");
      s.add("duration", &closed_focus::duration, "ISO 8601 duration.");
      return s;
    }();
    return s;
  }
};

namespace {

struct start_args {
  std::string intent;
};

struct start_result {
  std::string session_id;
  std::string started_at;
  std::optional<closed_focus> auto_closed_prior_session;
};

slot_outcome<start_result> run_start(const start_args& a, tool_context& ctx) {
  domain::principal_op op;
  op.kind = domain::principal_op::focus_start;
  op.start.session_id = domain::make_uuid_v4();
  op.start.intent = a.intent;
  op.start.start = ctx.clock.wall_now();
  // The store tests the principal's own policy, if set, in the same
  // transaction as the insert; else the server's default decides.
  op.refuse_open = domain::overlap_refused(ctx.defaults);
  auto id = op.start.session_id;
  return principal_wait<start_result>{
    std::move(op),
    [id = std::move(id)](const domain::principal_state& st,
                               tool_context& c) -> outcome<start_result> {
      auto v = view_of(st, c);
      if (st.refused == "SESSION_ALREADY_OPEN")
        return tool_error{
          "SESSION_ALREADY_OPEN",
          "A focus session is open (started "
            + (st.open ? iso(st.open->start, v.zone)
                       : std::string{"earlier"})
            + ") and your session_overlap_policy is 'error': call "
              "mark_session_end first, or set the policy to 'auto_close'."};
      start_result r;
      r.session_id = id;
      r.started_at = st.open && st.open->session_id == id
                       ? iso(st.open->start, v.zone)
                       : iso(c.clock.wall_now(), v.zone);
      if (st.closed)
        r.auto_closed_prior_session = closed_of(*st.closed, v.zone);
      return r;
    }};
}

tool make_mark_session_start() {
  auto in = std::make_shared<input_schema<start_args>>();
  in->add("intent", &start_args::intent,
          "The user's intent, in their words (kept verbatim, private).")
    .required()
    .min_length(1)
    .max_length(4096);
  auto out = std::make_shared<output_schema<start_result>>();
  out->add("session_id", &start_result::session_id, "UUIDv4.");
  out->add("started_at", &start_result::started_at, "ISO 8601.");
  out->add("auto_closed_prior_session",
           &start_result::auto_closed_prior_session,
           "The focus session this closed, if one was open.")
    .omit_when_empty();
  tool_spec<start_args, start_result> spec;
  spec.name = "mark_session_start";
  spec.toolset = "chronometric";
  spec.instructions
    = {phase::begin,
       "mark_session_start with the user's intent when work begins"};
  spec.title = "Start focus session";
  spec.description
    = "Starts a focus session with the user's intent. An open one is closed "
      "first (or SESSION_ALREADY_OPEN, by policy).";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.handler = run_start;
  return make_tool(std::move(spec));
}

struct end_args {
  std::optional<std::string> summary;
};

struct end_result {
  std::string session_id;
  std::string ended_at;
  std::string duration;
};

tool make_mark_session_end() {
  auto in = std::make_shared<input_schema<end_args>>();
  in->add("summary", &end_args::summary, "What was done.").max_length(4096);
  auto out = std::make_shared<output_schema<end_result>>();
  out->add("session_id", &end_result::session_id, "The closed session.");
  out->add("ended_at", &end_result::ended_at, "ISO 8601.");
  out->add("duration", &end_result::duration, "ISO 8601 duration.");
  tool_spec<end_args, end_result> spec;
  spec.name = "mark_session_end";
  spec.toolset = "chronometric";
  spec.instructions = {phase::end, "mark_session_end when done"};
  spec.title = "End focus session";
  spec.description
    = "Ends your most recent open focus session (no id needed). "
      "NO_OPEN_SESSION: none is open.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.handler = [](const end_args& a,
                    tool_context& ctx) -> slot_outcome<end_result> {
    domain::principal_op op;
    op.kind = domain::principal_op::focus_end;
    op.now = ctx.clock.wall_now();
    op.summary = a.summary.value_or("");
    return principal_wait<end_result>{
      std::move(op),
      [](const domain::principal_state& st,
         tool_context& c) -> outcome<end_result> {
        if (!st.closed)
          return tool_error{"NO_OPEN_SESSION",
                            "No focus session is open; start one with "
                            "mark_session_start."};
        auto f = closed_of(*st.closed, view_of(st, c).zone);
        return end_result{f.session_id, f.ended_at, f.duration};
      }};
  };
  return make_tool(std::move(spec));
}

// -- request_break_if_needed --------------------------------------------------

struct break_args {
  std::int64_t threshold_minutes = 0;
};

/// null when no break is due (see nullable_result: {"result": null} in the
/// 2025 revisions).
struct break_result : nullable_result {
  std::string elapsed;
  std::string prior_intent;
  std::string suggested_action;
  std::string level;
};

tool make_request_break_if_needed() {
  auto in = std::make_shared<input_schema<break_args>>();
  in->add("threshold_minutes", &break_args::threshold_minutes,
          "Break due after this much focus; > 0.")
    .required();
  using r = break_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("elapsed", &r::elapsed, "Focus so far, ISO 8601 duration.");
  out->add("prior_intent", &r::prior_intent, "The intent, verbatim.");
  out->add("suggested_action", &r::suggested_action, "What to suggest.")
    .one_of({"check_intent", "take_break", "wrap_up"});
  out->add("level", &r::level, "Ladder rung.")
    .one_of({"gentle", "nudge", "hard"});
  tool_spec<break_args, r> spec;
  spec.name = "request_break_if_needed";
  spec.toolset = "chronometric";
  spec.instructions
    = {phase::periodic,
       "request_break_if_needed now and then (null: carry on; else quote prior_intent back)"};
  spec.title = "Break check";
  spec.description
    = "null when no break is due; else elapsed focus, the user's intent, an "
      "action and a level (gentle, nudge, hard by their break_ladder; "
      "harder after end of day).";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only;
  spec.handler = [](const break_args& a,
                    tool_context&) -> slot_outcome<r> {
    if (a.threshold_minutes <= 0)
      return tool_error{"INVALID_THRESHOLD",
                        "threshold_minutes must be a positive whole number "
                        "of minutes, e.g. 45."};
    auto threshold = std::chrono::minutes{a.threshold_minutes};
    return read_then<r>([threshold](const domain::principal_state& st,
                                    tool_context& c) -> outcome<r> {
      r res;
      res.is_null = true;
      if (!st.open)
        return res;
      auto now = c.clock.wall_now();
      auto elapsed = now - st.open->start;
      auto minutes = std::chrono::duration_cast<std::chrono::minutes>(elapsed);
      if (minutes < threshold)
        return res;
      auto v = view_of(st, c);
      bool late = v.zone_known
                  && domain::after_end_of_day(v.prefs,
                                              minutes_of_day(now, v.zone));
      int rung = domain::ladder_rung(v.prefs, minutes, late);
      static const char* actions[] = {"check_intent", "take_break",
                                      "wrap_up"};
      res.is_null = false;
      res.elapsed = iso_duration(elapsed);
      res.prior_intent = st.open->intent;
      res.suggested_action = actions[rung];
      res.level = domain::break_level_names[static_cast<std::size_t>(rung)];
      return res;
    });
  };
  return make_tool(std::move(spec));
}

// -- idle_status --------------------------------------------------------------

/// Below this a principal counts as active (its clients sent requests).
constexpr auto active_window = std::chrono::minutes{5};

struct idle_result {
  bool consent_granted = false;
  std::string hyperfocus_signal;
  std::optional<std::string> activity_idle_duration;
  std::optional<std::string> source;
};

tool make_idle_status() {
  using r = idle_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("consent_granted", &r::consent_granted,
           "idle_consent in preferences.");
  out->add("hyperfocus_signal", &r::hyperfocus_signal,
           "active_here: a request < 5 min ago; idle_here: none since; "
           "unknown: no consent or no earlier request.")
    .one_of({"active_here", "idle_here", "unknown"});
  out->add("activity_idle_duration", &r::activity_idle_duration,
           "Since your previous request to this server, ISO 8601.")
    .omit_when_empty();
  out->add("source", &r::source,
           "'mcp_requests': not OS idle time (the server may be remote).")
    .omit_when_empty();
  tool_spec<no_args, r> spec;
  spec.name = "idle_status";
  spec.toolset = "chronometric";
  spec.title = "Idle status";
  spec.description
    = "Whether the user is active here (their requests, not the OS), with "
      "their consent (idle_consent).";
  spec.input = std::make_shared<input_schema<no_args>>();
  spec.output = std::move(out);
  spec.annotations = hint::read_only;
  spec.handler = [](const no_args&, tool_context&) -> slot_outcome<r> {
    return read_then<r>([](const domain::principal_state& st,
                           tool_context& c) -> outcome<r> {
      r res;
      res.hyperfocus_signal = "unknown";
      if (!view_of(st, c).prefs.idle_consent)
        return res;
      res.consent_granted = true;
      res.source = "mcp_requests";
      if (c.previous_request) {
        auto idle = c.clock.wall_now() - *c.previous_request;
        res.activity_idle_duration = iso_duration(idle);
        res.hyperfocus_signal
          = idle < active_window ? "active_here" : "idle_here";
      }
      return res;
    });
  };
  return make_tool(std::move(spec));
}

} // namespace

std::vector<tool> make_chronometric_tools() {
  std::vector<tool> out;
  out.push_back(make_get_time_context());
  out.push_back(make_mark_session_start());
  out.push_back(make_mark_session_end());
  out.push_back(make_request_break_if_needed());
  out.push_back(make_idle_status());
  return out;
}

} // namespace ttm::tools
