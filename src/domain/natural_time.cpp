#include "domain/natural_time.hpp"

#include "domain/calendar_math.hpp"
#include "domain/time_phrase_parts.hpp"

#include <date/date.h>

#include <algorithm>

namespace ttm::domain {

namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using local_ms = date::local_time<milliseconds>;
using phrase::clock_read;
using phrase::contains;
using phrase::join;
using phrase::words;

constexpr const char* weekday_titles[] = {"Sunday",   "Monday", "Tuesday",
                                          "Wednesday", "Thursday", "Friday",
                                          "Saturday"};

enum class part_of_day { none, morning, afternoon, evening, night };

part_of_day part_of(std::string_view w) {
  if (w == "morning")
    return part_of_day::morning;
  if (w == "afternoon")
    return part_of_day::afternoon;
  if (w == "evening")
    return part_of_day::evening;
  if (w == "night")
    return part_of_day::night;
  return part_of_day::none;
}


bool is(const words& w, std::initializer_list<std::string_view> expected) {
  if (w.size() != expected.size())
    return false;
  std::size_t i = 0;
  for (auto e : expected)
    if (w[i++] != e)
      return false;
  return true;
}

class phrase_reader {
public:
  phrase_reader(std::string_view text, const time_input_options& o)
    : text_(text), o_(o),
      words_(o.words ? *o.words : english_time_words()),
      now_local_(local_ms{o.in->local_at(o.now).since_epoch}),
      today_(date::floor<date::days>(now_local_)) {
  }

  time_input_result read(words w) {
    auto res = read_words(std::move(w));
    if (auto* ok = std::get_if<time_input>(&res)) {
      ok->form = form_;
      ok->convention = std::move(convention_);
    }
    return res;
  }

private:
  time_input_result read_words(words w) {
    if (is(w, {"now"}) || is(w, {"right", "now"}) || is(w, {"just", "now"})) {
      time_input r;
      r.instant = o_.now;
      return r;
    }
    bool shift = w[0] == "in" || contains(w, "ago");
    for (std::size_t i = 0; i + 1 < w.size(); ++i)
      shift = shift || (w[i] == "from" && w[i + 1] == "now");
    // The time of day: after an "at" word anywhere, else (not in an amount,
    // where "3h" is three hours) a word that can only be a time.
    std::optional<clock_read> clock;
    std::string why;
    for (std::size_t i = 0; i < w.size() && !clock; ++i) {
      clock_read c;
      std::size_t k = 0, from = i;
      if (words_.is_at(w[i]) && i + 1 < w.size())
        k = phrase::read_clock(w, ++from, true, c, why);
      else if (!shift)
        k = phrase::read_clock(w, i, false, c, why);
      if (!why.empty())
        return refuse(why);
      if (k == 0)
        continue;
      clock = c;
      w.erase(w.begin() + static_cast<long>(i),
              w.begin() + static_cast<long>(from + k));
      for (std::size_t j = 0; j < w.size(); ++j)
        if (!shift && phrase::read_clock(w, j, false, c, why) > 0)
          return refuse("it names two times of day");
    }
    for (auto x : w)
      if (x == "at" || x == "@")
        return refuse("'" + std::string(x) + "' is followed by a time of day "
                      "(9am, 15:00, noon)");
    if (is(w, {"now"}) && clock)
      return refuse("'now' takes no time of day");
    // "this evening", "tomorrow morning", "tonight", "at 7 in the evening".
    auto part = part_of_day::none;
    auto n = w.size();
    if (n >= 3 && w[n - 3] == "in" && w[n - 2] == "the"
        && part_of(w[n - 1]) != part_of_day::none) {
      part = part_of(w[n - 1]);
      w.resize(n - 3);
    } else if (n >= 1 && part_of(w.back()) != part_of_day::none) {
      part = part_of(w.back());
      w.pop_back();
      if (is(w, {"this"}))
        w.clear();
      else if (is(w, {"last"}) && part == part_of_day::night)
        w = {"yesterday"};
    } else if (is(w, {"tonight"}) || is(w, {"tonite"})) {
      part = part_of_day::night;
      w.clear();
    }
    if (!w.empty() && w[0] == "on")
      w.erase(w.begin());
    if (part != part_of_day::none || clock)
      read_time_of_day(clock, part);
    if (w.empty()) {
      if (!tod_)
        return refuse("nothing before or after the time of day");
      if (part == part_of_day::none)
        note("a time of day alone: today's, even when it has passed");
      return on_day(today_);
    }
    if (shift)
      return amounts(w);
    return day_phrase(w);
  }

