#include "domain/locale_pattern.hpp"

#include <unicode/ucal.h>
#include <unicode/unum.h>
#include <unicode/ustring.h>

#include <cstring>

namespace ttm::domain {

std::string plain_utf8(std::u16string_view text) {
  std::u16string plain(text);
  for (auto& c : plain)
    if (c == 0x202F || c == 0x00A0)
      c = u' ';
  std::string out(plain.size() * 3, '\0');
  int32_t len = 0;
  UErrorCode s = U_ZERO_ERROR;
  u_strToUTF8WithSub(out.data(), static_cast<int32_t>(out.size()), &len,
                     reinterpret_cast<const UChar*>(plain.data()),
                     static_cast<int32_t>(plain.size()), 0xFFFD, nullptr, &s);
  out.resize(U_SUCCESS(s) ? static_cast<std::size_t>(len) : 0);
  return out;
}

namespace {

bool is_pattern_letter(char16_t c) {
  return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

// ICU formats numeric fields with the formatter's number format: only
// Latin digits make them plain ASCII digits.
bool latin_digits(const UNumberFormat* nf) {
  static const UNumberFormatSymbol digits[] = {
    UNUM_ZERO_DIGIT_SYMBOL, UNUM_ONE_DIGIT_SYMBOL,   UNUM_TWO_DIGIT_SYMBOL,
    UNUM_THREE_DIGIT_SYMBOL, UNUM_FOUR_DIGIT_SYMBOL, UNUM_FIVE_DIGIT_SYMBOL,
    UNUM_SIX_DIGIT_SYMBOL,  UNUM_SEVEN_DIGIT_SYMBOL, UNUM_EIGHT_DIGIT_SYMBOL,
    UNUM_NINE_DIGIT_SYMBOL};
  for (int i = 0; i < 10; ++i) {
    UChar buf[8];
    UErrorCode s = U_ZERO_ERROR;
    int32_t n = unum_getSymbol(nf, digits[i], buf, 8, &s);
    if (U_FAILURE(s) || n != 1 || buf[0] != u'0' + i)
      return false;
  }
  return true;
}

void append_number(std::string& out, unsigned v, unsigned width) {
  char digits[12];
  char* d = digits + sizeof digits;
  do {
    *--d = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 || digits + sizeof digits - d < static_cast<long>(width));
  out.append(d, digits + sizeof digits);
}

} // namespace

std::optional<locale_pattern> locale_pattern::compile(UDateFormat* f) {
  UErrorCode s = U_ZERO_ERROR;
  // Another calendar (japanese, buddhist, persian...) has other fields.
  const char* calendar = ucal_getType(udat_getCalendar(f), &s);
  if (U_FAILURE(s) || calendar == nullptr
      || std::strcmp(calendar, "gregorian") != 0)
    return std::nullopt;
  const UNumberFormat* nf = udat_getNumberFormat(f);
  if (nf == nullptr || !latin_digits(nf))
    return std::nullopt;

  UChar buf[256];
  s = U_ZERO_ERROR;
  int32_t len = udat_toPattern(f, false, buf, 256, &s);
  if (U_FAILURE(s) || s == U_STRING_NOT_TERMINATED_WARNING || len <= 0)
    return std::nullopt;
  std::u16string_view pattern(reinterpret_cast<const char16_t*>(buf),
                              static_cast<std::size_t>(len));

  locale_pattern p;
  // A name table from ICU's symbols, once per type; -1 when ICU has not
  // the `count` names from `first`.
  std::vector<UDateFormatSymbolType> loaded;
  auto table = [&](UDateFormatSymbolType type, int32_t first,
                   int32_t count) -> long {
    for (std::size_t i = 0; i < loaded.size(); ++i)
      if (loaded[i] == type)
        return static_cast<long>(i);
    if (udat_countSymbols(f, type) < first + count)
      return -1;
    std::vector<std::string> names;
    for (int32_t i = first; i < first + count; ++i) {
      UChar name[128];
      UErrorCode e = U_ZERO_ERROR;
      int32_t n = udat_getSymbols(f, type, i, name, 128, &e);
      if (U_FAILURE(e) || e == U_STRING_NOT_TERMINATED_WARNING || n <= 0)
        return -1;
      names.push_back(plain_utf8(std::u16string_view(
        reinterpret_cast<const char16_t*>(name), static_cast<std::size_t>(n))));
    }
    loaded.push_back(type);
    p.names_.push_back(std::move(names));
    return static_cast<long>(p.names_.size() - 1);
  };
  auto literal = [&](std::u16string_view text) {
    if (text.empty())
      return;
    auto utf8 = plain_utf8(text);
    step st;
    st.kind = op::literal;
    st.a = static_cast<std::uint32_t>(p.literals_.size());
    st.b = static_cast<std::uint32_t>(utf8.size());
    p.literals_ += utf8;
    p.steps_.push_back(st);
  };
  // One run of a pattern letter, as ICU's SimpleDateFormat::subFormat reads
  // it; false for anything else.
  auto field_run = [&](char16_t letter, std::size_t count) {
    // A field ICU formats with its own digits ("y=hanidec") is refused.
    if (udat_getNumberFormatForField(f, letter) != nf)
      return false;
    step st;
    st.width = static_cast<std::uint8_t>(count);
    auto number = [&](field of, std::size_t max_width) {
      st.kind = op::number;
      st.of = of;
      return count <= max_width;
    };
    auto name = [&](field of, UDateFormatSymbolType type, int32_t first,
                    int32_t n) {
      long t = table(type, first, n);
      st.kind = op::name;
      st.of = of;
      st.a = static_cast<std::uint32_t>(t);
      return t >= 0;
    };
    bool ok = false;
    switch (letter) {
    case u'y':
      // 'y' unpadded, 'yy' the last two digits, 'yyy'/'yyyy' padded.
      ok = number(field::year, 4);
      if (count == 2)
        st.kind = op::year2;
      break;
    case u'M':
    case u'L': {
      bool standalone = letter == u'L';
      if (count <= 2)
        ok = number(field::month, 2);
      else if (count == 3)
        ok = name(field::month,
                  standalone ? UDAT_STANDALONE_SHORT_MONTHS : UDAT_SHORT_MONTHS,
                  0, 12);
      else if (count == 4)
        ok = name(field::month, standalone ? UDAT_STANDALONE_MONTHS : UDAT_MONTHS,
                  0, 12);
      break;
    }
    case u'd': ok = number(field::day, 2); break;
    case u'h': ok = number(field::hour_h, 2); break;
    case u'H': ok = number(field::hour_H, 2); break;
    case u'K': ok = number(field::hour_K, 2); break;
    case u'k': ok = number(field::hour_k, 2); break;
    case u'm': ok = number(field::minute, 2); break;
    case u's': ok = number(field::second, 2); break;
    case u'a': // 'aaaa' (wide) and 'aaaaa' (narrow) use other names
      ok = count <= 3 && name(field::am_pm, UDAT_AM_PMS, 0, 2);
      break;
    case u'E': // ICU's weekday names start at index 1, UCAL_SUNDAY
      if (count <= 3)
        ok = name(field::weekday, UDAT_SHORT_WEEKDAYS, 1, 7);
      else if (count == 4)
        ok = name(field::weekday, UDAT_WEEKDAYS, 1, 7);
      break;
    case u'c': // 'c'/'cc' are numeric, locale-dependent: refused
      if (count == 3)
        ok = name(field::weekday, UDAT_STANDALONE_SHORT_WEEKDAYS, 1, 7);
      else if (count == 4)
        ok = name(field::weekday, UDAT_STANDALONE_WEEKDAYS, 1, 7);
      break;
    default:
      break;
    }
    if (ok)
      p.steps_.push_back(st);
    return ok;
  };

  // SimpleDateFormat::format's loop: '' is a quote in or out of quotes, a
  // quote toggles quoting, unquoted ASCII letters are fields, the rest is
  // copied.
  std::u16string text;
  bool in_quote = false;
  for (std::size_t i = 0; i < pattern.size();) {
    char16_t c = pattern[i];
    if (c == u'\'') {
      if (i + 1 < pattern.size() && pattern[i + 1] == u'\'') {
        text += u'\'';
        i += 2;
      } else {
        in_quote = !in_quote;
        ++i;
      }
    } else if (!in_quote && is_pattern_letter(c)) {
      std::size_t count = 1;
      while (i + count < pattern.size() && pattern[i + count] == c)
        ++count;
      literal(text);
      text.clear();
      if (!field_run(c, count))
        return std::nullopt;
      i += count;
    } else {
      text += c;
      ++i;
    }
  }
  literal(text);
  return p;
}

void locale_pattern::format(const local_fields& t, std::string& out) const {
  for (const auto& st : steps_) {
    unsigned v = 0;
    switch (st.of) {
    case field::none: break;
    case field::year: v = static_cast<unsigned>(t.year); break;
    case field::month: v = t.month; break;
    case field::day: v = t.day; break;
    case field::hour_h: v = t.hour % 12 == 0 ? 12 : t.hour % 12; break;
    case field::hour_H: v = t.hour; break;
    case field::hour_K: v = t.hour % 12; break;
    case field::hour_k: v = t.hour == 0 ? 24 : t.hour; break;
    case field::minute: v = t.minute; break;
    case field::second: v = t.second; break;
    case field::am_pm: v = t.hour < 12 ? 0 : 1; break;
    case field::weekday: v = t.weekday; break;
    }
    switch (st.kind) {
    case op::literal: out.append(literals_, st.a, st.b); break;
    case op::number: append_number(out, v, st.width); break;
    case op::year2: append_number(out, v % 100, 2); break;
    case op::name:
      // Months are 1-based, the tables 0-based.
      out += names_[st.a][st.of == field::month ? v - 1 : v];
      break;
    }
  }
}

} // namespace ttm::domain
