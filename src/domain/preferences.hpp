#pragma once

// A principal's preferences (time_preferences_get/_set) and the rules of the
// chronometric tools that read them: the energy-zone clock bands and the
// break ladder. Pure functions of values and times: no clock, no storage.

#include "domain/clock.hpp"
#include "domain/principal_ops.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::domain {

/// The energy zones in the order of their default bands' starts.
inline constexpr std::array<const char*, 5> energy_zone_names{
  "morning_peak", "midday", "afternoon_dip", "evening_quiet",
  "night_owl_caution"};

/// The break ladder's rungs, gentlest first.
inline constexpr std::array<const char*, 3> break_level_names{"gentle", "nudge",
                                                               "hard"};

inline constexpr std::array<const char*, 7> weekday_names{
  "sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
  "saturday"};

/// Everything a principal may set; unset keys take the server's defaults.
/// Times of day are minutes since local midnight.
struct preferences {
  std::string timezone;            ///< empty: the server's zone ("local")
  std::string locale = "en-US";
  std::string week_start = "monday";
  /// Minutes of focus at which the gentle, nudge and hard rungs start.
  std::array<std::int64_t, 3> break_ladder{60, 90, 120};
  std::optional<std::int64_t> end_of_day_local; ///< minutes since midnight
  /// Start of each energy zone's band (energy_zone_names' order); a band
  /// runs until the next start, the last one past midnight to the first.
  std::array<std::int64_t, 5> energy_bands{6 * 60, 11 * 60, 13 * 60 + 30,
                                           17 * 60, 22 * 60};
  std::string session_overlap_policy = "auto_close"; ///< or "error"
  bool idle_consent = false;
};

/// When a focus session is open, mark_session_start is refused (instead of
/// closing it) if the principal's session_overlap_policy is "error": its
/// own preference when it set one, else `server`'s. The store tests it in
/// the transaction that opens the session, so no other start slips between.
pref_test overlap_refused(const preferences& server);

/// "HH:MM" (00:00-23:59) → minutes since midnight; nullopt if malformed.
std::optional<std::int64_t> parse_clock_time(std::string_view text);
std::string format_clock_time(std::int64_t minutes);

/// The energy zone whose band holds local time-of-day `minutes`.
std::string energy_zone_at(const preferences& p, std::int64_t minutes);

/// The level (0 gentle, 1 nudge, 2 hard) of a break that is due after
/// `elapsed` of focus: the highest rung of the ladder reached (gentle below
/// the first one: the caller's own threshold made the break due), one rung
/// harder, capped at hard, when `late` (after end_of_day_local).
int ladder_rung(const preferences& p, std::chrono::minutes elapsed,
                bool after_end_of_day);

/// Whether local time-of-day `minutes` is at or after the end of day (false
/// when none is set).
bool after_end_of_day(const preferences& p, std::int64_t minutes);

} // namespace ttm::domain