  // The time of day to use, from the clock and the part of day.
  void read_time_of_day(const std::optional<clock_read>& clock,
                        part_of_day part) {
    bool pm_part = part == part_of_day::afternoon
                   || part == part_of_day::evening
                   || part == part_of_day::night;
    if (!clock) {
      // Computed, not written: a gap or overlap takes `compatible`.
      static const milliseconds defaults[] = {0h, 9h, 15h, 19h, 21h};
      tod_ = defaults[static_cast<int>(part)];
      computed_tod_ = true;
      note("a part of the day without a time: morning 09:00, afternoon "
           "15:00, evening 19:00, night 21:00");
      return;
    }
    tod_ = clock->tod;
    if (pm_part && !clock->meridiem && !clock->named && *tod_ < 12h) {
      *tod_ += 12h;
      note("an hour without am/pm in the afternoon, evening or night: pm");
    } else if (clock->bare) {
      note("an hour without am/pm: the 24-hour clock ('at 7' is 07:00)");
    }
    if (clock->named && clock->tod == 0ms) {
      if (part == part_of_day::night) {
        // "midnight tonight" ends the night it names: the next day's 00:00,
        // never the morning already gone.
        tod_ = 24h;
        note("midnight with tonight or night: the end of that day (00:00 "
             "of the next)");
      } else {
        note("midnight: the start of the day (00:00)");
      }
    }
  }

  time_input_result day_phrase(const words& w) {
    if (w.size() == 1) {
      if (auto d = words_.day(w[0]))
        return on_day(today_ + date::days{*d});
      if (w[0] == "eod") {
        note("EOD: the end of today (23:59:59.999)");
        return period(false, {"day"});
      }
    }
    if (is(w, {"the", "day", "after", "tomorrow"})
        || is(w, {"day", "after", "tomorrow"}))
      return on_day(today_ + date::days{2});
    if (is(w, {"the", "day", "before", "yesterday"})
        || is(w, {"day", "before", "yesterday"}))
      return on_day(today_ - date::days{2});
    if (is(w, {"next", "business", "day"}) || is(w, {"next", "working", "day"})) {
      auto d = today_ + date::days{1};
      while (date::weekday{d} == date::Saturday
             || date::weekday{d} == date::Sunday)
        d += date::days{1};
      return on_day(d);
    }
    if (w.size() >= 3
        && (w[0] == "start" || w[0] == "beginning" || w[0] == "end")
        && w[1] == "of") {
      words p(w.begin() + 2, w.end());
      if (!p.empty() && p[0] == "the")
        p.erase(p.begin());
      return period(w[0] != "end", p);
    }
    if (auto wd = weekday_phrase(w))
      return on_day(*wd);
    if (!why_.empty())
      return refuse(why_);
    if (auto d = calendar_date(w))
      return on_day(*d);
    if (!why_.empty())
      return refuse(why_);
    return refuse_unknown(w);
  }

