#pragma once

// Stored sessions back into a tracker, through the same operations that made
// them, so a recovered session is exactly what the live one was.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "storage/store.hpp"

#include <string>
#include <vector>

namespace ttm::journal {

/// Replays stored sessions into `tr` (recording off), as of `now` on
/// `clock`. Events of another boot keep their monotonic spacing within that
/// boot and are placed on this boot's monotonic clock through the wall
/// clock (`instant::boot` > 0), so a duration across the reboot is a
/// wall-clock one. `local_zone` resolves the zone names stored. Returns the
/// ids replayed; a session whose events cannot be read is skipped and
/// described in `problems`; an expired one is only remembered as expired.
std::vector<std::string> replay(domain::tracker& tr,
                                const std::vector<storage::stored_session>& in,
                                const domain::clock_source& clock,
                                const std::string& local_zone,
                                std::vector<std::string>& problems);

} // namespace ttm::journal
