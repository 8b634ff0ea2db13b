#pragma once

// Runs the actors that a thread's own message wakes on that thread itself:
// stdio's reader (edge/stdio.cpp) and each HTTP I/O thread
// (edge/http_inline.hpp). A client that sends a request and waits for its
// reply then pays no hand-off to a scheduler thread and back (a wake-up
// each, 10-15 us on a small VM). The actors stay ordinary CAF actors:
// whoever unblocks an actor's mailbox schedules it, so timers, the
// journal's replies and other threads still run them on the scheduler's
// workers, and an actor never runs on two threads at once.
//
// The policy says what else the thread owes:
// - `keep` (stdio's reader: one client, nothing else to serve): an actor
//   with more messages than one turn allows runs again here, and every
//   call runs here, heavy or not.
// - `responsive` (an HTTP I/O thread: other connections wait on it): such
//   an actor goes to the scheduler, so the thread returns to its sockets;
//   and an actor with work that may take long (mcp::heavy_frame) holds it
//   and asks for a message after its turn (`send_after_turn`): sent then
//   through the scheduler, it wakes the actor on a worker, where the work
//   runs. (While the actor runs, a message to itself would only join its
//   mailbox and run in the same turn, on the same thread.)

#include <caf/actor_cast.hpp>
#include <caf/actor_control_block.hpp>
#include <caf/actor_system.hpp>
#include <caf/execution_unit.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/message.hpp>
#include <caf/message_id.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace ttm::actors {

enum class inline_policy { keep, responsive };

class inline_unit final : public caf::execution_unit {
public:
  inline_unit(caf::actor_system& sys, inline_policy policy)
    : caf::execution_unit(&sys), policy_(policy) {
  }

  inline_policy policy() const noexcept {
    return policy_;
  }

  /// Called by actors this unit is running, and by `send`'s enqueue.
  void exec_later(caf::resumable* job) override {
    jobs_.push_back(job);
  }

  /// An anonymous message to `dest`; what it wakes runs at the next
  /// `run_all` (so several messages queued first still meet in one turn).
  template <class Handle, class... Ts>
  void send(const Handle& dest, Ts&&... xs) {
    auto* ptr = caf::actor_cast<caf::abstract_actor*>(dest);
    ptr->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(),
                                           {}, std::forward<Ts>(xs)...),
                 this);
  }

  /// Runs every woken job until all of them wait for messages again (or,
  /// `responsive`, have gone to the scheduler).
  void run_all() {
    while (next_ < jobs_.size()) {
      auto* job = jobs_[next_++];
      switch (job->resume(this, max_throughput)) {
        case caf::resumable::resume_later: // keeps its reference
          if (policy_ == inline_policy::responsive)
            system().scheduler().enqueue(job);
          else
            jobs_.push_back(job);
          break;
        case caf::resumable::done:
        case caf::resumable::awaiting_message:
          intrusive_ptr_release(job);
          break;
        case caf::resumable::shutdown_execution_unit:
          break; // only the scheduler's own jobs say so
      }
      flush_after_turn();
    }
    jobs_.clear(); // keeps its capacity: no allocation per call
    next_ = 0;
  }

  /// Sends `msg` to `dest` once the current actor's turn is over, through
  /// the scheduler (`responsive` only: see above).
  void send_after_turn(caf::strong_actor_ptr dest, caf::message msg) {
    after_turn_.emplace_back(std::move(dest), std::move(msg));
  }

private:
  void flush_after_turn() {
    while (!after_turn_.empty()) {
      auto [dest, msg] = std::move(after_turn_.back());
      after_turn_.pop_back();
      dest->enqueue(nullptr, caf::make_message_id(), std::move(msg),
                    nullptr); // no unit: the scheduler runs `dest`
    }
  }

  /// Messages per actor before the next job gets a turn (CAF's default).
  static constexpr std::size_t max_throughput = 300;

  inline_policy policy_;
  std::vector<caf::resumable*> jobs_;
  std::size_t next_ = 0; // jobs_[next_] runs next
  std::vector<std::pair<caf::strong_actor_ptr, caf::message>> after_turn_;
};

/// The unit `ctx` is if it must stay responsive (an HTTP I/O thread);
/// nullptr otherwise (a worker, stdio's reader).
inline inline_unit* as_responsive(caf::execution_unit* ctx) {
  auto* unit = dynamic_cast<inline_unit*>(ctx);
  return unit && unit->policy() == inline_policy::responsive ? unit
                                                             : nullptr;
}

} // namespace ttm::actors
