#pragma once

// The 2026-07-28 MCP revision ("modern era"): no initialize handshake, no
// protocol sessions; every request carries its version and the client's
// capabilities in `params._meta`. Pure functions of a decoded message, shared
// by both transports, so stdio and HTTP judge a request the same way.

#include "protocol/json_rpc.hpp"
#include "protocol/meta.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ttm::protocol {

bool is_modern_revision(std::string_view revision) noexcept;

/// Whether a version string names the modern era (2026-07-28 or later, by
/// ISO date order), served or not: an `MCP-Protocol-Version` header like
/// that never selects the 2025 code path.
bool names_modern_era(std::string_view revision) noexcept;

/// The methods a modern request may call here. Everything else, including
/// the removed `initialize`, `ping` and `logging/setLevel`, is -32601.
bool is_modern_method(std::string_view method) noexcept;

/// A refusal of a modern request before dispatch: the JSON-RPC error and the
/// HTTP status the Streamable HTTP transport gives it.
struct modern_refusal {
  int code = 0;
  std::string message;
  std::string data_json; ///< empty: no `data`
  int http_status = 400;
};

/// Checks the envelope of a message that claims the modern era: a valid
/// `_meta` (-32602), a served version (-32022). Header checks are the HTTP
/// edge's; they come between these two (see http.cpp).
std::optional<modern_refusal> check_envelope(const message& m);
std::optional<modern_refusal> check_version(const message& m);

/// A request for a method this server does not serve in the modern era.
std::optional<modern_refusal> check_method(const message& m);

/// The whole check for a transport without headers (stdio): envelope,
/// version, method.
std::optional<modern_refusal> check_modern_request(const message& m);

/// The unsupported-version refusal for `requested` (-32022).
modern_refusal unsupported_version(std::string_view requested);

} // namespace ttm::protocol
