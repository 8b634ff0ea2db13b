#include "domain/time_words.hpp"

#include "domain/locale_pattern.hpp"

#include <unicode/udat.h>
#include <unicode/ureldatefmt.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>

#include <map>
#include <memory>
#include <mutex>

namespace ttm::domain {

namespace {

template <class V>
std::optional<V> lookup(const std::vector<std::pair<std::string, V>>& words,
                        std::string_view w) {
  // Sizes and first letters first: most names differ there (a string
  // compare would call memcmp for each of the ~50 names).
  for (const auto& [name, v] : words)
    if (name.size() == w.size() && !w.empty() && name[0] == w[0] && name == w)
      return v;
  return std::nullopt;
}

time_words make_english() {
  time_words w;
  const char* months[] = {"january", "february", "march",     "april",
                          "may",     "june",     "july",      "august",
                          "september", "october", "november", "december"};
  for (unsigned m = 0; m < 12; ++m) {
    w.months.emplace_back(months[m], m + 1);
    w.months.emplace_back(std::string(months[m], 3), m + 1);
  }
  w.months.emplace_back("sept", 9);
  const char* days[] = {"sunday",   "monday", "tuesday", "wednesday",
                        "thursday", "friday", "saturday"};
  for (unsigned d = 0; d < 7; ++d) {
    w.weekdays.emplace_back(days[d], d);
    w.weekdays.emplace_back(std::string(days[d], 3), d);
  }
  for (auto [name, d] : {std::pair{"tues", 2u}, {"weds", 3u}, {"thur", 4u},
                         {"thurs", 4u}})
    w.weekdays.emplace_back(name, d);
  for (auto [name, d] : {std::pair{"today", 0}, {"tomorrow", 1},
                         {"tmrw", 1}, {"yesterday", -1}})
    w.days.emplace_back(name, d);
  w.at = {"at", "@"};
  return w;
}

std::string utf8_of(const UChar* s, int32_t n) {
  return plain_utf8(std::u16string_view(reinterpret_cast<const char16_t*>(s),
                                        static_cast<std::size_t>(n)));
}

// Lower-cased, a trailing '.' dropped ("déc." -> "déc"), the typographic
// apostrophe made plain ("aujourd’hui" -> "aujourd'hui").
std::string word_of(const UChar* s, int32_t n, const char* icu_id) {
  UChar lower[64];
  UErrorCode st = U_ZERO_ERROR;
  int32_t len = u_strToLower(lower, 64, s, n, icu_id, &st);
  if (U_FAILURE(st) || len <= 0)
    return {};
  for (int32_t i = 0; i < len; ++i)
    if (lower[i] == 0x2019)
      lower[i] = u'\'';
  if (lower[len - 1] == u'.')
    --len;
  return utf8_of(lower, len);
}

struct udat_closer {
  void operator()(UDateFormat* f) const {
    udat_close(f);
  }
};
using udat_ptr = std::unique_ptr<UDateFormat, udat_closer>;

udat_ptr open_format(UDateFormatStyle time, UDateFormatStyle date,
                     const char* icu_id) {
  UErrorCode s = U_ZERO_ERROR;
  static const UChar utc[] = {'U', 'T', 'C', 0};
  udat_ptr f{udat_open(time, date, icu_id, utc, -1, nullptr, 0, &s)};
  return U_SUCCESS(s) ? std::move(f) : nullptr;
}

std::u16string pattern_of(const UDateFormat* f) {
  UChar buf[128];
  UErrorCode s = U_ZERO_ERROR;
  int32_t n = udat_toPattern(f, false, buf, 128, &s);
  if (U_FAILURE(s))
    return {};
  return std::u16string(reinterpret_cast<const char16_t*>(buf),
                        static_cast<std::size_t>(n));
}

void add_symbols(time_words& w, const UDateFormat* f, UDateFormatSymbolType t,
                 bool months, const char* icu_id) {
  int32_t count = udat_countSymbols(f, t);
  for (int32_t i = 0; i < count; ++i) {
    UChar buf[64];
    UErrorCode s = U_ZERO_ERROR;
    int32_t n = udat_getSymbols(f, t, i, buf, 64, &s);
    if (U_FAILURE(s) || n <= 0)
      continue;
    auto word = word_of(buf, n, icu_id);
    if (word.empty())
      continue;
    if (months && i < 12 && !w.month(word))
      w.months.emplace_back(word, static_cast<unsigned>(i + 1));
    // Weekday symbols count from 1 (Sunday); index 0 is empty.
    if (!months && i >= 1 && i <= 7 && !w.weekday(word))
      w.weekdays.emplace_back(word, static_cast<unsigned>(i - 1));
  }
}

// "gestern", "heute", "morgen", "übermorgen": ICU's relative day names
// (those without digits: "in 2 Tagen" is not a name).
void add_day_names(time_words& w, const char* icu_id) {
  UErrorCode s = U_ZERO_ERROR;
  auto* f = ureldatefmt_open(icu_id, nullptr, UDAT_STYLE_LONG,
                             UDISPCTX_CAPITALIZATION_NONE, &s);
  if (U_FAILURE(s))
    return;
  for (int offset = -2; offset <= 2; ++offset) {
    UChar buf[64];
    UErrorCode st = U_ZERO_ERROR;
    int32_t n = ureldatefmt_format(f, offset, UDAT_REL_UNIT_DAY, buf, 64, &st);
    if (U_FAILURE(st) || n <= 0)
      continue;
    bool name = true;
    for (int32_t i = 0; i < n; ++i)
      if (u_isdigit(buf[i]) || buf[i] == u' ')
        name = false;
    auto word = word_of(buf, n, icu_id);
    if (name && !word.empty() && !w.day(word))
      w.days.emplace_back(word, offset);
  }
  ureldatefmt_close(f);
}

// The quoted words of the long date-time pattern: "{date} 'um' {time}"
// (de), "'à'" (fr), "'de'" (es): read as the word before a time, or filler.
void add_at_words(time_words& w, const std::u16string& pattern,
                  const char* icu_id) {
  std::size_t i = 0;
  while ((i = pattern.find(u'\'', i)) != std::u16string::npos) {
    auto end = pattern.find(u'\'', i + 1);
    if (end == std::u16string::npos)
      break;
    auto literal = pattern.substr(i + 1, end - i - 1);
    std::size_t from = 0;
    while (from < literal.size()) {
      auto to = literal.find(u' ', from);
      if (to == std::u16string::npos)
        to = literal.size();
      if (to > from) {
        auto word = word_of(reinterpret_cast<const UChar*>(literal.data() + from),
                            static_cast<int32_t>(to - from), icu_id);
        if (!word.empty() && !w.is_at(word))
          w.at.push_back(word);
      }
      from = to + 1;
    }
    i = end + 1;
  }
}

time_words make_locale(const std::string& icu_id) {
  auto w = english_time_words();
  w.icu_id = icu_id;
  const char* id = icu_id.c_str();
  if (auto f = open_format(UDAT_NONE, UDAT_SHORT, id)) {
    auto p = pattern_of(f.get());
    auto d = p.find(u'd'), m = p.find(u'M'), y = p.find(u'y');
    if (y < d && y < m)
      w.order = time_words::year_first;
    else if (d < m)
      w.order = time_words::day_first;
    for (auto t : {UDAT_MONTHS, UDAT_SHORT_MONTHS, UDAT_STANDALONE_MONTHS,
                   UDAT_STANDALONE_SHORT_MONTHS})
      add_symbols(w, f.get(), t, true, id);
    for (auto t : {UDAT_WEEKDAYS, UDAT_SHORT_WEEKDAYS,
                   UDAT_STANDALONE_WEEKDAYS, UDAT_STANDALONE_SHORT_WEEKDAYS})
      add_symbols(w, f.get(), t, false, id);
  }
  if (auto f = open_format(UDAT_SHORT, UDAT_LONG, id))
    add_at_words(w, pattern_of(f.get()), id);
  add_day_names(w, id);
  return w;
}

} // namespace

std::optional<unsigned> time_words::month(std::string_view w) const {
  return lookup(months, w);
}

std::optional<unsigned> time_words::weekday(std::string_view w) const {
  return lookup(weekdays, w);
}

std::optional<int> time_words::day(std::string_view w) const {
  return lookup(days, w);
}

bool time_words::is_at(std::string_view w) const {
  for (const auto& a : at)
    if (a.size() == w.size() && a == w)
      return true;
  return false;
}

const time_words& english_time_words() {
  static const time_words w = make_english();
  return w;
}

const time_words& time_words_for(const std::string& icu_id) {
  if (icu_id.empty() || icu_id == "en_US" || icu_id == "en")
    return english_time_words();
  // Built once per locale and never freed: a handful of locales at most,
  // each a few kB; references stay valid (std::map nodes do not move).
  static std::mutex mutex;
  static std::map<std::string, time_words> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(icu_id);
  if (it == cache.end())
    it = cache.emplace(icu_id, make_locale(icu_id)).first;
  return it->second;
}

std::string lower_utf8(std::string_view text) {
  std::u16string wide(text.size(), u'\0');
  int32_t n = 0;
  UErrorCode s = U_ZERO_ERROR;
  u_strFromUTF8WithSub(reinterpret_cast<UChar*>(wide.data()),
                       static_cast<int32_t>(wide.size()), &n, text.data(),
                       static_cast<int32_t>(text.size()), 0xFFFD, nullptr, &s);
  if (U_FAILURE(s))
    return std::string(text);
  std::u16string lower(static_cast<std::size_t>(n) * 2 + 4, u'\0');
  int32_t len = u_strToLower(reinterpret_cast<UChar*>(lower.data()),
                             static_cast<int32_t>(lower.size()),
                             reinterpret_cast<const UChar*>(wide.data()), n,
                             "", &s);
  if (U_FAILURE(s))
    return std::string(text);
  for (int32_t i = 0; i < len; ++i)
    if (lower[static_cast<std::size_t>(i)] == 0x2019)
      lower[static_cast<std::size_t>(i)] = u'\'';
  return utf8_of(reinterpret_cast<const UChar*>(lower.data()), len);
}

} // namespace ttm::domain
