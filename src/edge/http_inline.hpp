#pragma once

// Runs the actors an HTTP I/O thread's message wakes on that thread itself
// (issue 33): a steady-state request then costs no hand-off to a scheduler
// thread and back (a wake-up each, 10-15 us on a small VM), as stdio's
// reader thread does (inline_unit in stdio.cpp). The actors stay ordinary
// CAF actors: whoever unblocks an actor's mailbox schedules it, so timers,
// the journal's replies and other threads still run them on the
// scheduler's workers, and an actor never runs on two threads at once.
// A call declared heavy (tools::cost) is not run here: the client actor
// sees a responsive unit and holds it for a worker (responsive_unit.hpp),
// so a long call never holds up this thread's other connections.

#include "actors/responsive_unit.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/execution_unit.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <deque>
#include <memory>
#include <utility>

namespace ttm::edge {

class http_inline_unit final : public actors::responsive_unit {
public:
  explicit http_inline_unit(caf::actor_system& sys)
    : actors::responsive_unit(&sys) {
  }

  /// Called by actors this unit is running, and by `send_inline`'s enqueue.
  void exec_later(caf::resumable* job) override {
    jobs_.push_back(job);
  }

  /// Runs every woken job once. One that has more messages than a turn
  /// allows (other I/O threads keep its mailbox full) goes to the
  /// scheduler: this thread returns to its sockets.
  void run_all() {
    while (!jobs_.empty()) {
      auto* job = jobs_.front();
      jobs_.pop_front();
      switch (job->resume(this, max_throughput)) {
        case caf::resumable::resume_later:
          system().scheduler().enqueue(job); // keeps its reference
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
  }

  /// This thread's unit for `sys` (made on first use; an I/O thread serves
  /// one server, of one actor system).
  static http_inline_unit& of_this_thread(caf::actor_system& sys) {
    thread_local std::unique_ptr<http_inline_unit> unit;
    if (!unit || &unit->system() != &sys)
      unit = std::make_unique<http_inline_unit>(sys);
    return *unit;
  }

private:
  /// Messages per actor before the next job gets a turn (CAF's default).
  static constexpr std::size_t max_throughput = 300;

  std::deque<caf::resumable*> jobs_;
};

/// anon_send to `dest`, then runs what it woke on this thread.
template <class Handle, class... Ts>
void send_inline(const Handle& dest, Ts&&... xs) {
  auto* ptr = caf::actor_cast<caf::abstract_actor*>(dest);
  auto& unit = http_inline_unit::of_this_thread(ptr->home_system());
  ptr->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                         std::forward<Ts>(xs)...),
               &unit);
  unit.run_all();
}

} // namespace ttm::edge
