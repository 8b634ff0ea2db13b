#pragma once

// The phrases of the time grammar (docs/time-grammar.md): days, weekdays,
// month dates, times of day, amounts from now, starts and ends of periods.
// A hand-written reader over the words of the lower-cased input: no regex,
// nothing allocated per word beyond the word list.

#include "domain/absolute_time.hpp"
#include "domain/time_words.hpp"

#include <string_view>

namespace ttm::domain {

/// Reads `lowered` (the input lower-cased, trimmed, spaces single or not)
/// against options.now in options.in. `text` is the input as written.
/// Refusals carry suggestions: the nearest phrases that read.
time_input_result parse_natural_time(std::string_view text,
                                     std::string_view lowered,
                                     const time_input_options& options);

} // namespace ttm::domain
