#include "domain/time_input.hpp"

#include <date/date.h>

#include <array>
#include <cctype>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using local_ms = date::local_time<milliseconds>;

constexpr std::size_t max_input_length = 128;

constexpr std::array<const char*, 7> weekday_names = {
  "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};

time_input_error refuse(std::string_view text, const std::string& why) {
  return refuse_time_input(text, why);
}

const char* const out_of_range = outside_supported_years;

bool in_range(local_ms t) {
  return in_supported_years(t.time_since_epoch());
}

bool in_range(milliseconds since_epoch) {
  return in_supported_years(since_epoch);
}

local_ms to_date_local(local_time t) {
  return local_ms{t.since_epoch};
}

local_time from_date_local(local_ms t) {
  return {t.time_since_epoch()};
}

// -- relative expressions -------------------------------------------------------

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ')
      ++i;
    auto from = i;
    while (i < s.size() && s[i] != ' ')
      ++i;
    if (i > from)
      out.push_back(s.substr(from, i - from));
  }
  return out;
}

std::optional<unsigned> weekday_of(std::string_view w) {
  for (unsigned i = 0; i < weekday_names.size(); ++i)
    if (w == weekday_names[i])
      return i;
  return std::nullopt;
}

enum class unit { second, minute, hour, day, week, month, year };

std::optional<unit> unit_of(std::string_view w) {
  if (!w.empty() && w.back() == 's')
    w.remove_suffix(1);
  constexpr std::pair<const char*, unit> units[] = {
    {"second", unit::second}, {"minute", unit::minute}, {"hour", unit::hour},
    {"day", unit::day},       {"week", unit::week},     {"month", unit::month},
    {"year", unit::year}};
  for (const auto& [name, u] : units)
    if (w == name)
      return u;
  return std::nullopt;
}

// "17:00", "9:05", "17:00:30" -> time of day.
std::optional<milliseconds> parse_clock(std::string_view w) {
  // H:MM or HH:MM, then optionally :SS; all digits where digits belong.
  auto colon = w.find(':');
  if (colon != 1 && colon != 2)
    return std::nullopt;
  auto rest = w.substr(colon + 1);
  if (rest.size() != 2 && !(rest.size() == 5 && rest[2] == ':'))
    return std::nullopt;
  auto hh = w.substr(0, colon), mm = rest.substr(0, 2);
  auto ss = rest.size() == 5 ? rest.substr(3) : std::string_view{"00"};
  if (!all_digits(hh) || !all_digits(mm) || !all_digits(ss))
    return std::nullopt;
  auto num = [](std::string_view d) { return std::stoi(std::string(d)); };
  int h = num(hh), m = num(mm), sec = num(ss);
  if (h > 23 || m > 59 || sec > 59)
    return std::nullopt;
  return std::chrono::hours{h} + std::chrono::minutes{m}
         + std::chrono::seconds{sec};
}

// Adds whole months to a civil date, clamping the day (Jan 31 + 1 month =
// Feb 28/29).
date::local_days add_months(date::local_days d, long long months) {
  date::year_month_day ymd{d};
  auto ym = date::year_month{ymd.year(), ymd.month()}
            + date::months{static_cast<int>(months)};
  auto last = date::year_month_day_last{ym.year(), date::month_day_last{ym.month()}};
  auto day = ymd.day() > last.day() ? last.day() : ymd.day();
  return date::local_days{date::year_month_day{ym.year(), ym.month(), day}};
}



class relative_parser {
public:
  relative_parser(std::string_view text, const time_input_options& o)
    : text_(text), o_(o),
      now_local_(to_date_local(o.in->local_at(o.now))),
      today_(date::floor<date::days>(now_local_)) {
  }

  time_input_result parse(std::vector<std::string_view> words) {
    std::optional<milliseconds> at;
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] != "at")
        continue;
      if (i + 2 != words.size())
        return refuse(text_, "'at' is followed by one time of day, HH:MM or "
                             "HH:MM:SS, at the end");
      at = parse_clock(words[i + 1]);
      if (!at)
        return refuse(text_, "'" + std::string(words[i + 1])
                               + "' is not a time of day (HH:MM or HH:MM:SS)");
      words.resize(i);
      break;
    }
    if (words.empty())
      return refuse(text_, "nothing before 'at'");
    auto res = base(words, at);
    if (auto* ok = std::get_if<time_input>(&res))
      ok->form = time_input::relative;
    return res;
  }

