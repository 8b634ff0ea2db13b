#pragma once

#include "domain/clock.hpp"
#include "domain/history.hpp"
#include "domain/slots.hpp"
#include "domain/tracking.hpp"
#include "domain/preferences.hpp"
#include "domain/principal_ops.hpp"
#include "mcp/methods.hpp"
#include "mcp/output.hpp"
#include "mcp/principal_board.hpp"
#include "mcp/results.hpp"
#include "protocol/era.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/mcp.hpp"
#include "storage/records.hpp"
#include "tools/registry.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ttm::mcp {

/// Everything a session needs, passed by value when its actor is spawned.
struct session_config {
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
  /// The MCP session as the log names it (domain::log_id of its route):
  /// recorded with each change, for the audit trail.
  std::string client_label{};
  /// Not empty while the journal cannot be opened: why (for clients, no
  /// path). A session this client does not hold may be on disk then.
  std::string storage_fault{};
  /// The server's default preferences (config file), under each
  /// principal's own.
  domain::preferences defaults{};
  /// Shared by the server's sessions (made on first use when not given).
  std::shared_ptr<principal_board> board{};
};

/// How far a frame got: answered, or paused until the supervisor grants or
/// refuses a global slot for a new tracking session, or until the journal
/// stored the frame's changes.
struct rpc_step {
  /// The reply, once the frame is done (not `waiting()`).
  rpc_output output;
  /// Not empty: ask the supervisor for a slot for this tracking session,
  /// then call `resume`.
  std::string slot_for;
  /// Tracking sessions that expired during this step: free their slots.
  std::vector<std::string> expired;
  /// Tracking sessions ended during this step: their slots may be reused.
  std::vector<std::string> ended;
  /// Tracking sessions reopened (time_undo of their end): open again.
  std::vector<std::string> reopened;
  /// Not empty: write these events to the journal, then call
  /// `resume_journal` with the outcome; the reply waits for it.
  std::vector<storage::event> journal;
  /// Set: ask the journal for the latest state of the session the next
  /// call names (claiming it if need be), then call `resume_claim`.
  std::optional<storage::claim_request> claim;
  /// Tracking sessions taken over from the journal in this step: their
  /// global slots are this client's now.
  std::vector<std::string> adopted;
  /// Set: run this history query (the caller's sessions) in the journal,
  /// then call `resume_history` with its page.
  std::optional<storage::list_query> history;
  /// Set: run this operation on the caller's preferences / focus sessions
  /// in the journal, then call `resume_principal` with the state after it.
  std::optional<storage::principal_op> principal;

  bool waiting() const noexcept {
    return !slot_for.empty() || !journal.empty() || claim.has_value()
           || history.has_value() || principal.has_value();
  }
};

/// A history query's answer: the page, or why the journal could not be
/// read (`error` not empty; `page` empty then).
struct history_answer {
  domain::history_page page;
  std::string error;
};

/// What a request does with its history page: returns the request's reply
/// (notifications go to `notes`).
using history_continuation = std::function<std::string(
  const history_answer& answer, std::vector<std::string>& notes)>;

/// One MCP client (a 2025 MCP session, a principal's modern requests, or the
/// stdio connection): the frame state machine (one frame at a time, paused
/// for a slot or the journal, rolled back when the journal refuses), its
/// lifecycle, revision and logging level, its tracking sessions, and the
/// dispatch of requests through the method table. Plain C++ (the client
/// actor owns one), so it is tested without an actor system.
class session {
public:
  explicit session(session_config cfg);

  /// Starts on a frame. Only one frame is handled at a time: after a
  /// waiting step, call `resume` / `resume_journal` before the next `handle`.
  rpc_step handle(const protocol::frame& in);

  /// Continues the paused frame with the supervisor's answer.
  rpc_step resume(const domain::slot_answer& slot);

  /// Continues the frame paused for the journal. Not stored: the call's
  /// changes are undone (an expiry alone stands); it fails with
  /// STORAGE_UNAVAILABLE or LIMIT_REACHED, or, `fenced` (its session was
  /// claimed meanwhile), runs again on the session's latest state.
  rpc_step resume_journal(const storage::append_answer& answer);

  /// Continues the frame paused for a claim with the journal's answer
  /// (`error` not empty: the journal could not be read).
  rpc_step resume_claim(const storage::claim_result& r,
                        const std::string& error);

  /// Continues the frame paused for a history query (`error` not empty:
  /// the journal could not be read).
  rpc_step resume_history(storage::list_page page,
                          const std::string& error);

  /// Continues the frame paused for a principal operation (`error` not
  /// empty: the journal could not do it; nothing changed).
  rpc_step resume_principal(const storage::principal_state& state,
                            const std::string& error);

  /// For a method handler: runs `filter` over the sessions of this
  /// client's principal in the era of the request being handled, then
  /// `then`, whose return is the request's reply (the handler returns an
  /// empty reply meanwhile). With a journal the frame pauses while the
  /// journal actor reads (rpc_step::history), so the client actor never
  /// blocks; without one (--ephemeral) the sessions this client holds
  /// answer at once. tools/call (history_wait) uses it; resources/list or
  /// completion/complete of session ids can too.
  void query_history(domain::history_filter filter,
                     history_continuation then);

