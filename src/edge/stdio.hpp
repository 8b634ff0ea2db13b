#pragma once

#include "actors/transport_messages.hpp"
#include "domain/rate_limit.hpp"

#include <cstddef>
#include <functional>
#include <memory>

namespace ttm::edge {

struct stdio_options {
  int in_fd = 0;
  /// A private duplicate of the original stdout: the only place protocol
  /// bytes are written (fd 1 itself is pointed at stderr in stdio mode).
  int out_fd = 1;
  std::size_t max_line_bytes = 4 * 1024 * 1024;
  /// Frames handed to the transport and not yet answered. Past this the
  /// reader stops reading stdin until replies drain, so a client that sends
  /// without reading cannot make the server queue without limit.
  std::size_t max_in_flight = 256;
  /// --rate-limit for the one client: a frame with requests beyond it is
  /// answered with error -32050 (`data.retry_after_ms`) and not run; null:
  /// none. Its in-flight cap is unused (reading pauses instead, above).
  std::shared_ptr<domain::rate_limiter> limiter;
  /// Runs once, on the thread that wrote it, right after the first reply
  /// is written (the `initialize` reply, usually): what the first call
  /// needs starts loading then, not while the handshake runs. May be empty.
  std::function<void()> on_first_reply;
  /// Makes the id of a request that brings none (_meta.traceparent);
  /// empty: protocol::random_request_id. Injected by tests.
  protocol::id_source ids{};
};

/// Frames newline-delimited JSON-RPC on a pair of file descriptors: reads
/// lines on its own thread, decodes them and hands them to the transport
/// actor, which that thread then runs (see inline_unit in stdio.cpp);
/// writes replies as lines. It knows bytes and lines, not tools.
class stdio_edge {
public:
  stdio_edge(actors::transport_actor transport, stdio_options opts,
             std::function<void()> on_closed);
  ~stdio_edge();

  stdio_edge(const stdio_edge&) = delete;
  stdio_edge& operator=(const stdio_edge&) = delete;

  /// Starts the reader thread.
  void start();

  /// Stops reading (e.g. on SIGTERM) without waiting: the reader thread,
  /// which also writes the replies of the calls it runs, finishes those in
  /// flight; `on_closed` runs after the last one. The destructor joins it.
  void stop();

  /// Gives up on writing: pending and future replies are dropped. For
  /// shutdown when the client stopped reading stdout, so that no thread
  /// stays blocked in write(2).
  void abandon_output();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace ttm::edge
