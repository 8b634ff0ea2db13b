#pragma once

// The `format` argument the time tools share (time_get_current,
// time_convert): its values and what each makes of an instant.

#include "domain/time_format.hpp"

#include <string>
#include <vector>

namespace ttm::tools {

/// "iso8601", "unix", "unix_ms", "friendly".
const std::vector<std::string>& timestamp_formats();

/// The instant `t`, described as `d` (domain::describe), in `format`, one
/// of timestamp_formats(): ISO 8601 for anything else.
std::string format_timestamp(const std::string& format, domain::wall_time t,
                             const domain::zoned_description& d);

} // namespace ttm::tools
