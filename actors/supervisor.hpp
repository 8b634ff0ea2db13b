#pragma once

#include "actors/messages.hpp"

#include <cstddef>
#include <unordered_set>

namespace ttm::actors {

struct supervisor_config {
  /// Concurrent MCP client sessions admitted at once.
  std::size_t max_clients = 10'000;
};

struct supervisor_state {
  supervisor_config cfg;
  std::unordered_set<caf::actor_addr> clients;
  static inline const char* name = "ttm.supervisor";
};

/// Admits client actors up to the global cap and forgets them when they end.
supervisor_actor::behavior_type
supervisor_behavior(supervisor_actor::stateful_pointer<supervisor_state> self,
                    supervisor_config cfg);

} // namespace ttm::actors
