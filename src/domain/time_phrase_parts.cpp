#include "domain/time_phrase_parts.hpp"

#include "domain/absolute_time.hpp"

#include <algorithm>

namespace ttm::domain::phrase {

namespace {

using std::chrono::milliseconds;

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// am / pm, attached ("9pm") or a word of its own ("9 p.m.").
std::optional<bool> meridiem_pm(std::string_view w) {
  if (w == "am" || w == "a.m" || w == "a" || w == "a.m.")
    return false;
  if (w == "pm" || w == "p.m" || w == "p" || w == "p.m.")
    return true;
  return std::nullopt;
}

// Reads up to `max` digits at s[i]; -1 when there are none.
int number_at(std::string_view s, std::size_t& i, std::size_t max) {
  int v = 0;
  std::size_t n = 0;
  while (i < s.size() && digit(s[i]) && n < max) {
    v = v * 10 + (s[i++] - '0');
    ++n;
  }
  return n == 0 ? -1 : v;
}

// "3", "1.5", "a", "an", "one" ... "twelve", "a couple of" (words read in
// `used`), in thousandths.
std::optional<long long> amount_at(const words& w, std::size_t i,
                                   std::size_t& used) {
  static const char* const names[] = {"zero", "one",   "two",  "three", "four",
                                      "five", "six",   "seven", "eight", "nine",
                                      "ten",  "eleven", "twelve"};
  auto t = w[i];
  used = 1;
  if (t == "a" || t == "an") {
    if (i + 2 < w.size() && w[i + 1] == "couple" && w[i + 2] == "of") {
      used = 3;
      return 2000;
    }
    return 1000;
  }
  for (long long k = 0; k < 13; ++k)
    if (t == names[k])
      return k * 1000;
  std::size_t p = 0;
  long long whole = 0, frac = 0, scale = 100;
  std::size_t digits = 0;
  while (p < t.size() && digit(t[p]) && digits < 7) {
    whole = whole * 10 + (t[p++] - '0');
    ++digits;
  }
  if (digits == 0 || digits > 6)
    return std::nullopt;
  if (p < t.size() && t[p] == '.') {
    ++p;
    std::size_t fd = 0;
    while (p < t.size() && digit(t[p]) && fd < 3) {
      frac += (t[p++] - '0') * scale;
      scale /= 10;
      ++fd;
    }
    if (fd == 0)
      return std::nullopt;
  }
  if (p != t.size())
    return std::nullopt;
  return whole * 1000 + frac;
}

} // namespace

std::size_t read_clock(const words& w, std::size_t i, bool allow_bare,
                       clock_read& out, std::string& why) {
  auto t = w[i];
  out = {};
  if (t == "12" && i + 1 < w.size()
      && (w[i + 1] == "noon" || w[i + 1] == "midnight")) {
    // "12 noon", "12 midnight": the named time, one word more.
    auto used = read_clock(w, i + 1, allow_bare, out, why);
    return used == 0 ? 0 : used + 1;
  }
  if (t == "noon" || t == "midday") {
    out.tod = std::chrono::hours{12};
    out.named = true;
    return 1;
  }
  if (t == "midnight") {
    out.named = true;
    return 1;
  }
  std::size_t p = 0;
  int h = number_at(t, p, 2), m = 0, s = 0;
  if (h < 0)
    return 0;
  bool minutes = false;
  if (p < t.size() && (t[p] == ':' || (t[p] == 'h' && p + 1 != t.size()
                                        && digit(t[p + 1])))) {
    // "10:30", "10:30:15", or the French "15h30".
    bool french = t[p] == 'h';
    ++p;
    std::size_t from = p;
    m = number_at(t, p, 2);
    if (m < 0 || p - from != 2)
      return 0;
    if (!french && p < t.size() && t[p] == ':') {
      ++p;
      from = p;
      s = number_at(t, p, 2);
      if (s < 0 || p - from != 2)
        return 0;
    }
    minutes = true;
  } else if (p + 1 == t.size() && t[p] == 'h') {
    ++p; // "15h": French for 15:00
    minutes = true;
  }
  std::size_t used = 1;
  std::optional<bool> pm;
  if (p < t.size()) {
    pm = meridiem_pm(t.substr(p));
    if (!pm)
      return 0; // "25th", "12/25", "1.5": not a time
  } else if (i + 1 < w.size() && w[i + 1] != "a"
             && (pm = meridiem_pm(w[i + 1]))) {
    used = 2;
  }
  if (i + used < w.size()
      && (w[i + used] == "o'clock" || w[i + used] == "uhr"
          || w[i + used] == "h")) {
    ++used;
    minutes = true; // "7 o'clock", "15 Uhr" name a time, not an amount
  }
  if (!pm && !minutes && !allow_bare)
    return 0;
  if (pm) {
    if (h < 1 || h > 12) {
      why = "'" + std::string(t) + "' is not a 12-hour time (1 to 12 am/pm)";
      return 0;
    }
    h = h % 12 + (*pm ? 12 : 0);
    out.meridiem = true;
  }
  if (h > 23 || m > 59 || s > 59) {
    why = "'" + std::string(t) + "' is not a time of day (00:00 to 23:59)";
    return 0;
  }
  out.bare = !pm && !minutes;
  out.tod = std::chrono::hours{h} + std::chrono::minutes{m}
            + std::chrono::seconds{s};
  return used;
}

bool contains(const words& w, std::string_view x) {
  return std::find(w.begin(), w.end(), x) != w.end();
}

std::string join(const words& w) {
  std::string out;
  for (auto x : w) {
    if (!out.empty())
      out += ' ';
    out += x;
  }
  return out;
}

std::optional<unit> unit_of(std::string_view w) {
  struct name {
    const char* text;
    unit u;
  };
  static const name names[] = {
    {"second", unit::second}, {"seconds", unit::second}, {"sec", unit::second},
    {"secs", unit::second},   {"s", unit::second},       {"minute", unit::minute},
    {"minutes", unit::minute}, {"min", unit::minute},    {"mins", unit::minute},
    {"m", unit::minute},      {"hour", unit::hour},      {"hours", unit::hour},
    {"hr", unit::hour},       {"hrs", unit::hour},       {"h", unit::hour},
    {"day", unit::day},       {"days", unit::day},       {"d", unit::day},
    {"week", unit::week},     {"weeks", unit::week},     {"wk", unit::week},
    {"wks", unit::week},      {"w", unit::week},         {"month", unit::month},
    {"months", unit::month},  {"mo", unit::month},       {"mos", unit::month},
    {"year", unit::year},     {"years", unit::year},     {"yr", unit::year},
    {"yrs", unit::year},      {"y", unit::year}};
  for (const auto& n : names)
    if (w == n.text)
      return n.u;
  return std::nullopt;
}

std::optional<amounts> read_amounts(const words& w, std::string& why) {
  amounts out;
  std::size_t i = 0;
  bool any = false;
  auto half_follows = [&](std::size_t k) {
    return k + 2 < w.size() && w[k] == "and" && w[k + 1] == "a" && w[k + 2] == "half";
  };
  while (i < w.size()) {
    if (w[i] == "and" && any && !half_follows(i) && i + 1 < w.size()) {
      ++i;
      continue;
    }
    long long milli = 0;
    std::string_view unit_word;
    if (w[i] == "half") {
      // "half an hour", "half a day"
      milli = 500;
      ++i;
      if (i < w.size() && (w[i] == "a" || w[i] == "an"))
        ++i;
    } else {
      // "2h", "30min", "3days": the number and its unit in one word.
      auto t = w[i];
      std::size_t p = 0;
      while (p < t.size() && (digit(t[p]) || t[p] == '.'))
        ++p;
      std::size_t used = 1;
      if (p > 0 && p < t.size() && unit_of(t.substr(p))) {
        words num{t.substr(0, p)};
        auto a = amount_at(num, 0, used);
        if (!a) {
          why = "'" + std::string(t) + "' is not an amount";
          return std::nullopt;
        }
        milli = *a;
        unit_word = t.substr(p);
        ++i;
      } else {
        auto a = amount_at(w, i, used);
        if (!a) {
          why = "'" + std::string(t)
                + "' is not a number (up to 6 digits, e.g. 3, 1.5, a, two)";
          return std::nullopt;
        }
        milli = *a;
        i += used;
        if (half_follows(i)) { // "1 and a half hours"
          milli += 500;
          i += 3;
        }
      }
    }
    if (unit_word.empty()) {
      if (i >= w.size()) {
        why = "the amount has no unit after it (e.g. 'in 3 days')";
        return std::nullopt;
      }
      unit_word = w[i++];
    }
    auto u = unit_of(unit_word);
    if (!u) {
      why = "'" + std::string(unit_word)
            + "' is not a unit (seconds, minutes, hours, days, weeks, "
              "months, years)";
      return std::nullopt;
    }
    if (half_follows(i)) { // "an hour and a half"
      milli += 500;
      i += 3;
    }
    auto k = static_cast<std::size_t>(*u);
    if (out.seen[k]) {
      why = "the unit '" + std::string(unit_word) + "' appears twice";
      return std::nullopt;
    }
    out.seen[k] = true;
    out.milli[k] = milli;
    any = true;
  }
  if (!any) {
    why = "no amount (e.g. 'in 3 days', '2 hours ago')";
    return std::nullopt;
  }
  return out;
}

// "25", "25th", "1st", "25." (de), "1er" (fr): a day of the month.
std::optional<unsigned> day_number(std::string_view t) {
  std::size_t p = 0;
  unsigned v = 0;
  while (p < t.size() && p < 2 && t[p] >= '0' && t[p] <= '9')
    v = v * 10 + static_cast<unsigned>(t[p++] - '0');
  if (p == 0 || v == 0 || v > 31)
    return std::nullopt;
  auto rest = t.substr(p);
  if (rest.empty() || rest == "st" || rest == "nd" || rest == "rd"
      || rest == "th" || rest == "." || rest == "er" || rest == "e")
    return v;
  return std::nullopt;
}

std::optional<int> year_number(std::string_view t) {
  if (t.size() != 4 || !all_digits(t))
    return std::nullopt;
  return (t[0] - '0') * 1000 + (t[1] - '0') * 100 + (t[2] - '0') * 10
         + (t[3] - '0');
}

std::optional<numeric_date> read_numeric_date(std::string_view t,
                                              time_words::order_t order) {
  char sep = t.find('/') != std::string_view::npos   ? '/'
             : t.size() == 10 && t[4] == '-' ? '-' // 2026-12-25
                                             : '.';
  if (sep == '.' && !t.empty() && t.back() == '.')
    t.remove_suffix(1);
  std::vector<std::string_view> parts;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= t.size(); ++i)
    if (i == t.size() || t[i] == sep) {
      parts.push_back(t.substr(from, i - from));
      from = i + 1;
    }
  if (parts.size() < 2 || parts.size() > 3)
    return std::nullopt;
  for (auto p : parts)
    if (!all_digits(p) || p.size() > 4)
      return std::nullopt;
  auto num = [](std::string_view p) { return std::stoi(std::string(p)); };
  int a = num(parts[0]), b = num(parts[1]);
  numeric_date out;
  if (parts[0].size() == 4) {
    if (parts.size() != 3)
      return std::nullopt;
    out.year = a;
    out.month = static_cast<unsigned>(b);
    out.day = static_cast<unsigned>(num(parts[2]));
    return out;
  }
  out.day_first = sep == '.' || order == time_words::day_first;
  if (out.day_first)
    std::swap(a, b);
  if (parts.size() == 3) {
    if (parts[2].size() != 2 && parts[2].size() != 4)
      return std::nullopt;
    out.year = num(parts[2]) + (parts[2].size() == 2 ? 2000 : 0);
  }
  if (a < 1 || a > 12 || b < 1 || b > 31)
    return std::nullopt;
  out.month = static_cast<unsigned>(a);
  out.day = static_cast<unsigned>(b);
  out.ambiguous = sep == '/' && a <= 12 && b <= 12 && a != b;
  return out;
}

} // namespace ttm::domain::phrase
