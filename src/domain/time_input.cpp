#include "domain/time_input.hpp"

#include "domain/time_format.hpp"

#include <date/date.h>

#include <array>
#include <cctype>
#include <cstdio>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using local_ms = date::local_time<milliseconds>;

constexpr std::size_t max_input_length = 128;

constexpr std::array<const char*, 7> weekday_names = {
  "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"};

time_input_error refuse(std::string_view text, const std::string& why) {
  std::string shown(text.substr(0, 64));
  if (text.size() > 64)
    shown += "...";
  return {"VALIDATION_ERROR",
          "Cannot read the time '" + shown + "': " + why + ". "
            + accepted_time_forms(),
          {}};
}

local_ms to_date_local(local_time t) {
  return local_ms{t.since_epoch};
}

local_time from_date_local(local_ms t) {
  return {t.time_since_epoch()};
}

// "2026-03-29T02:30", with ":SS" and ".mmm" only when not zero.
std::string format_local(local_ms t) {
  auto day = date::floor<date::days>(t);
  date::year_month_day ymd{day};
  long long ms = (t - day).count();
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld",
                        static_cast<int>(ymd.year()),
                        static_cast<unsigned>(ymd.month()),
                        static_cast<unsigned>(ymd.day()), ms / 3'600'000,
                        ms / 60'000 % 60);
  if (ms % 60'000 != 0)
    n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n),
                       ":%02lld", ms / 1000 % 60);
  if (ms % 1000 != 0)
    std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%03lld",
                  ms % 1000);
  return buf;
}

// "02:00", or "02:00:30" for the odd transition off the minute.
std::string format_clock(local_ms t) {
  auto full = format_local(date::floor<std::chrono::seconds>(t));
  return full.substr(full.find('T') + 1);
}

// ISO 8601 with offset, milliseconds only when not zero.
std::string format_instant(wall_time t, const zone& z) {
  auto s = format_iso8601(t, z);
  auto dot = s.find(".000");
  if (dot != std::string::npos)
    s.erase(dot, 4);
  return s;
}

// -- a tiny cursor over the lower-cased input --------------------------------

struct cursor {
  std::string_view s;
  std::size_t i = 0;

  bool done() const {
    return i >= s.size();
  }
  bool eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  // Exactly `n` digits.
  std::optional<int> digits(std::size_t n) {
    if (i + n > s.size())
      return std::nullopt;
    int v = 0;
    for (std::size_t k = 0; k < n; ++k) {
      char c = s[i + k];
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + (c - '0');
    }
    i += n;
    return v;
  }
};

bool all_digits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  return true;
}

// wall_time counts nanoseconds (years 1678 to 2261): inputs and results stay
// in years 1800 to 2200, checked in milliseconds before any conversion.
constexpr int min_year = 1800;
constexpr int max_year = 2200;
const char* const out_of_range = "the result is outside the years 1800 to 2200";

bool in_range(local_ms t) {
  auto y = date::year_month_day{date::floor<date::days>(t)}.year();
  return y >= date::year{min_year} && y <= date::year{max_year};
}

bool in_range(milliseconds since_epoch) {
  return in_range(local_ms{since_epoch});
}

// -- ISO 8601 ----------------------------------------------------------------

// YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±HH:MM|±HHMM|±HH]
time_input_result parse_iso(std::string_view text, std::string_view s,
                            const time_input_options& o) {
  cursor c{s};
  auto y = c.digits(4);
  std::optional<int> mo, d;
  if (y && c.eat('-'))
    mo = c.digits(2);
  if (mo && c.eat('-'))
    d = c.digits(2);
  if (!d)
    return refuse(text, "a date is written YYYY-MM-DD");
  date::year_month_day ymd{date::year{*y}, date::month(static_cast<unsigned>(*mo)),
                           date::day(static_cast<unsigned>(*d))};
  if (!ymd.ok())
    return refuse(text, "there is no such date");
  if (*y < min_year || *y > max_year)
    return refuse(text, "the year is outside 1800 to 2200");
  auto day = date::local_days{ymd};
  if (c.done()) {
    auto res = resolve_local_time(from_date_local(local_ms{day}), *o.in,
                                  disambiguation::compatible, text);
    if (auto* ok = std::get_if<time_input>(&res))
      ok->form = time_input::date;
    return res;
  }
  if (!c.eat('t') && !c.eat(' '))
    return refuse(text, "a date is followed by 'T' and a time HH:MM");
  auto h = c.digits(2);
  std::optional<int> mi;
  if (h && c.eat(':'))
    mi = c.digits(2);
  if (!mi)
    return refuse(text, "a time of day is written HH:MM or HH:MM:SS");
  int sec = 0;
  long long nanos = 0;
  if (c.eat(':')) {
    auto ss = c.digits(2);
    if (!ss)
      return refuse(text, "seconds are written as two digits");
    sec = *ss;
    if (c.eat('.') || c.eat(',')) {
      std::size_t n = 0;
      long long scale = 100'000'000;
      while (!c.done() && s[c.i] >= '0' && s[c.i] <= '9') {
        if (++n > 9)
          return refuse(text, "at most 9 fractional digits");
        nanos += (s[c.i++] - '0') * scale;
        scale /= 10;
      }
      if (n == 0)
        return refuse(text, "a decimal point needs digits after it");
    }
  }
  if (*h > 23 || *mi > 59 || sec > 59)
    return refuse(text, "the time of day is out of range (00:00:00 to "
                        "23:59:59)");
  auto local = local_ms{day} + std::chrono::hours{*h} + std::chrono::minutes{*mi}
               + std::chrono::seconds{sec} + milliseconds{nanos / 1'000'000};
  if (c.done()) {
    auto res = resolve_local_time(from_date_local(local), *o.in,
                                  o.on_conflict, text);
    if (auto* ok = std::get_if<time_input>(&res))
      ok->form = time_input::local;
    return res;
  }
  std::chrono::seconds offset{0};
  if (!c.eat('z')) {
    int sign = c.eat('+') ? 1 : c.eat('-') ? -1 : 0;
    auto oh = sign != 0 ? c.digits(2) : std::nullopt;
    std::optional<int> om = 0;
    if (oh && !c.done())
      om = c.eat(':') ? c.digits(2) : c.digits(2);
    if (!oh || !om || !c.done())
      return refuse(text, "an offset is written Z, +HH:MM or -HH:MM");
    if (*oh > 14 || *om > 59)
      return refuse(text, "the offset is out of range (-14:00 to +14:00)");
    offset = sign * (std::chrono::hours{*oh} + std::chrono::minutes{*om});
  }
  if (!c.done())
    return refuse(text, "unexpected text after the offset");
  time_input r;
  r.form = time_input::offset;
  r.instant = wall_time{local.time_since_epoch() - offset};
  r.input_offset = offset;
  return r;
}

// -- unix:SECONDS / unix_ms:MILLIS -------------------------------------------

time_input_result parse_unix(std::string_view text, std::string_view digits,
                             bool millis) {
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative)
    digits.remove_prefix(1);
  // Years 0001..9999 fit in 12 digits of seconds, 15 of milliseconds.
  if (!all_digits(digits) || digits.size() > (millis ? 15u : 12u))
    return refuse(text, millis ? "unix_ms: is followed by whole milliseconds"
                               : "unix: is followed by whole seconds");
  long long v = std::stoll(std::string(digits));
  milliseconds ms{(negative ? -v : v) * (millis ? 1 : 1000)};
  if (!in_range(ms))
    return refuse(text, out_of_range);
  time_input r;
  r.form = time_input::unix;
  r.instant = wall_time{ms};
  return r;
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
  cursor c{w};
  auto h = c.digits(2);
  if (!h) {
    c.i = 0;
    h = c.digits(1);
  }
  std::optional<int> m;
  if (h && c.eat(':'))
    m = c.digits(2);
  int sec = 0;
  if (m && c.eat(':')) {
    auto s = c.digits(2);
    if (!s)
      return std::nullopt;
    sec = *s;
  }
  if (!m || !c.done() || *h > 23 || *m > 59 || sec > 59)
    return std::nullopt;
  return std::chrono::hours{*h} + std::chrono::minutes{*m}
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

