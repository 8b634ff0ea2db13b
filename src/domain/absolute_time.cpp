#include "domain/absolute_time.hpp"

#include "domain/time_format.hpp"

#include <date/date.h>

#include <cctype>
#include <cstdio>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using local_ms = date::local_time<milliseconds>;

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


// See in_supported_years: ISO 8601 years are checked before any conversion.
constexpr int min_year = 1800;
constexpr int max_year = 2200;

time_input_error refuse(std::string_view text, const std::string& why) {
  return refuse_time_input(text, why);
}

/// `res`, or a refusal when it is an instant outside the supported years.
time_input_result instant_in_years(std::string_view text,
                                   time_input_result res) {
  auto* ok = std::get_if<time_input>(&res);
  if (ok
      && !in_supported_years(date::floor<milliseconds>(ok->instant)
                               .time_since_epoch()))
    return refuse(text, outside_supported_years);
  return res;
}

} // namespace

// -- ISO 8601 ----------------------------------------------------------------

// YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±HH:MM|±HHMM|±HH]
time_input_result parse_iso_time(std::string_view text, std::string_view s,
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
  // The written year before any conversion (wall_time holds years 1678 to
  // 2261), then each form's instant: a local date a day outside the years
  // (1799-12-31 in New York) reads when its instant is inside them, as
  // format_iso8601 writes such instants (found by tests/fuzz/time_grammar).
  if (*y < min_year - 1 || *y > max_year + 1)
    return refuse(text, "the year is outside 1800 to 2200");
  auto day = date::local_days{ymd};
  if (c.done()) {
    auto res = resolve_local_time(from_date_local(local_ms{day}), *o.in,
                                  disambiguation::compatible, text);
    if (auto* ok = std::get_if<time_input>(&res))
      ok->form = time_input::date;
    return instant_in_years(text, std::move(res));
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
    return instant_in_years(text, std::move(res));
  }
  std::chrono::seconds offset{0};
  if (!c.eat('z')) {
    int sign = c.eat('+') ? 1 : c.eat('-') ? -1 : 0;
    auto oh = sign != 0 ? c.digits(2) : std::nullopt;
    std::optional<int> om = 0;
    std::optional<int> os = 0;
    if (oh && !c.done()) {
      bool colon = c.eat(':');
      om = c.digits(2);
      // +HH:MM:SS: what format_iso8601 itself writes for a zone's local
      // mean time before 1900 (e.g. -04:56:02), so it reads back (found
      // by tests/fuzz/time_grammar).
      if (colon && om && !c.done() && c.eat(':'))
        os = c.digits(2);
    }
    if (!oh || !om || !os || !c.done())
      return refuse(text, "an offset is written Z, +HH:MM or -HH:MM");
    if (*oh > 14 || *om > 59 || *os > 59)
      return refuse(text, "the offset is out of range (-14:00 to +14:00)");
    offset = sign * (std::chrono::hours{*oh} + std::chrono::minutes{*om}
                     + std::chrono::seconds{*os});
  }
  if (!c.done())
    return refuse(text, "unexpected text after the offset");
  time_input r;
  r.form = time_input::offset;
  r.instant = wall_time{local.time_since_epoch() - offset};
  r.input_offset = offset;
  return instant_in_years(text, std::move(r));
}

// -- unix:SECONDS / unix_ms:MILLIS -------------------------------------------

time_input_result parse_unix_time(std::string_view text,
                                  std::string_view digits, bool millis) {
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative)
    digits.remove_prefix(1);
  // Years 0001..9999 fit in 12 digits of seconds, 15 of milliseconds.
  if (!all_digits(digits) || digits.size() > (millis ? 15u : 12u))
    return refuse(text, millis ? "unix_ms: is followed by whole milliseconds"
                               : "unix: is followed by whole seconds");
  long long v = std::stoll(std::string(digits));
  milliseconds ms{(negative ? -v : v) * (millis ? 1 : 1000)};
  if (!in_supported_years(ms))
    return refuse(text, outside_supported_years);
  time_input r;
  r.form = time_input::unix;
  r.instant = wall_time{ms};
  return r;
}


time_input_error refuse_time_input(std::string_view text,
                                   const std::string& why,
                                   std::vector<std::string> suggestions) {
  // 48 bytes, not cutting a UTF-8 character.
  std::size_t keep = text.size() > 48 ? 48 : text.size();
  while (keep < text.size() && keep > 0
         && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80)
    --keep;
  std::string shown(text.substr(0, keep));
  if (keep < text.size())
    shown += "...";
  auto message = "Cannot read the time '" + shown + "': " + why;
  // Reasons are short; this bound keeps a refusal within 300 characters.
  if (message.size() > 250) // only the input is not ASCII: cut in the reason
    message = message.substr(0, 247) + "...";
  return {"VALIDATION_ERROR",
          message + ". Every form: docs/time-grammar.md.",
          std::move(suggestions)};
}

bool in_supported_years(std::chrono::milliseconds since_epoch) {
  // Compared as days, never as a year_month_day: date::year holds a
  // short, so year 67527 would wrap to 1991 and pass (PT574180921H added
  // to a time, found by tests/fuzz/duration).
  static const date::sys_days first{date::year{min_year} / 1 / 1};
  static const date::sys_days last{date::year{max_year} / 12 / 31};
  auto day = date::floor<date::days>(date::sys_time<milliseconds>{since_epoch});
  return day >= first && day <= last;
}

bool all_digits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  return true;
}

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

time_input_result resolve_local_time(local_time t, const zone& z,
                                     disambiguation rule,
                                     std::string_view written,
                                     std::string_view rule_argument) {
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
    std::string arg(rule_argument);
    auto first = format_instant(r.earlier, z);
    auto second = format_instant(r.later, z);
    if (gap)
      return time_input_error{
        "NONEXISTENT_LOCAL_TIME",
        shown + " does not exist in " + z.name() + ": clocks went from "
          + change + ". The nearest valid times are " + first
          + " (" + arg + " \"earlier\") and " + second
          + " (\"later\" or \"compatible\"); pass " + arg + " to choose.",
        {first, second}};
    return time_input_error{
      "AMBIGUOUS_LOCAL_TIME",
      shown + " is ambiguous in " + z.name() + ": clocks went back from "
        + change + ", so it happens twice: " + first
        + " (" + arg + " \"earlier\" or \"compatible\") and " + second
        + " (\"later\"); pass " + arg + " to choose.",
      {first, second}};
  }
  bool later = rule == disambiguation::later
               || (gap && rule == disambiguation::compatible);
  out.instant = later ? r.later : r.earlier;
  out.disambiguated = later ? "later" : "earlier";
  return out;
}

} // namespace ttm::domain
