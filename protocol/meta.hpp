#pragma once

// The 2026-07-28 revision's constants: the revisions served per request and
// the reserved `_meta` keys. Apart from modern.hpp so that the JSON-RPC
// decoder (json_rpc.cpp), which reads the `_meta` envelope, and the modern
// checks (modern.hpp, which include json_rpc.hpp) share them without
// including each other.

#include <array>
#include <string_view>

namespace ttm::protocol {

/// The revisions served per request, through the `_meta` envelope.
inline constexpr std::array<std::string_view, 1> modern_revisions{
  "2026-07-28"};

inline constexpr std::string_view modern_revision = "2026-07-28";

/// Every revision served, newest first: `server/discover`'s
/// `supportedVersions` and the `supported` list of -32022, kept identical.
inline constexpr std::string_view all_revisions_json
  = R"(["2026-07-28","2025-11-25","2025-06-18","2025-03-26"])";

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
