#pragma once

// The one grammar for a time a request names (docs/tools.md, "Time inputs"):
// ISO 8601 with an offset, a local date-time or a date read in a zone,
// unix:/unix_ms: numbers (absolute_time.hpp), and a small set of relative
// expressions evaluated against an explicit `now`. Case-insensitive;
// nothing else is guessed.

#include "domain/absolute_time.hpp"

#include <string_view>

namespace ttm::domain {

/// Reads `text` (at most 128 characters are looked at; longer is refused).
/// `options.in` must point to a zone.
time_input_result parse_time_input(std::string_view text,
                                   const time_input_options& options);

} // namespace ttm::domain
