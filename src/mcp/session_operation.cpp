// The completion point of every message a session handles: once its reply
// is ready (or, for a notification, once it is handled), what it was and
// how long it took are recorded. A request's log line belongs here too.

#include "mcp/session.hpp"

#include "mcp/operation.hpp"
#include "metrics.hpp"

#include <chrono>
#include <utility>

namespace ttm::mcp {

void session::finished(job& j) {
  auto now = cfg_.clock->mono_now();
  auto started = std::exchange(j.started, now);
  auto replied = j.replies.size() > j.replies_before;
  j.replies_before = j.replies.size();
  if (j.next >= j.frame.messages.size())
    return;
  const auto& msg = j.frame.messages[j.next];
  // Responses from the client are no operation of ours.
  if (msg.kind == protocol::message::response)
    return;
  auto op = describe(msg, replied ? std::string_view{j.replies.back()}
                                  : std::string_view{},
                     *cfg_.registry);
  auto version = mode_for(msg).modern ? protocol::modern_revision
                                      : std::string_view{revision_};
  metrics::observe_operation(
    op.method, op.tool, op.error_type, version, cfg_.network_transport,
    std::chrono::duration<double>(now - started).count());
}

} // namespace ttm::mcp
