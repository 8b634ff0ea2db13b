#pragma once

#include "domain/clock.hpp"
#include "domain/tracking.hpp"
#include "storage/store.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "tools/registry.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::actors {

/// What `initialize` tells a client about us.
struct server_info {
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;
};

/// Everything a client actor needs, passed by value at spawn time.
struct client_config {
  tools::registry_ptr registry;
  domain::clock_ptr clock;
  /// IANA name of the host zone, resolved once at start-up.
  std::string local_zone;
  server_info info;
  domain::tracking_limits limits;
  /// Every change of a tracking session goes to the journal, and its reply
  /// waits until the journal has it (false: --ephemeral).
  bool journal = false;
  /// Who owns the sessions this client starts: the bearer token's name, or
  /// "local" (stdio, no auth). Recorded with each session.
  std::string principal = "local";
};

/// The reply to one frame: log notifications first, then the response.
struct rpc_output {
  std::vector<std::string> notifications;
  /// Empty when the frame needs no response (notifications, responses).
  std::string response;
  /// Tracking sessions this client actor started since its last output, and
  /// those it no longer holds (expired, dropped): the transport's directory
  /// of owners follows them.
  std::vector<std::string> created;
  std::vector<std::string> gone;
};

/// How far a frame got: answered, or paused until the supervisor grants or
/// refuses a global slot for a new tracking session.
struct rpc_step {
  /// The reply, once the frame is done (`slot_for` empty).
  rpc_output output;
  /// Not empty: ask the supervisor for a slot for this tracking session,
  /// then call `resume`.
  std::string slot_for;
  /// Tracking sessions that expired during this step: free their slots.
  std::vector<std::string> expired;
  /// Tracking sessions ended during this step: their slots may be reused.
  std::vector<std::string> ended;
  /// Not empty: write these events to the journal, then call
  /// `resume_journal` with the outcome; the reply waits for it.
  std::vector<storage::event> journal;

  bool waiting() const noexcept {
    return !slot_for.empty() || !journal.empty();
  }
};

/// Which protocol era a client actor speaks. A 2025 MCP session is legacy
/// from its `initialize`; a principal's actor (HTTP, 2026-07-28) is modern;
/// stdio starts undecided and its first request decides.
enum class era : std::uint8_t { undecided, legacy, modern };

/// One MCP client (a 2025 MCP session, a principal's modern requests, or the
/// stdio connection): lifecycle, revision, logging level, its tracking
/// sessions and the dispatch of requests to tools. Plain C++ (the client
/// actor owns one), so it is tested without an actor system.
class client_state {
public:
  explicit client_state(client_config cfg);

  /// Starts on a frame. Only one frame is handled at a time: after a
  /// waiting step, call `resume` before the next `handle`.
  rpc_step handle(const protocol::frame& in);

  /// Continues the paused frame with the supervisor's answer.
  rpc_step resume(bool slot_granted);

  /// Continues the frame paused for the journal: `error` empty when the
  /// events are stored. Otherwise the call's changes are undone and it
  /// fails with STORAGE_UNAVAILABLE (an expiry alone stands).
  rpc_step resume_journal(const std::string& error);

  /// Changes made outside a frame (the expiry sweep), for the journal.
  std::vector<storage::event> take_journal();

  /// The client ended its MCP session (HTTP DELETE): its tracking sessions
  /// end with it; returns their expiry for the journal.
  std::vector<storage::event> close_all();

  /// Takes over sessions recovered from the journal (after a restart).
  /// Problems are logged.
  struct adopted {
    std::vector<std::string> ids; ///< now held
    std::vector<std::string> ended; ///< of those, the ended ones
  };
  adopted adopt(const std::vector<storage::stored_session>& sessions);

  /// The supervisor's sweep (or its search for room): removes tracking
  /// sessions past their age or idle limit and returns their ids.
  std::vector<std::string> expire_due();

  /// The supervisor dropped this ended session to make room.
  void evict(const std::string& session_id);

  const domain::tracker& tracker() const noexcept {
    return tracker_;
  }

  bool initialized() const noexcept {
    return !revision_.empty();
  }

