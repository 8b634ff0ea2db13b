#include "actors/client.hpp"

#include <caf/all.hpp>

namespace ttm::actors {

reply_sink::~reply_sink() = default;

client_actor::behavior_type
client_behavior(client_actor::stateful_pointer<client_actor_state> self,
                client_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.mcp.emplace(std::move(cfg));
  return {
    [=](rpc_atom, const protocol::frame& in) -> rpc_output {
      return self->state.mcp->handle(in);
    },
  };
}

} // namespace ttm::actors
