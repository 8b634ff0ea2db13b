#pragma once

// Expiry for the whole data directory: an open session that no live server
// holds (its process ended, or its client let go of it) is expired here by
// whichever server looks first, when its age or idle limit has passed by
// the wall clock (the monotonic clock of a dead process means nothing).
// Sessions a live server holds are expired by that server's client actors.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "storage/store.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace ttm::journal {

/// The session_expired events (reason "age" or "idle", at the clock's now,
/// each at the session's epoch, `if_due`) for `orphans` past their limits.
std::vector<storage::event>
expiry_events(const std::vector<storage::orphan>& orphans,
              const domain::tracking_limits& limits,
              const domain::clock_source& clock);

struct expiry_run {
  std::size_t expired = 0;
  /// Not empty: the store could not be read or written (logged by the
  /// caller; the next run tries again).
  std::string error;
};

/// Finds the orphans due at the clock's now (at most `batch`) and records
/// their expiry, each in its own transaction: one written meanwhile (its
/// epoch moved on), or called through a live server since (its recorded
/// activity no longer due), is fenced and left to that server.
expiry_run expire_orphans(storage::store& store,
                          const domain::tracking_limits& limits,
                          const domain::clock_source& clock,
                          std::size_t batch = 1000);

} // namespace ttm::journal
