#pragma once

// A session's task runs as the journal stores them for statistics: paired
// from its task and closing events, and, once the session is closed,
// packed into its row (schema 4) so that a range of sessions reads one
// small value per session instead of every event.

#include "storage/records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::storage {

/// Pairs a session's task and closing events (oldest first) into runs, in
/// the order they started. A task_ended's `status` names how it ended.
std::vector<stored_run> pair_runs(const std::vector<run_event>& events);

/// The packed form (version byte, then per run: task id, start, end and
/// duration as varints, status): ~20 bytes a run.
std::string pack_runs(const std::vector<stored_run>& runs);

/// None: not a packing this version wrote (the caller pairs the events).
std::optional<std::vector<stored_run>> unpack_runs(std::string_view packed);

} // namespace ttm::storage
