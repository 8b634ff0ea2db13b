#include "tools/zoned_fields.hpp"

#include "tools/timestamp_format.hpp"

namespace ttm::tools {

long long fill_zoned_fields(zoned_fields& f, domain::wall_time t,
                            const domain::zone& z, const std::string& format,
                            const domain::friendly_locale& locale) {
  auto d = domain::describe(t, z);
  domain::localize_friendly(d, t, locale);
  f.timezone = z.name();
  // The ISO text is moved, not copied: this runs for up to 21 zones.
  f.timestamp = format == "iso8601" ? std::move(d.iso8601)
                                    : format_timestamp(format, t, d);
  f.friendly = std::move(d.friendly);
  f.utc_offset = domain::format_utc_offset(d.state.utc_offset);
  f.abbreviation = std::move(d.state.abbreviation);
  f.is_dst = d.state.is_dst;
  f.day_of_week = d.day_of_week;
  return d.local_day;
}

const char* input_form_name(domain::time_input::form_t f) {
  switch (f) {
    case domain::time_input::offset: return "offset";
    case domain::time_input::local: return "local";
    case domain::time_input::date: return "date";
    case domain::time_input::unix: return "unix";
    default: return "relative";
  }
}

} // namespace ttm::tools
