#pragma once

// What the supervisor takes: client actors to admit, and requests for
// tracking-session slots (answered with a domain::slot_answer).

#include "actors/atoms.hpp"
#include "actors/client_messages.hpp"
#include "domain/slots.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttm::actors {

/// Global limits. Admits client actors (`admit` client + whether it ends
/// when idle (HTTP sessions and principals do, the stdio one does not) +
/// whether it is an MCP session, counted against the MCP-session cap and
/// held to the per-MCP-session share (principals are not: there is one per
/// bearer token at most) + its principal);
/// hands out the tracking-session slots (`acquire` session id + owner →
/// granted, or the limit that refused: the owner's MCP-session share, its
/// principal's share, the global cap), takes them back (`release` expired
/// ids; an owner's end frees all of its slots), learns which sessions ended
/// (`ended`: no longer counted in shares, reclaimable when room is needed;
/// `reopened`: time_undo took an end back, counted again), passes a
/// client's `hand_over` (session id, principal, era) on to the client actor
/// holding that session's slot (empty answer: none other holds it). Its periodic
/// `sweep` (sent to itself)
/// expires tracking sessions and sends `idle` to the clients that end when
/// idle. `count` / `slots` report client actors / tracking sessions.
using supervisor_actor = caf::typed_actor<
  caf::replies_to<admit_atom, client_actor, bool, bool,
                  std::string>::with<bool>,
  caf::replies_to<count_atom>::with<std::uint64_t>,
  caf::replies_to<acquire_atom, std::string,
                  client_actor>::with<domain::slot_answer>,
  caf::reacts_to<release_atom, std::vector<std::string>>,
  caf::reacts_to<ended_atom, std::vector<std::string>>,
  caf::reacts_to<reopened_atom, std::vector<std::string>>,
  caf::reacts_to<sweep_atom>,
  caf::replies_to<slots_atom>::with<std::uint64_t>,
  caf::reacts_to<adopt_atom, std::vector<std::string>, client_actor>,
  caf::replies_to<hand_over_atom, std::string, std::string,
                  std::string>::with<mcp::handed_session>>;

} // namespace ttm::actors

// -- inspection (required by CAF for every message type) ----------------------

namespace ttm::domain {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, slot_answer& x) {
  return f(caf::meta::type_name("slot_answer"), x.granted, x.limit, x.value);
}

} // namespace ttm::domain
