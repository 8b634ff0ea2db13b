#pragma once

// A zone's rule after the last transition its TZif file lists. The system
// files list transitions up to 2037 and end with a POSIX TZ string (RFC
// 8536's footer, e.g. "EST5EDT,M3.2.0,M11.1.0") for every later instant.
// date/tz in OS mode stops at the last listed transition, so without this
// New York would be EST in July 2040; glibc's localtime applies the footer,
// and so do we (zone::state_at, zone::resolve).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ttm::domain {

using sys_seconds
  = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

/// A parsed POSIX TZ string with a daylight-saving rule.
struct posix_tz {
  struct part {
    std::chrono::seconds utc_offset{0}; ///< east of UTC positive
    std::string abbreviation;
  };
  /// When a change happens: Jn (1..365, February 29 never counted), n
  /// (0..365, counted) or Mm.w.d (week 5 = the last), at `time` local time
  /// (RFC 8536 allows -167..167 hours).
  struct rule_date {
    enum kind_t { julian_no_leap, julian_zero, month_week_day } kind =
      month_week_day;
    int day = 0; ///< Jn / n: the day; Mm.w.d: the weekday (0 = Sunday)
    int month = 0;
    int week = 0;
    std::chrono::seconds time{7200};
  };
  part standard;
  part daylight;
  rule_date start; ///< into daylight saving time (given in standard time)
  rule_date end;   ///< back to standard time (given in daylight time)
};

/// Parses `text`; nullopt when it is not a POSIX TZ string or names no
/// daylight-saving rule (then the last listed transition holds for ever,
/// which date/tz already answers right).
std::optional<posix_tz> parse_posix_tz(std::string_view text);

/// The part in effect at `t`.
const posix_tz::part& posix_part_at(const posix_tz& tz, sys_seconds t);

/// The instants daylight saving time starts and ends in `year` (UTC).
std::pair<sys_seconds, sys_seconds> posix_changes(const posix_tz& tz,
                                                  int year);

} // namespace ttm::domain
