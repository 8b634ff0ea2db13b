#pragma once

// A virtual client: its own MCP session (over HTTP its own keep-alive
// connection; over stdio a share of the one server's session), running a
// scenario as a chain of asynchronous exchanges on its thread's io_context.

#include "ack_log.hpp"
#include "channel.hpp"
#include "mcp.hpp"
#include "options.hpp"
#include "stats.hpp"

#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ttb {

using clock = std::chrono::steady_clock;

/// When the measured run starts and ends; shared by every client (written
/// before the run starts, read-only after, except the budget).
struct run_control {
  clock::time_point start{};
  clock::time_point warmup_end{};
  clock::time_point deadline = clock::time_point::max();
  /// Open loop: the time between one client's scheduled requests.
  nanos interval{0};
  /// --requests: measured requests still to send.
  std::atomic<std::int64_t> budget{std::numeric_limits<std::int64_t>::max()};
};

/// What every client of a run reads.
struct run_config {
  explicit run_config(const options& o);

  const options& opts;
  mcp::request_builder builder;
  std::string tool_label; ///< "tools/call NAME"
  mcp::want tool_want;    ///< from --expect
  std::vector<std::string> tasks;
  std::string start_args; ///< the workflow's time_session_start arguments
  unsigned mix_total = 0;
  spawn_options spawn;    ///< stdio: how to start a server
  /// HTTP: the target (a modern handshake opens connections of its own).
  std::shared_ptr<const http_target> target;
  std::shared_ptr<const http_endpoints> endpoints;
  /// --ack-log, or nullptr.
  ack_log* acks = nullptr;
};

/// What the clients of one bench thread share.
struct worker_state {
  explicit worker_state(boost::asio::io_context& io, error_log& errors)
    : ioc(io), stats(errors) {
  }
  boost::asio::io_context& ioc;
  op_table stats;
  std::int64_t next_id = 1;
};

class vclient : public std::enable_shared_from_this<vclient> {
public:
  using done_fn = std::function<void()>;

  /// `owns_session`: this client opens (and at the end deletes) its own
  /// MCP session; stdio clients other than the first share the first's.
  vclient(worker_state& w, const run_config& cfg, run_control& ctl,
          std::shared_ptr<channel> ch, std::size_t index,
          bool owns_session);

  /// initialize + notifications/initialized (not measured); nothing in
  /// the modern era.
  void setup(done_fn done);
  /// The scenario until the deadline or the request budget.
  void run(done_fn done);
  /// DELETE of the session (HTTP; not measured).
  void cleanup(done_fn done);

  /// True when the client gave up: its set-up failed, or its transport
  /// failed three times in a row.
  bool broken() const noexcept {
    return broken_;
  }

  // -- memory modes (every exchange measured, no schedule)
  /// Opens `n` more MCP sessions on this client's connection.
  void open_idle_sessions(std::size_t n, done_fn done);
  /// DELETEs them.
  void close_idle_sessions(done_fn done);
  /// The idle sessions open now.
  std::size_t idle_sessions() const noexcept {
    return idle_.size();
  }

  enum class fill_step { start, tasks, summary, end };
  /// fill-tracking: `start` starts `n` tracking sessions with --tasks tasks
  /// (n is taken from `sessions`), `tasks` starts and ends every task,
  /// `summary` fetches each session's summary, `end` ends them.
  void fill(fill_step step, std::size_t sessions, done_fn done);

private:
  enum class rec { window, always, never };

  using check_fn = std::function<std::string(const rapidjson::Value&)>;
  using next_fn = std::function<void(bool ok, const mcp::document_ptr& doc,
                                     const incoming& in)>;
  using action_fn = std::function<void(clock::time_point intended,
                                       bool measured)>;

  /// Waits for this client's next slot (open loop), decides whether the
  /// exchange is measured, and runs `action`; or ends the run when the
  /// deadline or the budget is reached.
  void schedule(action_fn action);

  /// Sends `msg` and checks the reply (and, with `check`, the tool's
  /// structured result); records the latency from `intended` when
  /// `measured`, counts an error otherwise, then calls `next`.
  void exchange(std::string label, outgoing msg, mcp::want want,
                clock::time_point intended, bool measured, check_fn check,
                next_fn next, channel* via = nullptr);

  /// schedule + exchange.
  void call(std::string label, outgoing msg, mcp::want want, check_fn check,
            next_fn next, channel* via = nullptr);

  /// `m` in this client's MCP session (legacy; modern: none).
  outgoing request(outgoing m) const;
  /// notifications/initialized in `session`.
  outgoing initialized(const std::string& session) const;
  /// tools/call of --tool with --args in `session`.
  outgoing scenario_call(const std::string& session);
  /// --raw-post: every request has id 1 (a static reply can only match one).
  std::int64_t next_id() {
    return cfg_.opts.raw_post ? 1 : w_.next_id++;
  }

  void iterate();
  void finish_run();
  scenario pick();

  void get_current();
  void ping();
  void workflow_start();
  void workflow_task(bool start);
  /// time_session_summary (`end` false), then time_session_end.
  void workflow_close(bool end);
  /// --report-format: time_session_report of the session, then the summary.
  void workflow_report();
  // workflow-edits (client_edits.cpp): per task start, an edit pausing it
  // with a note, an edit resuming it, end; then one edit correcting every
  // task's run; then workflow_close.
  void edits_start();
  void edits_task(int step);
  void edits_correct();
  void handshake_http();
  void handshake_http_delete(bool ok);
  void handshake_stdio();
  void handshake_http_modern();
  void handshake_http_modern_done(bool ok);
  void iteration_done(const char* name, bool ok);
  /// --ack-log: `tool`'s change in tracking session `session` (task `task`)
  /// was acknowledged by the reply `doc`; not logged when the reply says
  /// nothing changed (already_running, already_ended).
  void acknowledge(const char* tool, const std::string& session,
                   std::string_view task, const mcp::document_ptr& doc);

  void open_idle_next(std::size_t left, done_fn done);
  void close_idle_next(std::size_t i, done_fn done);
  void fill_next(fill_step step, std::size_t i, done_fn done);

  worker_state& w_;
  const run_config& cfg_;
  run_control& ctl_;
  std::shared_ptr<channel> ch_;
  std::size_t index_;
  bool owns_session_;
  std::string session_;
  boost::asio::steady_timer timer_;
  clock::time_point next_slot_{};
  std::uint64_t rng_;
  int transport_failures_ = 0;
  bool broken_ = false;
  bool need_session_ = false;
  done_fn on_done_;
  // The exchange in progress (set by schedule).
  clock::time_point intended_{};
  bool measured_ = false;
  // The iteration in progress.
  clock::time_point iter_start_{};
  bool iter_measured_ = false;
  std::string sid_;
  std::size_t task_ = 0;
  /// workflow: summaries (each after its report) still to call.
  std::size_t closes_left_ = 0;
  const char* iter_name_ = "[workflow]"; ///< the iteration's row
  std::string hs_session_;
  std::shared_ptr<process_channel> hs_proc_;
  std::shared_ptr<channel> hs_channel_; ///< modern HTTP handshake's connection
  // Memory modes.
  std::vector<std::string> idle_;
  std::vector<std::string> tracking_;
  std::size_t fill_task_ = 0;
  bool fill_started_ = false;
};

} // namespace ttb
