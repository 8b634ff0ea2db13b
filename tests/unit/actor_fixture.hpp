#pragma once

// The actor system the actor tests share: a supervisor and a transport on
// CAF's deterministic scheduler (nothing runs until the test says so), time
// from a fake clock. Each test file derives its own fixture from
// actor_fixture and adds the helpers it needs.

#include "actors/client.hpp"
#include "actors/supervisor.hpp"
#include "actors/transport.hpp"
#include "domain/clock.hpp"
#include "log.hpp"
#include "tools/registry.hpp"

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ttm::test {

// Refusals log warnings by design; keep the rest of the actors (info lines)
// quiet in test runs.
inline const bool quiet_actor_logs
  = (log::set_threshold(log::level::warning), true);

/// Keeps all the transport hands it, in order.
struct collecting_sink final : actors::reply_sink {
  std::vector<std::string> lines;
  /// Indexes into `lines` of what came as notifications.
  std::vector<std::size_t> notification_lines;
  std::vector<actors::route_refusal> refusals;
  int done = 0;
  int closed = 0;
  void deliver(std::string json) override {
    lines.push_back(std::move(json));
  }
  void deliver_notification(std::string json) override {
    notification_lines.push_back(lines.size());
    lines.push_back(std::move(json));
  }
  void frame_done() override {
    ++done;
  }
  void refused(actors::route_refusal why) override {
    refusals.push_back(why);
  }
  void close() override {
    ++closed;
  }
};

inline caf::actor_system_config&
deterministic_config(caf::actor_system_config& cfg) {
  cfg.set("scheduler.policy", caf::atom("testing"));
  cfg.set("logger.file-verbosity", caf::atom("quiet"));
  cfg.set("logger.console-verbosity", caf::atom("quiet"));
  return cfg;
}

/// A client configuration for tests (its clock is the fixture's).
inline actors::client_config
test_client_config(const domain::tracking_limits& limits = {}) {
  actors::client_config client;
  client.registry = tools::make_registry(limits, {"all"});
  client.local_zone = "America/New_York";
  client.info = {"time-tracker-mcp", "Time Tracker MCP", "0.0.0", "test"};
  client.limits = limits;
  return client;
}

struct actor_fixture {
  using transport_impl
    = caf::stateful_actor<actors::transport_state,
                          actors::transport_actor::base>;

  /// Spawns the supervisor and the transport, its clients configured as
  /// `client` with the fixture's clock, and runs them.
  actor_fixture(actors::client_config client,
                const actors::supervisor_config& sup_cfg)
    : sys(deterministic_config(cfg)),
      sched(dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler())),
      clock(std::make_shared<domain::fake_clock>(
        domain::wall_time{std::chrono::milliseconds{1734187532123}})) {
    client.clock = clock;
    supervisor = sys.spawn(actors::supervisor_behavior, sup_cfg);
    actors::transport_config tc;
    tc.client = std::move(client);
    tc.supervisor = supervisor;
    transport = sys.spawn(actors::transport_behavior, std::move(tc));
    sched.run();
  }

  ~actor_fixture() {
    caf::anon_send_exit(transport, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    sched.run();
  }

  actor_fixture(const actor_fixture&) = delete;
  actor_fixture& operator=(const actor_fixture&) = delete;

  /// Asks the supervisor for a count (`what`), running what it takes.
  template <class Atom>
  std::uint64_t ask_supervisor(Atom what) {
    caf::scoped_actor self{sys};
    auto handle = self->request(supervisor, caf::infinite, what);
    sched.run();
    std::uint64_t n = 999'999;
    handle.receive([&](std::uint64_t x) { n = x; },
                   [&](caf::error&) { FAIL("supervisor request failed"); });
    return n;
  }

  /// Client actors the supervisor admitted and still monitors.
  std::uint64_t counted_clients() {
    return ask_supervisor(actors::count_atom::value);
  }

  /// Tracking-session slots the supervisor holds.
  std::uint64_t slots() {
    return ask_supervisor(actors::slots_atom::value);
  }

  /// The transport's state (the deterministic scheduler runs nothing
  /// concurrently with the test).
  actors::transport_state& state() {
    auto* ptr = dynamic_cast<transport_impl*>(
      caf::actor_cast<caf::abstract_actor*>(transport));
    REQUIRE(ptr != nullptr);
    return ptr->state;
  }

  /// The client actor behind `route`.
  actors::client_actor client_of(const std::string& route) {
    auto& routes = state().routes;
    auto i = routes.find(route);
    REQUIRE(i != routes.end());
    return i->second.client;
  }

  template <class Handle>
  static caf::resumable* job_of(const Handle& handle) {
    return dynamic_cast<caf::resumable*>(
      caf::actor_cast<caf::abstract_actor*>(handle));
  }

  /// Runs only the jobs of `handle`'s actor.
  template <class Handle>
  void run_only(const Handle& handle) {
    auto* ptr = job_of(handle);
    sched.run_jobs_filtered([=](caf::resumable* job) { return job == ptr; });
  }

  /// Runs every job except the supervisor's.
  void run_all_but_supervisor() {
    auto* ptr = job_of(supervisor);
    sched.run_jobs_filtered([=](caf::resumable* job) { return job != ptr; });
  }

  /// Fires the supervisor's pending sweep and runs what follows.
  void sweep() {
    REQUIRE(sched.trigger_timeouts() == 1);
    sched.run();
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scheduler::test_coordinator& sched;
  std::shared_ptr<domain::fake_clock> clock;
  actors::supervisor_actor supervisor;
  actors::transport_actor transport;
};

} // namespace ttm::test
