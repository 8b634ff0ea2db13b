#pragma once

// How a node on PostgreSQL learns of other nodes' changes to the MCP
// sessions it holds copies of (issue 32): LISTEN on a connection of its
// own, on a thread of its own, so that a notification is taken in as it
// arrives, not at the journal's next call. Each one names an MCP session
// id; its slot of the node's change signal (change_signal::in_memory) is
// bumped, and the transport asks the journal again before the next frame
// on that session. While the connection is lost (PostgreSQL restarted) the
// signal is not `listening`: every copy is stale until LISTEN is back, and
// then every slot is bumped (what was notified meanwhile went unheard).

#include "storage/change_signal.hpp"
#include "storage/pg_store.hpp"

#include <cstdint>
#include <memory>

namespace ttm::storage {

/// The channel a change to an MCP session record notifies; its payload is
/// the session's id (pg_mcp_sessions.cpp).
constexpr const char* pg_mcp_channel = "ttm_mcp_sessions";

class pg_listener {
public:
  /// Starts listening (connecting in the background, and again after a
  /// loss, every half second while PostgreSQL cannot be reached).
  pg_listener(const pg_options& opts, change_signal_ptr signal);
  /// Stops the thread (at once, unless it is connecting: then within
  /// libpq's connect timeout).
  ~pg_listener();
  pg_listener(const pg_listener&) = delete;
  pg_listener& operator=(const pg_listener&) = delete;

  /// Notifications taken in so far, and the LISTENs issued (1 after the
  /// first; more after losses).
  std::uint64_t heard() const;
  std::uint64_t listens() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace ttm::storage
