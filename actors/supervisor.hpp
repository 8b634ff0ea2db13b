#pragma once

#include "actors/messages.hpp"

#include <caf/actor_addr.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ttm::actors {

struct supervisor_config {
  /// Concurrent MCP client sessions admitted at once.
  std::size_t max_clients = 10'000;
  /// Tracking sessions held at once, over all clients (ended ones count
  /// until they expire or are reclaimed to make room).
  std::size_t max_sessions = 100;
  /// How often expired tracking sessions are swept.
  caf::timespan sweep_interval = std::chrono::minutes{1};
};

/// One global tracking-session slot.
struct slot_entry {
  caf::actor_addr owner;
  bool ended = false;
};

/// A client actor holding slots.
struct owner_entry {
  client_actor handle;
  std::size_t slots = 0;
};

struct supervisor_state {
  supervisor_config cfg;
  std::unordered_set<caf::actor_addr> clients;
  std::unordered_map<std::string, slot_entry> slots;
  std::unordered_map<caf::actor_addr, owner_entry> owners;
  /// Ended sessions in the order they ended: the first to reclaim.
  std::deque<std::string> ended_order;
  static inline const char* name = "ttm.supervisor";
};

/// Admits client actors up to the global cap and forgets them when they
/// end; owns the global tracking-session slots, their expiry sweep and
/// their reclaiming.
supervisor_actor::behavior_type
supervisor_behavior(supervisor_actor::stateful_pointer<supervisor_state> self,
                    supervisor_config cfg);

} // namespace ttm::actors
