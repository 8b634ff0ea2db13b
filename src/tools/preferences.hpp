#pragma once

// Preferences as JSON: one stored entry per key (its value as JSON text),
// checked by one function wherever they come from (time_preferences_set,
// the config file's "preferences" object, the journal), and applied over
// the server's defaults.

#include "domain/preferences.hpp"

#include <rapidjson/document.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::tools {

/// The keys, as stored and as time_preferences_set / the config name them.
inline constexpr std::array<const char*, 8> preference_keys{
  "timezone",     "locale",           "week_start",
  "break_ladder", "end_of_day_local", "energy_bands",
  "session_overlap_policy", "idle_consent"};

/// Applies `key` = `value` to `p`; returns what is wrong (naming the key and
/// its valid forms) or an empty string. `local_zone` resolves "local".
std::string apply_preference(domain::preferences& p, std::string_view key,
                             const rapidjson::Value& value,
                             const std::string& local_zone);

/// `base` with the stored entries applied; an entry that no longer applies
/// (an unknown key from a newer server, a zone gone from the tz database)
/// is skipped.
domain::preferences
effective_preferences(domain::preferences base,
                      const std::vector<std::pair<std::string, std::string>>&
                        entries,
                      const std::string& local_zone);

/// The preferences of a JSON object (the config file's "preferences"):
/// every member checked, nothing applied unless all are valid.
std::string apply_preference_object(domain::preferences& p,
                                    const rapidjson::Value& obj,
                                    const std::string& local_zone);

} // namespace ttm::tools
