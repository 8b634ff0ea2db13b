#include "domain/calendar_math.hpp"
#include "domain/time_format.hpp"
#include "domain/time_input.hpp"
#include "domain/zones.hpp"
#include "tools/registry.hpp"
#include "tools/timestamp_format.hpp"
#include "tools/zoned_fields.hpp"

#include <date/date.h>

#include <algorithm>

namespace ttm::tools {

namespace {

struct calculate_args {
  std::string operation;
  std::string start;
  std::optional<std::string> end;
  std::optional<std::string> duration;
  std::optional<std::int64_t> days;
  std::optional<std::vector<std::string>> weekend;
  std::optional<std::vector<std::string>> holidays;
  std::string timezone;
  std::string format;
  std::string disambiguation;
  std::optional<std::string> result_disambiguation;
  std::string week_start;
  std::string locale;
};

struct calc_input : zoned_fields {
  std::string input;
  std::string interpreted_as;
  std::optional<std::string> convention;
  std::optional<std::string> disambiguation;
};

struct calc_output : zoned_fields {
  std::optional<std::string> disambiguation;
  std::int64_t elapsed_ms = 0;
};

struct calendar_parts {
  std::int64_t years = 0;
  std::int64_t months = 0;
  std::int64_t days = 0;
  std::int64_t hours = 0;
  std::int64_t minutes = 0;
  std::int64_t seconds = 0;
  std::int64_t milliseconds = 0;
  std::string iso_duration;
};

struct difference_out {
  bool negative = false;
  std::int64_t ms = 0;
  std::string iso_duration;
  std::string human;
  calendar_parts calendar;
};

struct business_out {
  std::string start_date;
  std::string start_day_of_week;
  bool start_is_business_day = false;
  std::string end_date;
  std::string end_day_of_week;
  bool end_is_business_day = false;
  std::int64_t count = 0;
  std::int64_t holidays_excluded = 0;
  std::vector<std::string> weekend;
};

struct calculate_result {
  std::string operation;
  calc_input start;
  std::optional<calc_input> end;
  std::optional<std::string> duration;
  std::optional<calc_output> result;
  std::optional<difference_out> difference;
  std::optional<business_out> business_days;
};

const std::vector<std::string> operations{"add", "subtract", "difference",
                                          "business_days"};
const std::vector<std::string> rules{"reject", "compatible", "earlier",
                                     "later"};
const std::vector<std::string> weekdays{"sunday",   "monday", "tuesday",
                                        "wednesday", "thursday", "friday",
                                        "saturday"};
constexpr const char* weekday_titles[] = {"Sunday",   "Monday", "Tuesday",
                                          "Wednesday", "Thursday", "Friday",
                                          "Saturday"};
constexpr std::size_t max_holidays = 366;
constexpr std::int64_t max_business_days = 100'000;


tool_error invalid(std::string message) {
  return tool_error{"VALIDATION_ERROR", std::move(message)};
}

// Reads `text` (the argument `field`) with the shared time grammar.
std::variant<domain::time_input, tool_error>
read_time(const std::string& field, const std::string& text,
          const domain::time_input_options& opts) {
  auto parsed = domain::parse_time_input(text, opts);
  if (auto* err = std::get_if<domain::time_input_error>(&parsed)) {
    // Grammar refusals name the field; gap and overlap messages quote the
    // input, which is enough.
    auto message = std::move(err->message);
    if (err->code == "VALIDATION_ERROR")
      message = field + ": " + message;
    return tool_error{std::move(err->code), std::move(message),
                      std::move(err->suggestions)};
  }
  return std::get<domain::time_input>(std::move(parsed));
}

calc_input describe_input(const std::string& text, const domain::time_input& in,
                          const domain::zone& z, const std::string& format,
                          const domain::friendly_locale& locale) {
  calc_input c;
  fill_zoned_fields(c, in.instant, z, format, locale);
  c.input = text;
  c.interpreted_as = input_form_name(in.form);
  if (!in.convention.empty())
    c.convention = in.convention;
  if (!in.disambiguated.empty())
    c.disambiguation = in.disambiguated;
  return c;
}

// An argument given to an operation that does not use it is a mistake
// worth naming rather than ignoring.
std::optional<tool_error> unused(const calculate_args& a) {
  const auto& op = a.operation;
  bool arithmetic = op == "add" || op == "subtract";
  auto refuse = [&](const char* field) {
    return invalid(std::string(field) + ": not used by operation '" + op
                   + "'.");
  };
  if (!arithmetic && a.duration)
    return refuse("duration");
  if (!arithmetic && a.result_disambiguation)
    return refuse("result_disambiguation");
  if (arithmetic && a.end)
    return refuse("end");
  if (op != "business_days" && a.days)
    return refuse("days");
  if (op != "business_days" && a.weekend)
    return refuse("weekend");
  if (op != "business_days" && a.holidays)
    return refuse("holidays");
  if (arithmetic && !a.duration)
    return invalid("duration: required by operation '" + op
                   + "' (an ISO 8601 duration such as P1D, PT90M, P1M).");
  if (op == "difference" && !a.end)
    return invalid("end: required by operation 'difference'.");
  if (op == "business_days" && a.end.has_value() == a.days.has_value())
    return invalid("end, days: operation 'business_days' takes exactly one: "
                   "end (count the business days from start to end) or days "
                   "(add that many business days to start).");
  return std::nullopt;
}

// The weekend and holidays, checked before any time is read.
std::variant<domain::business_calendar, tool_error>
business_rules(const calculate_args& args) {
  std::array<bool, 7> weekend{};
  std::vector<std::string> names{"saturday", "sunday"};
  if (args.weekend)
    names = *args.weekend;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto w = static_cast<std::size_t>(
      std::find(weekdays.begin(), weekdays.end(), names[i]) - weekdays.begin());
    if (weekend[w])
      return invalid("weekend[" + std::to_string(i) + "]: '" + names[i]
                     + "' is listed twice; name each weekday once.");
    weekend[w] = true;
  }
  if (names.size() == 7)
    return invalid("weekend: all seven days are weekend, so no day is a "
                   "business day.");
  std::vector<domain::day_number> holidays;
  if (args.holidays) {
    holidays.reserve(args.holidays->size());
    for (std::size_t i = 0; i < args.holidays->size(); ++i) {
      auto d = domain::parse_iso_date((*args.holidays)[i]);
      if (!d)
        return invalid("holidays[" + std::to_string(i) + "]: '"
                       + (*args.holidays)[i]
                       + "' is not a date YYYY-MM-DD in the years 1800 to "
                         "2200.");
      holidays.push_back(*d);
    }
  }
  if (args.days
      && (*args.days > max_business_days || *args.days < -max_business_days))
    return invalid("days: " + std::to_string(*args.days)
                   + " is outside -100000 to 100000.");
  return domain::business_calendar{weekend, std::move(holidays)};
}

outcome<calculate_result> run_business(const calculate_args& args,
                                       calculate_result& res,
                                       const domain::business_calendar& cal,
                                       const domain::time_input& start,
                                       const std::optional<domain::time_input>& end,
                                       const domain::zone& z) {
  auto day_of = [&](domain::wall_time t) {
    return date::floor<date::days>(
             date::local_time<std::chrono::milliseconds>{
               z.local_at(t).since_epoch})
      .time_since_epoch()
      .count();
  };
  auto from = day_of(start.instant);
  domain::day_number to;
  if (end) {
    to = day_of(end->instant);
  } else {
    to = cal.add(from, *args.days);
    if (!domain::in_supported_years(std::chrono::hours{24} * to))
      return invalid("days: " + std::string(domain::outside_supported_years)
                     + ".");
  }
  business_out b;
  b.start_date = domain::format_iso_date(from);
  b.start_day_of_week = weekday_titles[domain::weekday_of(from)];
  b.start_is_business_day = cal.is_business_day(from);
  b.end_date = domain::format_iso_date(to);
  b.end_day_of_week = weekday_titles[domain::weekday_of(to)];
  b.end_is_business_day = cal.is_business_day(to);
  b.count = cal.count(from, to);
  b.holidays_excluded = cal.holidays_in(from, to);
  for (std::size_t w = 1; w <= 7; ++w) // Monday first
    if (cal.is_weekend(w % 7))
      b.weekend.push_back(weekdays[w % 7]);
  res.business_days = std::move(b);
  return std::move(res);
}

outcome<calculate_result> run(const calculate_args& args, tool_context& ctx) {
  // Every argument is checked before the times are read: a bad call names
  // the first offending field.
  if (auto err = unused(args))
    return std::move(*err);
  auto zone = domain::resolve_zone(args.timezone, ctx.local_zone);
  if (!zone.found)
    return tool_error{"INVALID_TIMEZONE", "timezone: " + zone.message,
                      std::move(zone.suggestions)};
  const auto& z = *zone.found;
  std::optional<domain::iso_duration> duration;
  if (args.duration) {
    auto parsed = domain::parse_iso_duration(*args.duration);
    if (auto* why = std::get_if<std::string>(&parsed))
      return invalid("duration: cannot read '" + *args.duration + "': " + *why
                     + ". " + domain::iso_duration_form());
    duration = std::get<domain::iso_duration>(parsed);
  }
  std::optional<domain::business_calendar> calendar;
  if (args.operation == "business_days") {
    auto rules = business_rules(args);
    if (auto* err = std::get_if<tool_error>(&rules))
      return std::move(*err);
    calendar = std::get<domain::business_calendar>(std::move(rules));
  }
  auto locale_arg = resolve_locale_arg(args.locale);
  if (auto* err = std::get_if<tool_error>(&locale_arg))
    return std::move(*err);
  const auto& locale = std::get<domain::friendly_locale>(locale_arg);
  domain::time_input_options opts;
  opts.now = ctx.clock.wall_now();
  opts.in = &z;
  opts.on_conflict = domain::parse_disambiguation(args.disambiguation)
                       .value_or(domain::disambiguation::reject);
  opts.week_start = static_cast<unsigned>(
    std::find(weekdays.begin(), weekdays.end(), args.week_start)
    - weekdays.begin());
  if (!locale.is_default)
    opts.words = &domain::time_words_for(locale.icu_id);
  auto start = read_time("start", args.start, opts);
  if (auto* err = std::get_if<tool_error>(&start))
    return std::move(*err);
  const auto& s = std::get<domain::time_input>(start);
  std::optional<domain::time_input> end;
  if (args.end) {
    auto e = read_time("end", *args.end, opts);
    if (auto* err = std::get_if<tool_error>(&e))
      return std::move(*err);
    end = std::get<domain::time_input>(std::move(e));
  }

  calculate_result res;
  res.operation = args.operation;
  res.start = describe_input(args.start, s, z, args.format, locale);
  if (end)
    res.end = describe_input(*args.end, *end, z, args.format, locale);
  if (duration) {
    bool subtract = args.operation == "subtract";
    auto canonical = domain::format_iso_duration(*duration);
    auto written = domain::format_iso8601(s.instant, z)
                   + (subtract ? " - " : " + ") + canonical;
    auto rule = domain::parse_disambiguation(
                  args.result_disambiguation.value_or("compatible"))
                  .value_or(domain::disambiguation::compatible);
    auto added = domain::add_duration(s.instant, z, *duration, subtract, rule,
                                      written, "result_disambiguation");
    if (auto* err = std::get_if<domain::time_input_error>(&added))
      return tool_error{std::move(err->code), std::move(err->message),
                        std::move(err->suggestions)};
    const auto& r = std::get<domain::time_input>(added);
    calc_output out;
    fill_zoned_fields(out, r.instant, z, args.format, locale);
    if (!r.disambiguated.empty())
      out.disambiguation = r.disambiguated;
    out.elapsed_ms = domain::unix_millis(r.instant) - domain::unix_millis(s.instant);
    res.duration = canonical;
    res.result = std::move(out);
    return res;
  }
  if (args.operation == "difference") {
    auto d = domain::difference(s.instant, end->instant, z);
    difference_out o;
    o.negative = d.negative;
    o.ms = d.exact.count();
    o.iso_duration = domain::format_exact_duration(d.exact);
    o.human = domain::format_duration(d.negative ? -d.exact : d.exact);
    o.calendar = {d.years,   d.months,  d.days,         d.hours,
                  d.minutes, d.seconds, d.milliseconds,
                  domain::format_calendar_duration(d)};
    res.difference = std::move(o);
    return res;
  }
  return run_business(args, res, *calendar, s, end, z);
}

} // namespace

