#pragma once

// Runs the actors an HTTP I/O thread's message wakes on that thread itself
// (issue 33), as stdio's reader does: one actors::inline_unit per I/O
// thread, `responsive` (actors/inline_unit.hpp): an actor with more than a
// turn of messages goes to the scheduler, and a call declared heavy
// (tools::cost) is held for a worker, so a long call never holds up this
// thread's other connections.

#include "actors/inline_unit.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>

#include <memory>
#include <utility>

namespace ttm::edge {

/// This thread's unit for `sys` (made on first use; an I/O thread serves
/// one server, of one actor system).
inline actors::inline_unit& io_thread_unit(caf::actor_system& sys) {
  thread_local std::unique_ptr<actors::inline_unit> unit;
  if (!unit || &unit->system() != &sys)
    unit = std::make_unique<actors::inline_unit>(
      sys, actors::inline_policy::responsive);
  return *unit;
}

/// anon_send to `dest`, then runs what it woke on this thread.
template <class Handle, class... Ts>
void send_inline(const Handle& dest, Ts&&... xs) {
  auto* ptr = caf::actor_cast<caf::abstract_actor*>(dest);
  auto& unit = io_thread_unit(ptr->home_system());
  unit.send(dest, std::forward<Ts>(xs)...);
  unit.run_all();
}

} // namespace ttm::edge
