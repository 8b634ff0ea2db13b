#include "domain/calendar_math.hpp"

#include "domain/time_format.hpp"

#include <date/date.h>

#include <algorithm>
#include <cstdio>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using local_ms = date::local_time<milliseconds>;

// Nine digits keep every product below in 64 bits (1e9 hours is 3.6e15 ms);
// the supported years (1800 to 2200) bound the results much tighter.
constexpr std::size_t max_digits = 9;
// Calendar steps beyond the supported span of 401 years are refused before
// any date arithmetic, so no int conversion below can overflow.
constexpr std::int64_t max_months = 12 * 401;
constexpr std::int64_t max_days = 366 * 401;

local_ms to_date_local(local_time t) {
  return local_ms{t.since_epoch};
}

// Appends "<n><unit>" when n != 0.
void put(std::string& out, std::int64_t n, char unit) {
  if (n == 0)
    return;
  out += std::to_string(n);
  out += unit;
}

// Appends seconds with a millisecond fraction when there is one: "5S", "1.5S",
// "0.250S" -> "0.25S".
void put_seconds(std::string& out, milliseconds ms) {
  if (ms == 0ms)
    return;
  out += std::to_string(ms.count() / 1000);
  if (auto frac = ms.count() % 1000; frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0')
      f.pop_back();
    out += f;
  }
  out += 'S';
}

std::string iso_text(bool negative, std::int64_t y, std::int64_t mo,
                     std::int64_t w, std::int64_t d, std::int64_t h,
                     std::int64_t mi, milliseconds s) {
  std::string out = negative ? "-P" : "P";
  put(out, y, 'Y');
  put(out, mo, 'M');
  put(out, w, 'W');
  put(out, d, 'D');
  if (h != 0 || mi != 0 || s != 0ms) {
    out += 'T';
    put(out, h, 'H');
    put(out, mi, 'M');
    put_seconds(out, s);
  }
  if (out.size() == (negative ? 2u : 1u))
    return "PT0S";
  return out;
}

} // namespace

date::local_days add_months(date::local_days d, std::int64_t months) {
  date::year_month_day ymd{d};
  auto ym = date::year_month{ymd.year(), ymd.month()}
            + date::months{static_cast<int>(months)};
  auto last = date::year_month_day_last{ym.year(), date::month_day_last{ym.month()}}.day();
  return date::local_days{ym.year() / ym.month() / std::min(ymd.day(), last)};
}

// -- ISO 8601 durations ----------------------------------------------------------

std::chrono::milliseconds iso_duration::exact_part() const noexcept {
  return std::chrono::hours{hours} + std::chrono::minutes{minutes} + seconds;
}

const std::string& iso_duration_form() {
  static const std::string form
    = "Accepted form: an ISO 8601 duration P[nY][nM][nW][nD][T[nH][nM][nS]] "
      "with at least one component, in this order, each a whole number of up "
      "to 9 digits (seconds may have a fraction, kept to the millisecond), "
      "optionally signed: P1M, P1DT2H, PT90M, PT1.5S, P2W, -P1D.";
  return form;
}

std::variant<iso_duration, std::string> parse_iso_duration(std::string_view text) {
  iso_duration d;
  std::size_t i = 0;
  auto up = [&](std::size_t k) {
    return static_cast<char>(
      std::toupper(static_cast<unsigned char>(text[k])));
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+'))
    d.negative = text[i++] == '-';
  if (i >= text.size() || up(i) != 'P')
    return std::string{"it does not start with 'P' (or '-P')"};
  ++i;
  // Designators in the order they must come, date part then time part.
  constexpr char date_units[] = {'Y', 'M', 'W', 'D'};
  constexpr char time_units[] = {'H', 'M', 'S'};
  bool in_time = false;
  std::size_t next = 0; // index of the first designator still allowed
  int components = 0;
  bool time_components = false;
  while (i < text.size()) {
    if (up(i) == 'T') {
      if (in_time)
        return std::string{"'T' appears twice"};
      in_time = true;
      next = 0;
      ++i;
      continue;
    }
    auto from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
      ++i;
    auto digits = text.substr(from, i - from);
    if (digits.empty())
      return "'" + std::string(1, text[i]) + "' is not a number";
    if (digits.size() > max_digits)
      return "'" + std::string(digits) + "' has more than 9 digits";
    std::int64_t n = std::stoll(std::string(digits));
    std::int64_t frac_ms = 0;
    bool fraction = false;
    if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
      fraction = true;
      ++i;
      auto f = i;
      std::int64_t scale = 100;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        frac_ms += (text[i] - '0') * scale;
        scale /= 10;
        ++i;
      }
      if (i == f || i - f > 9)
        return std::string{"a fraction has 1 to 9 digits"};
    }
    if (i >= text.size())
      return "'" + std::string(text.substr(from)) + "' has no unit designator";
    char unit = up(i++);
    const char* units = in_time ? time_units : date_units;
    std::size_t count = in_time ? 3 : 4;
    std::size_t k = next;
    while (k < count && units[k] != unit)
      ++k;
    if (k == count) {
      bool known = std::find(units, units + count, unit) != units + count;
      if (known)
        return "'" + std::string(1, unit)
               + "' comes after a smaller unit or twice";
      if (!in_time && (unit == 'H' || unit == 'S'))
        return "'" + std::string(1, unit) + "' needs a 'T' before it (PT"
               + std::string(digits) + unit + ")";
      return "'" + std::string(1, unit) + "' is not a unit designator";
    }
    if (fraction && !(in_time && unit == 'S'))
      return std::string{"only seconds may have a fraction"};
    next = k + 1;
    ++components;
    if (in_time) {
      time_components = true;
      if (unit == 'H')
        d.hours = n;
      else if (unit == 'M')
        d.minutes = n;
      else
        d.seconds = milliseconds{n * 1000 + frac_ms};
    } else if (unit == 'Y')
      d.years = n;
    else if (unit == 'M')
      d.months = n;
    else if (unit == 'W')
      d.weeks = n;
    else
      d.days = n;
  }
  if (in_time && !time_components)
    return std::string{"'T' is not followed by hours, minutes or seconds"};
  if (components == 0)
    return std::string{"it has no component"};
  return d;
}

