#pragma once

// The Streamable HTTP edge. No Boost in this header (Beast is behind
// http_connection.hpp, for http.cpp and http_connection.cpp alone); it does
// include CAF, through actors/messages.hpp, for the transport actor's handle.
// The edge's pure parts have their own CAF-free headers: http_access.hpp
// (Host/Origin/tokens), http_headers.hpp, http_rules.hpp.

#include "actors/messages.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttm::edge {

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
  /// Open connections at once. At the cap, the connection idle longest
  /// (between requests, or still waiting for its first bytes) is closed to
  /// admit a new one; with none idle, the new one is answered 503 and
  /// closed, so silent sockets cannot lock every client out (or exhaust
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
  std::size_t auth_max_addresses = 10'000;
};

/// Serves MCP Streamable HTTP on one endpoint plus /healthz and /readyz:
/// parses HTTP with Beast, checks Host/Origin/auth and the MCP headers, and
/// hands each POSTed JSON-RPC message to the transport actor without
/// blocking (anon_send; replies come back through a reply_sink posted to the
/// connection's strand). It knows HTTP and MCP session ids, not tools.
///
/// Destroy it after the actor system: until the transport actor has
/// terminated it may hold reply sinks that point into the edge.
class http_edge {
public:
  http_edge(actors::transport_actor transport, http_options opts);
  ~http_edge();

  http_edge(const http_edge&) = delete;
  http_edge& operator=(const http_edge&) = delete;

  /// Binds, listens and starts the I/O threads. Throws std::runtime_error
  /// with a message for the user when the address cannot be used.
  void start();

  /// The bound port (after `start`).
  std::uint16_t port() const;

  /// The endpoint's URL, e.g. http://127.0.0.1:8787/mcp (after `start`).
  std::string url() const;

  /// Graceful stop: no new connections, /readyz answers 503, idle
  /// connections close, and requests in flight finish (each response says
  /// `Connection: close`). Returns true when none is left within `timeout`.
  bool drain(std::chrono::milliseconds timeout);

  /// Closes every connection and joins the I/O threads. Replies the
  /// transport delivers later are dropped. Idempotent.
  void stop();

  /// Defined in http_connection.hpp; public only so that its connections
  /// can name it.
  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace ttm::edge
