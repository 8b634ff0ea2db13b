#pragma once

#include "domain/clock.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace ttm::domain {

/// "2025-12-14T09:45:32.123-05:00": local time in `z` at `t`, milliseconds
/// (truncated, not rounded), and the offset.
std::string format_iso8601(wall_time t, const zone& z);

/// "December 14, 2025 9:45:32 AM EST": no zero padding of day or hour,
/// 12-hour clock, the zone's abbreviation at `t`.
std::string format_friendly(wall_time t, const zone& z);

/// "9:47:15 AM": the time-of-day part of `format_friendly`.
std::string format_friendly_time(wall_time t, const zone& z);

/// "2025-12-14T14:45:32.123Z": `t` in UTC, milliseconds truncated like
/// format_iso8601.
std::string format_iso8601_utc(wall_time t);

/// Seconds / milliseconds since the Unix epoch (floor for times before 1970).
std::int64_t unix_seconds(wall_time t);
std::int64_t unix_millis(wall_time t);

/// "2 minutes 34 seconds", "1 hour 5 minutes", "1 day 3 hours",
/// "29 seconds", "0 seconds": the two largest units (days, hours, minutes,
/// seconds) with zero parts left out, truncated to whole seconds like a
/// stopwatch. Negative durations (never produced by a monotonic clock) read
/// as "0 seconds".
std::string format_duration(std::chrono::milliseconds d);

/// ISO 8601 duration, truncated to whole seconds: "PT2M34S", "PT1H5M",
/// "PT0S". Hours are never folded into days ("PT25H"): a day is not always
/// 24 hours in a zone with DST, an hour is.
std::string format_duration_iso(std::chrono::milliseconds d);

/// "Sunday": the weekday in `z` at `t` (English).
std::string day_of_week(wall_time t, const zone& z);

/// Everything a conversion shows for `t` in `z`, from one look at the
/// zone's state and without printf (time_convert formats 21 of these per
/// call). The strings equal format_iso8601, format_friendly, day_of_week.
struct zoned_description {
  zone_state state;
  std::string iso8601;
  std::string friendly;
  const char* day_of_week = "";
  /// The local date as days since 1970-01-01, for date differences.
  long long local_day = 0;
};

zoned_description describe(wall_time t, const zone& z);

/// Calendar facts about a local date (zoned_description::local_day): ISO
/// 8601 weeks (Monday first; week 1 holds the year's first Thursday, so the
/// week-year can differ from the calendar year around New Year).
struct calendar_facts {
  int iso_week = 1;        // 1..53
  int iso_week_year = 1970;
  int day_of_year = 1;     // 1..366
  int quarter = 1;         // 1..4
  int days_in_month = 31;  // 28..31
  bool is_weekend = false; // Saturday or Sunday
};

calendar_facts calendar_facts_of(long long local_day);

} // namespace ttm::domain
