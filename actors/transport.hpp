#pragma once

#include "actors/client_state.hpp"
#include "actors/messages.hpp"
#include "domain/clock.hpp"

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ttm::actors {

struct transport_config {
  client_config client;
  supervisor_actor supervisor;
  /// Routes created with `open` (HTTP MCP sessions) that see no frame for
  /// this long, with nothing in flight, are ended. Zero: never. Read with
  /// `client.clock`; checked every quarter of it (at least every second).
  std::chrono::milliseconds idle_timeout{0};
};

/// One routing key (the stdio connection, an Mcp-Session-Id) and the client
/// actor behind it.
struct route_state {
  client_actor client;
  bool admitted = false;
  /// Created with `open`: refusals go to `reply_sink::refused`, and the
  /// route expires when idle.
  bool opened = false;
  /// When the route last received a frame (monotonic clock).
  domain::mono_time last_active{};
  /// Frames that arrived while the supervisor was deciding on admission.
  std::deque<std::pair<protocol::frame, sink_ptr>> backlog;
  /// Frames sent to the client and not yet answered.
  std::size_t in_flight = 0;
  /// Ids (JSON text) of single requests in flight; a multiset because a
  /// client may reuse an id after its reply.
  std::unordered_multiset<std::string> pending_ids;
  /// In-flight requests the client cancelled: their responses are dropped.
  std::unordered_set<std::string> cancelled;
  /// The edge said no more input will come on this route.
  bool eof = false;
  sink_ptr eof_sink;
};

struct transport_state {
  transport_config cfg;
  std::unordered_map<std::string, route_state> routes;
  /// A sweep message is on its way.
  bool sweep_armed = false;
  static inline const char* name = "ttm.transport";
};

/// Routes frames from the edges to client actors, creating a client actor
/// (admitted by the supervisor) for each new route, and delivers the replies
/// to the frame's sink; ends idle `open`ed routes. Never formats a
/// timestamp, never parses HTTP.
transport_actor::behavior_type
transport_behavior(transport_actor::stateful_pointer<transport_state> self,
                   transport_config cfg);

} // namespace ttm::actors
