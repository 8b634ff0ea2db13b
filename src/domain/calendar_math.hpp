#pragma once

// Calendar arithmetic for time_calculate (docs/tools.md, "time_calculate"):
// ISO 8601 durations, adding one to an instant in a zone as Temporal's
// ZonedDateTime.add does, exact and calendar differences, business days.
// Pure functions: no clock, no I/O.

#include "domain/absolute_time.hpp"

#include <date/date.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ttm::domain {

/// P[nY][nM][nW][nD][T[nH][nM][n[.f]S]] with an optional sign. Components
/// are kept as written (PT90M stays 90 minutes): days are not 24 hours in
/// a zone with DST, and months have no fixed length.
struct iso_duration {
  bool negative = false;
  std::int64_t years = 0;
  std::int64_t months = 0;
  std::int64_t weeks = 0;
  std::int64_t days = 0;
  std::int64_t hours = 0;
  std::int64_t minutes = 0;
  /// Seconds with their fraction, to the millisecond (truncated).
  std::chrono::milliseconds seconds{0};

  bool has_calendar_part() const noexcept {
    return years != 0 || months != 0 || weeks != 0 || days != 0;
  }
  /// Hours, minutes and seconds as elapsed time (unsigned).
  std::chrono::milliseconds exact_part() const noexcept;
};

/// The duration, or why `text` is refused (a sentence fragment naming what
/// is wrong; iso_duration_form() says what is accepted). Case-insensitive;
/// each number has at most 9 digits, only seconds may have a fraction.
std::variant<iso_duration, std::string> parse_iso_duration(std::string_view text);

/// The accepted form, one sentence, for error messages.
const std::string& iso_duration_form();

/// Canonical spelling of `d`: "P1M", "P1DT2H", "PT90M", "-PT1.5S"; a zero
/// duration is "PT0S".
std::string format_iso_duration(const iso_duration& d);

/// `start` plus `d` (or minus, when `subtract`) in `z`: the calendar part
/// (years and months, then weeks and days) moves the local date and keeps
/// the wall time, clamping the day to the month's end (Jan 31 + P1M = Feb
/// 28/29); that local time is resolved in `z` by `rule` (a gap or overlap
/// under `reject` is NONEXISTENT_LOCAL_TIME / AMBIGUOUS_LOCAL_TIME naming
/// `rule_argument`, `written` shown as what it came from); then the exact
/// part is added as elapsed time. A result outside the years 1800 to 2200
/// is a VALIDATION_ERROR. `disambiguated` says "earlier"/"later" when the
/// calendar step landed in a gap or overlap.
time_input_result add_duration(wall_time start, const zone& z,
                               const iso_duration& d, bool subtract,
                               disambiguation rule, std::string_view written,
                               std::string_view rule_argument);

/// end - start: exact, and in calendar terms in a zone.
struct time_difference {
  bool negative = false;
  /// end - start, signed.
  std::chrono::milliseconds exact{0};
  /// Calendar breakdown, all of the same sign as `exact`: whole years,
  /// months and days of the local calendar in the zone, then the elapsed
  /// rest. Counted from the earlier time to the later one, then negated, so
  /// swapping start and end flips only the sign.
  std::int64_t years = 0;
  std::int64_t months = 0;
  std::int64_t days = 0;
  std::int64_t hours = 0;
  std::int64_t minutes = 0;
  std::int64_t seconds = 0;
  std::int64_t milliseconds = 0;
};

time_difference difference(wall_time start, wall_time end, const zone& z);

/// "P1Y2M3DT4H5M6.5S" for the calendar breakdown, "-P..." when negative,
/// "PT0S" when zero.
std::string format_calendar_duration(const time_difference& d);

/// "PT49H", "-PT1H30M", "PT0.250S": an exact duration, hours never folded
/// into days, milliseconds kept.
std::string format_exact_duration(std::chrono::milliseconds d);

// -- business days -------------------------------------------------------------

/// Days since 1970-01-01 (negative before).
using day_number = std::int64_t;

/// "2026-12-25" in the years 1800 to 2200; nullopt for anything else.
std::optional<day_number> parse_iso_date(std::string_view text);
std::string format_iso_date(day_number d);
/// 0 = Sunday ... 6 = Saturday.
unsigned weekday_of(day_number d);

/// Which days are not business days: weekend weekdays and holiday dates.
class business_calendar {
public:
  /// `weekend[w]` for weekday w (0 = Sunday); `holidays` in any order,
  /// duplicates allowed. At least one weekday must be a business day.
  business_calendar(std::array<bool, 7> weekend,
                    std::vector<day_number> holidays);

  bool is_business_day(day_number d) const;
  /// Weekday w (0 = Sunday) is a weekend day.
  bool is_weekend(unsigned w) const {
    return weekend_[w];
  }

  /// Business days d with from < d <= to when from <= to; when to < from,
  /// minus those with to <= d < from. So count(a, add(a, n)) == n.
  std::int64_t count(day_number from, day_number to) const;

  /// The n-th business day after `from` (before it when n < 0); `from`
  /// itself when n == 0, business day or not.
  day_number add(day_number from, std::int64_t n) const;

  /// Holidays that fall on a weekday that is not weekend in from < d <= to
  /// (to <= d < from when to < from): those `count` left out.
  std::int64_t holidays_in(day_number from, day_number to) const;

private:
  // Business days in (lo, hi], lo <= hi.
  std::int64_t forward(day_number lo, day_number hi) const;
  std::int64_t weekday_holidays(day_number lo, day_number hi) const;

  std::array<bool, 7> weekend_;
  int per_week_;
  std::vector<day_number> holidays_; // sorted, unique
};

/// Whole months onto a civil date, the day clamped to the month's end
/// (Jan 31 + 1 month = Feb 28/29).
date::local_days add_months(date::local_days d, std::int64_t months);

} // namespace ttm::domain
