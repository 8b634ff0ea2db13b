#include "domain/preferences.hpp"

#include <algorithm>
#include <cstdio>

namespace ttm::domain {

pref_test overlap_refused(const preferences& server) {
  // The stored preference is JSON text (time_preferences_set writes it).
  return {"session_overlap_policy", "\"error\"",
          server.session_overlap_policy == "error"};
}

std::optional<std::int64_t> parse_clock_time(std::string_view text) {
  if (text.size() != 5 || text[2] != ':')
    return std::nullopt;
  for (std::size_t i : {0, 1, 3, 4})
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
  int h = (text[0] - '0') * 10 + (text[1] - '0');
  int m = (text[3] - '0') * 10 + (text[4] - '0');
  if (h > 23 || m > 59)
    return std::nullopt;
  return h * 60 + m;
}

std::string format_clock_time(std::int64_t minutes) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d:%02d",
                static_cast<int>(minutes / 60 % 24),
                static_cast<int>(minutes % 60));
  return buf;
}

std::string energy_zone_at(const preferences& p, std::int64_t minutes) {
  // Bands are validated as strictly increasing: the zone is the last band
  // started by now, or the last one of the day before (past midnight).
  std::size_t zone = p.energy_bands.size() - 1;
  for (std::size_t i = 0; i < p.energy_bands.size(); ++i)
    if (p.energy_bands[i] <= minutes)
      zone = i;
  return energy_zone_names[zone];
}

bool after_end_of_day(const preferences& p, std::int64_t minutes) {
  return p.end_of_day_local && minutes >= *p.end_of_day_local;
}

int ladder_rung(const preferences& p, std::chrono::minutes elapsed,
                bool late) {
  int rung = 0;
  for (int i = 0; i < 3; ++i)
    if (elapsed.count() >= p.break_ladder[static_cast<std::size_t>(i)])
      rung = i;
  if (late)
    rung = std::min(rung + 1, 2);
  return rung;
}

} // namespace ttm::domain
