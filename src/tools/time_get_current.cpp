#include "domain/time_format.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"

namespace ttm::tools {

namespace {

struct get_current_args {
  std::string format;
  std::string timezone;
};

struct get_current_result {
  std::string timestamp;
  std::string timezone;
  std::string utc_offset;
  std::string day_of_week;
  bool is_dst = false;
  std::string abbreviation;
};

const std::vector<std::string> formats{"iso8601", "unix", "unix_ms",
                                       "friendly"};

outcome<get_current_result> run(const get_current_args& args,
                                tool_context& ctx) {
  auto lookup = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!lookup.found)
    return tool_error{"INVALID_TIMEZONE", std::move(lookup.message),
                      std::move(lookup.suggestions)};
  const auto& zone = *lookup.found;
  auto now = ctx.clock.wall_now();
  auto state = zone.state_at(now);
  get_current_result res;
  if (args.format == "unix")
    res.timestamp = std::to_string(domain::unix_seconds(now));
  else if (args.format == "unix_ms")
    res.timestamp = std::to_string(domain::unix_millis(now));
  else if (args.format == "friendly")
    res.timestamp = domain::format_friendly(now, zone);
  else
    res.timestamp = domain::format_iso8601(now, zone);
  res.timezone = zone.name();
  res.utc_offset = domain::format_utc_offset(state.utc_offset);
  res.day_of_week = domain::day_of_week(now, zone);
  res.is_dst = state.is_dst;
  res.abbreviation = std::move(state.abbreviation);
  return res;
}

} // namespace

tool make_time_get_current() {
  auto in = std::make_shared<input_schema<get_current_args>>();
  in->add("format", &get_current_args::format,
          "Output format: 'iso8601' (2025-12-14T09:45:32.123-05:00), 'unix' "
          "(seconds), 'unix_ms' (milliseconds) or 'friendly' (December 14, "
          "2025 9:45:32 AM EST).")
    .one_of(formats)
    .default_to("iso8601");
  in->add("timezone", &get_current_args::timezone,
          "IANA time zone name (e.g. 'America/New_York', 'UTC'), a fixed "
          "offset ('+05:30', 'UTC-3'), or 'local' (default): the server's "
          "zone, which may not be the user's. "
          "Abbreviations such as 'EST' are ambiguous and refused.")
    .max_length(128)
    .default_to("local");
  auto out = std::make_shared<output_schema<get_current_result>>();
  out->add("timestamp", &get_current_result::timestamp,
           "The current time in the requested format.");
  out->add("timezone", &get_current_result::timezone,
           "The zone used: an IANA name (never 'local') or 'UTC+05:30'.");
  out->add("utc_offset", &get_current_result::utc_offset,
           "UTC offset in ±HH:MM format.");
  out->add("day_of_week", &get_current_result::day_of_week,
           "Weekday in that zone, e.g. 'Sunday'.");
  out->add("is_dst", &get_current_result::is_dst,
           "True when daylight saving time is in effect in that zone.");
  out->add("abbreviation", &get_current_result::abbreviation,
           "The zone's abbreviation at this instant, e.g. 'EST', '+0545'.");
  tool_spec<get_current_args, get_current_result> spec;
  spec.name = "time_get_current";
  spec.title = "Current time";
  spec.description
    = "Returns the current date and time from the server's clock in any IANA "
      "time zone (default: the server's zone, which may not be the user's), "
      "as ISO 8601, Unix seconds, Unix "
      "milliseconds or a friendly string, with the UTC offset, weekday, DST "
      "flag and zone abbreviation. Use it instead of guessing the date or time.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
