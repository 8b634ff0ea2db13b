#include "domain/time_format.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"
#include "tools/timestamp_format.hpp"

#include <cstdint>

namespace ttm::tools {

namespace {

struct get_current_args {
  std::string format;
  std::string timezone;
  std::string locale;
};

struct get_current_result {
  std::string timestamp;
  std::string timezone;
  std::string utc_offset;
  std::string day_of_week;
  bool is_dst = false;
  std::string abbreviation;
  // Issue 18 item 4: after the spec's fields, in this order.
  std::string utc;
  std::int64_t iso_week = 1;
  std::int64_t iso_week_year = 1970;
  std::int64_t day_of_year = 1;
  std::int64_t quarter = 1;
  std::int64_t days_in_month = 31;
  bool is_weekend = false;
};

outcome<get_current_result> run(const get_current_args& args,
                                tool_context& ctx) {
  auto lookup = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!lookup.found)
    return tool_error{"INVALID_TIMEZONE", std::move(lookup.message),
                      std::move(lookup.suggestions)};
  const auto& zone = *lookup.found;
  auto locale = resolve_locale_arg(args.locale);
  if (auto* err = std::get_if<tool_error>(&locale))
    return std::move(*err);
  auto now = ctx.clock.wall_now();
  // One look at the zone for the timestamp, the flags and the local date.
  auto d = domain::describe(now, zone);
  if (args.format == "friendly") // ICU only for text that is shown
    domain::localize_friendly(d, now, std::get<domain::friendly_locale>(locale));
  get_current_result res;
  res.timestamp = format_timestamp(args.format, now, d);
  res.timezone = zone.name();
  res.utc_offset = domain::format_utc_offset(d.state.utc_offset);
  res.day_of_week = d.day_of_week;
  res.is_dst = d.state.is_dst;
  res.abbreviation = std::move(d.state.abbreviation);
  res.utc = domain::format_iso8601_utc(now);
  auto facts = domain::calendar_facts_of(d.local_day);
  res.iso_week = facts.iso_week;
  res.iso_week_year = facts.iso_week_year;
  res.day_of_year = facts.day_of_year;
  res.quarter = facts.quarter;
  res.days_in_month = facts.days_in_month;
  res.is_weekend = facts.is_weekend;
  return res;
}

} // namespace

tool make_time_get_current() {
  auto in = std::make_shared<input_schema<get_current_args>>();
  in->add("format", &get_current_args::format,
          "friendly: 'December 14, 2025 9:45:32 AM EST'.")
    .one_of(timestamp_formats())
    .default_to("iso8601");
  in->add("timezone", &get_current_args::timezone,
          "IANA or Windows zone, offset or 'local' (the user's preferred "
          "zone, else the server's); no abbreviations.")
    .max_length(128)
    .default_to("local");
  in->add("locale", &get_current_args::locale, locale_description)
    .max_length(64)
    .default_to("en-US");
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
  out->add("utc", &get_current_result::utc,
           "The same instant in UTC, ISO 8601 with milliseconds and 'Z', "
           "e.g. 2025-12-14T14:45:32.123Z.");
  out->add("iso_week", &get_current_result::iso_week,
           "ISO 8601 week number (1-53) of the date in that zone; weeks "
           "start Monday and week 1 holds the year's first Thursday.");
  out->add("iso_week_year", &get_current_result::iso_week_year,
           "The year iso_week belongs to; differs from the calendar year "
           "for a few days around New Year (2027-01-01 is in week 53 of "
           "2026).");
  out->add("day_of_year", &get_current_result::day_of_year,
           "Day of the year (1-366) of the date in that zone.");
  out->add("quarter", &get_current_result::quarter,
           "Calendar quarter (1-4) of the date in that zone.");
  out->add("days_in_month", &get_current_result::days_in_month,
           "Number of days (28-31) in that zone's current month.");
  out->add("is_weekend", &get_current_result::is_weekend,
           "True on Saturday or Sunday in that zone.");
  tool_spec<get_current_args, get_current_result> spec;
  spec.name = "time_get_current";
  spec.toolset = "time";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", true, true, false};
  spec.instructions
    = {phase::each,
       "Call time_get_current instead of guessing the date or time; omit timezone for the user's preferred zone"};
  spec.title = "Current time";
  spec.description
    = "Now, from the server's clock, in any zone: offset, weekday, DST, "
      "abbreviation, UTC, calendar facts. Use it instead of guessing.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
