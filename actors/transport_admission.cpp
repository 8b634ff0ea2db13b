// A route's start and end: its client actor, spawned and admitted by the
// supervisor (or refused: the frames waiting are answered), and its closing.

#include "actors/transport.hpp"
#include "actors/transport_parts.hpp"

#include "domain/ids.hpp"
#include "log.hpp"
#include "protocol/request_ids.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <vector>

namespace ttm::actors::transport_detail {

namespace {

using route_iter = std::unordered_map<std::string, route_state>::iterator;

/// Forgets a route and ends its client actor (a no-op if it ended already).
void erase_route(self_ptr self, route_iter i) {
  auto& r = i->second;
  for (const auto& id : r.owned)
    self->state.directory.erase(id);
  if (r.client) {
    self->state.keys.erase(r.client.address());
    self->send_exit(r.client, caf::exit_reason::user_shutdown);
  }
  self->state.routes.erase(i);
}

} // namespace

/// Ends a route and its client actor. However it ends (a DELETE too), the
/// tracking sessions it held stay open for their principal.
void close_route(self_ptr self, const std::string& key) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return;
  auto& r = i->second;
  auto sink = r.eof_sink;
  // Frames still waiting for admission never reach a client actor.
  auto backlog = std::move(r.backlog);
  erase_route(self, i);
  TTM_LOG(debug, "transport", "route '" + loggable(key) + "' closed");
  for (auto& entry : backlog)
    entry.second->refused(route_refusal::unknown_route);
  if (sink)
    sink->close();
}

/// Closes a route whose input ended once everything it sent is answered.
void maybe_finish(self_ptr self, const std::string& key) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return;
  auto& r = i->second;
  if (r.eof && r.in_flight == 0 && r.backlog.empty()
      && (r.admitted || !r.client))
    close_route(self, key);
}

void admit(self_ptr self, const std::string& key) {
  auto& st = self->state;
  auto& r = st.routes[key];
  // One copy of the configuration for all client actors (issue 33).
  if (!st.shared_client)
    st.shared_client = std::make_shared<const client_config>(st.cfg.client);
  mcp::session_identity own{r.principal_name, domain::log_id(key),
                            st.cfg.client.storage_fault,
                            r.state}; // empty unless from the journal
  r.client = self->spawn(client_behavior, st.shared_client, std::move(own),
                         self->state.cfg.supervisor,
                         self->state.cfg.journal);
  // A client actor may end on its own (idle timeout, crash): then its route
  // must go too, or it would answer -32603 forever.
  self->monitor(r.client);
  self->state.keys.emplace(r.client.address(), key);
  // Only HTTP sessions end when idle: stdio's one client lives as long as
  // its connection.
  self->request(self->state.cfg.supervisor, caf::infinite, admit_atom::value,
                r.client, r.opened, !r.principal, r.principal_name)
    .then(
      [=](bool ok) {
        auto i = self->state.routes.find(key);
        if (i == self->state.routes.end())
          return;
        auto& r = i->second;
        if (!ok && r.opened) {
          // The edge answers (HTTP: 503 + Retry-After); nothing else to do.
          auto backlog = std::move(r.backlog);
          erase_route(self, i);
          for (auto& entry : backlog)
            entry.second->refused(route_refusal::busy);
          return;
        }
        if (!ok) {
          // Refused at the global cap: answer what waits, close its sinks and
          // forget the route (a later frame on it asks again).
          std::vector<sink_ptr> sinks;
          for (auto& [f, sink] : r.backlog) {
            auto rid = single_request_id(f);
            if (!rid.json.empty()) {
              auto reply = protocol::encode_error(
                rid, protocol::internal_error,
                "Server busy: the limit of concurrent MCP sessions is "
                "reached; retry later");
              protocol::stamp_error(reply, f.trace.request_id);
              sink->deliver(std::move(reply));
            }
            sink->frame_done();
            if (std::find(sinks.begin(), sinks.end(), sink) == sinks.end())
              sinks.push_back(sink);
          }
          if (r.eof_sink
              && std::find(sinks.begin(), sinks.end(), r.eof_sink)
                   == sinks.end())
            sinks.push_back(r.eof_sink);
          erase_route(self, i);
          for (auto& sink : sinks)
            sink->close();
          return;
        }
        r.admitted = true;
        drain_backlog(self, key);
        maybe_finish(self, key);
      },
      [=](caf::error& err) {
        TTM_LOG(error, "transport", "admission failed: "
                                      + self->system().render(err));
        auto i = self->state.routes.find(key);
        if (i != self->state.routes.end()) {
          for (auto& entry : i->second.backlog) {
            if (i->second.opened)
              entry.second->refused(route_refusal::busy);
            else
              entry.second->frame_done();
          }
          i->second.backlog.clear();
          close_route(self, key);
        }
      });
}

} // namespace ttm::actors::transport_detail