private:
  time_input_result base(const std::vector<std::string_view>& w,
                         std::optional<milliseconds> at) {
    auto one = [&](const char* a) { return w.size() == 1 && w[0] == a; };
    if (one("now")) {
      if (at)
        return refuse(text_, "'now' takes no 'at'");
      time_input r;
      r.instant = o_.now;
      return r;
    }
    if (one("today"))
      return on_day(today_, at);
    if (one("tomorrow"))
      return on_day(today_ + date::days{1}, at);
    if (one("yesterday"))
      return on_day(today_ - date::days{1}, at);
    if (w.size() == 3 && w[0] == "next" && w[1] == "business" && w[2] == "day") {
      auto d = today_ + date::days{1};
      while (date::weekday{d} == date::Saturday
             || date::weekday{d} == date::Sunday)
        d += date::days{1};
      return on_day(d, at);
    }
    if (w.size() == 2 && (w[0] == "next" || w[0] == "last" || w[0] == "this")) {
      auto wd = weekday_of(w[1]);
      if (!wd)
        return refuse(text_, "'" + std::string(w[1])
                               + "' is not a weekday (monday ... sunday)");
      unsigned today_wd = date::weekday{today_}.c_encoding();
      int delta;
      if (w[0] == "next") // the first such day strictly after today
        delta = static_cast<int>((*wd + 7 - today_wd - 1) % 7) + 1;
      else if (w[0] == "last") // the last such day strictly before today
        delta = -(static_cast<int>((today_wd + 7 - *wd - 1) % 7) + 1);
      else // in the current week, which starts on week_start
        delta = static_cast<int>((*wd + 7 - o_.week_start) % 7)
                - static_cast<int>((today_wd + 7 - o_.week_start) % 7);
      return on_day(today_ + date::days{delta}, at);
    }
    if (w.size() == 3 && (w[0] == "start" || w[0] == "end") && w[1] == "of")
      return period(w[0] == "start", w[2], at);
    if (!w.empty() && (w[0] == "in" || w.back() == "ago")) {
      bool ago = w[0] != "in";
      std::vector<std::string_view> amounts(w.begin() + (ago ? 0 : 1),
                                            w.end() - (ago ? 1 : 0));
      return shift(amounts, ago ? -1 : 1, at);
    }
    return refuse(text_, "not a form this grammar knows");
  }

  // 00:00 (computed: compatible) or the `at` time (as written: the
  // caller's disambiguation) on a local day.
  time_input_result on_day(date::local_days d, std::optional<milliseconds> at) {
    auto t = local_ms{d} + (at ? *at : milliseconds{0});
    return resolve(t, at ? o_.on_conflict : disambiguation::compatible);
  }

  time_input_result resolve(local_ms t, disambiguation rule) {
    if (!in_range(t))
      return refuse(text_, out_of_range);
    return resolve_local_time(from_date_local(t), *o_.in, rule, text_);
  }

  date::local_days period_start(std::string_view p) const {
    date::year_month_day ymd{today_};
    if (p == "week") {
      unsigned wd = date::weekday{today_}.c_encoding();
      return today_ - date::days{(wd + 7 - o_.week_start) % 7};
    }
    if (p == "month")
      return date::local_days{ymd.year() / ymd.month() / 1};
    if (p == "year")
      return date::local_days{ymd.year() / date::January / 1};
    return today_;
  }

  date::local_days period_next(std::string_view p, date::local_days start) const {
    if (p == "week")
      return start + date::days{7};
    if (p == "month")
      return add_months(start, 1);
    if (p == "year")
      return add_months(start, 12);
    return start + date::days{1};
  }

  // start of P: its first day at 00:00. end of P: 1 ms before the next
  // P's start (an instant, so a DST change on the last day cannot move it).
  time_input_result period(bool start, std::string_view p,
                           std::optional<milliseconds> at) {
    if (p != "day" && p != "week" && p != "month" && p != "year")
      return refuse(text_, "'" + std::string(p)
                             + "' is not day, week, month or year");
    auto first = period_start(p);
    if (start)
      return on_day(first, at);
    if (at)
      return refuse(text_, "'end of ...' takes no 'at'");
    auto res = on_day(period_next(p, first), std::nullopt);
    if (auto* ok = std::get_if<time_input>(&res)) {
      ok->instant -= 1ms;
      ok->disambiguated.clear(); // the shift concerned the next midnight
    }
    return res;
  }

  // in N unit [N unit ...] / N unit [...] ago: calendar units (years,
  // months, weeks, days) move the local date keeping the wall time; exact
  // units (hours, minutes, seconds) then add elapsed time.
  time_input_result shift(const std::vector<std::string_view>& words, int sign,
                          std::optional<milliseconds> at) {
    if (words.empty() || words.size() % 2 != 0)
      return refuse(text_, "amounts are written as pairs: a number and a "
                           "unit, e.g. 'in 1 week 2 days', '3 hours ago'");
    long long amount[7] = {};
    bool seen[7] = {};
    for (std::size_t i = 0; i < words.size(); i += 2) {
      if (!all_digits(words[i]) || words[i].size() > 6)
        return refuse(text_, "'" + std::string(words[i])
                               + "' is not a whole number (up to 6 digits)");
      auto u = unit_of(words[i + 1]);
      if (!u)
        return refuse(text_, "'" + std::string(words[i + 1])
                               + "' is not a unit (seconds, minutes, hours, "
                                 "days, weeks, months, years)");
      auto k = static_cast<std::size_t>(*u);
      if (seen[k])
        return refuse(text_, "the unit '" + std::string(words[i + 1])
                               + "' appears twice");
      seen[k] = true;
      amount[k] = sign * std::stoll(std::string(words[i]));
    }
    bool exact = seen[0] || seen[1] || seen[2];
    if (at && exact)
      return refuse(text_, "'at' goes only with days, weeks, months or years");
    auto months = amount[static_cast<int>(unit::year)] * 12
                  + amount[static_cast<int>(unit::month)];
    if (months > 12 * 1000 || months < -12 * 1000
        || !in_range(local_ms{today_} + date::days{static_cast<int>(amount[3] + amount[4] * 7)}))
      return refuse(text_, out_of_range);
    auto day = add_months(today_, months)
               + date::days{static_cast<int>(
                 amount[static_cast<int>(unit::week)] * 7
                 + amount[static_cast<int>(unit::day)])};
    time_input_result res;
    if (at)
      res = on_day(day, at);
    else if (seen[3] || seen[4] || seen[5] || seen[6])
      res = resolve(local_ms{day} + (now_local_ - local_ms{today_}),
                    disambiguation::compatible);
    else {
      time_input r;
      r.instant = o_.now;
      res = r;
    }
    if (auto* ok = std::get_if<time_input>(&res)) {
      auto ms = date::floor<milliseconds>(ok->instant).time_since_epoch()
                + std::chrono::hours{amount[static_cast<int>(unit::hour)]}
                + std::chrono::minutes{amount[static_cast<int>(unit::minute)]}
                + std::chrono::seconds{amount[static_cast<int>(unit::second)]};
      if (!in_range(ms))
        return refuse(text_, out_of_range);
      ok->instant = wall_time{ms};
    }
    return res;
  }

  std::string_view text_;
  const time_input_options& o_;
  local_ms now_local_;
  date::local_days today_;
};

} // namespace

time_input_result parse_time_input(std::string_view text,
                                   const time_input_options& o) {
  if (text.size() > max_input_length)
    return refuse(text, "longer than 128 characters");
  std::string lower;
  lower.reserve(text.size());
  for (char ch : text) {
    auto u = static_cast<unsigned char>(ch);
    // Tabs and newlines are spaces; other control characters are refused
    // below as text the grammar does not know.
    lower += std::isspace(u) ? ' ' : static_cast<char>(std::tolower(u));
  }
  std::string_view s = lower;
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  if (s.empty())
    return refuse(text, "it is empty");
  if (s.size() >= 4 && all_digits(s.substr(0, 4)) && s.size() > 4
      && s[4] == '-')
    return parse_iso_time(text, s, o);
  if (s.substr(0, 8) == "unix_ms:")
    return parse_unix_time(text, s.substr(8), true);
  if (s.substr(0, 5) == "unix:")
    return parse_unix_time(text, s.substr(5), false);
  if (all_digits(s))
    return refuse(text, "a bare number is ambiguous (seconds or "
                        "milliseconds?); write unix:SECONDS or "
                        "unix_ms:MILLISECONDS");
  return relative_parser{text, o}.parse(split_words(s));
}

} // namespace ttm::domain
