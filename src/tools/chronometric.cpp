// The chronometric tools (the peer mcp-chronometric's tools and arguments;
// their results in this server's vocabulary, docs/tools.md: start_time,
// end_time, a duration as words, _ms and _iso): get_time_context,
// mark_session_start, mark_session_end, request_break_if_needed,
// idle_status. Focus sessions and preferences are
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
#include <type_traits>

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

/// A duration in the vocabulary's three forms: X (words), X_ms, X_iso.
struct duration_forms {
  std::string words;
  std::int64_t ms = 0;
  std::string iso;
};

duration_forms forms_of(domain::wall_time::duration d) {
  auto ms = std::chrono::duration_cast<milliseconds>(d);
  return {domain::format_duration(ms), ms.count(),
          domain::format_duration_iso(ms)};
}

/// Declares X, X_ms and X_iso of a result (`what`: what X measures;
/// `omit`: absent, not null, when unset).
template <class R, class Words, class Ms>
void add_duration(output_schema<R>& out, const std::string& name,
                  Words R::*words, Ms R::*ms, Words R::*iso,
                  const std::string& what, bool omit = false) {
  // add() keeps copies of the texts: temporaries are fine here.
  auto& a = out.add(name.c_str(), words, (what + ", in words.").c_str());
  auto& b = out.add((name + "_ms").c_str(), ms, "In milliseconds.");
  auto& c = out.add((name + "_iso").c_str(), iso, "In ISO 8601.");
  if constexpr (std::is_same_v<Words, std::optional<std::string>>) {
    if (omit) {
      a.omit_when_empty();
      b.omit_when_empty();
      c.omit_when_empty();
    }
  }
}

/// Sets the three forms of an optional duration.
void set_duration(std::optional<std::string>& words,
                  std::optional<std::int64_t>& ms,
                  std::optional<std::string>& iso,
                  domain::wall_time::duration d) {
  auto f = forms_of(d);
  words = std::move(f.words);
  ms = f.ms;
  iso = std::move(f.iso);
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
  std::optional<std::int64_t> time_since_last_prompt_ms;
  std::optional<std::string> time_since_last_prompt_iso;
  std::optional<std::string> current_session_length;
  std::optional<std::int64_t> current_session_length_ms;
  std::optional<std::string> current_session_length_iso;
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
    set_duration(r.time_since_last_prompt, r.time_since_last_prompt_ms,
                 r.time_since_last_prompt_iso, now - *ctx.previous_request);
  if (st.open)
    set_duration(r.current_session_length, r.current_session_length_ms,
                 r.current_session_length_iso, now - st.open->start);
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
  add_duration(*out, "time_since_last_prompt", &r::time_since_last_prompt,
               &r::time_since_last_prompt_ms, &r::time_since_last_prompt_iso,
               "Since your previous request (null: the first)");
  add_duration(*out, "current_session_length", &r::current_session_length,
               &r::current_session_length_ms, &r::current_session_length_iso,
               "Of the open focus session (null: none)");
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
  std::string start_time;
  std::string end_time;
  std::string duration;
  std::int64_t duration_ms = 0;
  std::string duration_iso;
};

closed_focus closed_of(const domain::focus_row& f, const domain::zone& z) {
  auto start = f.start;
  auto end = f.end.value_or(f.start);
  auto d = forms_of(end - start);
  return {f.session_id, iso(start, z), iso(end, z), std::move(d.words), d.ms,
          std::move(d.iso)};
}

} // namespace

template <>
struct nested<closed_focus> {
  static const object_schema<closed_focus>& schema() {
    static const auto s = [] {
      object_schema<closed_focus> s;
      s.add("session_id", &closed_focus::session_id, "Its id.");
      s.add("start_time", &closed_focus::start_time, "ISO 8601.");
      s.add("end_time", &closed_focus::end_time, "ISO 8601.");
      s.add("duration", &closed_focus::duration, "In words.");
      s.add("duration_ms", &closed_focus::duration_ms, "In milliseconds.");
      s.add("duration_iso", &closed_focus::duration_iso, "In ISO 8601.");
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
  std::string start_time;
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
      r.start_time = st.open && st.open->session_id == id
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
  out->add("start_time", &start_result::start_time, "ISO 8601.");
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
  std::string end_time;
  std::string duration;
  std::int64_t duration_ms = 0;
  std::string duration_iso;
};

tool make_mark_session_end() {
  auto in = std::make_shared<input_schema<end_args>>();
  in->add("summary", &end_args::summary, "What was done.").max_length(4096);
  auto out = std::make_shared<output_schema<end_result>>();
  out->add("session_id", &end_result::session_id, "The closed session.");
  out->add("end_time", &end_result::end_time, "ISO 8601.");
  add_duration(*out, "duration", &end_result::duration,
               &end_result::duration_ms, &end_result::duration_iso,
               "The session's length");
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
        return end_result{f.session_id, f.end_time, f.duration,
                          f.duration_ms, f.duration_iso};
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
  std::int64_t elapsed_ms = 0;
  std::string elapsed_iso;
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
  add_duration(*out, "elapsed", &r::elapsed, &r::elapsed_ms, &r::elapsed_iso,
               "Focus so far");
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
      auto f = forms_of(elapsed);
      res.elapsed = std::move(f.words);
      res.elapsed_ms = f.ms;
      res.elapsed_iso = std::move(f.iso);
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
  std::optional<std::int64_t> activity_idle_duration_ms;
  std::optional<std::string> activity_idle_duration_iso;
  std::optional<std::string> activity_source;
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
  add_duration(*out, "activity_idle_duration", &r::activity_idle_duration,
               &r::activity_idle_duration_ms, &r::activity_idle_duration_iso,
               "Since your previous request to this server (absent: unknown)",
               true);
  out->add("activity_source", &r::activity_source,
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
      res.activity_source = "mcp_requests";
      if (c.previous_request) {
        auto idle = c.clock.wall_now() - *c.previous_request;
        set_duration(res.activity_idle_duration, res.activity_idle_duration_ms,
                     res.activity_idle_duration_iso, idle);
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
