#pragma once

// The small readers the phrase grammar (natural_time.cpp) is built from: a
// time of day ("9am", "10:30 pm", "15:00", "15h30", "noon") and amounts
// ("3 hours", "an hour and a half", "1.5 days", "2h").

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain::phrase {

using words = std::vector<std::string_view>;

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

} // namespace ttm::domain::phrase
