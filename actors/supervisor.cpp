#include "actors/supervisor.hpp"

#include "log.hpp"

#include <caf/all.hpp>

namespace ttm::actors {

supervisor_actor::behavior_type
supervisor_behavior(supervisor_actor::stateful_pointer<supervisor_state> self,
                    supervisor_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.cfg = cfg;
  self->set_down_handler([=](const caf::down_msg& dm) {
    if (self->state.clients.erase(dm.source) > 0)
      TTM_LOG(debug, "supervisor",
              "client ended; " + std::to_string(self->state.clients.size())
                + " active");
  });
  return {
    [=](admit_atom, const client_actor& client) -> bool {
      auto& st = self->state;
      if (st.clients.size() >= st.cfg.max_clients) {
        TTM_LOG(warning, "supervisor",
                "refused a client: limit of "
                  + std::to_string(st.cfg.max_clients)
                  + " concurrent MCP sessions reached");
        return false;
      }
      self->monitor(client);
      st.clients.insert(client.address());
      return true;
    },
    [=](count_atom) -> std::uint64_t { return self->state.clients.size(); },
  };
}

} // namespace ttm::actors
