// The metrics side of the completion point (session::complete): once a
// message's reply is final (or, for a notification, once it is handled),
// what it was and how long it took go to the operation histogram. Its log
// line is written beside it, by complete_request (request_trace.cpp).

#include "mcp/session.hpp"

#include "mcp/operation.hpp"
#include "metrics.hpp"

#include <chrono>

namespace ttm::mcp {

void session::observe_operation(const protocol::message& msg,
                                std::string_view reply,
                                domain::mono_time now) {
  // Responses from the client are no operation of ours.
  if (msg.kind == protocol::message::response)
    return;
  auto op = describe(msg, reply, *cfg_->registry);
  auto version = mode_for(msg).modern ? protocol::modern_revision
                                      : std::string_view{revision_};
  metrics::observe_operation(
    op.method, op.tool, op.error_type, version, cfg_->network_transport,
    std::chrono::duration<double>(now - trace_.start).count());
}

} // namespace ttm::mcp
