// time_preferences_get and time_preferences_set: the calling principal's
// preferences, stored in the journal (one row per key) over the server's
// defaults (the config file's "preferences").

#include "tools/preferences.hpp"
#include "tools/registry.hpp"

#include <rapidjson/stringbuffer.h>

namespace ttm::tools {

namespace {

struct prefs_result {
  std::string timezone;
  std::string locale;
  std::string week_start;
  std::vector<std::int64_t> break_ladder;
  std::optional<std::string> end_of_day_local;
  string_map energy_bands;
  std::string session_overlap_policy;
  bool idle_consent = false;
  std::vector<std::string> customized;
};

prefs_result to_result(const domain::principal_state& st,
                       const tool_context& ctx) {
  auto p = effective_preferences(ctx.defaults, st.prefs, ctx.local_zone);
  prefs_result r;
  r.timezone = p.timezone.empty() ? ctx.local_zone : p.timezone;
  r.locale = p.locale;
  r.week_start = p.week_start;
  r.break_ladder.assign(p.break_ladder.begin(), p.break_ladder.end());
  if (p.end_of_day_local)
    r.end_of_day_local = domain::format_clock_time(*p.end_of_day_local);
  for (std::size_t i = 0; i < p.energy_bands.size(); ++i)
    r.energy_bands.emplace_back(domain::energy_zone_names[i],
                                domain::format_clock_time(p.energy_bands[i]));
  r.session_overlap_policy = p.session_overlap_policy;
  r.idle_consent = p.idle_consent;
  for (const auto& kv : st.prefs)
    r.customized.push_back(kv.first);
  return r;
}

std::shared_ptr<output_schema<prefs_result>> prefs_output() {
  using r = prefs_result;
  auto out = std::make_shared<output_schema<r>>();
  out->add("timezone", &r::timezone, "Default zone (IANA).");
  out->add("locale", &r::locale, "Default locale.");
  out->add("week_start", &r::week_start, "First day of a week.");
  out->add("break_ladder", &r::break_ladder,
           "Minutes of focus for gentle, nudge, hard.");
  out->add("end_of_day_local", &r::end_of_day_local,
           "HH:MM after which breaks are one rung harder.");
  out->add("energy_bands", &r::energy_bands, "Energy zone → local start.");
  out->add("session_overlap_policy", &r::session_overlap_policy,
           "auto_close or error.");
  out->add("idle_consent", &r::idle_consent, "idle_status may report.");
  out->add("customized", &r::customized, "Keys set by this user.");
  return out;
}

struct get_args {};

struct set_args {
  std::optional<std::string> timezone;
  std::optional<std::string> locale;
  std::optional<std::string> week_start;
  std::optional<std::vector<std::int64_t>> break_ladder;
  std::optional<std::string> end_of_day_local;
  std::optional<string_map> energy_bands;
  std::optional<std::string> session_overlap_policy;
  std::optional<bool> idle_consent;
  std::vector<std::string> reset;
};

/// The value of one argument as the JSON text stored for it.
template <class T>
std::string json_text(const T& v) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  json_type<T>::encode(w, v);
  return buf.GetString();
}

slot_outcome<prefs_result> run_set(const set_args& a, tool_context& ctx) {
  domain::principal_op op;
  op.kind = domain::principal_op::set_prefs;
  auto put = [&](const char* key, const auto& v) {
    if (v)
      op.prefs.emplace_back(key, json_text(*v));
  };
  put("timezone", a.timezone);
  put("locale", a.locale);
  put("week_start", a.week_start);
  put("break_ladder", a.break_ladder);
  put("end_of_day_local", a.end_of_day_local);
  put("energy_bands", a.energy_bands);
  put("session_overlap_policy", a.session_overlap_policy);
  put("idle_consent", a.idle_consent);
  // Every value is checked before anything is stored: all or nothing.
  std::string errors;
  domain::preferences scratch;
  for (auto& [key, text] : op.prefs) {
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    auto err = apply_preference(scratch, key, doc, ctx.local_zone);
    if (!err.empty())
      errors += (errors.empty() ? "" : "; ") + err;
    else if (key == "timezone") // stored as the zone it names
      text = json_text(scratch.timezone);
  }
  for (const auto& key : a.reset) {
    for (const auto& kv : op.prefs)
      if (kv.first == key)
        errors += (errors.empty() ? "" : "; ") + key
                  + ": both set and reset in one call";
    op.prefs.emplace_back(key, "null");
  }
  if (!errors.empty())
    return tool_error{"VALIDATION_ERROR",
                      "Nothing was changed: " + errors + "."};
  if (op.prefs.empty())
    op.kind = domain::principal_op::read;
  return principal_wait<prefs_result>{
    std::move(op),
    [](const domain::principal_state& st, tool_context& c)
      -> outcome<prefs_result> { return to_result(st, c); }};
}

} // namespace

tool make_time_preferences_get() {
  tool_spec<get_args, prefs_result> spec;
  spec.name = "time_preferences_get";
  spec.toolset = "preferences";
  spec.title = "Get preferences";
  spec.description
    = "Your preferences (server defaults where unset): the zone used when "
      "`timezone` is omitted or 'local', locale, week start, break ladder, "
      "end of day, energy bands, focus overlap policy, idle consent.";
  spec.input = std::make_shared<input_schema<get_args>>();
  spec.output = prefs_output();
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = [](const get_args&, tool_context&) -> slot_outcome<prefs_result> {
    return principal_wait<prefs_result>{
      {}, [](const domain::principal_state& st, tool_context& c)
            -> outcome<prefs_result> { return to_result(st, c); }};
  };
  return make_tool(std::move(spec));
}

tool make_time_preferences_set() {
  auto in = std::make_shared<input_schema<set_args>>();
  in->add("timezone", &set_args::timezone, "IANA or Windows zone, or offset.")
    .max_length(128);
  in->add("locale", &set_args::locale, "BCP 47 tag.").max_length(64);
  in->add("week_start", &set_args::week_start, "First day of a week.")
    .one_of({domain::weekday_names.begin(), domain::weekday_names.end()});
  in->add("break_ladder", &set_args::break_ladder,
          "[gentle, nudge, hard] minutes, increasing.")
    .min_items(3)
    .max_items(3);
  in->add("end_of_day_local", &set_args::end_of_day_local, "HH:MM.")
    .max_length(5);
  in->add("energy_bands", &set_args::energy_bands,
          "Local start HH:MM of all five energy zones.")
    .max_properties(5)
    .item_max_length(5);
  in->add("session_overlap_policy", &set_args::session_overlap_policy,
          "On mark_session_start with one open.")
    .one_of({"auto_close", "error"});
  in->add("idle_consent", &set_args::idle_consent,
          "Let idle_status report activity.");
  in->add("reset", &set_args::reset, "Keys back to the server default.")
    .item_one_of({preference_keys.begin(), preference_keys.end()})
    .max_items(preference_keys.size());
  tool_spec<set_args, prefs_result> spec;
  spec.name = "time_preferences_set";
  spec.toolset = "preferences";
  spec.title = "Set preferences";
  spec.description
    = "Sets the given preferences (others unchanged) and returns them all. "
      "VALIDATION_ERROR names each bad field and its valid forms; then "
      "nothing is changed.";
  spec.input = std::move(in);
  spec.output = prefs_output();
  spec.annotations = hint::idempotent;
  spec.handler = run_set;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
