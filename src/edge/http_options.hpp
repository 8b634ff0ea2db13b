#pragma once

// What the Streamable HTTP edge is configured with: plain values, set by main
// from the configuration.

#include "edge/http_param_headers.hpp"
#include "domain/rate_limit.hpp"
#include "protocol/trace_context.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ttm::edge {

namespace oauth {
class resource_server;
}

struct http_options {
  /// IP address to bind (IPv4 or IPv6 literal); loopback by default.
  std::string host = "127.0.0.1";
  /// 0: any free port (see `http_edge::port`).
  std::uint16_t port = 8787;
  /// The MCP endpoint.
  std::string path = "/mcp";
  /// Larger request bodies are refused with 413.
  std::size_t max_body_bytes = 1024 * 1024;
  /// Extra `Host` values accepted besides localhost names on our port
  /// (`name` or `name:port`, compared case-insensitively).
  std::vector<std::string> allowed_hosts;
  /// Extra `Origin` values accepted besides http://localhost names on our
  /// port (`scheme://host[:port]`). A request without Origin is accepted.
  std::vector<std::string> allowed_origins;
  /// Bearer tokens; empty: no authentication.
  std::vector<std::string> auth_tokens;
  /// The principal of each token (same order; missing entries are named
  /// after their index). Without tokens every request is `local`'s.
  std::vector<std::string> auth_principals;
  /// A keep-alive connection may wait this long for its next request.
  std::chrono::milliseconds idle_timeout{60'000};
  /// From a request's first byte to its last (headers and body).
  std::chrono::milliseconds read_timeout{30'000};
  /// A new connection must complete its first request's headers this long
  /// after it was accepted, else it is closed: silent sockets cannot hold
  /// connection slots for a whole keep-alive timeout.
  std::chrono::milliseconds header_timeout{10'000};
  /// Writing one response.
  std::chrono::milliseconds write_timeout{30'000};
  /// Suggested wait in `Retry-After` when the session cap is reached.
  std::chrono::seconds retry_after{5};
  /// I/O threads (the actors have their own).
  std::size_t threads = 1;
  /// Open connections at once. At the cap, one stalled inside a request
  /// header, else one not yet served, else the one idle longest between
  /// requests is closed to admit a new one (decide_admission); with none
  /// of those, the new one is answered 503 and closed, so silent or
  /// slow-header sockets cannot lock every client out (or exhaust
  /// descriptors).
  std::size_t max_connections = 4096;
  /// Wrong bearer tokens from one client address: this many within
  /// `auth_failure_window` lock the address out (429) for
  /// `auth_lockout`, doubling with each lockout up to `auth_max_lockout`;
  /// at most `auth_max_addresses` addresses are remembered.
  std::size_t auth_max_failures = 10;
  std::chrono::seconds auth_failure_window{60};
  std::chrono::seconds auth_lockout{30};
  std::chrono::seconds auth_max_lockout{15 * 60};
  /// Makes the id of a request that brings none (X-Request-Id,
  /// traceparent); empty: protocol::random_request_id. Injected by tests.
  protocol::id_source ids{};
  std::size_t auth_max_addresses = 10'000;
  /// --rate-limit and --max-in-flight, keyed by principal (by client
  /// address without tokens); null: none.
  std::shared_ptr<domain::rate_limiter> limiter;
  /// The arguments each tool mirrors in Mcp-Param-* headers (2026-07-28),
  /// checked against the body of a tools/call; empty: none. Called on I/O
  /// threads.
  mirrored_lookup mirrored;
  /// Why the server cannot serve now (e.g. the journal is not open), for
  /// /readyz; empty: ready. Called on I/O threads; null: always ready.
  std::function<std::string()> unready;
  /// The OAuth resource server (--oauth-issuer); null: static tokens only.
  /// The edge starts it (after binding: a loopback default resource is
  /// the edge's own URL) and stops it.
  std::shared_ptr<oauth::resource_server> oauth;
  /// Serve /metrics only (--metrics-listen): no MCP endpoint, no probes.
  bool metrics_only = false;
};

} // namespace ttm::edge
