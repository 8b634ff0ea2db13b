#pragma once

#include "domain/clock.hpp"
#include "domain/history.hpp"
#include "domain/slots.hpp"
#include "domain/tracking.hpp"
#include "domain/preferences.hpp"
#include "domain/principal_ops.hpp"
#include "mcp/handed_session.hpp"
#include "mcp/journal_claims.hpp"
#include "mcp/method_context.hpp"
#include "mcp/methods.hpp"
#include "mcp/output.hpp"
#include "mcp/principal_board.hpp"
#include "mcp/principal_prefs.hpp"
#include "mcp/request_trace.hpp"
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
#include <utility>
#include <variant>
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
  /// --request-timeout: a frame still waiting this long (behind another
  /// frame of this client, or for the journal before its write began) is
  /// answered with -32051 and changes nothing; zero: none. The client
  /// actor enforces it (see actors/client.cpp).
  std::chrono::milliseconds request_timeout{0};
  /// The metrics' `network_transport`: "pipe" (stdio) or "tcp" (HTTP).
  std::string network_transport = "pipe";
  /// An MCP session from the journal (session::state_json, issued by this
  /// or another server): the session starts in that state.
  std::string restored_state{};
};

/// What one session has of its own: the rest of a session_config is the
/// server's, the same for all its sessions, and shared by them (a copy per
/// idle MCP session cost ~700 B: issue 33).
struct session_identity {
  std::string principal = "local";
  std::string client_label{};
  std::string storage_fault{};
  std::string restored_state{};
};

/// Why a frame paused, and what resumes it.
/// Ask the supervisor for a slot for this tracking session, then call
/// `session::resume`.
struct slot_pause {
  std::string session_id;
};
/// Write these events to the journal, then call `session::resume_journal`
/// with the outcome; the reply waits for it.
struct journal_pause {
  std::vector<storage::event> events;
};
/// Ask the journal for the latest state of the session the next call names
/// (claiming it if need be), then call `session::resume_claim`.
struct claim_pause {
  storage::claim_request request;
};
/// Run this history query (the caller's sessions) in the journal, then
/// call `session::resume_history` with its page.
struct history_pause {
  storage::list_query query;
};
/// Run this operation on the caller's preferences / focus sessions in the
/// journal, then call `session::resume_principal` with the state after it.
struct principal_pause {
  storage::principal_op op;
};
/// monostate: not paused (the frame is answered).
using pause_reason = std::variant<std::monostate, slot_pause, journal_pause,
                                  claim_pause, history_pause, principal_pause>;

/// How far a frame got: answered, or paused (`pause`) until the supervisor
/// grants or refuses a global slot for a new tracking session, or until the
/// journal stored the frame's changes or answered a query.
struct rpc_step {
  /// The reply, once the frame is done (not `waiting()`).
  rpc_output output;
  pause_reason pause;
  /// Tracking sessions that expired during this step: free their slots.
  std::vector<std::string> expired;
  /// Tracking sessions ended during this step: their slots may be reused.
  std::vector<std::string> ended;
  /// Tracking sessions reopened (time_undo of their end): open again.
  std::vector<std::string> reopened;
  /// Tracking sessions taken over from the journal in this step: their
  /// global slots are this client's now.
  std::vector<std::string> adopted;

  bool waiting() const noexcept {
    return !std::holds_alternative<std::monostate>(pause);
  }

  // Views of the pause (empty / nullptr: not paused for that).
  const std::string& slot_for() const noexcept;
  const std::vector<storage::event>& journal() const noexcept;
  const storage::claim_request* claim() const noexcept;
  const storage::list_query* history() const noexcept;
  const storage::principal_op* principal() const noexcept;
};

/// The JSON-RPC error (-32051) for request `id` that ran out of its
/// --request-timeout before anything of it was written; `why` says where
/// it waited.
std::string request_timeout_reply(const protocol::request_id& id,
                                  std::string_view why);

/// The reply to a frame that timed out before it ran: -32051 for each of
/// its requests. Nullopt when it holds none (notifications still run).
std::optional<rpc_output> timed_out_frame(const protocol::frame& f,
                                          std::string_view why);