std::string format_iso_duration(const iso_duration& d) {
  return iso_text(d.negative, d.years, d.months, d.weeks, d.days, d.hours,
                  d.minutes, d.seconds);
}

// -- adding a duration --------------------------------------------------------------

time_input_result add_duration(wall_time start, const zone& z,
                               const iso_duration& d, bool subtract,
                               disambiguation rule, std::string_view written,
                               std::string_view rule_argument) {
  auto refuse = [&] {
    return time_input_error{"VALIDATION_ERROR",
                            "duration: " + std::string(outside_supported_years)
                              + " ('" + std::string(written) + "').",
                            {}};
  };
  std::int64_t sign = (d.negative != subtract) ? -1 : 1;
  auto months = d.years * 12 + d.months;
  auto days = d.weeks * 7 + d.days;
  if (months > max_months || days > max_days)
    return refuse();
  time_input out;
  out.form = time_input::local;
  out.instant = start;
  if (d.has_calendar_part()) {
    auto local = to_date_local(z.local_at(start));
    auto day = date::floor<date::days>(local);
    auto moved = add_months(day, sign * months)
                 + date::days{static_cast<int>(sign * days)};
    auto target = local_ms{moved} + (local - day);
    if (!in_supported_years(target.time_since_epoch()))
      return refuse();
    auto res = resolve_local_time(local_time{target.time_since_epoch()}, z,
                                  rule, written, rule_argument);
    if (std::holds_alternative<time_input_error>(res))
      return res;
    out = std::get<time_input>(std::move(res));
  }
  auto ms = date::floor<milliseconds>(out.instant).time_since_epoch()
            + sign * d.exact_part();
  if (!in_supported_years(ms))
    return refuse();
  out.instant = wall_time{ms};
  return out;
}

// -- differences ----------------------------------------------------------------------

namespace {

// The calendar breakdown from `a` to `b`, a <= b, as Temporal's
// ZonedDateTime.until with largestUnit "years": whole months and days of
// the local calendar that do not overshoot, then the exact rest from the
// intermediate instant (resolved `compatible`) to `b`.
void calendar_forward(wall_time a, wall_time b, const zone& z,
                      time_difference& out) {
  auto la = to_date_local(z.local_at(a));
  auto lb = to_date_local(z.local_at(b));
  auto da = date::floor<date::days>(la);
  auto db = date::floor<date::days>(lb);
  auto tod = la - da;
  date::year_month_day ya{da}, yb{db};
  std::int64_t m = (static_cast<int>(yb.year()) - static_cast<int>(ya.year())) * 12
                   + (static_cast<int>(static_cast<unsigned>(yb.month()))
                      - static_cast<int>(static_cast<unsigned>(ya.month())));
  while (m > 0 && local_ms{add_months(da, m)} + tod > lb)
    --m;
  // b's wall time may be before a's (both in an overlap): no calendar step.
  m = std::max<std::int64_t>(m, 0);
  auto d1 = add_months(da, m);
  std::int64_t days = std::max<std::int64_t>((db - d1).count(), 0);
  while (days > 0 && local_ms{d1 + date::days{static_cast<int>(days)}} + tod > lb)
    --days;
  wall_time mid = a;
  for (;;) {
    if (m == 0 && days == 0) {
      mid = a; // no calendar step: the start itself, not its wall time re-read
      break;
    }
    auto local = local_ms{d1 + date::days{static_cast<int>(days)}} + tod;
    auto r = z.resolve(local_time{local.time_since_epoch()});
    // compatible: later in a gap, earlier in an overlap.
    mid = r.kind == local_resolution::nonexistent ? r.later : r.earlier;
    if (mid <= b)
      break;
    if (days > 0) {
      --days;
    } else {
      --m;
      d1 = add_months(da, m);
      days = (db - d1).count();
    }
  }
  auto rest = date::floor<milliseconds>(b) - date::floor<milliseconds>(mid);
  out.years = m / 12;
  out.months = m % 12;
  out.days = days;
  auto ms = rest.count();
  out.hours = ms / 3'600'000;
  out.minutes = ms / 60'000 % 60;
  out.seconds = ms / 1000 % 60;
  out.milliseconds = ms % 1000;
}

} // namespace