template <>
struct nested<calc_input> {
  static const object_schema<calc_input>& schema() {
    static const auto s = [] {
      object_schema<calc_input> s;
      s.add("input", &calc_input::input, "The time as given.");
      s.add("interpreted_as", &calc_input::interpreted_as,
            "How it was read: 'offset', 'local', 'date', 'unix' or "
            "'relative'.")
        .one_of({"offset", "local", "date", "unix", "relative"});
      s.add("convention", &calc_input::convention, convention_description);
      add_zoned_fields(s);
      s.add("disambiguation", &calc_input::disambiguation,
            "'earlier' or 'later' when the local time fell in a DST gap or "
            "overlap and was shifted or chosen, else null.");
      return s;
    }();
    return s;
  }
};

template <>
struct nested<calc_output> {
  static const object_schema<calc_output>& schema() {
    static const auto s = [] {
      object_schema<calc_output> s;
      add_zoned_fields(s);
      s.add("disambiguation", &calc_output::disambiguation,
            "'earlier' or 'later' when the calendar step landed on a local "
            "time in a DST gap or overlap and result_disambiguation shifted "
            "or chose it, else null.");
      s.add("elapsed_ms", &calc_output::elapsed_ms,
            "Result minus start in elapsed milliseconds (P1D across a DST "
            "change is 23 or 25 hours).");
      return s;
    }();
    return s;
  }
};

