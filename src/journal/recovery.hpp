#pragma once

// A restart: what a store holds is read back, and what expired while the
// server was down is recorded as expired. Runs on the journal actor's
// thread (actors/journal.cpp), off the start-up path.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "storage/store.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ttm::journal {

/// Marks `expired` (and empties) the sessions already past their age or
/// idle limit at the clock's wall time (the server was down meanwhile; the
/// monotonic clock cannot tell) and returns the session_expired events of
/// the open ones among them. Their owner still learns SESSION_EXPIRED.
std::vector<storage::event>
expire_recovered(std::vector<storage::stored_session>& sessions,
                 const domain::tracking_limits& limits,
                 const domain::clock_source& clock);

/// What a store holds for a restart: its open sessions and those that
/// ended within their age limit (at most `limits.max_sessions`, newest),
/// minus those past their limits by now, whose expiry is recorded here.
struct recovery {
  /// Expired ones included (state expired, no events).
  std::vector<storage::stored_session> sessions;
  std::size_t expired = 0;
  /// Not empty: the store could not be read (nothing recovered).
  std::string error;
};

recovery recover(storage::store& store, const domain::tracking_limits& limits,
                 const domain::clock_source& clock);

} // namespace ttm::journal
