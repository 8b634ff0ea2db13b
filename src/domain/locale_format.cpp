#include "domain/locale_format.hpp"

#include "domain/ascii.hpp"
#include "domain/locale_pattern.hpp"

#include <unicode/udat.h>
#include <unicode/uloc.h>

#include <date/date.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <set>

namespace ttm::domain {

namespace {

constexpr std::size_t max_tag_length = 64;

// What ICU has data for, from uloc_getAvailable; built once.
struct icu_catalog {
  std::set<std::string> languages;
  std::set<std::string> scripts;
  std::set<std::string> regions; // ISO 3166 alpha-2
  std::vector<std::string> tags; // "de-DE": available language-region pairs
};

const icu_catalog& catalog() {
  static const icu_catalog c = [] {
    icu_catalog out;
    char buf[ULOC_FULLNAME_CAPACITY];
    for (int32_t i = 0, n = uloc_countAvailable(); i < n; ++i) {
      const char* id = uloc_getAvailable(i);
      UErrorCode s = U_ZERO_ERROR;
      if (uloc_getLanguage(id, buf, sizeof buf, &s) > 0 && U_SUCCESS(s))
        out.languages.insert(buf);
      std::string language = buf;
      s = U_ZERO_ERROR;
      if (uloc_getScript(id, buf, sizeof buf, &s) > 0 && U_SUCCESS(s))
        out.scripts.insert(buf);
      s = U_ZERO_ERROR;
      int32_t len = uloc_toLanguageTag(id, buf, sizeof buf, true, &s);
      if (U_SUCCESS(s) && len > 0)
        out.tags.emplace_back(buf, static_cast<std::size_t>(len));
    }
    for (const char* const* r = uloc_getISOCountries(); *r != nullptr; ++r)
      out.regions.insert(*r);
    return out;
  }();
  return c;
}


std::string quoted(std::string_view s) {
  if (s.size() <= max_tag_length)
    return "'" + std::string(s) + "'";
  // Cut at a character boundary: the reply must stay valid UTF-8.
  auto cut = max_tag_length;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return "'" + std::string(s.substr(0, cut)) + "...'";
}

locale_lookup refuse(std::string_view tag, const std::string& language) {
  std::vector<std::string> suggestions;
  if (!language.empty()) {
    // The language's likely region first: "de-XX" -> de-DE before de-AT.
    char likely[ULOC_FULLNAME_CAPACITY], region[ULOC_COUNTRY_CAPACITY];
    UErrorCode s = U_ZERO_ERROR;
    uloc_addLikelySubtags(language.c_str(), likely, sizeof likely, &s);
    uloc_getCountry(likely, region, sizeof region, &s);
    if (U_SUCCESS(s) && *region != '\0') {
      auto t = language + "-" + region;
      if (std::find(catalog().tags.begin(), catalog().tags.end(), t)
          != catalog().tags.end())
        suggestions.push_back(t);
    }
  }
  if (!language.empty())
    for (const auto& t : catalog().tags)
      if (suggestions.size() < 3 && t.size() > language.size()
          && t.compare(0, language.size(), language) == 0
          && t[language.size()] == '-'
          && std::find(suggestions.begin(), suggestions.end(), t)
               == suggestions.end())
        suggestions.push_back(t);
  for (const char* t : {"en-US", "de-DE", "ja-JP", "fr-CA"})
    if (suggestions.size() < 4)
      suggestions.emplace_back(t);
  std::string message = quoted(tag) + " is not a locale this server knows; e.g. ";
  for (std::size_t i = 0; i < suggestions.size(); ++i)
    message += (i > 0 ? ", " : "") + suggestions[i];
  return {std::nullopt, std::move(message), std::move(suggestions)};
}

bool known_region(const std::string& r) {
  if (r.size() == 3)
    return std::all_of(r.begin(), r.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
  return catalog().regions.count(r) > 0;
}

// -- the per-thread formatters ---------------------------------------------

struct udat_closer {
  void operator()(UDateFormat* f) const {
    udat_close(f);
  }
};

struct cached_formatter {
  std::string icu_id;
  std::unique_ptr<UDateFormat, udat_closer> format;
  /// Its pattern without ICU, when that gives ICU's text exactly.
  std::optional<locale_pattern> fast;
};

// Actors run on several threads: each keeps its own few formatters, most
// recently used first, so no ICU object is shared between threads.
constexpr std::size_t cache_size = 8;
thread_local std::vector<cached_formatter> formatters;

using local_millis = date::sys_time<std::chrono::milliseconds>;

// ICU's text for the wall time `local` given as a UTC instant, its spaces
// plain; nullopt if ICU fails.
std::optional<std::string> icu_text(UDateFormat* f, local_millis local) {
  auto udate = static_cast<UDate>(local.time_since_epoch().count());
  UChar buf[128];
  UErrorCode s = U_ZERO_ERROR;
  int32_t n = udat_format(f, udate, buf, 128, nullptr, &s);
  std::u16string text;
  if (s == U_BUFFER_OVERFLOW_ERROR) {
    text.resize(static_cast<std::size_t>(n));
    s = U_ZERO_ERROR;
    udat_format(f, udate, reinterpret_cast<UChar*>(text.data()), n, nullptr,
                &s);
  } else {
    text.assign(reinterpret_cast<const char16_t*>(buf),
                static_cast<std::size_t>(n > 0 ? n : 0));
  }
  if (U_FAILURE(s))
    return std::nullopt;
  return plain_utf8(text);
}

local_fields fields_of(local_millis local) {
  auto day = date::floor<date::days>(local);
  date::year_month_day ymd{day};
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(local - day).count();
  local_fields t;
  t.year = static_cast<int>(ymd.year());
  t.month = static_cast<unsigned>(ymd.month());
  t.day = static_cast<unsigned>(ymd.day());
  t.hour = static_cast<unsigned>(secs / 3600);
  t.minute = static_cast<unsigned>(secs / 60 % 60);
  t.second = static_cast<unsigned>(secs % 60);
  t.weekday = date::weekday{day}.c_encoding();
  return t;
}

// The interpreter for `f`, if it gives ICU's text for a few probe times
// too: a last guard for what compile() cannot see (tests compare every
// available locale on many more times).
std::optional<locale_pattern> fast_pattern_for(UDateFormat* f) {
  auto p = locale_pattern::compile(f);
  if (!p)
    return p;
  using namespace std::chrono;
  using namespace date;
  static const local_millis probes[] = {
    sys_days{2026_y / March / 9} + 0h + 5min + 7s,
    sys_days{1999_y / December / 31} + 23h + 59min + 59s,
    sys_days{2009_y / July / 4} + 12h + 30min,
    sys_days{1905_y / February / 28} + 11h + 1min + 30s,
  };
  for (auto probe : probes) {
    std::string mine;
    p->format(fields_of(probe), mine);
    if (icu_text(f, probe) != mine)
      return std::nullopt;
  }
  return p;
}

cached_formatter* formatter_for(const std::string& icu_id) {
  auto hit = std::find_if(formatters.begin(), formatters.end(),
                          [&](const auto& f) { return f.icu_id == icu_id; });
  if (hit != formatters.end()) {
    std::rotate(formatters.begin(), hit, hit + 1);
    return &formatters.front();
  }
  UErrorCode s = U_ZERO_ERROR;
  // Long date, medium time: no zone field (a long time would print ICU's
  // "GMT" name for the UTC it is given). Zone "UTC": the instant given is
  // already the local wall time.
  static const UChar utc[] = {'U', 'T', 'C', 0};
  std::unique_ptr<UDateFormat, udat_closer> f{udat_open(
    UDAT_MEDIUM, UDAT_LONG, icu_id.c_str(), utc, -1, nullptr, 0, &s)};
  if (U_FAILURE(s) || !f)
    return nullptr;
  auto fast = fast_pattern_for(f.get());
  if (formatters.size() == cache_size)
    formatters.pop_back();
  formatters.insert(formatters.begin(), {icu_id, std::move(f), std::move(fast)});
  return &formatters.front();
}

std::optional<std::string> format_local(cached_formatter& f, local_millis local,
                                        bool allow_fast) {
  if (allow_fast && f.fast) {
    auto t = fields_of(local);
    if (locale_pattern::in_range(t.year)) {
      std::string out;
      out.reserve(64);
      f.fast->format(t, out);
      return out;
    }
  }
  return icu_text(f.format.get(), local);
}

} // namespace

locale_lookup resolve_locale(std::string_view tag) {
  if (ascii_iequals(tag, "en-US"))
    return {friendly_locale{}, {}, {}};
  if (tag.empty() || tag.size() > max_tag_length
      || tag.find('\0') != std::string_view::npos)
    return refuse(tag, {});
  std::string input(tag);
  char id[ULOC_FULLNAME_CAPACITY];
  int32_t parsed = 0;
  UErrorCode s = U_ZERO_ERROR;
  int32_t len = uloc_forLanguageTag(input.c_str(), id, sizeof id, &parsed, &s);
  if (U_FAILURE(s) || s == U_STRING_NOT_TERMINATED_WARNING || len <= 0
      || parsed != static_cast<int32_t>(input.size()))
    return refuse(tag, {});
  char part[ULOC_FULLNAME_CAPACITY];
  s = U_ZERO_ERROR;
  uloc_getLanguage(id, part, sizeof part, &s);
  std::string language = U_SUCCESS(s) ? part : "";
  if (language.empty() || catalog().languages.count(language) == 0)
    return refuse(tag, {});
  s = U_ZERO_ERROR;
  uloc_getScript(id, part, sizeof part, &s);
  if (U_FAILURE(s) || (*part != '\0' && catalog().scripts.count(part) == 0))
    return refuse(tag, language);
  s = U_ZERO_ERROR;
  uloc_getCountry(id, part, sizeof part, &s);
  if (U_FAILURE(s) || (*part != '\0' && !known_region(part)))
    return refuse(tag, language);
  friendly_locale l;
  l.is_default = false;
  l.icu_id = id;
  return {std::move(l), {}, {}};
}

void localize_friendly(zoned_description& d, wall_time t,
                       const friendly_locale& locale) {
  if (locale.is_default)
    return; // describe's en-US text, no ICU
  cached_formatter* f = formatter_for(locale.icu_id);
  if (f == nullptr)
    return; // not reached for a resolved locale; keep the en-US text
  auto local = date::floor<std::chrono::milliseconds>(t) + d.state.utc_offset;
  if (f->fast) {
    auto fields = fields_of(local);
    if (locale_pattern::in_range(fields.year)) {
      // Into d.friendly's own buffer: one allocation less per zone.
      d.friendly.clear();
      d.friendly.reserve(64);
      f->fast->format(fields, d.friendly);
      d.friendly += ' ';
      d.friendly += d.state.abbreviation;
      return;
    }
  }
  auto text = icu_text(f->format.get(), local);
  if (!text)
    return;
  d.friendly = std::move(*text);
  d.friendly += ' ';
  d.friendly += d.state.abbreviation;
}

namespace detail {

bool has_fast_path(const std::string& icu_id) {
  auto* f = formatter_for(icu_id);
  return f != nullptr && f->fast.has_value();
}

std::optional<std::string> friendly_local_text(wall_time local,
                                               const std::string& icu_id,
                                               bool fast) {
  auto* f = formatter_for(icu_id);
  if (f == nullptr || (fast && !f->fast))
    return std::nullopt;
  return format_local(*f, date::floor<std::chrono::milliseconds>(local), fast);
}

} // namespace detail

} // namespace ttm::domain
