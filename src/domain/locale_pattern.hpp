#pragma once

// A locale's friendly format without a call into ICU per text: the pattern
// of an opened ICU formatter (long date, medium time) and the names it
// uses, taken from ICU once and interpreted on the local date and time
// fields date/tz already computed. An ICU udat_format call costs about
// 1.5-2 us; this costs a few dozen ns. compile() refuses whatever it could
// not reproduce byte for byte, and that locale keeps formatting with ICU.

#include <unicode/udat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain {

/// UTF-16 from ICU as UTF-8, its narrow no-break and no-break spaces made
/// plain (U+0020) so the text does not change with the ICU version.
std::string plain_utf8(std::u16string_view text);

/// A local date and time in the proleptic Gregorian calendar.
struct local_fields {
  int year = 1970;
  unsigned month = 1;   // 1..12
  unsigned day = 1;     // 1..31
  unsigned hour = 0;    // 0..23
  unsigned minute = 0;  // 0..59
  unsigned second = 0;  // 0..59
  unsigned weekday = 4; // 0 = Sunday .. 6 = Saturday
};

class locale_pattern {
public:
  /// The pattern of `f` when every part of it is one this class formats as
  /// ICU does: the Gregorian calendar, Latin digits, no per-field digit
  /// override, and only the letters y M L d H h K k m s a E c (in the widths
  /// format() knows) besides quoted and other literal text. std::nullopt
  /// otherwise.
  static std::optional<locale_pattern> compile(UDateFormat* f);

  /// Years whose fields ICU's Gregorian calendar gives as date/tz does:
  /// after its Julian-to-Gregorian change (1582), at most 4 digits.
  static bool in_range(int year) {
    return year >= 1583 && year <= 9999;
  }

  /// Appends the text ICU's formatter would give for `t` (in_range(t.year)),
  /// its no-break spaces already plain.
  void format(const local_fields& t, std::string& out) const;

private:
  enum class op : std::uint8_t {
    literal,     // literals_[a, a + b)
    number,      // a field, zero-padded to `width`
    year2,       // 'yy': the last two digits
    name,        // names_[table][index of the field]
  };
  enum class field : std::uint8_t {
    none, year, month, day, hour_h, hour_H, hour_K, hour_k, minute, second,
    am_pm, weekday
  };
  struct step {
    op kind = op::literal;
    field of = field::none;
    std::uint8_t width = 0;
    std::uint32_t a = 0; // literal offset, or name table
    std::uint32_t b = 0; // literal length
  };

  std::vector<step> steps_;
  std::string literals_;
  std::vector<std::vector<std::string>> names_;
};

} // namespace ttm::domain
