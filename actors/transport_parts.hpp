#pragma once

// Inside the transport actor only (actors/transport*.cpp): the steps its
// handlers (transport.cpp) share with routing (transport_routes.cpp),
// admission and closing (transport_admission.cpp) and the MCP sessions kept
// in the journal (transport_stored.cpp). The state is only named here, not
// included, so that transport.cpp may include this (no include cycle).

#include "actors/transport_messages.hpp"

#include <string>

namespace ttm::actors {

struct transport_state;
struct route_state;

namespace transport_detail {

using self_ptr = transport_actor::stateful_pointer<transport_state>;

// -- routing (transport_routes.cpp) ---------------------------------------

/// The id of a frame holding exactly one request, else empty.
protocol::request_id single_request_id(const protocol::frame& f);
/// A route key for the log: a prefix of an HTTP session id.
std::string loggable(const std::string& key);
/// Forwards route `key`'s waiting frames, in order, once it is admitted.
void drain_backlog(self_ptr self, const std::string& key);
/// Hands a frame to route `key`, which exists.
void route_frame(self_ptr self, const std::string& key, protocol::frame f,
                 sink_ptr sink);
/// Whether route `key` exists and belongs to `principal`.
bool routable(self_ptr self, const std::string& key,
              const std::string& principal, const char* what);
/// Tells every client actor why the journal cannot be opened ("": it is).
void set_storage_fault(self_ptr self, std::string reason);

// -- admission and closing (transport_admission.cpp) ----------------------

/// Spawns route `key`'s client actor and asks the supervisor to admit it.
void admit(self_ptr self, const std::string& key);
/// Ends a route and its client actor.
void close_route(self_ptr self, const std::string& key);
/// Closes a route whose input ended once everything it sent is answered.
void maybe_finish(self_ptr self, const std::string& key);

// -- MCP sessions kept in the journal (transport_stored.cpp) --------------

/// Whether a frame on stored route `r` may go on without asking the journal.
bool still_current(self_ptr self, const std::string& key,
                   const route_state& r);
/// Asks the journal for route `key`'s MCP session before its backlog goes on.
void check_route(self_ptr self, const std::string& key);
/// A frame for an Mcp-Session-Id this server has no route for.
void restore_route(self_ptr self, const std::string& key,
                   const std::string& principal, protocol::frame f,
                   sink_ptr sink);
/// DELETE of an MCP session this server has no route for.
void end_elsewhere(self_ptr self, const std::string& key,
                   const std::string& principal, sink_ptr sink);

} // namespace transport_detail
} // namespace ttm::actors
