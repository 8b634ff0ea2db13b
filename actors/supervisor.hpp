#pragma once

#include "actors/supervisor_messages.hpp"
#include "domain/clock.hpp"

#include <caf/actor_addr.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ttm::actors {

struct supervisor_config {
  /// Concurrent MCP client sessions admitted at once.
  std::size_t max_clients = 10'000;
  /// Tracking sessions held at once, over all clients (ended ones count
  /// until they expire or are reclaimed to make room).
  std::size_t max_sessions = 100;
  /// Shares of that cap, so that one client cannot lock the others out:
  /// open (not ended) tracking sessions of one principal (over all its
  /// client actors), and of one MCP session (a 2025-era HTTP session, the
  /// stdio session). Either is at most `max_sessions` in effect.
  std::size_t max_sessions_per_principal = 50;
  std::size_t max_sessions_per_mcp_session = 20;
  /// How often expired tracking sessions are swept.
  caf::timespan sweep_interval = std::chrono::minutes{1};
  /// MCP sessions admitted as idle-expiring (HTTP) that see no frame for
  /// this long, with none in progress, are ended. Zero: never. Checked by
  /// the sweep, which then runs every quarter of it (100 ms to 1 min) if
  /// that is more often than `sweep_interval`.
  caf::timespan mcp_idle_timeout{0};
  /// For the MCP session durations (metrics); none: not measured.
  domain::clock_ptr clock{};
  /// The metrics' `network_transport` of this server's MCP sessions.
  std::string network_transport = "pipe";
};

/// One global tracking-session slot.
struct slot_entry {
  caf::actor_addr owner;
  bool ended = false;
};

/// A client actor holding slots.
struct owner_entry {
  client_actor handle;
  std::size_t slots = 0;
  /// Of those, the open (not ended) ones: what its shares count.
  std::size_t open = 0;
};

/// An admitted client actor: whose it is, and whether it is an MCP session
/// (held to the per-MCP-session share; a principal's 2026-07-28 actor is
/// held to its principal's share only).
struct client_entry {
  std::string principal;
  bool mcp_session = false;
  /// Counted against `max_clients` (supervisor_state::counted).
  bool counted = false;
  /// When it was admitted (an MCP session's start, for the metrics).
  domain::mono_time since{};
  /// Valid when it ends when idle: told so at each sweep.
  client_actor idle_expiring;
};

struct supervisor_state {
  supervisor_config cfg;
  std::unordered_map<std::string, slot_entry> slots;
  std::unordered_map<caf::actor_addr, owner_entry> owners;
  /// Every admitted client actor (alive) and what `admit` said about it:
  /// one map, one entry per MCP session (issue 33, memory per session).
  std::unordered_map<caf::actor_addr, client_entry> client_info;
  /// Of those, how many count against `max_clients` (MCP sessions, not
  /// principals).
  std::size_t counted = 0;
  /// Open tracking sessions by principal, over all its client actors.
  std::unordered_map<std::string, std::size_t> open_by_principal;
  /// Ended sessions in the order they ended: the first to reclaim.
  std::deque<std::string> ended_order;
  static inline const char* name = "ttm.supervisor";
};

/// Admits client actors up to the global cap and forgets them when they
/// end; ends idle MCP sessions; owns the global tracking-session slots,
/// the per-principal and per-MCP-session shares, their expiry sweep and
/// their reclaiming.
supervisor_actor::behavior_type
supervisor_behavior(supervisor_actor::stateful_pointer<supervisor_state> self,
                    supervisor_config cfg);

} // namespace ttm::actors
