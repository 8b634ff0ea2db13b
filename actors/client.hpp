#pragma once

#include "actors/client_state.hpp"
#include "actors/messages.hpp"

#include <optional>

namespace ttm::actors {

struct client_actor_state {
  std::optional<client_state> mcp;
  static inline const char* name = "ttm.client";
};

/// The behavior of a client actor: one per MCP client session.
client_actor::behavior_type
client_behavior(client_actor::stateful_pointer<client_actor_state> self,
                client_config cfg);

} // namespace ttm::actors
