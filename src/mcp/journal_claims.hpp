#pragma once

// The MCP session's claims on the journal: which session a call must check
// or take over before it runs, the journal epoch each held session is at,
// the events a call's changes become (each at the epoch its session will be
// at), and what a stored or refused write does to those epochs. Plain
// bookkeeping: the frame state machine (session.hpp) pauses and resumes.

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "protocol/era.hpp"
#include "protocol/json_rpc.hpp"
#include "storage/records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ttm::mcp {

class journal_claims {
public:
  /// The principal, boot and client every event and claim is made for.
  journal_claims(std::string principal, std::string boot_id,
                 std::string client_label);

  /// The claim `msg` (a tools/call or resources/read of the era `era`)
  /// needs before it runs, if any: its session by handle, the one this
  /// client started with its idempotency key, or a lookup of that key.
  std::optional<storage::claim_request>
  claim_for(const protocol::message& msg, protocol::era era,
            domain::tracker& tracker,
            const domain::clock_source& clock) const;

  /// The events for `changes` (by `tool`, if any, for the audit trail),
  /// each at the epoch its session will be at. `in_flight`: a frame's
  /// write, whose epochs apply once it is stored (see `stored`); else an
  /// expiry outside a frame, which leaves a paused frame's epochs alone.
  std::vector<storage::event> to_events(std::vector<domain::change> changes,
                                        const domain::tracker& tracker,
                                        protocol::era era,
                                        const std::string& tool,
                                        bool in_flight);

  /// The write in flight was stored: the sessions `tracker` still holds
  /// are at the epochs it left them at.
  void stored(const domain::tracker& tracker);
  /// The write in flight was not stored: the epochs stay as they were.
  void abandon() noexcept {
    pending_.clear();
  }

  /// Session `id` is held here at `epoch` (taken over from the journal).
  void hold(const std::string& id, std::int64_t epoch) {
    epochs_[id] = epoch;
  }
  /// Session `id` is no longer held here.
  void forget(const std::string& id) {
    epochs_.erase(id);
  }

  /// The epoch a session is at, a write in flight included; 0: unknown.
  std::int64_t current_epoch(const std::string& id) const;

  /// The open sessions `tracker` holds and their epochs.
  std::vector<std::pair<std::string, std::int64_t>>
  held(const domain::tracker& tracker) const;

  /// Of the copies `asked` about (id, epoch), the `stale` ones still at
  /// the epoch asked about (a write of this client since made its copy
  /// current is not).
  std::vector<std::string>
  stale(const std::vector<std::pair<std::string, std::int64_t>>& asked,
        const std::vector<std::string>& stale) const;

private:
  using epoch_map = std::unordered_map<std::string, std::int64_t>;
  std::string principal_;
  /// The boot the clock's monotonic times belong to.
  std::string boot_id_;
  std::string client_label_;
  /// The journal epoch at which each held session is held (see
  /// storage::store::claim): every write carries it.
  epoch_map epochs_;
  /// What `epochs_` becomes once the journal stored the write in flight.
  epoch_map pending_;
};

} // namespace ttm::mcp
