#include "domain/posix_tz.hpp"

#include <date/date.h>

#include <cctype>

namespace ttm::domain {

namespace {

using std::chrono::seconds;

class reader {
public:
  explicit reader(std::string_view s) : s_(s) {}

  bool done() const {
    return i_ == s_.size();
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  char peek() const {
    return i_ < s_.size() ? s_[i_] : '\0';
  }

  // An abbreviation: three or more letters, or <...> with letters, digits,
  // '+' and '-'.
  std::optional<std::string> name() {
    std::string out;
    if (eat('<')) {
      while (i_ < s_.size() && s_[i_] != '>')
        out += s_[i_++];
      if (!eat('>') || out.size() < 3)
        return std::nullopt;
      return out;
    }
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_])))
      out += s_[i_++];
    if (out.size() < 3)
      return std::nullopt;
    return out;
  }

  // [+-]hh[:mm[:ss]], hours up to `max_hours`.
  std::optional<seconds> duration(int max_hours) {
    int sign = 1;
    if (eat('-'))
      sign = -1;
    else
      eat('+');
    auto hours = number(3);
    if (!hours || *hours > max_hours)
      return std::nullopt;
    long long total = *hours * 3600LL;
    if (eat(':')) {
      auto m = number(2);
      if (!m || *m > 59)
        return std::nullopt;
      total += *m * 60LL;
      if (eat(':')) {
        auto sec = number(2);
        if (!sec || *sec > 59)
          return std::nullopt;
        total += *sec;
      }
    }
    return seconds{sign * total};
  }

  std::optional<int> number(int max_digits) {
    int n = 0, digits = 0;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))
           && digits < max_digits) {
      n = n * 10 + (s_[i_++] - '0');
      ++digits;
    }
    if (digits == 0)
      return std::nullopt;
    return n;
  }

  std::optional<posix_tz::rule_date> rule() {
    posix_tz::rule_date r;
    if (eat('M')) {
      auto m = number(2);
      if (!m || *m < 1 || *m > 12 || !eat('.'))
        return std::nullopt;
      auto w = number(1);
      if (!w || *w < 1 || *w > 5 || !eat('.'))
        return std::nullopt;
      auto d = number(1);
      if (!d || *d > 6)
        return std::nullopt;
      r.kind = posix_tz::rule_date::month_week_day;
      r.month = *m;
      r.week = *w;
      r.day = *d;
    } else if (eat('J')) {
      auto n = number(3);
      if (!n || *n < 1 || *n > 365)
        return std::nullopt;
      r.kind = posix_tz::rule_date::julian_no_leap;
      r.day = *n;
    } else {
      auto n = number(3);
      if (!n || *n > 365)
        return std::nullopt;
      r.kind = posix_tz::rule_date::julian_zero;
      r.day = *n;
    }
    if (eat('/')) {
      auto t = duration(167);
      if (!t)
        return std::nullopt;
      r.time = *t;
    }
    return r;
  }

private:
  std::string_view s_;
  std::size_t i_ = 0;
};

// The local day (days since 1970-01-01) a rule date falls on in `year`.
date::sys_days rule_day(const posix_tz::rule_date& r, int year) {
  using namespace date;
  auto y = date::year{year};
  switch (r.kind) {
    case posix_tz::rule_date::julian_no_leap: {
      // J60 is March 1 in every year: February 29 is never counted.
      int n = r.day;
      if (y.is_leap() && n >= 60)
        ++n;
      return sys_days{y / January / 1} + days{n - 1};
    }
    case posix_tz::rule_date::julian_zero:
      return sys_days{y / January / 1} + days{r.day};
    default: {
      auto month = date::month{static_cast<unsigned>(r.month)};
      sys_days first{y / month / 1};
      auto wd = weekday{static_cast<unsigned>(r.day)};
      auto day = first + (wd - weekday{first});
      day += days{7 * (r.week - 1)};
      sys_days last{y / month / date::last};
      while (day > last) // week 5: the last such weekday
        day -= days{7};
      return day;
    }
  }
}

} // namespace

std::optional<posix_tz> parse_posix_tz(std::string_view text) {
  reader in{text};
  posix_tz tz;
  auto std_name = in.name();
  auto std_off = std_name ? in.duration(24) : std::nullopt;
  if (!std_off)
    return std::nullopt;
  // POSIX counts west of Greenwich positive; we count east.
  tz.standard = {-*std_off, *std_name};
  if (in.done())
    return std::nullopt; // no daylight saving time
  auto dst_name = in.name();
  if (!dst_name)
    return std::nullopt;
  tz.daylight = {tz.standard.utc_offset + seconds{3600}, *dst_name};
  if (in.peek() != ',' && !in.done()) {
    auto off = in.duration(24);
    if (!off)
      return std::nullopt;
    tz.daylight.utc_offset = -*off;
  }
  if (in.done()) { // POSIX's default rule: the United States' since 2007
    tz.start = {posix_tz::rule_date::month_week_day, 0, 3, 2, seconds{7200}};
    tz.end = {posix_tz::rule_date::month_week_day, 0, 11, 1, seconds{7200}};
    return tz;
  }
  if (!in.eat(','))
    return std::nullopt;
  auto start = in.rule();
  if (!start || !in.eat(','))
    return std::nullopt;
  auto end = in.rule();
  if (!end || !in.done())
    return std::nullopt;
  tz.start = *start;
  tz.end = *end;
  return tz;
}

std::pair<sys_seconds, sys_seconds> posix_changes(const posix_tz& tz,
                                                  int year) {
  // A rule's time is local: the start in standard time, the end in
  // daylight saving time.
  auto start = sys_seconds{rule_day(tz.start, year)} + tz.start.time
               - tz.standard.utc_offset;
  auto end = sys_seconds{rule_day(tz.end, year)} + tz.end.time
             - tz.daylight.utc_offset;
  return {start, end};
}

const posix_tz::part& posix_part_at(const posix_tz& tz, sys_seconds t) {
  auto year = static_cast<int>(
    date::year_month_day{date::floor<date::days>(t)}.year());
  auto [start, end] = posix_changes(tz, year);
  bool daylight = start < end ? (start <= t && t < end)
                              : !(end <= t && t < start); // southern
  return daylight ? tz.daylight : tz.standard;
}

} // namespace ttm::domain
