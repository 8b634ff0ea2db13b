#pragma once

// An MCP session of the 2025 eras (its Mcp-Session-Id and what its client
// negotiated at `initialize`), kept in the journal so that every server
// sharing the journal answers that id as if it had issued it (issue 32):
// a node's death costs its clients no re-initialize.

#include <cstdint>
#include <string>

namespace ttm::storage {

struct mcp_session_record {
  std::string id;        ///< the Mcp-Session-Id
  std::string principal; ///< who initialized it: only they may use it
  /// JSON text (negotiated revision, client capabilities and info, log
  /// level), written and read by the layer that knows MCP: opaque here,
  /// like an event's payload.
  std::string state = "{}";
  std::int64_t created_wall_ns = 0;
  /// Its last use, coalesced by the caller (to the minute): what
  /// --session-idle-timeout counts from.
  std::int64_t last_wall_ns = 0;
};

} // namespace ttm::storage
