#pragma once

// A session's task runs for statistics as its summary counts them: active
// time between pauses, corrected instants and statuses. The journal hands
// them to storage with the events that change them, so time_stats agrees
// with the summary (the store's pairing of events knows starts and ends
// only).

#include "domain/tracking.hpp"
#include "storage/records.hpp"

#include <optional>
#include <vector>

namespace ttm::journal {

/// The runs to store with `c`, a change of `s` (the session as the
/// tracker holds it after the change): always when `c` closes it, and
/// while it is open once a run was paused or corrected (from then on with
/// every change, so the stored runs never fall behind the events). None:
/// storage pairs the events, which is exact for such a session.
std::optional<std::vector<storage::stored_run>>
runs_to_store(const domain::tracking_session& s, const domain::change& c);

/// The runs of `s` at `now`, in the order they started.
std::vector<storage::stored_run> runs_of(const domain::tracking_session& s,
                                         domain::instant now);

} // namespace ttm::journal
