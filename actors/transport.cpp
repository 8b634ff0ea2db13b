// The transport actor's handlers: each message from an edge, routed by
// the steps in transport_routes.cpp, transport_admission.cpp and
// transport_stored.cpp.

#include "actors/transport.hpp"
#include "actors/transport_parts.hpp"

#include "log.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>

namespace ttm::actors {

using namespace transport_detail;

void set_mcp_recheck(transport_config& tc, storage::change_signal_ptr signal,
                     std::chrono::seconds idle_timeout) {
  using namespace std::chrono;
  nanoseconds touch = minutes{1};
  if (idle_timeout.count() > 0)
    touch = std::min<nanoseconds>(touch, idle_timeout / 2);
  tc.mcp_changes = std::move(signal);
  tc.mcp_recheck = touch / 2;
}

std::string principal_key(const std::string& principal) {
  // A space never occurs in an Mcp-Session-Id (visible ASCII only).
  return "principal " + principal;
}

transport_actor::behavior_type
transport_behavior(transport_actor::stateful_pointer<transport_state> self,
                   transport_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.cfg = std::move(cfg);
  // On shutdown take every client actor along.
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    for (auto& [key, r] : self->state.routes)
      if (r.client)
        self->send_exit(r.client, msg.reason);
    self->quit(msg.reason);
  });
  // A client actor ended on its own (the supervisor's idle timeout, a
  // crash). Requests it had not answered get CAF's error (-32603 in
  // `forward`) before this message; later frames on the key find no route.
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto k = self->state.keys.find(dm.source);
    if (k == self->state.keys.end())
      return; // its route was closed already
    auto key = k->second;
    if (dm.reason != caf::exit_reason::user_shutdown)
      TTM_LOG(error, "transport", "client actor on route '" + loggable(key)
                                    + "' ended: "
                                    + self->system().render(dm.reason));
    close_route(self, key);
  });
  return {
    [=](inbound_atom, const std::string& key, protocol::frame& f,
        sink_ptr& sink) {
      auto& r = self->state.routes[key];
      if (!r.client)
        admit(self, key);
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](open_atom, const std::string& key, const std::string& principal,
        protocol::frame& f, sink_ptr& sink) {
      if (self->state.routes.count(key) > 0) {
        // Keys are 128 random bits: a clash means a broken edge.
        TTM_LOG(error, "transport", "open: route '" + loggable(key)
                                      + "' exists already");
        sink->refused(route_refusal::busy);
        return;
      }
      auto& r = self->state.routes[key];
      r.opened = true;
      r.principal_name = principal;
      admit(self, key);
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](forward_atom, const std::string& key, const std::string& principal,
        protocol::frame& f, sink_ptr& sink) {
      if (self->state.routes.count(key) == 0 && self->state.cfg.journal) {
        restore_route(self, key, principal, std::move(f), std::move(sink));
        return;
      }
      if (!routable(self, key, principal, "a request")) {
        sink->refused(route_refusal::unknown_route);
        return;
      }
      auto& r = self->state.routes[key];
      if (r.stored && !still_current(self, key, r)) {
        // Deleted or changed through another server? The journal says
        // before the frame goes on.
        r.backlog.emplace_back(std::move(f), std::move(sink));
        check_route(self, key);
        return;
      }
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](end_atom, const std::string& key, const std::string& principal,
        sink_ptr& sink) {
      if (self->state.routes.count(key) == 0 && self->state.cfg.journal) {
        end_elsewhere(self, key, principal, std::move(sink));
        return;
      }
      if (!routable(self, key, principal, "an end (DELETE)")) {
        sink->refused(route_refusal::unknown_route);
        return;
      }
      TTM_LOG(debug, "transport", "route '" + loggable(key)
                                    + "' ended by the client");
      bool stored = self->state.routes[key].stored;
      close_route(self, key);
      if (!stored) {
        sink->close();
        return;
      }
      // Gone for every server before the client hears so.
      self
        ->request(self->state.cfg.journal, caf::infinite,
                  mcp_end_atom::value, key)
        .then([=](bool) { sink->close(); },
              [=](caf::error&) { sink->close(); });
    },
    [=](call_atom, const std::string& principal, protocol::frame& f,
        sink_ptr& sink) {
      // All of a principal's 2026-07-28 tracking sessions live in its one
      // client actor. A call naming a session another route owns (another
      // principal, a 2025 MCP session) goes there too: that actor answers
      // SESSION_NOT_FOUND, exactly as for an id never issued.
      auto key = principal_key(principal);
      if (log::enabled(log::level::debug) && !f.batch
          && f.messages.size() == 1 && !f.messages.front().handle.empty()) {
        auto d = self->state.directory.find(f.messages.front().handle);
        if (d != self->state.directory.end() && d->second != key)
          TTM_LOG(debug, "transport", "principal '" + principal
                                        + "' named a tracking session of "
                                          "another owner");
      }
      auto& r = self->state.routes[key];
      if (!r.client) {
        r.opened = true;
        r.principal = true;
        r.principal_name = principal;
        TTM_LOG(debug, "transport", "principal '" + principal
                                      + "' gets a client actor");
        admit(self, key);
      }
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](fault_atom, std::string& reason) {
      set_storage_fault(self, std::move(reason));
    },
    [=](audit_atom, audited_refusal& r) {
      if (self->state.cfg.journal)
        self->send(self->state.cfg.journal, audit_atom::value, std::move(r));
    },
    [=](recovered_atom) {
      if (!self->state.cfg.client.storage_fault.empty())
        set_storage_fault(self, {});
    },
    [=](eof_atom, const std::string& key, sink_ptr& sink) {
      auto i = self->state.routes.find(key);
      if (i == self->state.routes.end()) {
        sink->close();
        return;
      }
      i->second.eof = true;
      i->second.eof_sink = std::move(sink);
      maybe_finish(self, key);
    },
  };
}

} // namespace ttm::actors