/// One MCP client (a 2025 MCP session, a principal's modern requests, or the
/// stdio connection): the frame state machine (one frame at a time, paused
/// for a slot or the journal, rolled back when the journal refuses), its
/// lifecycle, revision and logging level, its tracking sessions, and the
/// dispatch of requests through the method table to the handlers, which see
/// it through its handler_view (a method_context). Its parts:
/// journal_claims (epochs, claims, fencing), principal_prefs (the
/// preferences cache). Plain C++ (the client actor owns one), so it is
/// tested without an actor system.
class session final {
public:
  /// A session with a configuration of its own (stdio, tests).
  explicit session(session_config cfg);
  /// One of a server's sessions: `server` is shared with the others (its
  /// principal, client_label, storage_fault and restored_state are not
  /// read: `own` has this session's), and must have its `board` when the
  /// sessions are to share one.
  session(std::shared_ptr<const session_config> server, session_identity own);

  /// Starts on a frame. Only one frame is handled at a time: after a
  /// waiting step, call the `resume*` its pause names before the next
  /// `handle`.
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
  rpc_step resume_history(domain::history_page page,
                          const std::string& error);
  /// The same with the store's page, converted here (a store that hands
  /// its page on whole: the journal actor does not convert it).
  rpc_step resume_history(storage::list_page page, const std::string& error);

  /// Continues the frame paused for a principal operation (`error` not
  /// empty: the journal could not do it; nothing changed).
  rpc_step resume_principal(const storage::principal_state& state,
                            const std::string& error);

  /// The open sessions this client holds and their epochs: what it lets go
  /// of in the journal when it ends without ending them.
  std::vector<std::pair<std::string, std::int64_t>> held() const {
    if (!tracking_)
      return {};
    return tracking_->claims.held(tracking_->tracker);
  }

  /// Changes made outside a frame (the expiry sweep), for the journal.
  std::vector<storage::event> take_journal();

  /// The supervisor's sweep (or its search for room): removes tracking
  /// sessions past their age or idle limit and returns their ids.
  std::vector<std::string> expire_due();

  /// The journal became unavailable (`reason`) or available again (empty):
  /// see domain::tracker::set_storage_fault.
  void set_storage_fault(std::string reason) {
    if (tracking_ || !reason.empty())
      tracked().set_storage_fault(std::move(reason));
  }

  /// The supervisor dropped this ended session to make room.
  void evict(const std::string& session_id);

  /// Another client of this server took the session over: let go of it
  /// (no trace, nothing journaled).
  void drop(const std::string& session_id);

  /// Another client of this server, of the same principal in era `scope`,
  /// is about to take session `id` over: hands this copy over as it is and
  /// lets go of it (as `drop`), so that the other client need not read it
  /// back from the journal. Nothing (the other reads the journal) when it
  /// is not held here, is another principal's or era's, or a frame is in
  /// progress here (a write in flight may change it).
  handed_session hand_over(const std::string& id, const std::string& principal,
                           const std::string& scope);
  /// Takes in a session another client handed over: held at its epoch,
  /// adopted (its slot moves here). Returns that epoch, for the claim that
  /// checks it is still the journal's; 0: nothing taken.
  std::int64_t take_handed(handed_session h);

  /// Of the copies `asked` about (id, epoch), lets go of the `stale` ones
  /// that are still at the epoch asked about (a write of this client since
  /// made its copy current) and returns their ids.
  std::vector<std::string>
  drop_stale(const std::vector<std::pair<std::string, std::int64_t>>& asked,
             const std::vector<std::string>& stale);

  /// An expiry this client recorded was fenced (another server holds the
  /// session now): no longer answer SESSION_EXPIRED for it here.
  void forget_expired(const std::string& session_id) {
    if (tracking_)
      tracking_->tracker.drop(session_id);
  }

  /// The tracking sessions held here (made on first use: the const view
  /// makes them too, empty).
  const domain::tracker& tracker() const {
    return const_cast<session*>(this)->tracked();
  }

