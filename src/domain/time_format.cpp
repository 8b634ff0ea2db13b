#include "domain/time_format.hpp"

#include <date/date.h>
#include <date/iso_week.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ttm::domain {

namespace {

using std::chrono::milliseconds;

constexpr const char* month_names[] = {
  "January", "February", "March",     "April",   "May",      "June",
  "July",    "August",   "September", "October", "November", "December"};

constexpr const char* weekday_names[] = {"Sunday",   "Monday", "Tuesday",
                                         "Wednesday", "Thursday", "Friday",
                                         "Saturday"};

// The local calendar date and time of day of `t` in `z`, to the millisecond
// (floored, so instants before 1970 truncate toward the past too).
struct local_parts {
  zone_state state;
  date::year_month_day ymd;
  date::weekday wd;
  int hour, minute, second, millis;
};

local_parts split(wall_time t, const zone& z) {
  auto state = z.state_at(t);
  auto local = date::floor<milliseconds>(t) + state.utc_offset;
  auto day = date::floor<date::days>(local);
  auto ms = (local - day).count(); // 0 .. 86'399'999
  return {std::move(state),
          date::year_month_day{day},
          date::weekday{day},
          static_cast<int>(ms / 3'600'000),
          static_cast<int>(ms / 60'000 % 60),
          static_cast<int>(ms / 1000 % 60),
          static_cast<int>(ms % 1000)};
}

// Text built in a stack buffer and assigned once: describe() runs for
// every zone of a reply, and appending piece by piece to a std::string
// cost more than the arithmetic.
class text_builder {
public:
  // `v` (>= 0) in decimal, zero-padded to `width` digits.
  // Straight into the buffer: a memcpy call per number cost more than its
  // two digits.
  void number(long long v, int width) {
    int n = 1;
    for (long long x = v; x >= 10; x /= 10)
      ++n;
    n = std::max(n, width);
    if (buf_ + sizeof buf_ - p_ < n) // never for the texts built here
      return;
    p_ += n;
    char* d = p_;
    for (int k = 0; k < n; ++k) {
      *--d = static_cast<char>('0' + v % 10);
      v /= 10;
    }
  }
  void text(std::string_view s) {
    auto n = std::min(s.size(), static_cast<std::size_t>(buf_ + sizeof buf_ - p_));
    std::memcpy(p_, s.data(), n);
    p_ += n;
  }
  void put(char c) {
    if (p_ < buf_ + sizeof buf_)
      *p_++ = c;
  }
  void offset(std::chrono::seconds offset) {
    long long total = offset.count();
    put(total < 0 ? '-' : '+');
    if (total < 0)
      total = -total;
    number(total / 3600, 2);
    put(':');
    number(total / 60 % 60, 2);
    if (total % 60 != 0) {
      put(':');
      number(total % 60, 2);
    }
  }
  std::string str() const {
    return {buf_, static_cast<std::size_t>(p_ - buf_)};
  }

private:
  char buf_[96];
  char* p_ = buf_;
};


// The fast paths pad years 0..9999 as %04d does; others go through printf.
bool plain_year(const local_parts& p) {
  int year = static_cast<int>(p.ymd.year());
  return year >= 0 && year <= 9999;
}

// "2025-12-14T09:45:32.123-05:00".
void put_iso(text_builder& out, const local_parts& p) {
  out.number(static_cast<int>(p.ymd.year()), 4);
  out.put('-');
  out.number(static_cast<unsigned>(p.ymd.month()), 2);
  out.put('-');
  out.number(static_cast<unsigned>(p.ymd.day()), 2);
  out.put('T');
  out.number(p.hour, 2);
  out.put(':');
  out.number(p.minute, 2);
  out.put(':');
  out.number(p.second, 2);
  out.put('.');
  out.number(p.millis, 3);
  out.offset(p.state.utc_offset);
}

// "9:45:32 AM": 12 AM is midnight, 12 PM is noon.
void put_time_12h(text_builder& out, const local_parts& p) {
  out.number(p.hour % 12 == 0 ? 12 : p.hour % 12, 1);
  out.put(':');
  out.number(p.minute, 2);
  out.put(':');
  out.number(p.second, 2);
  out.text(p.hour < 12 ? " AM" : " PM");
}

// "December 14, 2025 9:45:32 AM EST".
void put_friendly(text_builder& out, const local_parts& p) {
  out.text(month_names[static_cast<unsigned>(p.ymd.month()) - 1]);
  out.put(' ');
  out.number(static_cast<unsigned>(p.ymd.day()), 1);
  out.text(", ");
  out.number(static_cast<int>(p.ymd.year()), 1);
  out.put(' ');
  put_time_12h(out, p);
  out.put(' ');
  out.text(p.state.abbreviation);
}

std::string iso_slow(const local_parts& p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03d",
                static_cast<int>(p.ymd.year()),
                static_cast<unsigned>(p.ymd.month()),
                static_cast<unsigned>(p.ymd.day()), p.hour, p.minute, p.second,
                p.millis);
  return buf + format_utc_offset(p.state.utc_offset);
}

std::string friendly_slow(const local_parts& p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %u, %d ",
                month_names[static_cast<unsigned>(p.ymd.month()) - 1],
                static_cast<unsigned>(p.ymd.day()),
                static_cast<int>(p.ymd.year()));
  text_builder t;
  put_time_12h(t, p);
  return buf + t.str() + " " + p.state.abbreviation;
}

} // namespace

