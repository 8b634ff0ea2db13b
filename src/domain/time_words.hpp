#pragma once

// The words the time grammar reads for months, weekdays and days (today,
// tomorrow, ...), and the order of a numeric date: English always, plus the
// caller's locale from ICU's data (docs/time-grammar.md, "Locales"). A
// locale's words are built on its first use and kept for the process.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::domain {

struct time_words {
  /// How a numeric date with slashes is read: 12/25/2026 (en-US),
  /// 25/12/2026 (en-GB, de-DE, fr-FR), 2026/12/25 (ja-JP).
  enum order_t { month_first, day_first, year_first };
  order_t order = month_first;
  /// The locale these words are of ("" for English alone), e.g. "de_DE".
  std::string icu_id;
  /// Lower-cased word -> 1..12.
  std::vector<std::pair<std::string, unsigned>> months;
  /// Lower-cased word -> 0 (Sunday) .. 6 (Saturday).
  std::vector<std::pair<std::string, unsigned>> weekdays;
  /// Lower-cased word -> days from today ("tomorrow" 1, "vorgestern" -2).
  std::vector<std::pair<std::string, int>> days;
  /// Words that may stand before a time of day ("at", "um", "à").
  std::vector<std::string> at;

  std::optional<unsigned> month(std::string_view w) const;
  std::optional<unsigned> weekday(std::string_view w) const;
  std::optional<int> day(std::string_view w) const;
  bool is_at(std::string_view w) const;
};

/// English alone, month first (en-US).
const time_words& english_time_words();

/// English and the words of `icu_id` (e.g. "de_DE"), in its numeric date
/// order; English alone for "" or an English locale with month first.
/// Thread-safe; ICU is opened only on a locale's first use.
const time_words& time_words_for(const std::string& icu_id);

/// Lower-cases UTF-8 text through ICU (for names like "MÄRZ"); ASCII-only
/// text never gets here.
std::string lower_utf8(std::string_view text);

} // namespace ttm::domain