template <>
struct nested<calendar_parts> {
  static const object_schema<calendar_parts>& schema() {
    static const auto s = [] {
      object_schema<calendar_parts> s;
      s.add("years", &calendar_parts::years, "Whole years.");
      s.add("months", &calendar_parts::months, "Whole months (0-11).");
      s.add("days", &calendar_parts::days, "Whole local days.");
      s.add("hours", &calendar_parts::hours,
            "Elapsed hours after the days (can exceed 23 only around odd "
            "offset changes).");
      s.add("minutes", &calendar_parts::minutes, "0-59.");
      s.add("seconds", &calendar_parts::seconds, "0-59.");
      s.add("milliseconds", &calendar_parts::milliseconds, "0-999.");
      s.add("duration_iso", &calendar_parts::iso_duration,
            "The same as ISO 8601, e.g. 'P1M2DT3H', '-P1D', 'PT0S'.");
      return s;
    }();
    return s;
  }
};

template <>
struct nested<difference_out> {
  static const object_schema<difference_out>& schema() {
    static const auto s = [] {
      object_schema<difference_out> s;
      s.add("negative", &difference_out::negative,
            "True when end is before start; then duration_ms, duration_iso "
            "and every calendar field are negative (duration is the "
            "magnitude).");
      s.add("duration_ms", &difference_out::ms,
            "end - start in milliseconds.");
      s.add("duration_iso", &difference_out::iso_duration,
            "The exact difference as ISO 8601, hours never folded into days: "
            "'PT49H', '-PT1H30M', 'PT0.25S'.");
      s.add("duration", &difference_out::human,
            "The magnitude in words, its two largest units: '2 days 3 "
            "hours'.");
      s.add("calendar", &difference_out::calendar,
            "Years, months and days of the local calendar in timezone, then "
            "the elapsed rest, counted from the earlier time.");
      return s;
    }();
    return s;
  }
};