// Reports and summaries format two instants per run: digits by hand, not
// snprintf (the text is the same; tests/unit/time_format_test.cpp).
std::string format_iso8601(wall_time t, const zone& z) {
  auto p = split(t, z);
  if (!plain_year(p))
    return iso_slow(p);
  text_builder out;
  put_iso(out, p);
  return out.str();
}

std::string format_friendly(wall_time t, const zone& z) {
  auto p = split(t, z);
  if (!plain_year(p) || p.state.abbreviation.size() > 32) // fits the buffer
    return friendly_slow(p);
  text_builder out;
  put_friendly(out, p);
  return out.str();
}

std::string format_friendly_time(wall_time t, const zone& z) {
  text_builder out;
  put_time_12h(out, split(t, z));
  return out.str();
}

std::int64_t unix_seconds(wall_time t) {
  return date::floor<std::chrono::seconds>(t).time_since_epoch().count();
}

std::int64_t unix_millis(wall_time t) {
  return date::floor<milliseconds>(t).time_since_epoch().count();
}

std::string day_of_week(wall_time t, const zone& z) {
  return weekday_names[split(t, z).wd.c_encoding()];
}


zoned_description describe(wall_time t, const zone& z) {
  auto p = split(t, z);
  zoned_description d;
  if (!plain_year(p) || p.state.abbreviation.size() > 32) {
    d.iso8601 = iso_slow(p);
    d.friendly = friendly_slow(p);
  } else {
    text_builder iso;
    put_iso(iso, p);
    d.iso8601 = iso.str();
    text_builder f;
    put_friendly(f, p);
    d.friendly = f.str();
  }
  d.day_of_week = weekday_names[p.wd.c_encoding()];
  d.local_day = date::sys_days{p.ymd}.time_since_epoch().count();
  d.state = std::move(p.state);
  return d;
}

std::string format_iso8601_utc(wall_time t) {
  auto ms = date::floor<milliseconds>(t);
  auto day = date::floor<date::days>(ms);
  date::year_month_day ymd{day};
  auto tod = (ms - day).count(); // 0 .. 86'399'999
  text_builder out;
  out.number(static_cast<int>(ymd.year()), 4); // years 1678..2261
  out.put('-');
  out.number(static_cast<unsigned>(ymd.month()), 2);
  out.put('-');
  out.number(static_cast<unsigned>(ymd.day()), 2);
  out.put('T');
  out.number(tod / 3'600'000, 2);
  out.put(':');
  out.number(tod / 60'000 % 60, 2);
  out.put(':');
  out.number(tod / 1000 % 60, 2);
  out.put('.');
  out.number(tod % 1000, 3);
  out.put('Z');
  return out.str();
}

calendar_facts calendar_facts_of(long long local_day) {
  date::sys_days day{date::days{local_day}};
  date::year_month_day ymd{day};
  iso_week::year_weeknum_weekday iso{day};
  auto month = static_cast<unsigned>(ymd.month());
  date::year_month_day_last last{ymd.year() / ymd.month() / date::last};
  auto wd = date::weekday{day};
  calendar_facts f;
  f.iso_week = static_cast<int>(static_cast<unsigned>(iso.weeknum()));
  f.iso_week_year = static_cast<int>(iso.year());
  f.day_of_year
    = static_cast<int>((day - date::sys_days{ymd.year() / 1 / 1}).count()) + 1;
  f.quarter = static_cast<int>((month - 1) / 3 + 1);
  f.days_in_month = static_cast<int>(static_cast<unsigned>(last.day()));
  f.is_weekend = wd == date::Saturday || wd == date::Sunday;
  return f;
}

namespace {

void add_unit(std::string& out, long long n, const char* unit) {
  if (!out.empty())
    out += ' ';
  out += std::to_string(n);
  out += ' ';
  out += unit;
  if (n != 1)
    out += 's';
}

} // namespace

std::string format_duration(std::chrono::milliseconds d) {
  long long s = d.count() < 0 ? 0 : d.count() / 1000;
  const long long parts[] = {s / 86'400, s / 3600 % 24, s / 60 % 60, s % 60};
  const char* units[] = {"day", "hour", "minute", "second"};
  std::string out;
  for (int i = 0; i < 4; ++i) {
    if (parts[i] == 0)
      continue;
    add_unit(out, parts[i], units[i]);
    if (i + 1 < 4 && parts[i + 1] != 0)
      add_unit(out, parts[i + 1], units[i + 1]);
    return out;
  }
  return "0 seconds";
}

std::string format_duration_iso(std::chrono::milliseconds d) {
  long long s = d.count() < 0 ? 0 : d.count() / 1000;
  if (s == 0)
    return "PT0S";
  std::string out = "PT";
  if (s >= 3600)
    out += std::to_string(s / 3600) + "H";
  if (s / 60 % 60 != 0)
    out += std::to_string(s / 60 % 60) + "M";
  if (s % 60 != 0)
    out += std::to_string(s % 60) + "S";
  return out;
}

} // namespace ttm::domain
