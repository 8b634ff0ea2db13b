#pragma once

// The small readers the phrase grammar (natural_time.cpp) is built from: a
// time of day ("9am", "10:30 pm", "15:00", "15h30", "noon") and amounts
// ("3 hours", "an hour and a half", "1.5 days", "2h").

#include "domain/absolute_time.hpp"
#include "domain/time_words.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain::phrase {

using words = std::vector<std::string_view>;

/// Whether `w` holds the word `x`.
bool contains(const words& w, std::string_view x);
/// The words, joined by single spaces.
std::string join(const words& w);

struct clock_read {
  std::chrono::milliseconds tod{0};
  /// An hour alone, no minutes and no am/pm ("at 7").
  bool bare = false;
  /// am or pm was written.
  bool meridiem = false;
  /// "noon" / "midnight".
  bool named = false;
};

/// A time of day at w[i] (with a separate "am"/"pm" or "o'clock" after it):
/// the number of words read, 0 if none. A bare hour only when
/// `allow_bare`. `why` is set when the words look like a time but are not
/// one ("13pm").
std::size_t read_clock(const words& w, std::size_t i, bool allow_bare,
                       clock_read& out, std::string& why);

enum class unit { second, minute, hour, day, week, month, year };

std::optional<unit> unit_of(std::string_view w);

/// One amount of each unit, in thousandths ("1.5" is 1500).
struct amounts {
  long long milli[7] = {};
  bool seen[7] = {};
};

/// Reads "3 hours 20 minutes", "a week and 2 days", "half an hour",
/// "an hour and a half", "1.5 days", "2h 30m": the amounts, or why not.
std::optional<amounts> read_amounts(const words& w, std::string& why);

/// "25", "25th", "1st", "25." (de), "1er" (fr): a day of the month 1..31.
std::optional<unsigned> day_number(std::string_view w);

/// Four digits.
std::optional<int> year_number(std::string_view w);

struct numeric_date {
  unsigned month = 0;
  unsigned day = 0;
  std::optional<int> year;
  bool day_first = false;
  /// Both numbers could be the month (3/7/2026): the order decided.
  bool ambiguous = false;
};

/// 12/25/2026 and 12/25 in `order`, 2026/12/25 (year first always),
/// 25.12.2026 and 25.12. (day first always); two-digit years are 20yy.
std::optional<numeric_date> read_numeric_date(std::string_view w,
                                              time_words::order_t order);

/// "in 3 business days": business days are time_calculate's operation.
time_input_error refuse_business(std::string_view text, const words& w);

/// Words no form reads: a period ("next month") pointed at its start and
/// end, else each unknown word replaced by the nearest known one when the
/// phrase then reads (time_phrase_refusals.cpp).
time_input_error refuse_unknown(std::string_view text, const words& w,
                                const time_input_options& options,
                                const time_words& words);

} // namespace ttm::domain::phrase