  // friday, this friday, next friday, last friday (fri, on friday).
  std::optional<date::local_days> weekday_phrase(const words& w) {
    std::string_view mod = w.size() == 2 ? w[0] : std::string_view{};
    if (w.size() > 2 || (w.size() == 2 && mod != "this" && mod != "next"
                         && mod != "last" && mod != "coming"))
      return std::nullopt;
    auto wd = words_.weekday(w.back());
    if (!wd)
      return std::nullopt;
    unsigned today_wd = date::weekday{today_}.c_encoding();
    std::string name = weekday_titles[*wd];
    int delta;
    if (mod == "next") { // the first such day strictly after today
      delta = static_cast<int>((*wd + 7 - today_wd - 1) % 7) + 1;
      note("next " + name + ": the first " + name + " after today");
    } else if (mod == "last") { // the last such day strictly before today
      delta = -(static_cast<int>((today_wd + 7 - *wd - 1) % 7) + 1);
      note("last " + name + ": the last " + name + " before today");
    } else if (mod == "this") { // in the current week (from week_start)
      delta = static_cast<int>((*wd + 7 - o_.week_start) % 7)
              - static_cast<int>((today_wd + 7 - o_.week_start) % 7);
      note("this " + name + ": the " + name + " of the current week (from "
           + weekday_titles[o_.week_start] + ")");
    } else { // alone or "coming": today or the next one
      delta = static_cast<int>((*wd + 7 - today_wd) % 7);
      note(name + " alone: the next " + name + ", today included");
    }
    return today_ + date::days{delta};
  }

