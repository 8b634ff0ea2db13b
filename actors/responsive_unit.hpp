#pragma once

// An execution unit whose thread must stay responsive (an HTTP I/O thread
// running the actors its request woke, edge/http_inline.hpp). An actor
// that finds itself on one with work that may take long (mcp::heavy_frame)
// holds that work and asks for a message after its turn: sent then through
// the scheduler, it wakes the actor on a worker, where the work runs.
// While the actor runs, a message to itself would only join its mailbox
// and run in the same turn, on the same thread.

#include <caf/execution_unit.hpp>
#include <caf/message.hpp>
#include <caf/message_id.hpp>
#include <caf/actor_control_block.hpp>

#include <utility>
#include <vector>

namespace ttm::actors {

class responsive_unit : public caf::execution_unit {
public:
  using caf::execution_unit::execution_unit;

  /// Sends `msg` to `dest` once the current actor's turn is over, through
  /// the scheduler.
  void send_after_turn(caf::strong_actor_ptr dest, caf::message msg) {
    after_turn_.emplace_back(std::move(dest), std::move(msg));
  }

protected:
  /// Called by the unit after each turn it ran.
  void flush_after_turn() {
    while (!after_turn_.empty()) {
      auto [dest, msg] = std::move(after_turn_.back());
      after_turn_.pop_back();
      dest->enqueue(nullptr, caf::make_message_id(), std::move(msg),
                    nullptr); // no unit: the scheduler runs `dest`
    }
  }

private:
  std::vector<std::pair<caf::strong_actor_ptr, caf::message>> after_turn_;
};

/// The responsive unit `ctx` is; nullptr when it is none (a worker, stdio's
/// reader).
inline responsive_unit* as_responsive(caf::execution_unit* ctx) {
  return dynamic_cast<responsive_unit*>(ctx);
}

} // namespace ttm::actors
