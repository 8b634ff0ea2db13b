#pragma once

#include "actors/client.hpp"
#include "actors/client_messages.hpp"
#include "actors/journal_messages.hpp"
#include "domain/lazy_deque.hpp"
#include "actors/supervisor_messages.hpp"
#include "actors/transport_messages.hpp"

#include "storage/change_signal.hpp"

#include <caf/actor_addr.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ttm::actors {

struct transport_config {
  client_config client;
  supervisor_actor supervisor;
  /// Invalid with --ephemeral (then `client.journal` is false).
  journal_actor journal;
  /// HTTP: the MCP-session change signal (the SQLite directory's, or this
  /// node's PostgreSQL listener's). A frame on a stored route goes on
  /// without asking the journal while its record was read here less than
  /// `mcp_recheck` ago and no server changed a record of its slot since
  /// (see `check_route`).
  /// Null: every such frame asks the journal first.
  storage::change_signal_ptr mcp_changes;
  caf::timespan mcp_recheck{std::chrono::seconds{30}};
};

/// Sets `tc`'s change signal and its re-check interval: half the interval
/// at which the journal records a session's use (a minute, or half the idle
/// timeout when that is shorter; actors/journal_mcp.cpp), so that a session
/// in use is read, and its use recorded, often enough never to expire.
void set_mcp_recheck(transport_config& tc, storage::change_signal_ptr signal,
                     std::chrono::seconds idle_timeout);

/// One routing key (the stdio connection, an Mcp-Session-Id) and the client
/// actor behind it.
struct route_state {
  client_actor client;
  bool admitted = false;
  /// Created with `open` or `call`: refusals go to `reply_sink::refused`,
  /// and the supervisor admits its client actor as one that ends when idle.
  bool opened = false;
  /// A principal's route (`call`): not counted as an MCP session.
  bool principal = false;
  /// Whose route this is (bearer-token name or "local"): its client actor
  /// records it with the sessions it starts and may take theirs over.
  std::string principal_name = "local";
  /// Tracking sessions of this route's client actor, in the directory.
  std::unordered_set<std::string> owned;
  /// Frames that arrived while the supervisor was deciding on admission.
  /// lazy_deque: allocates only while frames wait (memory per idle session).
  domain::lazy_deque<std::pair<protocol::frame, sink_ptr>> backlog;
  /// Frames sent to the client and not yet answered.
  std::size_t in_flight = 0;
  /// Ids (JSON text) of single requests in flight; a multiset because a
  /// client may reuse an id after its reply.
  std::unordered_multiset<std::string> pending_ids;
  /// In-flight requests the client cancelled: their responses are dropped.
  std::unordered_set<std::string> cancelled;
  /// An HTTP MCP session kept in the journal (issue 32): each frame waits
  /// for the journal's record first (`checking`), so that one deleted or
  /// changed through another server is answered as there. A route made for
  /// an unknown Mcp-Session-Id waits the same way, restored from the
  /// record if the journal has one for its principal (else 404).
  bool stored = false;
  bool checking = false;
  /// When the record was last read here (clock's mono ns; `never`), and the
  /// change signal's count of its slot read just before (mcp_changes).
  static constexpr std::int64_t never = INT64_MIN;
  std::int64_t checked_ns = never;
  std::uint64_t seen_changes = 0;
  /// The MCP session's state (session::state_json) as last stored or read.
  std::string state;
  /// The edge said no more input will come on this route.
  bool eof = false;
  sink_ptr eof_sink;
};

/// The route key of a principal's client actor (modern-era requests).
/// Distinct from any Mcp-Session-Id, which is made of visible ASCII only.
std::string principal_key(const std::string& principal);

struct transport_state {
  transport_config cfg;
  /// `cfg.client` as its client actors share it (made at the first admit).
  std::shared_ptr<const client_config> shared_client;
  std::unordered_map<std::string, route_state> routes;
  /// The route of each client actor (monitored), to forget it when the
  /// actor ends on its own.
  std::unordered_map<caf::actor_addr, std::string> keys;
  /// The directory: tracking session id -> the route whose client actor
  /// owns it. Follows what client actors report with their replies.
  std::unordered_map<std::string, std::string> directory;
  static inline const char* name = "ttm.transport";
};

/// Routes frames from the edges to client actors, creating a client actor
/// (admitted by the supervisor) for each new route, and delivers the replies
/// to the frame's sink; forgets a route whose client actor ended. Never
/// formats a timestamp, never parses HTTP.
transport_actor::behavior_type
transport_behavior(transport_actor::stateful_pointer<transport_state> self,
                   transport_config cfg);

} // namespace ttm::actors
