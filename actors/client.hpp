#pragma once

#include "actors/client_messages.hpp"
#include "actors/journal_messages.hpp"
#include "domain/lazy_deque.hpp"
#include "actors/supervisor_messages.hpp"
#include "mcp/session.hpp"

#include <caf/typed_response_promise.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace ttm::actors {

/// What a client actor is spawned with: its MCP session's configuration.
using client_config = mcp::session_config;

struct client_actor_state {
  /// The MCP session this actor runs; every frame goes through it.
  std::optional<mcp::session> mcp;
  supervisor_actor supervisor;
  /// Invalid with --ephemeral.
  journal_actor journal;
  /// The frame paused on the supervisor's answer (a new tracking session
  /// needs a global slot), and the frames that arrived meanwhile: they run
  /// after it, in order, so a task call never overtakes its session's start.
  std::optional<caf::typed_response_promise<rpc_output>> paused;
  /// lazy_deque: allocates only while frames wait (memory per idle session).
  domain::lazy_deque<std::pair<protocol::frame, caf::typed_response_promise<rpc_output>>>
    queued;
  /// --request-timeout (the session's configuration): each frame's
  /// deadline (the clock's monotonic ns, 0: none), the paused frame's and,
  /// in order, the queued ones'.
  std::int64_t deadline_ns = 0;
  domain::lazy_deque<std::int64_t> queued_deadlines;
  /// Whether the paused frame is heavy (mcp::heavy_frame); then its next
  /// step, due on an HTTP I/O thread, is `held` and runs on `resume`, on a
  /// worker (inline_unit.hpp). Null: nothing held.
  bool heavy = false;
  std::function<mcp::rpc_step()> held;
  static inline const char* name = "ttm.client";

  /// Runs when the actor ends, however it ends: answers the paused and
  /// queued frames with an error, as CAF 0.17 sends nothing for a promise
  /// that dies undelivered (the transport would wait for them forever).
  ~client_actor_state();
};

/// The behavior of a client actor: one per MCP client session. `server`
/// is the configuration all of the server's sessions share; `own` is this
/// session's (mcp::session_identity).
client_actor::behavior_type
client_behavior(client_actor::stateful_pointer<client_actor_state> self,
                std::shared_ptr<const client_config> server,
                mcp::session_identity own, supervisor_actor supervisor,
                journal_actor journal);

} // namespace ttm::actors
