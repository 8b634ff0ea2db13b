#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"
#include "tools/timestamp_format.hpp"
#include "tools/zoned_fields.hpp"

#include <algorithm>

namespace ttm::tools {

namespace {

struct convert_args {
  std::string time;
  std::string from_timezone;
  std::vector<std::string> to_timezones;
  std::string format;
  std::string disambiguation;
  std::string week_start;
  std::string locale;
};

struct convert_source : zoned_fields {
  std::string input;
  std::string interpreted_as;
  std::optional<std::string> convention;
  std::optional<std::string> input_offset;
  std::optional<std::string> disambiguation;
};

struct convert_target : zoned_fields {
  std::string date_difference;
};

struct convert_result {
  convert_source source;
  std::vector<convert_target> results;
};

const std::vector<std::string> rules{"reject", "compatible", "earlier",
                                     "later"};
const std::vector<std::string> weekdays{"sunday",   "monday", "tuesday",
                                        "wednesday", "thursday", "friday",
                                        "saturday"};
constexpr std::size_t max_targets = 20;

std::string date_difference(long long days) {
  if (days == 0)
    return "same day";
  auto n = std::to_string(days < 0 ? -days : days);
  return (days < 0 ? "-" : "+") + n + (days == 1 || days == -1 ? " day" : " days");
}

outcome<convert_result> run(const convert_args& args, tool_context& ctx) {
  // Every argument is checked before the time is read: a bad call changes
  // nothing and names the first offending field.
  auto from = domain::resolve_zone(args.from_timezone, ctx.local_zone);
  if (!from.found)
    return tool_error{"INVALID_TIMEZONE", "from_timezone: " + from.message,
                      std::move(from.suggestions)};
  std::vector<domain::zone> targets;
  targets.reserve(args.to_timezones.size());
  for (std::size_t i = 0; i < args.to_timezones.size(); ++i) {
    const auto& name = args.to_timezones[i];
    auto field = [i] { return "to_timezones[" + std::to_string(i) + "]"; };
    if (std::find(args.to_timezones.begin(), args.to_timezones.begin()
                                               + static_cast<long>(i),
                  name)
        != args.to_timezones.begin() + static_cast<long>(i))
      return tool_error{"VALIDATION_ERROR",
                        field() + ": '" + name
                          + "' is listed twice; name each zone once."};
    auto found = domain::resolve_zone(name, ctx.local_zone);
    if (!found.found)
      return tool_error{"INVALID_TIMEZONE", field() + ": " + found.message,
                        std::move(found.suggestions)};
    targets.push_back(std::move(*found.found));
  }
  auto locale_arg = resolve_locale_arg(args.locale);
  if (auto* err = std::get_if<tool_error>(&locale_arg))
    return std::move(*err);
  const auto& locale = std::get<domain::friendly_locale>(locale_arg);
  domain::time_input_options opts;
  opts.now = ctx.clock.wall_now();
  opts.in = &*from.found;
  opts.on_conflict = domain::parse_disambiguation(args.disambiguation)
                       .value_or(domain::disambiguation::reject);
  opts.week_start = static_cast<unsigned>(
    std::find(weekdays.begin(), weekdays.end(), args.week_start)
    - weekdays.begin());
  if (!locale.is_default)
    opts.words = &domain::time_words_for(locale.icu_id);
  auto parsed = domain::parse_time_input(args.time, opts);
  if (auto* err = std::get_if<domain::time_input_error>(&parsed))
    return tool_error{std::move(err->code), std::move(err->message),
                      std::move(err->suggestions)};
  auto& in = std::get<domain::time_input>(parsed);

  convert_result res;
  auto& src = res.source;
  // An input with an offset is shown at that offset: its own date is the
  // one the date differences count from.
  auto source_zone = in.input_offset
                       ? domain::zone::fixed(
                         std::chrono::duration_cast<std::chrono::minutes>(
                           *in.input_offset))
                       : *from.found;
  auto source_day = fill_zoned_fields(src, in.instant, source_zone, args.format, locale);
  src.input = args.time;
  src.interpreted_as = input_form_name(in.form);
  if (!in.convention.empty())
    src.convention = std::move(in.convention);
  if (in.input_offset)
    src.input_offset = domain::format_utc_offset(*in.input_offset);
  if (!in.disambiguated.empty())
    src.disambiguation = in.disambiguated;
  res.results.reserve(targets.size());
  for (const auto& z : targets) {
    convert_target t;
    t.date_difference
      = date_difference(fill_zoned_fields(t, in.instant, z, args.format, locale) - source_day);
    res.results.push_back(std::move(t));
  }
  return res;
}

} // namespace

template <>
struct nested<convert_source> {
  static const object_schema<convert_source>& schema() {
    static const auto s = [] {
      object_schema<convert_source> s;
      s.add("input", &convert_source::input, "The time as given.");
      s.add("interpreted_as", &convert_source::interpreted_as,
            "How it was read: 'offset' (ISO 8601 with offset), 'local' (a "
            "local date-time in from_timezone), 'date' (local midnight), "
            "'unix' or 'relative'.")
        .one_of({"offset", "local", "date", "unix", "relative"});
      s.add("convention", &convert_source::convention, convention_description);
      add_zoned_fields(s);
      s.add("input_offset", &convert_source::input_offset,
            "The offset the input carried (then from_timezone was not used "
            "and the source is shown at that offset), else null.");
      s.add("disambiguation", &convert_source::disambiguation,
            "'earlier' or 'later' when the local time fell in a DST gap or "
            "overlap and was shifted or chosen, else null.");
      return s;
    }();
    return s;
  }
};

template <>
struct nested<convert_target> {
  static const object_schema<convert_target>& schema() {
    static const auto s = [] {
      object_schema<convert_target> s;
      add_zoned_fields(s);
      s.add("date_difference", &convert_target::date_difference,
            "This zone's local date against the source's: 'same day', "
            "'+1 day', '-1 day', '+2 days'.");
      return s;
    }();
    return s;
  }
};

tool make_time_convert() {
  auto in = std::make_shared<input_schema<convert_args>>();
  in->add("time", &convert_args::time,
          "ISO 8601, unix:SECONDS, unix_ms:MS or a phrase (tomorrow 9am, in "
          "1.5 hours, EOD).")
    .required()
    .min_length(1)
    .max_length(128);
  in->add("from_timezone", &convert_args::from_timezone,
          "Zone of local inputs.")
    .max_length(128)
    .default_to("local");
  in->add("to_timezones", &convert_args::to_timezones,
          "Target zones (IANA, Windows, offsets, 'local').")
    .required()
    .min_items(1)
    .max_items(max_targets)
    .item_max_length(128);
  in->add("format", &convert_args::format,
          "friendly is always given too.")
    .one_of(timestamp_formats())
    .default_to("iso8601");
  in->add("disambiguation", &convert_args::disambiguation,
          "For a local time in a DST gap/overlap.")
    .one_of(rules)
    .default_to("reject");
  in->add("week_start", &convert_args::week_start,
          "First day of a week.")
    .one_of(weekdays)
    .default_to("monday");
  in->add("locale", &convert_args::locale, locale_description)
    .max_length(64)
    .default_to("en-US");
  auto out = std::make_shared<output_schema<convert_result>>();
  out->add("source", &convert_result::source,
           "The instant the input names, in the zone it was read in.");
  out->add("results", &convert_result::results,
           "The same instant in each target zone, in the order given.");
  tool_spec<convert_args, convert_result> spec;
  spec.name = "time_convert";
  spec.toolset = "time";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"from_timezone", true, true, true};
  spec.title = "Convert a time between zones";
  spec.description
    = "Converts a time (ISO 8601, local, unix or a phrase) to up to 20 "
      "zones: offset, abbreviation, DST, weekday, date difference. Local "
      "times: from_timezone (default: the user's, else the server's zone, "
      "which may not be the user's). DST gaps/overlaps: see disambiguation.";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