  /// The open sessions this client holds and their epochs: what it lets go
  /// of in the journal when it ends without ending them.
  std::vector<std::pair<std::string, std::int64_t>> held() const;

  /// Changes made outside a frame (the expiry sweep), for the journal.
  std::vector<storage::event> take_journal();

  /// The client ended its MCP session (HTTP DELETE): its tracking sessions
  /// end with it; returns their expiry for the journal.
  std::vector<storage::event> close_all();

  /// The supervisor's sweep (or its search for room): removes tracking
  /// sessions past their age or idle limit and returns their ids.
  std::vector<std::string> expire_due();

  /// The journal became unavailable (`reason`) or available again (empty):
  /// see domain::tracker::set_storage_fault.
  void set_storage_fault(std::string reason) {
    tracker_.set_storage_fault(std::move(reason));
  }

  /// The supervisor dropped this ended session to make room.
  void evict(const std::string& session_id);

  /// Another client of this server took the session over: let go of it
  /// (no trace, nothing journaled).
  void drop(const std::string& session_id);

  /// Of the copies `asked` about (id, epoch), lets go of the `stale` ones
  /// that are still at the epoch asked about (a write of this client since
  /// made its copy current) and returns their ids.
  std::vector<std::string>
  drop_stale(const std::vector<std::pair<std::string, std::int64_t>>& asked,
             const std::vector<std::string>& stale);

  /// An expiry this client recorded was fenced (another server holds the
  /// session now): no longer answer SESSION_EXPIRED for it here.
  void forget_expired(const std::string& session_id) {
    tracker_.drop(session_id);
  }

  const domain::tracker& tracker() const noexcept {
    return tracker_;
  }

  bool initialized() const noexcept {
    return !revision_.empty();
  }

  /// The era this client speaks: legacy from its `initialize`, modern from
  /// its first valid 2026-07-28 request; nullopt while undecided (stdio
  /// before its first request).
  std::optional<protocol::era> current_era() const noexcept {
    return era_;
  }

  /// The negotiated revision; empty before `initialize`.
  const std::string& revision() const noexcept {
    return revision_;
  }

  /// Monotonic time since the last frame started or a paused one resumed
  /// (or since construction): what the MCP-session idle timeout measures.
  std::chrono::nanoseconds idle_time() const;

