#pragma once

// The Streamable HTTP edge. No Boost in this header (Beast is behind
// http_connection.hpp, for http.cpp and http_connection.cpp alone); it does
// include CAF, through actors/transport_messages.hpp, for the transport
// actor's handle.
// The edge's pure parts have their own CAF-free headers: http_access.hpp
// (Host/Origin/tokens), http_headers.hpp, http_rules.hpp.

#include "actors/transport_messages.hpp"
#include "edge/http_options.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttm::edge {

/// The listener's state shared with its connections (http_connection.hpp).
struct http_server;

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

  /// Graceful stop: /readyz answers 503, idle connections close (also
  /// those the clients opened that still wait in the listen backlog), new
  /// ones get one answer each (503 on the MCP endpoint) and close, and
  /// requests in flight finish (each response says `Connection: close`).
  /// Returns once that has begun (or after `timeout`); `drain` begins it
  /// too when not called before.
  void begin_drain(std::chrono::milliseconds timeout);

  /// Drains (see begin_drain): returns true when no request is left in
  /// flight within `timeout`.
  bool drain(std::chrono::milliseconds timeout);

  /// Closes every connection and joins the I/O threads. Replies the
  /// transport delivers later are dropped. Idempotent.
  void stop();

private:
  std::unique_ptr<http_server> server_;
};

} // namespace ttm::edge
