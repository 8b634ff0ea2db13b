#pragma once

// What the edges send to the transport actor: its typed interface, frames,
// and the reply_sink it answers through. The edges include this header and
// nothing else of actors/, so it names no tools, no storage and no MCP
// session: routes and frames only. Messages are copyable value types (the
// sink is the one handle). Atoms are in atoms.hpp, by receiver.

#include "actors/atoms.hpp"
#include "protocol/json_rpc.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace ttm::actors {

/// Why the transport did not route a frame. Only frames sent with `open` or
/// `forward` (HTTP) can be refused; the HTTP edge maps these to statuses.
enum class route_refusal : std::uint8_t {
  /// No such route: never opened, ended by the client, expired when idle,
  /// or its client actor ended (404).
  unknown_route,
  /// The supervisor's cap on concurrent MCP sessions is reached (503).
  busy,
};

/// A refusal of who sent a request (401, 403, 429) for the audit trail,
/// from an edge to the journal (which records it as a domain::refusal).
/// Never the token.
struct audited_refusal {
  std::int64_t wall_ns = 0;
  int status = 0;
  std::string reason; ///< the refusal's message, as the client got it
  std::string client_address;
  std::string principal; ///< empty: not known
  /// Refusals of the address left out before this one (rate limit).
  std::uint64_t suppressed = 0;
};

/// Where the transport delivers what the server says on a route: a stdio
/// writer, an HTTP response. Implemented by the edge; called from the
/// transport actor only.
class reply_sink {
public:
  virtual ~reply_sink();
  /// One complete JSON-RPC message (or batch reply): a frame's response.
  virtual void deliver(std::string json) = 0;
  /// A notification sent while handling a frame, always before the frame's
  /// response. HTTP needs the distinction (it decides between a JSON body and
  /// an SSE stream); a line-based edge does not.
  virtual void deliver_notification(std::string json) {
    deliver(std::move(json));
  }
  /// The transport is done with one frame given with this sink: its replies
  /// (if any) were delivered or dropped. Lets an edge bound what it has in
  /// flight instead of queueing without limit behind a slow client.
  virtual void frame_done() {
  }
  /// The frame was not routed: nothing was delivered and `frame_done` will
  /// not follow. Called instead of `frame_done` (or `close` for `end`).
  virtual void refused(route_refusal why) {
    (void) why;
    frame_done();
  }
  /// The route is finished: every reply was delivered.
  virtual void close() = 0;
};

using sink_ptr = std::shared_ptr<reply_sink>;

/// Routes frames from the edges to client actors by routing key.
///  - inbound: a frame for KEY; a new KEY gets a route (stdio: the one
///    connection is the session, any first message opens it).
///  - eof: no more input on KEY; the route closes once its replies are out.
///  - open: a frame (HTTP: `initialize`) from PRINCIPAL that creates the
///    route KEY; refused
///    with `busy` at the session cap. Its client actor ends when idle (the
///    supervisor decides).
///  - forward: a frame from PRINCIPAL for an existing route of PRINCIPAL
///    only; else `unknown_route` (another principal's route is refused
///    exactly like one that does not exist, and a warning is logged).
///  - end: ends route KEY of PRINCIPAL now (HTTP DELETE); the sink is
///    closed, or refused with `unknown_route` (as for `forward`).
///  - call: a 2026-07-28 request (HTTP) from PRINCIPAL, for PRINCIPAL's
///    client actor (created on demand, not counted as an MCP session), which
///    owns every tracking session that principal started in that era.
///  - recovered: the journal opened (after a `fault`: it works again).
///  - audit: a refusal at the edge (401, 403, 429) for the audit trail,
///    passed on to the journal (none with --ephemeral: dropped). The edge
///    rate-limits them per client address.
///  - fault: the journal cannot be opened (why; it keeps trying): client
///    actors, told `fault`, answer STORAGE_UNAVAILABLE for the sessions
///    they do not hold, until `recovered` comes.
/// The transport keeps a directory of tracking sessions (id -> owning
/// route) from what client actors report with their replies.
/// A route whose client actor ends (idle, crash) is forgotten: its eof sink
/// is closed and later frames on it get `unknown_route`.
using transport_actor = caf::typed_actor<
  caf::reacts_to<inbound_atom, std::string, protocol::frame, sink_ptr>,
  caf::reacts_to<eof_atom, std::string, sink_ptr>,
  caf::reacts_to<open_atom, std::string, std::string, protocol::frame,
                 sink_ptr>,
  caf::reacts_to<forward_atom, std::string, std::string, protocol::frame,
                 sink_ptr>,
  caf::reacts_to<end_atom, std::string, std::string, sink_ptr>,
  caf::reacts_to<call_atom, std::string, protocol::frame, sink_ptr>,
  caf::reacts_to<recovered_atom>,
  caf::reacts_to<audit_atom, audited_refusal>,
  caf::reacts_to<fault_atom, std::string>>;

} // namespace ttm::actors

// -- inspection (required by CAF for every message type) ----------------------

namespace ttm::protocol {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, request_id& x) {
  return f(caf::meta::type_name("request_id"), x.kind, x.json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, envelope& x) {
  return f(caf::meta::type_name("envelope"), x.claimed, x.version, x.problem,
           x.log_level, x.traceparent, x.tracestate);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, message& x) {
  return f(caf::meta::type_name("message"), x.kind, x.id, x.method, x.params,
           x.error_code, x.error_message, x.meta, x.name, x.handle,
           x.lookup);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trace_context& x) {
  return f(caf::meta::type_name("trace_context"), x.request_id, x.trace_id,
           x.parent_id, x.flags, x.tracestate, x.origin);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, frame& x) {
  return f(caf::meta::type_name("frame"), x.batch, x.error_code,
           x.error_message, x.messages, x.trace);
}

} // namespace ttm::protocol

// A refusal for the audit trail, from an edge to the journal in process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::audited_refusal)

// A sink is a local callback handle; it never crosses a process boundary.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::sink_ptr)