  // -- method handlers (methods.cpp), registered in server_methods() --------
  std::string on_ping(const method_call& c);
  std::string on_initialize(const method_call& c);
  std::string on_tools_list(const method_call& c);
  std::string on_tools_call(const method_call& c);
  std::string on_set_level(const method_call& c);
  std::string on_complete(const method_call& c);
  std::string on_prompts_list(const method_call& c);
  std::string on_prompts_get(const method_call& c);
  std::string on_resource_templates(const method_call& c);
  std::string on_resources_read(const method_call& c);
  std::string on_resources_list(const method_call& c);
  std::string resource_not_found(const protocol::message& msg,
                                 std::string_view uri) const;
  std::string on_discover(const method_call& c);
  std::string on_listen(const method_call& c);

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
    std::vector<std::string> held_expired;
    /// The current message's session was checked with the journal; how
    /// often it ran again after its write was fenced.
    bool claimed = false;
    int fenced_retries = 0;
    /// The check of a held copy, made after the call ran if it changed
    /// nothing (a write is checked as it is stored); `verifying`: paused
    /// for it, the reply in `held_reply`.
    std::optional<storage::claim_request> verify;
    bool verifying = false;
    /// After a fenced write: load the latest state before running again.
    bool force_load = false;
    /// A history query the current message asked for (query_history), the
    /// era it reads, and what makes its reply of the answer.
    std::optional<domain::history_filter> history;
    std::string history_scope;
    history_continuation after_history;
    /// The caller's preferences were read for the current message (a
    /// zone-using tool called without its zone: `zone` is the principal's);
    /// `prefs_pending`: paused for that read.
    bool prefs_checked = false;
    bool prefs_pending = false;
    bool prefs_read = false;
    std::string zone;
    /// The caller's locale and week start, for arguments left out.
    std::string locale;
    std::string week_start;
    /// A tool's principal operation (principal_wait) and what makes the
    /// reply of its answer.
    std::optional<domain::principal_op> principal;
    std::function<std::string(const domain::principal_state* state,
                              const std::string& error,
                              std::vector<std::string>& notes)>
      after_principal;
    /// When the principal's previous tool call reached this server
    /// (`touched`: asked for the current message).
    std::optional<domain::wall_time> previous_request;
    bool touched = false;
  };

  /// Whether the current message is a tools/call whose zone argument is
  /// omitted (or 'local'): then the principal's zone preference applies.
  bool needs_principal_zone(const protocol::message& msg) const;
  /// `args` with the caller's locale and week start where the tool takes
  /// them and they are left out; nullopt: `args` as they are.
  std::optional<rapidjson::Document>
  with_preferences(const std::string& tool,
                   const rapidjson::Value& args) const;
  /// Runs `op` for this principal: the step that asks the journal, or
  /// (--ephemeral) nothing, after it ran in memory into `state`.
  std::optional<rpc_step> run_principal(domain::principal_op op,
                                        domain::principal_state& state);
  /// The preference read before a zone-using call: takes the zone.
  void take_zone(job& j, const domain::principal_state* state);
  principal_board& board();
  /// Finishes the current message with a principal operation's answer.
  std::string finish_principal(job& j, const domain::principal_state* state,
                               const std::string& error);

  /// Runs the current message's history continuation on `answer`.
  std::string finish_history(job& j, const history_answer& answer);

  /// Moves a held session's last activity to the journal's record of it.
  void touch_from(const storage::stored_session& s);
  /// The epoch a session is at, a write in flight included; 0: unknown.
  std::int64_t current_epoch(const std::string& id) const;
  /// Undoes the call whose changes the journal did not store.
  void undo_held(job& j);
  /// On to the next message of the current job.
  static void next_message(job& j);
  /// The claim the current message needs before it runs, if any.
  std::optional<storage::claim_request>
  claim_for(const protocol::message& msg);
  /// Takes a session the journal loaded into the tracker.
  void take_over(const storage::stored_session& s);
  /// A tool error reply for the current message, outside the tool;
  /// LIMIT_REACHED names `limit`, the option reached.
  std::string tool_error_reply(
    const protocol::message& msg, const std::string& code,
    const std::string& text,
    const std::string& limit = "max_tracking_sessions");

  /// After a message: sends its changes to the journal (true: paused,
  /// `step` filled) or keeps its reply.
  bool hold_for_journal(job& j, std::string reply, rpc_step& step);
  using epoch_map = std::unordered_map<std::string, std::int64_t>;
  /// The events for `changes`, each at the epoch its session will be at;
  /// `next_epochs`: the epochs they leave their sessions at once stored.
  /// `tool`: the tool whose call made them (the audit trail), if any.
  std::vector<storage::event> to_events(std::vector<domain::change> changes,
                                        epoch_map& next_epochs,
                                        const std::string& tool = {});

  /// Runs the current job until it is done or paused.
  rpc_step run_job();
  rpc_step finish_step(rpc_output out);

  /// Returns the encoded response, or an empty string for none.
  std::string handle_message(const protocol::message& msg,
                             std::vector<std::string>& notes);
  /// Looks the method up in the table for the request's era and runs it.
  std::string dispatch(const protocol::message& msg,
                       std::vector<std::string>& notes);
  void handle_notification(const protocol::message& msg);
  /// A 2025-era request on a connection that speaks 2026-07-28.
  std::string modern_connection_refusal(const protocol::message& msg) const;
  /// `params.protocolVersion` of an initialize, for error data.
  static std::string requested_version(const protocol::message& msg);

  /// The mode of `msg`: modern when it claims the era and this client
  /// serves it.
  request_mode mode_for(const protocol::message& msg) const;
  /// How the current request's results are stamped.
  result_stamp stamp(bool cacheable = false) const noexcept;

  /// The tools/call response for a finished call.
  std::string call_reply(const protocol::message& msg,
                         const std::string& tool_name,
                         tools::call_result res,
                         std::vector<std::string>& notes);
  tools::tool_context make_context(std::vector<std::string>& notes);

  /// Adds a notifications/message when the client asked for that level.
  void notify(std::vector<std::string>& notes, protocol::log_level lvl,
              std::string text) const;

  /// Takes the ids expired by the last calls, noting them for the directory.
  std::vector<std::string> take_expired();

  session_config cfg_;
  domain::tracker tracker_;
  domain::mono_time last_active_;
  std::optional<job> job_;
  /// The boot the clock's monotonic times belong to, for the journal.
  std::string boot_id_;
  std::string revision_;
  std::optional<protocol::era> era_;
  request_mode mode_;
  /// Directory news for the next output (see rpc_output).
  std::vector<std::string> created_;
  std::vector<std::string> gone_;
  /// Slots to give back: sessions whose start the journal refused.
  std::vector<std::string> released_;
  /// Sessions taken over from the journal since the last step.
  std::vector<std::string> adopted_;
  /// The journal epoch at which each held session is held (see
  /// storage::store::claim): every write carries it.
  epoch_map epochs_;
  /// What `epochs_` becomes once the journal stored the events in flight.
  epoch_map pending_epochs_;
  std::string client_name_;
  /// No client logging until the client picks a level (logging/setLevel).
  std::optional<protocol::log_level> client_log_level_;
  /// The caller's preferences as the journal last answered them (any
  /// principal operation, its own time_preferences_set included), so that
  /// a call without its zone does not wait for the journal again within
  /// prefs_cache_ttl (other servers' changes show after it at the latest).
  struct prefs_cache {
    std::vector<std::pair<std::string, std::string>> prefs;
    domain::mono_time at;
  };
  std::optional<prefs_cache> prefs_cache_;
};

/// How long a client trusts its cached preferences (see prefs_cache_).
inline constexpr std::chrono::seconds prefs_cache_ttl{5};

} // namespace ttm::mcp