time_difference difference(wall_time start, wall_time end, const zone& z) {
  time_difference d;
  d.exact = date::floor<milliseconds>(end) - date::floor<milliseconds>(start);
  d.negative = d.exact < 0ms;
  if (d.negative) {
    calendar_forward(end, start, z, d);
    for (auto* f : {&d.years, &d.months, &d.days, &d.hours, &d.minutes,
                    &d.seconds, &d.milliseconds})
      *f = -*f;
  } else {
    calendar_forward(start, end, z, d);
  }
  return d;
}

std::string format_calendar_duration(const time_difference& d) {
  auto a = [&](std::int64_t x) { return x < 0 ? -x : x; };
  return iso_text(d.negative, a(d.years), a(d.months), 0, a(d.days),
                  a(d.hours), a(d.minutes),
                  milliseconds{a(d.seconds) * 1000 + a(d.milliseconds)});
}

std::string format_exact_duration(std::chrono::milliseconds d) {
  bool negative = d < 0ms;
  auto ms = negative ? -d.count() : d.count();
  return iso_text(negative, 0, 0, 0, 0, ms / 3'600'000, ms / 60'000 % 60,
                  milliseconds{ms % 60'000});
}

// -- business days --------------------------------------------------------------------

std::optional<day_number> parse_iso_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-')
    return std::nullopt;
  auto num = [&](std::size_t from, std::size_t n) -> std::optional<int> {
    int v = 0;
    for (std::size_t k = from; k < from + n; ++k) {
      if (s[k] < '0' || s[k] > '9')
        return std::nullopt;
      v = v * 10 + (s[k] - '0');
    }
    return v;
  };
  auto y = num(0, 4), m = num(5, 2), d = num(8, 2);
  if (!y || !m || !d || *y < 1800 || *y > 2200)
    return std::nullopt;
  date::year_month_day ymd{date::year{*y}, date::month(static_cast<unsigned>(*m)),
                           date::day(static_cast<unsigned>(*d))};
  if (!ymd.ok())
    return std::nullopt;
  return date::sys_days{ymd}.time_since_epoch().count();
}

std::string format_iso_date(day_number d) {
  date::year_month_day ymd{date::sys_days{date::days{d}}};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return buf;
}

unsigned weekday_of(day_number d) {
  // 1970-01-01 was a Thursday (4).
  return static_cast<unsigned>(((d % 7) + 7 + 4) % 7);
}

business_calendar::business_calendar(std::array<bool, 7> weekend,
                                     std::vector<day_number> holidays)
  : weekend_(weekend),
    per_week_(static_cast<int>(std::count(weekend.begin(), weekend.end(), false))),
    holidays_(std::move(holidays)) {
  std::sort(holidays_.begin(), holidays_.end());
  holidays_.erase(std::unique(holidays_.begin(), holidays_.end()),
                  holidays_.end());
}

bool business_calendar::is_business_day(day_number d) const {
  return !weekend_[weekday_of(d)]
         && !std::binary_search(holidays_.begin(), holidays_.end(), d);
}

std::int64_t business_calendar::weekday_holidays(day_number lo,
                                                 day_number hi) const {
  auto first = std::upper_bound(holidays_.begin(), holidays_.end(), lo);
  auto last = std::upper_bound(first, holidays_.end(), hi);
  return std::count_if(first, last,
                       [&](day_number h) { return !weekend_[weekday_of(h)]; });
}

std::int64_t business_calendar::forward(day_number lo, day_number hi) const {
  auto n = hi - lo;
  std::int64_t count = n / 7 * per_week_;
  for (auto d = lo + n / 7 * 7 + 1; d <= hi; ++d)
    count += weekend_[weekday_of(d)] ? 0 : 1;
  return count - weekday_holidays(lo, hi);
}

std::int64_t business_calendar::count(day_number from, day_number to) const {
  if (from <= to)
    return forward(from, to);
  return -forward(to - 1, from - 1);
}

std::int64_t business_calendar::holidays_in(day_number from,
                                            day_number to) const {
  return from <= to ? weekday_holidays(from, to)
                    : weekday_holidays(to - 1, from - 1);
}

day_number business_calendar::add(day_number from, std::int64_t n) const {
  if (n == 0 || per_week_ == 0)
    return from;
  std::int64_t step = n > 0 ? 1 : -1;
  auto left = n > 0 ? n : -n;
  auto d = from;
  // Whole weeks first (each has per_week_ business days less the holidays
  // in it), leaving at least one business day to find day by day; the
  // holidays (finitely many) make this converge.
  while (left > 2 * per_week_) {
    auto weeks = (left - 1) / per_week_;
    auto next = d + step * weeks * 7;
    left -= step > 0 ? forward(d, next) : forward(next - 1, d - 1);
    d = next;
  }
  while (left > 0) {
    d += step;
    if (is_business_day(d))
      --left;
  }
  return d;
}

} // namespace ttm::domain
