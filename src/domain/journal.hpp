#pragma once

// Between the tracking model and storage: a tracker's changes become journal
// events (payload JSON), and stored sessions are replayed into a tracker
// through the same operations that made them, so a recovered session is
// exactly what the live one was.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "protocol/era.hpp"
#include "storage/store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ttm::domain {

/// The event for `c`, stamped with both clocks and `boot_id`. A
/// session_started event records `era` too: after a restart only a client
/// of the same protocol era may take it over.
storage::event to_event(const change& c, const std::string& principal,
                        const std::string& boot_id,
                        protocol::era era = protocol::era::legacy);

/// The era a stored session was started in (see to_event).
protocol::era era_of(const storage::stored_session& s);

/// Replays stored sessions into `tr` (recording off), as of `now` on
/// `clock`. Events of another boot keep their monotonic spacing within that
/// boot and are placed on this boot's monotonic clock through the wall
/// clock (`instant::boot` > 0), so a duration across the reboot is a
/// wall-clock one. `local_zone` resolves the zone names stored. Returns the
/// ids replayed; a session whose events cannot be read is skipped and
/// described in `problems`; an expired one is only remembered as expired.
std::vector<std::string> replay(tracker& tr,
                                const std::vector<storage::stored_session>& in,
                                const clock_source& clock,
                                const std::string& local_zone,
                                std::vector<std::string>& problems);

/// Marks `expired` (and empties) the sessions already past their age or
/// idle limit at the clock's wall time (the server was down meanwhile; the
/// monotonic clock cannot tell) and returns the session_expired events of
/// the open ones among them. Their owner still learns SESSION_EXPIRED.
std::vector<storage::event>
expire_recovered(std::vector<storage::stored_session>& sessions,
                 const tracking_limits& limits, const clock_source& clock);

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

recovery recover(storage::store& store, const tracking_limits& limits,
                 const clock_source& clock);

} // namespace ttm::domain
