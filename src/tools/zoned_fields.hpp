#pragma once

// What the time tools show of an instant in a zone (time_convert's source
// and targets, time_calculate's inputs and result): one struct, one schema
// declaration and one way to fill it, so the tools cannot drift apart.

#include "domain/locale_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "tools/schema.hpp"

#include <string>

namespace ttm::tools {

struct zoned_fields {
  std::string timezone;
  std::string timestamp;
  std::string friendly;
  std::string utc_offset;
  std::string abbreviation;
  bool is_dst = false;
  std::string day_of_week;
};

template <class S>
void add_zoned_fields(object_schema<S>& s) {
  s.template add<std::string>("timezone", &S::timezone,
        "The zone: an IANA name (never 'local') or 'UTC+05:30'.");
  s.template add<std::string>("timestamp", &S::timestamp,
        "The instant in the requested format; by default ISO 8601 local "
        "time with offset, e.g. 2026-03-29T03:30:00.000+02:00.");
  s.template add<std::string>("friendly", &S::friendly,
        "e.g. 'March 29, 2026 3:30:00 AM CEST'; in the requested locale "
        "(de-DE: '29. März 2026 um 03:30:00 CEST').");
  s.template add<std::string>("utc_offset", &S::utc_offset,
        "UTC offset in ±HH:MM format.");
  s.template add<std::string>("abbreviation", &S::abbreviation,
        "The zone's abbreviation at this instant, e.g. 'CEST', '+0545'.");
  s.template add<bool>("is_dst", &S::is_dst,
        "True when daylight saving time is in effect at this instant.");
  s.template add<std::string>("day_of_week", &S::day_of_week,
        "Weekday in that zone, e.g. 'Sunday'.");
}

/// Fills `f` with `t` in `z`, its timestamp in `format` and its friendly
/// text in `locale`; returns the local date (days since 1970-01-01).
long long fill_zoned_fields(zoned_fields& f, domain::wall_time t,
                            const domain::zone& z, const std::string& format,
                            const domain::friendly_locale& locale);

/// The `convention` output field's description: the rule that read an
/// ambiguous phrase (next friday, a date without a year).
inline constexpr const char* convention_description
  = "The rule that read an ambiguous phrase (docs/time-grammar.md), e.g. "
    "'next Friday: the first Friday after today', else null.";

/// How an input was read: "offset", "local", "date", "unix", "relative".
const char* input_form_name(domain::time_input::form_t f);

} // namespace ttm::tools
