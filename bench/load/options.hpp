#pragma once

// The command line of time-tracker-bench (documented in bench/README.md and
// by --help).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttb {

using nanos = std::chrono::nanoseconds;

enum class scenario {
  get_current,   ///< loop tools/call --tool (time_get_current) with --args
  workflow,      ///< the spec's Pattern 1, repeated
  workflow_edits, ///< Pattern 1 with bulk edits: pause, note, resume, correct
  handshake,     ///< initialize + initialized + one call + DELETE
  mixed,         ///< a weighted blend of the four above and ping
  ping,          ///< JSON-RPC ping: the transport floor
  idle_sessions, ///< memory: RSS per idle MCP session
  fill_tracking, ///< memory: RSS per tracking session and per task
};

const char* name_of(scenario s) noexcept;

/// What the reply to the scenario's tool call must be.
enum class expectation { ok, tool_error, rpc_error };

const char* name_of(expectation e) noexcept;

struct mix_entry {
  scenario kind;
  unsigned weight;
};

struct options {
  // -- target
  std::string url;                  ///< Streamable HTTP endpoint
  std::vector<std::string> command; ///< stdio: the server's argv
  std::vector<std::pair<std::string, std::string>> headers;
  int server_pid = 0;     ///< --server-pid (HTTP); stdio: the child's
  std::string server_log; ///< stdio server's stderr: "" discarded, "-" ours
  /// --raw-post: no MCP handshake and no session; every request is the
  /// scenario's request with JSON-RPC id 1 (for a static server such as
  /// the nginx ceiling of bench/compare.sh). HTTP, get-current and ping.
  bool raw_post = false;

  bool stdio() const noexcept {
    return !command.empty();
  }

  // -- load
  scenario kind = scenario::get_current;
  std::size_t clients = 0;
  std::optional<nanos> run_for;            ///< --duration
  std::optional<std::uint64_t> requests;   ///< --requests
  nanos warmup{0};
  double rate = 0; ///< open loop: requests/s in total; 0: closed loop
  unsigned threads = 1;
  nanos timeout = std::chrono::seconds{30};

  // -- scenario parameters
  std::string protocol_version = "2025-11-25";
  std::string tool = "time_get_current";
  std::string args = R"({"timezone":"America/New_York"})";
  expectation expect = expectation::ok;
  std::size_t tasks = 0;
  /// --report-format: workflow also calls time_session_report in this
  /// format before the summary; empty: it does not.
  std::string report_format;
  /// --summaries: the workflow's summary (and report) calls per session.
  std::size_t summaries = 1;
  std::vector<mix_entry> mix;
  std::size_t sessions = 0;
  std::uint64_t seed = 1;

  // -- output
  bool json = false;
  /// --ack-log: append a line per acknowledged state change (ack_log.hpp).
  std::string ack_log;
  std::size_t show_errors = 5;

  bool open_loop() const noexcept {
    return rate > 0;
  }
  bool memory_mode() const noexcept {
    return kind == scenario::idle_sessions || kind == scenario::fill_tracking;
  }
};

struct parse_result {
  std::optional<options> opts; ///< empty: exit with `exit_code`
  int exit_code = 0;           ///< 0 after --help, 2 for a bad command line
  std::string message;         ///< for stdout (--help) or stderr (errors)
};

/// Parses and checks the command line and fills in the defaults that depend
/// on the scenario and transport.
parse_result parse_options(int argc, char** argv);

/// A duration: a number with an optional unit (ms, s, m, h; default s).
std::optional<nanos> parse_duration(const std::string& text);

std::string usage();

} // namespace ttb
