#pragma once

#include "domain/clock.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace ttm::domain {

/// "+05:45", "-03:00", "+00:00" (never "Z").
std::string format_utc_offset(std::chrono::seconds offset);

/// "2025-12-14T09:45:32.123-05:00": local time in `z` at `t`, milliseconds
/// (truncated, not rounded), and the offset.
std::string format_iso8601(wall_time t, const zone& z);

/// "December 14, 2025 9:45:32 AM EST": no zero padding of day or hour,
/// 12-hour clock, the zone's abbreviation at `t`.
std::string format_friendly(wall_time t, const zone& z);

/// "9:47:15 AM": the time-of-day part of `format_friendly`.
std::string format_friendly_time(wall_time t, const zone& z);

/// Seconds / milliseconds since the Unix epoch (floor for times before 1970).
std::int64_t unix_seconds(wall_time t);
std::int64_t unix_millis(wall_time t);

/// "Sunday": the weekday in `z` at `t` (English).
std::string day_of_week(wall_time t, const zone& z);

} // namespace ttm::domain