std::optional<disambiguation> parse_disambiguation(std::string_view s) {
  if (s == "reject")
    return disambiguation::reject;
  if (s == "compatible")
    return disambiguation::compatible;
  if (s == "earlier")
    return disambiguation::earlier;
  if (s == "later")
    return disambiguation::later;
  return std::nullopt;
}

const std::string& accepted_time_forms() {
  static const std::string forms
    = "Accepted forms: ISO 8601 with an offset (2026-03-29T02:30:00+01:00, "
      "2026-03-29T01:30:00.250Z); a local date-time read in from_timezone "
      "(2026-03-29T02:30 or 2026-03-29T02:30:00); a date (2026-03-29, local "
      "midnight); unix:SECONDS or unix_ms:MILLISECONDS (unix:1774747800); "
      "now, today, tomorrow, yesterday; next|last|this <weekday>; in <N> "
      "<unit> [<N> <unit> ...] or <N> <unit> [...] ago (units: seconds, "
      "minutes, hours, days, weeks, months, years); start of|end of "
      "day|week|month|year; next business day. Day forms (today, tomorrow, "
      "yesterday, weekdays, next business day, start of ..., in/ago with "
      "days, weeks, months or years only) may end with 'at HH:MM' or 'at "
      "HH:MM:SS'. Case does not matter.";
  return forms;
}

time_input_result resolve_local_time(local_time t, const zone& z,
                                     disambiguation rule,
                                     std::string_view written) {
  auto r = z.resolve(t);
  time_input out;
  out.form = time_input::local;
  if (r.kind == local_resolution::unique) {
    out.instant = r.earlier;
    return out;
  }
  bool gap = r.kind == local_resolution::nonexistent;
  if (rule == disambiguation::reject) {
    auto local = to_date_local(t);
    auto shown = format_local(local);
    std::string lower_shown = shown;
    for (auto& ch : lower_shown)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string lower_written(written);
    for (auto& ch : lower_written)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower_written != lower_shown)
      shown += " (from '" + std::string(written) + "')";
    auto at_transition = local_ms{
      date::floor<milliseconds>(r.transition).time_since_epoch()};
    auto wall_before = at_transition
                       + std::chrono::duration_cast<milliseconds>(
                         r.offset_before);
    auto wall_after = at_transition
                      + std::chrono::duration_cast<milliseconds>(
                        r.offset_after);
    auto change = format_clock(wall_before) + " "
                  + format_utc_offset(r.offset_before) + " to "
                  + format_clock(wall_after) + " "
                  + format_utc_offset(r.offset_after);
    auto first = format_instant(r.earlier, z);
    auto second = format_instant(r.later, z);
    if (gap)
      return time_input_error{
        "NONEXISTENT_LOCAL_TIME",
        shown + " does not exist in " + z.name() + ": clocks went from "
          + change + ". The nearest valid times are " + first
          + " (disambiguation \"earlier\") and " + second
          + " (\"later\" or \"compatible\"); pass disambiguation to choose.",
        {first, second}};
    return time_input_error{
      "AMBIGUOUS_LOCAL_TIME",
      shown + " is ambiguous in " + z.name() + ": clocks went back from "
        + change + ", so it happens twice: " + first
        + " (disambiguation \"earlier\" or \"compatible\") and " + second
        + " (\"later\"); pass disambiguation to choose.",
      {first, second}};
  }
  bool later = rule == disambiguation::later
               || (gap && rule == disambiguation::compatible);
  out.instant = later ? r.later : r.earlier;
  out.disambiguated = later ? "later" : "earlier";
  return out;
}

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
    return parse_iso(text, s, o);
  if (s.substr(0, 8) == "unix_ms:")
    return parse_unix(text, s.substr(8), true);
  if (s.substr(0, 5) == "unix:")
    return parse_unix(text, s.substr(5), false);
  if (all_digits(s))
    return refuse(text, "a bare number is ambiguous (seconds or "
                        "milliseconds?); write unix:SECONDS or "
                        "unix_ms:MILLISECONDS");
  return relative_parser{text, o}.parse(split_words(s));
}

} // namespace ttm::domain
