// actors::inline_unit, the unit on which stdio's reader and the HTTP I/O
// threads run the actors their messages wake: its two policies differ only
// in what becomes of an actor with more than one turn of messages (and in
// whether heavy frames are held: as_responsive). On CAF's deterministic
// scheduler what the unit hands on waits for `sched.run()`, so the test
// sees exactly what ran on the unit.

#include "actors/inline_unit.hpp"

#include <catch2/catch.hpp>
#include "actor_fixture.hpp"

#include <memory>

using namespace ttm;

namespace {

struct counting {
  caf::actor_system_config cfg;
  caf::actor_system sys{test::deterministic_config(cfg)};
  caf::scheduler::test_coordinator& sched{
    dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())};
  std::shared_ptr<int> seen = std::make_shared<int>(0);
  caf::actor counter;

  counting() {
    // `seen` as a spawn argument, not a capture: CAF 0.17 spawns a function
    // without arguments through a null argument tuple (UBSan: reference
    // binding to null pointer).
    counter = sys.spawn(
      [](caf::event_based_actor*, std::shared_ptr<int> n) {
        return caf::behavior{[n](int) { ++*n; }};
      },
      seen);
    sched.run();
  }

  ~counting() {
    caf::anon_send_exit(counter, caf::exit_reason::user_shutdown);
    sched.run();
  }
};

// More than one turn (300 messages, CAF's default throughput).
constexpr int many = 1000;

} // namespace

TEST_CASE("inline unit (keep): an actor with many messages runs them all "
          "on the unit",
          "[inline_unit]") {
  counting c;
  actors::inline_unit unit{c.sys, actors::inline_policy::keep};
  for (int i = 0; i < many; ++i)
    unit.send(c.counter, i);
  CHECK(*c.seen == 0); // nothing runs before run_all
  unit.run_all();
  CHECK(*c.seen == many);
  CHECK_FALSE(c.sched.has_job());
  CHECK(actors::as_responsive(&unit) == nullptr);
}

TEST_CASE("inline unit (responsive): an actor with more than a turn of "
          "messages goes on on the scheduler",
          "[inline_unit]") {
  counting c;
  actors::inline_unit unit{c.sys, actors::inline_policy::responsive};
  for (int i = 0; i < many; ++i)
    unit.send(c.counter, i);
  unit.run_all();
  CHECK(*c.seen > 0);
  CHECK(*c.seen < many); // the rest waits for a worker
  REQUIRE(c.sched.has_job());
  c.sched.run();
  CHECK(*c.seen == many);
  CHECK(actors::as_responsive(&unit) == &unit);
}

TEST_CASE("inline unit: a message after a turn goes through the scheduler",
          "[inline_unit]") {
  counting c;
  actors::inline_unit unit{c.sys, actors::inline_policy::responsive};
  // What a client actor holding a heavy frame does; the unit sends it once
  // the turn it runs is over (here: the next run_all's).
  unit.send_after_turn(caf::actor_cast<caf::strong_actor_ptr>(c.counter),
                       caf::make_message(7));
  unit.send(c.counter, 1);
  unit.run_all();
  CHECK(*c.seen == 1);
  REQUIRE(c.sched.has_job());
  c.sched.run();
  CHECK(*c.seen == 2);
}
