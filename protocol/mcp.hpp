#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::protocol {

// The MCP revisions this server serves, listed here once: every other
// spelling (server/discover, -32022's data, the HTTP edge's refusal, the
// modern checks) derives from these two lists.

/// The 2025 revisions, served with the initialize handshake, oldest first.
inline constexpr std::array<std::string_view, 3> supported_revisions{
  "2025-03-26", "2025-06-18", "2025-11-25"};

/// The revisions served per request, through the `_meta` envelope (the
/// modern era).
inline constexpr std::array<std::string_view, 1> modern_revisions{
  "2026-07-28"};

inline constexpr std::string_view latest_revision = supported_revisions.back();

inline constexpr std::string_view modern_revision = modern_revisions.front();

/// The revision that still allows JSON-RPC batches (the oldest).
inline constexpr std::string_view batching_revision
  = supported_revisions.front();

/// Every revision served, newest first, as a JSON array:
/// `server/discover`'s `supportedVersions` and the `supported` list of
/// -32022, kept identical.
extern const std::string all_revisions_json;

/// The 2025 revisions as a message names them ("2025-03-26, ...").
extern const std::string supported_revisions_text;

/// The revision from which schema violations in tool arguments are tool
/// errors (the model can read and fix them) rather than -32602.
inline constexpr std::string_view tool_validation_errors_since = "2025-11-25";

/// A supported requested revision is echoed; anything else gets the newest.
std::string_view negotiate_revision(std::string_view requested) noexcept;

bool is_supported_revision(std::string_view revision) noexcept;

/// RFC 5424 severities as MCP names them, least severe first.
enum class log_level : int {
  debug,
  info,
  notice,
  warning,
  error,
  critical,
  alert,
  emergency,
};

std::optional<log_level> parse_log_level(std::string_view name) noexcept;

std::string_view to_string(log_level level) noexcept;

/// All level names, for error messages.
inline constexpr std::string_view log_level_names
  = "debug, info, notice, warning, error, critical, alert, emergency";

} // namespace ttm::protocol
