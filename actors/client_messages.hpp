#pragma once

// What a client actor takes: frames from the transport (answered with an
// rpc_output, which the transport delivers to the frame's sink), and the
// supervisor's and journal's notices about its tracking sessions.

#include "actors/atoms.hpp"
#include "actors/transport_messages.hpp" // frames and their inspect
#include "mcp/handed_session.hpp"
#include "mcp/output.hpp"

#include <caf/allowed_unsafe_message_type.hpp>

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/timespan.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

namespace ttm::actors {

/// A client actor's reply to one frame (built by its MCP session).
using rpc_output = mcp::rpc_output;

/// One per MCP client session: runs its requests, owns its tracking
/// sessions. `expire` removes those past their limits and returns their ids;
/// `evict` drops an ended one the supervisor reclaimed; `idle` (the
/// supervisor's MCP-session idle timeout) ends the actor when it saw no
/// frame for that long and has none in progress. `drop` (from the
/// supervisor): another client actor of this server took that tracking
/// session over from the journal. `fault` says why
/// the journal cannot be opened (empty: it is open again), so that a
/// session this actor does not hold answers STORAGE_UNAVAILABLE meanwhile.
/// `restore` (from the transport): the MCP session's state as the journal
/// has it now (another server changed it: its log level), before the next
/// frame. `resume` (from itself, through the scheduler): run the held heavy
/// frame now, on a worker (inline_unit.hpp). `hand_over` (from another
/// client actor, through the supervisor): that client, of this principal
/// and era, takes a tracking session of this one over; hand the copy over
/// (mcp::session::hand_over).
using client_actor = caf::typed_actor<
  caf::replies_to<rpc_atom, protocol::frame>::with<rpc_output>,
  caf::replies_to<expire_atom>::with<std::vector<std::string>>,
  caf::reacts_to<evict_atom, std::string>,
  caf::reacts_to<idle_atom, caf::timespan>,
  caf::reacts_to<drop_atom, std::string>,
  caf::reacts_to<fault_atom, std::string>,
  caf::reacts_to<restore_atom, std::string>,
  caf::reacts_to<resume_atom>,
  caf::replies_to<hand_over_atom, std::string, std::string,
                  std::string>::with<mcp::handed_session>>;

} // namespace ttm::actors

// -- inspection (required by CAF for every message type) ----------------------

namespace ttm::mcp {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, rpc_output& x) {
  return f(caf::meta::type_name("rpc_output"), x.notifications, x.response,
           x.created, x.gone, x.mcp_state);
}

} // namespace ttm::mcp

// Local only, moved (see mcp::handed_session): never serialized.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::mcp::handed_session)