  // December 25, Dec 25 2026, 25 December 2026, the 25th of December,
  // friday december 25, 12/25/2026, 25.12.2026.
  std::optional<date::local_days> calendar_date(words w) {
    w.erase(std::remove_if(w.begin(), w.end(),
                           [&](std::string_view x) {
                             return x == "the" || x == "of" || x == "on"
                                    || words_.is_at(x);
                           }),
            w.end());
    std::optional<unsigned> wd;
    if (w.size() > 1 && (wd = words_.weekday(w[0])))
      w.erase(w.begin());
    std::optional<unsigned> month, day;
    std::optional<int> year;
    if (w.size() == 1) {
      if (!numeric_date(w[0], month, day, year))
        return std::nullopt;
    } else if (w.size() == 2 || w.size() == 3) {
      std::size_t m_at = words_.month(w[0]) ? 0 : words_.month(w[1]) ? 1 : 9;
      if (m_at == 9)
        return std::nullopt;
      month = words_.month(w[m_at]);
      day = phrase::day_number(w[1 - m_at]);
      if (w.size() == 3)
        year = phrase::year_number(w[2]);
      if (!day && w.size() == 2 && phrase::year_number(w[1 - m_at])) {
        why_ = "'" + join(w) + "' names a month, not a day; write e.g. '"
               + std::string(w[m_at]) + " 1, " + std::string(w[1 - m_at])
               + "'";
        return std::nullopt;
      }
      if (!day || (w.size() == 3 && !year))
        return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (year && (*year < 1800 || *year > 2200)) {
      why_ = "the year is outside 1800 to 2200";
      return std::nullopt;
    }
    date::year_month_day ymd;
    if (year) {
      ymd = date::year{*year} / date::month{*month} / date::day{*day};
      form_ = tod_ ? time_input::local : time_input::date;
    } else {
      // The next such date, today included (Feb 29: the next leap year's).
      auto y = date::year_month_day{today_}.year();
      for (int k = 0; k < 8; ++k, ++y) {
        ymd = y / date::month{*month} / date::day{*day};
        if (ymd.ok() && date::local_days{ymd} >= today_)
          break;
      }
      note("a date without a year: the next such date, today included");
    }
    if (!ymd.ok()) {
      why_ = "there is no such date";
      return std::nullopt;
    }
    auto d = date::local_days{ymd};
    if (wd && date::weekday{d}.c_encoding() != *wd) {
      why_ = "that date is a " + std::string(weekday_titles[date::weekday{d}.c_encoding()])
             + ", not a " + weekday_titles[*wd];
      return std::nullopt;
    }
    return d;
  }

  bool numeric_date(std::string_view t, std::optional<unsigned>& month,
                    std::optional<unsigned>& day, std::optional<int>& year) {
    auto d = phrase::read_numeric_date(t, words_.order);
    if (!d)
      return false;
    month = d->month;
    day = d->day;
    year = d->year;
    if (d->ambiguous)
      note(std::string(d->day_first ? "day" : "month")
           + " first, the locale's order for numeric dates");
    return true;
  }

  // start of / end of (the) day|week|month|year, this|next|last week, today.
  time_input_result period(bool start, const words& p) {
    std::string_view unit;
    long long offset = 0;
    if (p.size() == 1 && words_.day(p[0])) {
      unit = "day";
      offset = *words_.day(p[0]);
    } else if (p.size() == 1) {
      unit = p[0];
    } else if (p.size() == 2) {
      unit = p[1];
      if (p[0] == "next")
        offset = 1;
      else if (p[0] == "last" || p[0] == "previous")
        offset = -1;
      else if (p[0] != "this")
        unit = {};
    }
    if (unit != "day" && unit != "week" && unit != "month" && unit != "year")
      return refuse("'" + join(p) + "' is not day, week, month or year");
    date::year_month_day ymd{today_};
    date::local_days first = today_ + date::days{offset}, next = first + date::days{1};
    if (unit == "week") {
      unsigned wd = date::weekday{today_}.c_encoding();
      first = today_ - date::days{(wd + 7 - o_.week_start) % 7}
              + date::days{7 * offset};
      next = first + date::days{7};
    } else if (unit == "month") {
      first = add_months(date::local_days{ymd.year() / ymd.month() / 1}, offset);
      next = add_months(first, 1);
    } else if (unit == "year") {
      first = add_months(date::local_days{ymd.year() / date::January / 1},
                         12 * offset);
      next = add_months(first, 12);
    }
    if (start)
      return on_day(first);
    if (tod_)
      return refuse("'end of ...' takes no time of day");
    note("end of a period: its last millisecond (23:59:59.999)");
    auto res = on_day(next);
    if (auto* ok = std::get_if<time_input>(&res)) {
      ok->instant -= 1ms;
      ok->disambiguated.clear(); // the shift concerned the next midnight
    }
    return res;
  }

  // in N unit [...], N unit [...] ago, N unit [...] from now: calendar
  // units (years, months, weeks, days) move the local date keeping the
  // wall time; exact units (hours, minutes, seconds, fractions of days)
  // then add elapsed time.
  time_input_result amounts(words w) {
    int sign = 1;
    if (w[0] == "in") {
      w.erase(w.begin());
    } else if (w.back() == "ago") {
      w.pop_back();
      sign = -1;
    } else if (w.size() >= 2 && w[w.size() - 2] == "from" && w.back() == "now") {
      w.resize(w.size() - 2);
    } else {
      return refuse_unknown(w);
    }
    if (w.empty())
      return refuse("no amount (e.g. 'in 3 days', '2 hours ago')");
    if (contains(w, "business") || contains(w, "working"))
      return refuse_business(w);
    std::string why;
    auto a = phrase::read_amounts(w, why);
    if (!a)
      return refuse(why);
    using phrase::unit;
    auto milli = [&](unit u) { return a->milli[static_cast<int>(u)]; };
    if (milli(unit::month) % 1000 != 0 || milli(unit::year) % 1000 != 0)
      return refuse("a fraction of a month or year has no fixed length; "
                    "write days or weeks");
    long long calendar_days = milli(unit::day) / 1000 + milli(unit::week) / 1000 * 7;
    long long exact_ms = milli(unit::hour) * 3600 + milli(unit::minute) * 60
                         + milli(unit::second)
                         + milli(unit::day) % 1000 * 86'400
                         + milli(unit::week) % 1000 * 604'800;
    bool exact = a->seen[0] || a->seen[1] || a->seen[2] || exact_ms != 0;
    if (tod_ && exact)
      return refuse("a time of day goes only with whole days, weeks, months "
                    "or years");
    auto months = (milli(unit::year) / 1000 * 12 + milli(unit::month) / 1000) * sign;
    calendar_days *= sign;
    if (months > 12 * 1000 || months < -12 * 1000
        || calendar_days > 400'000 || calendar_days < -400'000
        || !in_supported_years(
          (local_ms{today_} + date::days{calendar_days}).time_since_epoch()))
      return refuse(outside_supported_years);
    auto day = add_months(today_, months) + date::days{calendar_days};
    time_input_result res;
    if (tod_)
      res = on_day(day);
    else if (a->seen[3] || a->seen[4] || a->seen[5] || a->seen[6])
      res = resolve(local_ms{day} + (now_local_ - local_ms{today_}),
                    disambiguation::compatible);
    else {
      time_input r;
      r.instant = o_.now;
      res = r;
    }
    if (auto* ok = std::get_if<time_input>(&res)) {
      auto ms = date::floor<milliseconds>(ok->instant).time_since_epoch()
                + milliseconds{sign * exact_ms};
      if (!in_supported_years(ms))
        return refuse(outside_supported_years);
      ok->instant = wall_time{ms};
    }
    return res;
  }

  // Local midnight of `d` (computed: compatible) or the time of day on it
  // (as written: the caller's disambiguation).
  time_input_result on_day(date::local_days d) {
    auto t = local_ms{d} + tod_.value_or(0ms);
    return resolve(t, tod_ && !computed_tod_ ? o_.on_conflict
                                             : disambiguation::compatible);
  }

  time_input_result resolve(local_ms t, disambiguation rule) {
    if (!in_supported_years(t.time_since_epoch()))
      return refuse(outside_supported_years);
    return resolve_local_time(local_time{t.time_since_epoch()}, *o_.in, rule,
                              text_);
  }

  void note(const std::string& rule) {
    if (!convention_.empty())
      convention_ += "; ";
    convention_ += rule;
  }

  time_input_error refuse(const std::string& why,
                          std::vector<std::string> suggestions = {}) {
    return refuse_time_input(text_, why, std::move(suggestions));
  }

  time_input_error refuse_business(const words& w) {
    return phrase::refuse_business(text_, w);
  }

  time_input_error refuse_unknown(const words& w) {
    return phrase::refuse_unknown(text_, w, o_, words_);
  }

  std::string_view text_;
  const time_input_options& o_;
  const time_words& words_;
  local_ms now_local_;
  date::local_days today_;
  std::optional<milliseconds> tod_;
  bool computed_tod_ = false;
  time_input::form_t form_ = time_input::relative;
  std::string convention_;
  std::string why_;
};

} // namespace

time_input_result parse_natural_time(std::string_view text,
                                     std::string_view lowered,
                                     const time_input_options& o) {
  std::string buf(lowered);
  bool wide = false;
  for (auto& c : buf) {
    if (c == ',')
      c = ' ';
    wide = wide || static_cast<unsigned char>(c) >= 0x80;
  }
  if (wide)
    buf = lower_utf8(buf);
  words w;
  w.reserve(12);
  std::size_t i = 0;
  while (i < buf.size()) {
    while (i < buf.size() && buf[i] == ' ')
      ++i;
    auto from = i;
    bool letters = false;
    while (i < buf.size() && buf[i] != ' ') {
      letters = letters || (buf[i] >= 'a' && buf[i] <= 'z')
                || static_cast<unsigned char>(buf[i]) >= 0x80;
      ++i;
    }
    auto word = std::string_view(buf).substr(from, i - from);
    // "dec.", "fri.", "p.m.": the abbreviation's dot is not part of it.
    if (letters && word.size() > 1 && word.back() == '.')
      word.remove_suffix(1);
    if (!word.empty())
      w.push_back(word);
  }
  if (w.empty())
    return refuse_time_input(text, "it is empty");
  return phrase_reader{text, o}.read(std::move(w));
}

} // namespace ttm::domain
