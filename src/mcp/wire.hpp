#pragma once

// How the edges decode frames for this server: the JSON-RPC codec plus what
// the MCP layer routes by, lifted in the same parse. Small on purpose: the
// edges include it without the tools, storage or schema layers.

#include "protocol/json_rpc.hpp"

#include <string_view>

namespace ttm::mcp {

/// The tool argument naming a tracking session: the transport routes a
/// call to the client actor that owns that session (`message::handle`).
inline constexpr std::string_view routing_argument = "session_id";

/// The tool argument that looks a session up by something other than its
/// id (time_session_start's idempotency key): such a call waits, like one
/// naming a session, until the journal's recovery is done.
inline constexpr std::string_view recovery_argument = "idempotency_key";

inline constexpr protocol::decode_options frame_options{routing_argument,
                                                        recovery_argument};

/// Decodes one frame (a stdio line, an HTTP body).
inline protocol::frame decode(std::string_view text) {
  return protocol::decode(text, frame_options);
}

} // namespace ttm::mcp
