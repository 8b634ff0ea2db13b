#pragma once

// The one grammar for a time a request names (docs/time-grammar.md):
// ISO 8601 with an offset, a local date-time or a date read in a zone,
// unix:/unix_ms: numbers (absolute_time.hpp), and the phrases people and
// models write (natural_time.hpp), read against an explicit `now`.
// Case-insensitive; ambiguous phrases report the convention used.

#include "domain/absolute_time.hpp"
#include "domain/time_words.hpp"

#include <string_view>

namespace ttm::domain {

/// Reads `text` (at most 128 characters are looked at; longer is refused).
/// `options.in` must point to a zone.
time_input_result parse_time_input(std::string_view text,
                                   const time_input_options& options);

} // namespace ttm::domain
