#pragma once

// The two protocol eras this server speaks, as one type for every layer.
// Their names are written in one place (here), so the journal, the transport
// and the MCP layer never spell "2025" or "2026-07-28" themselves.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ttm::protocol {

/// legacy: the 2025 revisions (initialize handshake, MCP sessions).
/// modern: 2026-07-28 and later (stateless, per-request `_meta`).
enum class era : std::uint8_t { legacy, modern };

/// The stored name of an era (the journal records it with each session).
constexpr std::string_view to_string(era e) noexcept {
  return e == era::modern ? "2026-07-28" : "2025";
}

/// The era a stored name stands for; nullopt for anything else.
constexpr std::optional<era> parse_era(std::string_view name) noexcept {
  if (name == to_string(era::legacy))
    return era::legacy;
  if (name == to_string(era::modern))
    return era::modern;
  return std::nullopt;
}

} // namespace ttm::protocol
