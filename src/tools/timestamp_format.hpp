#pragma once

// The `format` and `locale` arguments the time tools share
// (time_get_current, time_convert): their values and what each makes of an
// instant.

#include "domain/locale_format.hpp"
#include "domain/time_format.hpp"
#include "domain/time_words.hpp"
#include "tools/tool.hpp"

#include <string>
#include <vector>

namespace ttm::tools {

/// "iso8601", "unix", "unix_ms", "friendly".
const std::vector<std::string>& timestamp_formats();

/// The instant `t`, described as `d` (domain::describe), in `format`, one
/// of timestamp_formats(): ISO 8601 for anything else.
std::string format_timestamp(const std::string& format, domain::wall_time t,
                             const domain::zoned_description& d);

/// The `locale` argument's description.
extern const char* const locale_description;

/// `locale` as a tool reads it: VALIDATION_ERROR "locale: 'xx-YY' is not a
/// locale this server knows; e.g. ..." with valid tags as suggestions.
outcome<domain::friendly_locale> resolve_locale_arg(const std::string& tag);

/// The month and weekday names a tool without a `locale` argument reads
/// besides English: the caller's locale's (tool_context::locale); nullptr
/// for English alone or a locale this server does not know.
const domain::time_words* caller_time_words(const tool_context& ctx);

} // namespace ttm::tools
