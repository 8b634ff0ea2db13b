#pragma once

// How the edges decode frames for this server: the JSON-RPC codec plus what
// the MCP layer routes by, lifted in the same parse. Small on purpose: the
// edges include it without the tools, storage or schema layers.

#include "protocol/json_rpc.hpp"

#include <string_view>

namespace ttm::mcp {

/// The tool argument naming a tracking session (`message::handle`): before
/// such a call runs, its client makes sure it holds the latest state.
inline constexpr std::string_view routing_argument = "session_id";

/// The tool argument that finds a session by something other than its id
/// (time_session_start's idempotency key, `message::lookup`): looked up in
/// the journal too, like a session id.
inline constexpr std::string_view lookup_argument = "idempotency_key";

/// The resource URIs that name a tracking session:
/// time-tracker://sessions/{session_id}/report.{md,csv,json,html}.
inline constexpr std::string_view session_uri_prefix = "time-tracker://sessions/";

/// The session id a resource URI names (routed like a session_id
/// argument), or empty.
inline std::string_view session_of_uri(std::string_view uri) {
  if (uri.substr(0, session_uri_prefix.size()) != session_uri_prefix)
    return {};
  auto rest = uri.substr(session_uri_prefix.size());
  auto slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos)
    return {};
  return rest.substr(0, slash);
}

inline constexpr protocol::decode_options frame_options{
  routing_argument, lookup_argument, &session_of_uri};

/// Decodes one frame (a stdio line, an HTTP body).
inline protocol::frame decode(std::string_view text) {
  return protocol::decode(text, frame_options);
}

} // namespace ttm::mcp
