#pragma once

// What an MCP session hands back for one frame. Plain strings only: the
// client actor sends it to the transport (actors/client_messages.hpp); no
// tools, storage or schema layers behind it.

#include <string>
#include <vector>

namespace ttm::mcp {

/// The reply to one frame: log notifications first, then the response.
struct rpc_output {
  std::vector<std::string> notifications;
  /// Empty when the frame needs no response (notifications, responses).
  std::string response;
  /// Tracking sessions this client started since its last output, and those
  /// it no longer holds (expired, dropped): the transport's directory of
  /// owners follows them.
  std::vector<std::string> created;
  std::vector<std::string> gone;
  /// Not empty when the frame changed what the client negotiated
  /// (initialize, logging/setLevel): the MCP session's state as JSON
  /// (session::state_json), for the journal, so that every server sharing
  /// it answers the session (issue 32).
  std::string mcp_state;
};

} // namespace ttm::mcp