  era current_era() const noexcept {
    return era_;
  }

  /// The negotiated revision; empty before `initialize`.
  const std::string& revision() const noexcept {
    return revision_;
  }

  /// Monotonic time since the last frame started or a paused one resumed
  /// (or since construction): what the MCP-session idle timeout measures.
  std::chrono::nanoseconds idle_time() const;

private:
  /// How the request being handled is served: its era and, for the client
  /// log, the level it asked for (per session in 2025, per request in
  /// 2026-07-28).
  struct request_mode {
    bool modern = false;
    std::optional<protocol::log_level> level;
  };

  /// A frame in progress: its replies so far and, when paused, the tool
  /// call waiting for a slot.
  struct job {
    protocol::frame frame;
    std::size_t next = 0;
    std::vector<std::string> replies;
    rpc_output out;
    tools::call_result paused;
    std::string paused_tool;
    /// While the journal writes the current message's changes: its reply,
    /// whether they change more than expiry, and the sessions it started.
    std::string held_reply;
    bool held_updates = false;
    std::vector<std::string> held_started;
  };

  /// After a message: sends its changes to the journal (true: paused,
  /// `step` filled) or keeps its reply.
  bool hold_for_journal(job& j, std::string reply, rpc_step& step);
  std::vector<storage::event> to_events(std::vector<domain::change> changes);

  /// Runs the current job until it is done or paused.
  rpc_step run_job();
  rpc_step finish_step(rpc_output out);

  /// The tools/call response for a finished call.
  std::string call_reply(const protocol::message& msg,
                         const std::string& tool_name,
                         tools::call_result res,
                         std::vector<std::string>& notes);
  tools::tool_context make_context(std::vector<std::string>& notes);

  /// Returns the encoded response, or an empty string for none.
  std::string handle_message(const protocol::message& msg,
                             std::vector<std::string>& notes);
  std::string handle_request(const protocol::message& msg,
                             std::vector<std::string>& notes);
  void handle_notification(const protocol::message& msg);

  /// Serves a request of the 2026-07-28 revision; empty for notifications.
  std::string handle_modern(const protocol::message& msg,
                            std::vector<std::string>& notes);
  /// The mode of `msg`: modern when it claims the era and this client
  /// serves it.
  request_mode mode_for(const protocol::message& msg) const;
  /// Adds `resultType` and `_meta.serverInfo` (and `extra` fields) to a
  /// 2026-07-28 result; errors pass unchanged.
  std::string modern_result(std::string reply, const protocol::message& msg,
                            std::string_view extra = {}) const;
  std::string on_discover(const protocol::message& msg);

  /// `params.protocolVersion` of an initialize, for error data.
  static std::string requested_version(const protocol::message& msg);
  std::string on_listen(const protocol::message& msg,
                        std::vector<std::string>& notes);

  std::string on_initialize(const protocol::message& msg);
  std::string on_tools_list(const protocol::message& msg);
  std::string on_tools_call(const protocol::message& msg,
                            std::vector<std::string>& notes);
  std::string on_set_level(const protocol::message& msg);

  /// Adds a notifications/message when the client asked for that level.
  void notify(std::vector<std::string>& notes, protocol::log_level lvl,
              std::string text) const;

  client_config cfg_;
  domain::tracker tracker_;
  domain::mono_time last_active_;
  std::optional<job> job_;
  /// Takes the ids expired by the last calls, noting them for the directory.
  std::vector<std::string> take_expired();

  /// The boot the clock's monotonic times belong to, for the journal.
  std::string boot_id_;
  std::string revision_;
  era era_ = era::undecided;
  /// serverInfo as JSON, rendered once (initialize, every modern result).
  std::string server_info_;
  request_mode mode_;
  /// Directory news for the next output (see rpc_output).
  std::vector<std::string> created_;
  std::vector<std::string> gone_;
  /// Slots to give back: sessions whose start the journal refused.
  std::vector<std::string> released_;
  std::string client_name_;
  /// No client logging until the client picks a level (logging/setLevel).
  std::optional<protocol::log_level> client_log_level_;
};

} // namespace ttm::actors