  /// How many tracking sessions are held here (makes nothing).
  std::size_t tracked_count() const noexcept {
    return tracking_ ? tracking_->tracker.size() : 0;
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

  /// What the client negotiated (revision, client name, info and
  /// capabilities, log level) as JSON: the MCP session kept in the journal
  /// (session_state.cpp), so that any server restores it.
  std::string state_json() const;
  /// Takes up a state_json (written by this or another server): the
  /// session goes on as if it had been initialized here. False (nothing
  /// changed): not such a state.
  bool restore(const std::string& json);

  /// The configuration this session runs with (the server's, shared).
  const session_config& config() const noexcept {
    return *cfg_;
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
    /// The client renders MCP Apps (per session in 2025, per request in
    /// 2026-07-28).
    bool ui = false;
  };

  /// What the handlers of the frame in progress see of this session (a
  /// method_context; session_context.cpp).
  class handler_view final : public method_context {
  public:
    explicit handler_view(session& s) noexcept : s_(&s) {}
    method_env env() const override;
    bool modern() const override;
    bool ui_apps() const override;
    const std::string& revision() const noexcept override;
    std::optional<protocol::log_level> log_level() const override;
    void notify(std::vector<std::string>& notes, protocol::log_level lvl,
                std::string text) const override;
    void open(std::string revision, std::string client_name,
              std::string client_json) override;
    void set_log_level(protocol::log_level level) override;
    tools::tool_context tool_context(std::vector<std::string>& notes)
      override;
    void begin_call(const std::string& tool) override;
    std::optional<rapidjson::Document>
    with_preferences(const tools::tool& tool,
                     const rapidjson::Value& args) const override;
    void wait_for_slot(tools::call_result paused, std::string tool) override;
    void query_history(domain::history_filter filter,
                       history_continuation then) override;
    void run_principal(domain::principal_op op,
                       principal_continuation then) override;
    request_trace* trace() const override;

  private:
    /// A pointer, so that a session without a frame in progress stays
    /// movable (a frame's continuations point at its session anyway).
    session* s_;
  };

  /// A frame in progress: its replies so far and, when paused, what the
  /// current message waits for.
  struct job {
    explicit job(session& s) noexcept : view(s) {}
    /// The session as this frame's handlers see it.
    handler_view view;
    protocol::frame frame;
    std::size_t next = 0;
    std::vector<std::string> replies;
    rpc_output out;
    /// A tool call waiting for a slot, and its tool.
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
    /// The caller's preferences were checked for the current message (a
    /// zone-using tool called without its zone reads them: prefs_);
    /// `prefs_pending`: paused for that read.
    bool prefs_checked = false;
    bool prefs_pending = false;
    /// A principal operation (a tool's principal_wait) and what makes the
    /// reply of its answer.
    std::optional<domain::principal_op> principal;
    principal_continuation after_principal;
    /// When the principal's previous tool call reached this server
    /// (`touched`: asked for the current message).
    std::optional<domain::wall_time> previous_request;
    bool touched = false;
    /// The current message began (its trace started): not again on a
    /// fenced retry.
    bool started = false;
  };

  // -- the frame (session.cpp) ----------------------------------------------
  /// Runs the current job until it is done or paused.
  rpc_step run_job();
  rpc_step finish_step(rpc_output out);
  /// The current message's reply is final (empty: none): through the
  /// completion point (complete_request) into the frame's replies.
  void complete(job& j, std::string reply);
  /// The log scope of a frame's step: lines name its request.
  log::request_scope scope() noexcept {
    trace_.sync();
    return log::request_scope{trace_.fields};
  }
  /// On to the next message of the current job.
  void next_message(job& j);
  /// Records the operation a message was in the metrics (method, tool,
  /// error type, revision, transport, duration since its trace began);
  /// called by `complete` only (session_operation.cpp).
  void observe_operation(const protocol::message& msg, std::string_view reply,
                         domain::mono_time now);
  /// Returns the encoded response, or an empty string for none.
  std::string handle_message(const protocol::message& msg,
                             std::vector<std::string>& notes);
  /// Looks the method up in the table for the request's era and runs it.
  std::string dispatch(const protocol::message& msg,
                       std::vector<std::string>& notes);
  /// The mode of `msg`: modern when it claims the era and this client
  /// serves it.
  request_mode mode_for(const protocol::message& msg) const;

  // -- the journal (session_journal.cpp) ------------------------------------
  /// The claim the current message needs before it runs, if any.
  std::optional<storage::claim_request>
  claim_for(const protocol::message& msg);
  /// After a message: sends its changes to the journal (true: paused,
  /// `step` filled) or keeps its reply.
  bool hold_for_journal(job& j, std::string reply, rpc_step& step);
  /// Takes a session the journal loaded into the tracker.
  void take_over(const storage::stored_session& s);
  /// Undoes the call whose changes the journal did not store.
  void undo_held(job& j);

  // -- principal and history (session_principal.cpp, session_history.cpp) --
  /// Runs `op` for this principal: the step that asks the journal, or
  /// (--ephemeral) nothing, after it ran in memory into `state`.
  std::optional<rpc_step> principal_step(domain::principal_op op,
                                         domain::principal_state& state);
  /// Runs a continuation of the current message (history or principal)
  /// in its mode; a throw is its internal error.
  std::string finish(job& j,
                     const std::function<std::string(
                       std::vector<std::string>& notes)>& run);
  /// Continues after a history or principal continuation made the reply.
  rpc_step continue_with(job& j, std::string reply);
  principal_board& board();

  /// The tracking sessions this client holds, their journal claims and
  /// the news about them for the next output: on the heap, made on first
  /// use (a tool call, a storage fault). An MCP session that never tracks,
  /// such as an idle one, has none of it (~0.8 KB: issue 33); the paths
  /// every frame or sweep takes skip it then.
  struct tracking_part {
    tracking_part(const session_config& cfg, const std::string& principal,
                  const std::string& client_label);
    domain::tracker tracker;
    journal_claims claims;
    /// Directory news for the next output (see rpc_output).
    std::vector<std::string> created;
    std::vector<std::string> gone;
    /// Slots to give back: sessions whose start the journal refused.
    std::vector<std::string> released;
    /// Sessions taken over from the journal since the last step.
    std::vector<std::string> adopted;
    /// Ended sessions the supervisor granted a slot to reopen (time_undo):
    /// still ended when the frame is done (the undo failed, the journal
    /// refused it), they are reported ended again.
    std::vector<std::string> reopen_granted;
  };
  tracking_part& tracking();
  domain::tracker& tracked() {
    return tracking().tracker;
  }
  journal_claims& claims() {
    return tracking().claims;
  }

  session(std::pair<std::shared_ptr<const session_config>, session_identity>
            parts);

  /// The server's configuration (shared) and what is this session's own.
  std::shared_ptr<const session_config> cfg_;
  std::string principal_;
  std::string client_label_;
  /// The board when the configuration has none (made on first use).
  std::shared_ptr<principal_board> own_board_;
  std::unique_ptr<tracking_part> tracking_;
  domain::mono_time last_active_;
  /// The frame in progress, on the heap: a job is ~2.1 KB (its frame, the
  /// replies, a paused call) and an idle session has none; inline, every
  /// idle MCP session carried it (issue 33, memory per idle session).
  std::unique_ptr<job> job_;
  std::string revision_;
  std::optional<protocol::era> era_;
  request_mode mode_;
  /// The caller's preferences: the current message's, and the cache (made
  /// by the first call that reads them).
  std::unique_ptr<principal_prefs> prefs_;
  principal_prefs& prefs();
  /// prefs_, or none read (makes nothing).
  const principal_prefs& prefs_view() const;
  std::string client_name_;
  /// No client logging until the client picks a level (logging/setLevel).
  std::optional<protocol::log_level> client_log_level_;
  /// clientInfo and capabilities from initialize (a JSON object, "{}").
  std::string client_json_ = "{}";
  /// Its capabilities declare the MCP Apps extension.
  bool client_ui_ = false;
  /// initialize or logging/setLevel ran since the last output: its
  /// state_json goes out with it (rpc_output::mcp_state).
  bool state_changed_ = false;
  /// The request being handled (or the last one): id, method, tool, start.
  request_trace trace_;
};

} // namespace ttm::mcp