template <>
struct nested<business_out> {
  static const object_schema<business_out>& schema() {
    static const auto s = [] {
      object_schema<business_out> s;
      s.add("start_date", &business_out::start_date,
            "start's local date in timezone, YYYY-MM-DD.");
      s.add("start_day_of_week", &business_out::start_day_of_week, "e.g. 'Friday'.");
      s.add("start_is_business_day", &business_out::start_is_business_day,
            "Whether start_date is a business day.");
      s.add("end_date", &business_out::end_date,
            "With end: its local date. With days: the answer, the date that "
            "many business days after (before) start_date.");
      s.add("end_day_of_week", &business_out::end_day_of_week, "e.g. 'Monday'.");
      s.add("end_is_business_day", &business_out::end_is_business_day,
            "Whether end_date is a business day.");
      s.add("count", &business_out::count,
            "Business days after start_date up to and including end_date; "
            "negative (those from end_date up to but excluding start_date) "
            "when end_date is earlier. With days, equal to days.");
      s.add("holidays_excluded", &business_out::holidays_excluded,
            "Given holidays on non-weekend days in the counted range.");
      s.add("weekend", &business_out::weekend,
            "The weekend days applied, Monday first.");
      return s;
    }();
    return s;
  }
};

tool make_time_calculate() {
  auto in = std::make_shared<input_schema<calculate_args>>();
  in->add("operation", &calculate_args::operation,
          "add/subtract: start ± duration; difference; business_days: start "
          "to end, or start + days.")
    .required()
    .one_of(operations);
  in->add("start", &calculate_args::start,
          "A time in any form time_convert reads.")
    .required()
    .min_length(1)
    .max_length(128);
  in->add("end", &calculate_args::end,
          "difference, business_days: the second time.")
    .min_length(1)
    .max_length(128);
  in->add("duration", &calculate_args::duration,
          "add/subtract: ISO 8601 (P1M, PT90M, -P1D); days keep the wall "
          "time.")
    .min_length(2)
    .max_length(64);
  in->add("days", &calculate_args::days,
          "business_days: how many to add (negative: back).");
  in->add("weekend", &calculate_args::weekend,
          "business_days: weekend days (default saturday, sunday).")
    .max_items(7)
    .item_one_of(weekdays);
  in->add("holidays", &calculate_args::holidays,
          "business_days: YYYY-MM-DD days off.")
    .max_items(max_holidays)
    .item_min_length(10)
    .item_max_length(10);
  in->add("timezone", &calculate_args::timezone,
          "Zone of local inputs and results (default: the user's).")
    .max_length(128)
    .default_to("local");
  in->add("format", &calculate_args::format,
          "Result format.")
    .one_of(timestamp_formats())
    .default_to("iso8601");
  in->add("disambiguation", &calculate_args::disambiguation,
          "For an input in a DST gap/overlap.")
    .one_of(rules)
    .default_to("reject");
  in->add("result_disambiguation", &calculate_args::result_disambiguation,
          "For a result in a DST gap/overlap (default compatible).")
    .one_of(rules);
  in->add("week_start", &calculate_args::week_start,
          "First day of a week.")
    .one_of(weekdays)
    .default_to("monday");
  in->add("locale", &calculate_args::locale, locale_description)
    .max_length(64)
    .default_to("en-US");
  auto out = std::make_shared<output_schema<calculate_result>>();
  out->add("operation", &calculate_result::operation, "As given.")
    .one_of(operations);
  out->add("start", &calculate_result::start,
           "The instant start names, shown in timezone.");
  out->add("end", &calculate_result::end,
           "difference, business_days with end: the instant end names.")
    .omit_when_empty();
  out->add("duration", &calculate_result::duration,
           "add, subtract: the duration as read, canonical ('p1d' -> 'P1D').")
    .omit_when_empty();
  out->add("result", &calculate_result::result,
           "add, subtract: the resulting instant in timezone.")
    .omit_when_empty();
  out->add("difference", &calculate_result::difference,
           "difference: end - start.")
    .omit_when_empty();
  out->add("business_days", &calculate_result::business_days,
           "business_days: the dates, the count and the rules applied.")
    .omit_when_empty();
  tool_spec<calculate_args, calculate_result> spec;
  spec.name = "time_calculate";
  spec.toolset = "time";
  // zone argument, omitted = local, locale, week_start
  spec.preferences = preference_defaults{"timezone", true, true, true};
  spec.title = "Calendar arithmetic in a zone";
  spec.description
    = "Date arithmetic in a zone: add/subtract an ISO 8601 duration "
      "(DST-aware), the difference of two times, or business days (no "
      "holiday data is built in).";
  spec.input = std::move(in);
  spec.output = std::move(out);
  spec.annotations = hint::read_only | hint::idempotent;
  spec.handler = run;
  return make_tool(std::move(spec));
}

} // namespace ttm::tools
