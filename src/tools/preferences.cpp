#include "tools/preferences.hpp"

#include "domain/locale_format.hpp"
#include "domain/zones.hpp"

#include <algorithm>

namespace ttm::tools {

namespace {

std::string as_string(const rapidjson::Value& v) {
  return {v.GetString(), v.GetStringLength()};
}

} // namespace

std::string apply_preference(domain::preferences& p, std::string_view key,
                             const rapidjson::Value& v,
                             const std::string& local_zone) {
  std::string k{key};
  if (key == "timezone") {
    if (!v.IsString())
      return "timezone: a zone name such as 'Europe/Berlin', a Windows "
             "name or an offset such as '+05:30'";
    auto lookup = domain::resolve_zone(as_string(v), local_zone);
    if (!lookup.found)
      return "timezone: " + lookup.message;
    p.timezone = lookup.found->name();
    return {};
  }
  if (key == "locale") {
    if (!v.IsString() || !domain::resolve_locale(as_string(v)).found)
      return "locale: a BCP 47 tag such as 'en-US' or 'de-DE'";
    p.locale = as_string(v);
    return {};
  }
  if (key == "week_start") {
    if (!v.IsString()
        || std::find_if(domain::weekday_names.begin(),
                        domain::weekday_names.end(),
                        [&](const char* d) { return as_string(v) == d; })
             == domain::weekday_names.end())
      return "week_start: a weekday in lower case, e.g. 'monday' or "
             "'sunday'";
    p.week_start = as_string(v);
    return {};
  }
  if (key == "break_ladder") {
    static const std::string forms
      = "break_ladder: three whole minutes, increasing, 1-1440, for the "
        "gentle, nudge and hard rungs, e.g. [60, 90, 120]";
    if (!v.IsArray() || v.Size() != 3)
      return forms;
    std::array<std::int64_t, 3> ladder{};
    for (rapidjson::SizeType i = 0; i < 3; ++i) {
      if (!v[i].IsInt64())
        return forms;
      ladder[i] = v[i].GetInt64();
      if (ladder[i] < 1 || ladder[i] > 1440 || (i > 0 && ladder[i] <= ladder[i - 1]))
        return forms;
    }
    p.break_ladder = ladder;
    return {};
  }
  if (key == "end_of_day_local") {
    auto t = v.IsString() ? domain::parse_clock_time(as_string(v))
                          : std::nullopt;
    if (!t)
      return "end_of_day_local: a local clock time 'HH:MM' (00:00-23:59), "
             "e.g. '18:30'";
    p.end_of_day_local = t;
    return {};
  }
  if (key == "energy_bands") {
    static const std::string forms
      = "energy_bands: an object giving the local start 'HH:MM' of each of "
        "morning_peak, midday, afternoon_dip, evening_quiet and "
        "night_owl_caution, increasing in that order (the last band runs "
        "past midnight to the first)";
    if (!v.IsObject() || v.MemberCount() != 5)
      return forms;
    std::array<std::int64_t, 5> bands{};
    for (std::size_t i = 0; i < bands.size(); ++i) {
      auto m = v.FindMember(domain::energy_zone_names[i]);
      if (m == v.MemberEnd() || !m->value.IsString())
        return forms;
      auto t = domain::parse_clock_time(as_string(m->value));
      if (!t || (i > 0 && *t <= bands[i - 1]))
        return forms;
      bands[i] = *t;
    }
    p.energy_bands = bands;
    return {};
  }
  if (key == "session_overlap_policy") {
    if (!v.IsString()
        || (as_string(v) != "auto_close" && as_string(v) != "error"))
      return "session_overlap_policy: 'auto_close' (mark_session_start "
             "closes the open focus session) or 'error' (it refuses with "
             "SESSION_ALREADY_OPEN)";
    p.session_overlap_policy = as_string(v);
    return {};
  }
  if (key == "idle_consent") {
    if (!v.IsBool())
      return "idle_consent: true or false";
    p.idle_consent = v.GetBool();
    return {};
  }
  std::string known;
  for (const char* name : preference_keys)
    known += (known.empty() ? "" : ", ") + std::string{name};
  return "'" + k.substr(0, 64) + "' is not a preference; the preferences are: "
         + known;
}

domain::preferences effective_preferences(
  domain::preferences base,
  const std::vector<std::pair<std::string, std::string>>& entries,
  const std::string& local_zone) {
  for (const auto& [key, text] : entries) {
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError())
      continue;
    auto copy = base;
    if (apply_preference(copy, key, doc, local_zone).empty())
      base = std::move(copy);
  }
  return base;
}

std::string apply_preference_object(domain::preferences& p,
                                    const rapidjson::Value& obj,
                                    const std::string& local_zone) {
  if (!obj.IsObject())
    return "preferences: an object of preference names and values";
  auto copy = p;
  std::string errors;
  for (const auto& m : obj.GetObject()) {
    auto err = apply_preference(
      copy, {m.name.GetString(), m.name.GetStringLength()}, m.value,
      local_zone);
    if (!err.empty())
      errors += (errors.empty() ? "" : "; ") + err;
  }
  if (errors.empty())
    p = std::move(copy);
  return errors;
}

} // namespace ttm::tools
