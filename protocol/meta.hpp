#pragma once

// The 2026-07-28 revision's constants: the reserved `_meta` keys (the
// revisions themselves are listed once, in mcp.hpp). Apart from modern.hpp
// so that the JSON-RPC decoder (json_rpc.cpp), which reads the `_meta`
// envelope, and the modern checks (modern.hpp, which include json_rpc.hpp)
// share them without including each other.

#include "protocol/mcp.hpp"

#include <string_view>

namespace ttm::protocol {

/// Reserved `_meta` keys.
namespace meta_key {
inline constexpr std::string_view protocol_version
  = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view client_capabilities
  = "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view client_info
  = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view log_level
  = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view server_info
  = "io.modelcontextprotocol/serverInfo";
inline constexpr std::string_view subscription_id
  = "io.modelcontextprotocol/subscriptionId";
} // namespace meta_key

} // namespace ttm::protocol
