#pragma once

// The server's Prometheus metrics: one process-wide registry (Debian's
// prometheus-cpp core), recorded through the small API below from every
// layer, and its text page for GET /metrics. Callers never see a
// prometheus-cpp type. Labels carry no session id, principal or task id:
// each label's values come from a bounded set (method and tool names the
// server knows, error codes, protocol revisions), and a family's label
// sets are capped besides (`max_series`; see docs/operations.md, Metrics).
// Thread-safe; recording is a few atomic operations plus, for the
// operation histogram, a lookup in a per-thread cache of its children.

#include <cstddef>
#include <string>
#include <string_view>

namespace ttm::metrics {

/// `network_transport`, per the OpenTelemetry MCP conventions.
inline constexpr std::string_view transport_pipe = "pipe"; // stdio
inline constexpr std::string_view transport_tcp = "tcp";   // HTTP

/// The label value a value outside the bounded set becomes.
inline constexpr std::string_view other = "_OTHER";

/// The page's Content-Type (Prometheus text format 0.0.4).
inline constexpr std::string_view content_type
  = "text/plain; version=0.0.4; charset=utf-8";

/// Label sets a family takes at most; later new ones are counted under
/// `_OTHER` in every label.
inline constexpr std::size_t max_series = 500;

/// One MCP request or notification answered: mcp_server_operation_duration_
/// seconds. `error_type` empty: it succeeded; `tool` empty: not a tool call.
void observe_operation(std::string_view method, std::string_view tool,
                       std::string_view error_type,
                       std::string_view protocol_version,
                       std::string_view transport, double seconds);

/// An MCP session ended after `seconds`: mcp_server_session_duration_seconds.
void observe_session(std::string_view transport, double seconds);

/// Open MCP sessions, open tracking sessions held by this server's clients:
/// changes by `delta`.
void add_mcp_sessions(long delta);
void add_tracking_sessions(long delta);

/// Open focus sessions in the journal (the whole data directory).
void set_focus_sessions(std::size_t n);

/// The journal committed a write transaction of `events` events, which
/// took `seconds`.
void journal_commit(std::size_t events, double seconds);
/// A statement waited for another server's transaction (SQLite busy).
void journal_busy_wait();
/// A write was refused because another server changed its session first.
void journal_fence();

/// The HTTP edge answered with an error status (4xx, 5xx): counted by
/// status. Called where the edge writes a response, so every refusal
/// counts, whoever adds it.
void refusal(int status);

/// An OAuth access token checked at the HTTP edge (--oauth-issuer):
/// time_tracker_oauth_tokens_total, by `outcome`: accepted, or why it was
/// refused (edge/oauth_token.hpp, failure_name; a bounded set).
void oauth_token(std::string_view outcome);

/// A fetch of the issuer's metadata and signing keys ended:
/// time_tracker_oauth_key_fetches_total{result="ok"|"failed"}.
void oauth_key_fetch(bool ok);

/// The signing keys in use: time_tracker_oauth_signing_keys.
void oauth_keys(std::size_t n);

/// A token introspection call (RFC 7662) ended:
/// time_tracker_oauth_introspections_total{result="ok"|"failed"}.
void oauth_introspection(bool ok);

/// The text exposition of every metric, process metrics refreshed.
std::string page();

/// Whether `value` may be a label value as it is: 1 to 64 characters of
/// [A-Za-z0-9_./:-]. Anything else is recorded as `_OTHER`.
bool label_ok(std::string_view value) noexcept;

} // namespace ttm::metrics
