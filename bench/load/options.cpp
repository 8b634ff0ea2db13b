#include "options.hpp"

#include "mcp.hpp"

#include <rapidjson/document.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ttb {

namespace {

struct scenario_name {
  const char* name;
  scenario kind;
};

constexpr scenario_name scenario_names[] = {
  {"get-current", scenario::get_current},
  {"workflow", scenario::workflow},
  {"workflow-edits", scenario::workflow_edits},
  {"handshake", scenario::handshake},
  {"mixed", scenario::mixed},
  {"ping", scenario::ping},
  {"idle-sessions", scenario::idle_sessions},
  {"fill-tracking", scenario::fill_tracking},
};

std::optional<scenario> scenario_from(const std::string& s) {
  for (const auto& n : scenario_names)
    if (s == n.name)
      return n.kind;
  return std::nullopt;
}

bool parse_uint(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s[0] == '-' || s[0] == '+')
    return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0')
    return false;
  out = v;
  return true;
}

bool parse_double(const std::string& s, double& out) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

struct bad_option {
  std::string message;
};

} // namespace

const char* name_of(scenario s) noexcept {
  for (const auto& n : scenario_names)
    if (n.kind == s)
      return n.name;
  return "?";
}

const char* name_of(expectation e) noexcept {
  switch (e) {
    case expectation::ok:
      return "ok";
    case expectation::tool_error:
      return "tool-error";
    case expectation::rpc_error:
      return "rpc-error";
  }
  return "?";
}

std::optional<nanos> parse_duration(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i]))
                             || text[i] == '.'))
    ++i;
  double value = 0;
  if (i == 0 || !parse_double(text.substr(0, i), value) || value < 0)
    return std::nullopt;
  std::string unit = text.substr(i);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "m")
    scale = 60e9;
  else if (unit == "h")
    scale = 3600e9;
  else
    return std::nullopt;
  double ns = value * scale;
  if (ns > 1e18)
    return std::nullopt;
  return nanos{static_cast<std::int64_t>(ns)};
}

std::string usage() {
  return R"(Usage: time-tracker-bench (--url URL | --stdio -- COMMAND [ARGS...]) [options]

A load generator for MCP servers: N virtual clients, each with its own MCP
session, call a scenario over Streamable HTTP or stdio and report per-method
latency percentiles, throughput, errors and the server's RSS.

Target:
  --url URL               Streamable HTTP endpoint, e.g. http://127.0.0.1:8787/mcp
  --stdio -- CMD ARGS...  spawn CMD and speak newline-delimited JSON-RPC on its
                          stdin/stdout (everything after -- is the command)
  --header 'NAME: VALUE'  extra HTTP header on every request (repeatable),
                          e.g. 'Authorization: Bearer TOKEN'
  --server-pid PID        HTTP: the server's pid, for RSS and CPU from /proc
                          (CPU: the pid's and its descendants', e.g. nginx's
                          master and workers)
  --server-log FILE       stdio: append the server's stderr to FILE ('-': to
                          ours; default: discarded)
  --raw-post              HTTP, get-current or ping: no initialize and no
                          session; every request is the same POST with
                          JSON-RPC id 1, its reply checked as usual (for a
                          static server that answers every POST alike)

Load:
  --scenario NAME         get-current (default), workflow, workflow-edits,
                          handshake, mixed, ping, idle-sessions, fill-tracking
                          (workflow-edits needs a server offering
                          time_tasks_edit: --toolsets all)
  --clients N             virtual clients (default 64 over HTTP, 1 over stdio;
                          idle-sessions: connections, default 64;
                          fill-tracking: 4)
  --duration D            measure for D (default 10s), after the warm-up
  --requests N            or stop after N measured requests
  --warmup D              excluded from the figures (default 2s with
                          --duration, 0 with --requests)
  --rate R                open loop: R requests/s in total on a fixed
                          schedule; latency counts from the scheduled time
                          (default: closed loop, each client sends its next
                          request when the previous one is answered)
  --threads T             HTTP: the bench's I/O threads (default 1)
  --timeout D             per request (default 30s)

Scenario parameters:
  --tool NAME             tool of get-current and handshake (time_get_current)
  --args JSON             its arguments (default {"timezone":"America/New_York"})
  --expect WHAT           that call's reply must be: ok (default), tool-error
                          (isError true) or rpc-error (a JSON-RPC error)
  --tasks K               tasks per tracking session (workflow,
                          workflow-edits, mixed: 5;
                          fill-tracking: 500)
  --report-format F       workflow: also call time_session_report in format
                          F (markdown, csv, json, html) before the summary
  --summaries N           workflow: call the summary (and the report) N
                          times per session before its end (default 1)
  --mix NAME=W,...        mixed: weights of get-current, workflow,
                          workflow-edits, handshake, ping (default
                          get-current=70,workflow=30)
  --sessions M            idle-sessions: MCP sessions to open (default 1000);
                          fill-tracking: tracking sessions (default 100)
  --protocol-version V    MCP revision to request (default 2025-11-25). From
                          2026-07-28 on: the stateless era, no initialize and
                          no session; every request carries params._meta
                          (revision, clientCapabilities, clientInfo) and, over
                          HTTP, MCP-Protocol-Version, Mcp-Method and Mcp-Name
                          headers (and Mcp-Param-Session-Id, x-mcp-header,
                          with a session_id argument); ping is sent as server/discover, a
                          handshake is a new connection (stdio: process) with
                          server/discover + one call; idle-sessions is refused
  --seed S                seed of the mixed scenario's choices (default 1)

Output:
  --json                  one JSON document on stdout instead of the table
  --show-errors N         print the first N error messages to stderr (5)
  --ack-log FILE          workflow, mixed, fill-tracking: append one line per
                          acknowledged state change (a valid, non-error reply
                          of time_session_start, time_task_start,
                          time_task_end, time_session_end), tab-separated:
                          TOOL SESSION_ID TASK_ID|- STATUS|- (for checking a
                          server's journal after a crash; see bench/README.md)
  --help

Exit status: 0 when every reply was valid, 1 when any request failed or a
reply did not validate, 2 for a bad command line.
)";
}

parse_result parse_options(int argc, char** argv) {
  options o;
  bool stdio_flag = false;
  std::optional<nanos> warmup;
  bool have_clients = false;
  try {
    int i = 1;
    auto value = [&](const std::string& name, std::string& inline_value,
                     bool has_inline) -> std::string {
      if (has_inline)
        return inline_value;
      if (i + 1 >= argc)
        throw bad_option{"option " + name + " needs a value"};
      return argv[++i];
    };
    for (; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--") {
        for (++i; i < argc; ++i)
          o.command.emplace_back(argv[i]);
        break;
      }
      std::string name = arg;
      std::string inline_value;
      bool has_inline = false;
      if (auto eq = arg.find('='); arg.rfind("--", 0) == 0
                                   && eq != std::string::npos) {
        name = arg.substr(0, eq);
        inline_value = arg.substr(eq + 1);
        has_inline = true;
      }
      auto get = [&] { return value(name, inline_value, has_inline); };
      auto get_uint = [&](std::uint64_t min) {
        std::uint64_t v = 0;
        auto s = get();
        if (!parse_uint(s, v) || v < min)
          throw bad_option{"option " + name + ": '" + s
                           + "' is not a whole number"
                           + (min > 0 ? " >= " + std::to_string(min) : "")};
        return v;
      };
      auto get_duration = [&] {
        auto s = get();
        auto d = parse_duration(s);
        if (!d)
          throw bad_option{"option " + name + ": '" + s
                           + "' is not a duration (e.g. 500ms, 10s, 2m)"};
        return *d;
      };
      if (name == "--help" || name == "-h") {
        return {std::nullopt, 0, usage()};
      } else if (name == "--url") {
        o.url = get();
      } else if (name == "--stdio") {
        stdio_flag = true;
      } else if (name == "--header") {
        auto h = get();
        auto colon = h.find(':');
        if (colon == std::string::npos || colon == 0)
          throw bad_option{"--header: expected 'NAME: VALUE', got '" + h
                           + "'"};
        auto v = h.substr(colon + 1);
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
          v.erase(0, 1);
        o.headers.emplace_back(h.substr(0, colon), v);
      } else if (name == "--server-pid") {
        o.server_pid = static_cast<int>(get_uint(1));
      } else if (name == "--server-log") {
        o.server_log = get();
      } else if (name == "--raw-post") {
        o.raw_post = true;
      } else if (name == "--scenario") {
        auto s = get();
        auto k = scenario_from(s);
        if (!k)
          throw bad_option{"unknown scenario '" + s + "'"};
        o.kind = *k;
      } else if (name == "--clients") {
        o.clients = get_uint(1);
        have_clients = true;
      } else if (name == "--duration") {
        o.run_for = get_duration();
        if (o.run_for->count() == 0)
          throw bad_option{"--duration must be more than 0"};
      } else if (name == "--requests") {
        o.requests = get_uint(1);
      } else if (name == "--warmup") {
        warmup = get_duration();
      } else if (name == "--rate") {
        auto s = get();
        if (!parse_double(s, o.rate) || o.rate <= 0)
          throw bad_option{"--rate: '" + s + "' is not a positive rate"};
      } else if (name == "--threads") {
        o.threads = static_cast<unsigned>(get_uint(1));
      } else if (name == "--timeout") {
        o.timeout = get_duration();
      } else if (name == "--tool") {
        o.tool = get();
      } else if (name == "--args") {
        o.args = get();
      } else if (name == "--expect") {
        auto s = get();
        if (s == "ok")
          o.expect = expectation::ok;
        else if (s == "tool-error")
          o.expect = expectation::tool_error;
        else if (s == "rpc-error")
          o.expect = expectation::rpc_error;
        else
          throw bad_option{"--expect: ok, tool-error or rpc-error, not '" + s
                           + "'"};
      } else if (name == "--tasks") {
        o.tasks = get_uint(1);
      } else if (name == "--summaries") {
        o.summaries = get_uint(1);
      } else if (name == "--report-format") {
        o.report_format = get();
        if (o.report_format != "markdown" && o.report_format != "csv"
            && o.report_format != "json" && o.report_format != "html")
          throw bad_option{"--report-format: markdown, csv, json or html, "
                           "not '"
                           + o.report_format + "'"};
      } else if (name == "--mix") {
        std::stringstream ss{get()};
        std::string item;
        while (std::getline(ss, item, ',')) {
          auto eq = item.find('=');
          auto k = scenario_from(item.substr(0, eq));
          std::uint64_t w = 0;
          if (eq == std::string::npos || !k
              || !parse_uint(item.substr(eq + 1), w) || w > 1000000)
            throw bad_option{"--mix: expected NAME=WEIGHT, got '" + item + "'"};
          if (*k == scenario::mixed || *k == scenario::idle_sessions
              || *k == scenario::fill_tracking)
            throw bad_option{"--mix: " + item.substr(0, eq)
                             + " cannot be mixed"};
          if (w > 0)
            o.mix.push_back({*k, static_cast<unsigned>(w)});
        }
        if (o.mix.empty())
          throw bad_option{"--mix: no scenario with a weight above 0"};
      } else if (name == "--sessions") {
        o.sessions = get_uint(1);
      } else if (name == "--protocol-version") {
        o.protocol_version = get();
      } else if (name == "--seed") {
        o.seed = get_uint(0);
      } else if (name == "--json") {
        o.json = true;
      } else if (name == "--show-errors") {
        o.show_errors = get_uint(0);
      } else if (name == "--ack-log") {
        o.ack_log = get();
        if (o.ack_log.empty())
          throw bad_option{"--ack-log needs a file name"};
      } else {
        throw bad_option{"unknown option '" + arg + "'"};
      }
      if (has_inline
          && (name == "--stdio" || name == "--json" || name == "--raw-post"))
        throw bad_option{"option " + name + " takes no value"};
    }

    // -- consistency and defaults
    if (stdio_flag != !o.command.empty())
      throw bad_option{stdio_flag ? "--stdio needs the server command after --"
                                  : "a command after -- needs --stdio"};
    if (o.url.empty() == o.command.empty())
      throw bad_option{"give exactly one target: --url URL or --stdio -- CMD"};
    if (!o.url.empty() && o.url.rfind("http://", 0) != 0)
      throw bad_option{"--url must start with http:// (no TLS)"};
    if (o.stdio() && o.server_pid != 0)
      throw bad_option{"--server-pid is for --url: over stdio the bench knows "
                       "the pid"};
    if (o.stdio() && o.threads != 1)
      throw bad_option{"--threads is for --url: over stdio one thread serves "
                       "the one pipe"};
    if (o.stdio() && o.kind == scenario::idle_sessions)
      throw bad_option{"idle-sessions needs --url: a stdio server has one MCP "
                       "session"};
    if (o.kind == scenario::idle_sessions
        && mcp::era_of(o.protocol_version) == mcp::era::modern)
      throw bad_option{"idle-sessions measures idle MCP sessions, and "
                       "protocol " + o.protocol_version
                       + " (stateless) has none: no initialize, no "
                         "Mcp-Session-Id; use --protocol-version 2025-11-25"};
    if (o.raw_post && o.stdio())
      throw bad_option{"--raw-post is for --url"};
    if (o.raw_post && o.kind != scenario::get_current
        && o.kind != scenario::ping)
      throw bad_option{"--raw-post runs get-current or ping: the other "
                       "scenarios need an MCP session"};
    if (o.run_for && o.requests)
      throw bad_option{"give --duration or --requests, not both"};
    if (o.memory_mode() && (o.run_for || o.requests || o.rate > 0 || warmup))
      throw bad_option{std::string{name_of(o.kind)}
                       + " runs to completion: no --duration, --requests, "
                         "--rate or --warmup"};
    if (!o.ack_log.empty() && o.kind != scenario::workflow
        && o.kind != scenario::mixed && o.kind != scenario::fill_tracking)
      throw bad_option{"--ack-log is for the scenarios that change tracking "
                       "sessions: workflow, mixed, fill-tracking"};
    if (!o.mix.empty() && o.kind != scenario::mixed)
      throw bad_option{"--mix is for --scenario mixed"};
    {
      rapidjson::Document d;
      d.Parse(o.args.c_str());
      if (d.HasParseError() || !d.IsObject())
        throw bad_option{"--args must be a JSON object, got '" + o.args + "'"};
    }
    if (o.tool.empty())
      throw bad_option{"--tool must not be empty"};

    if (!o.memory_mode() && !o.requests && !o.run_for)
      o.run_for = std::chrono::seconds{10};
    o.warmup = warmup ? *warmup
               : o.run_for && !o.memory_mode()
                 ? nanos{std::chrono::seconds{2}}
                 : nanos{0};
    if (o.tasks == 0)
      o.tasks = o.kind == scenario::fill_tracking ? 500 : 5;
    if (o.sessions == 0)
      o.sessions = o.kind == scenario::fill_tracking ? 100 : 1000;
    if (!have_clients) {
      if (o.kind == scenario::fill_tracking)
        o.clients = 4;
      else if (o.kind == scenario::idle_sessions)
        o.clients = 64;
      else
        o.clients = o.stdio() ? 1 : 64;
    }
    if (o.kind == scenario::idle_sessions || o.kind == scenario::fill_tracking)
      o.clients = std::min<std::size_t>(o.clients, o.sessions);
    if (o.kind == scenario::mixed && o.mix.empty())
      o.mix = {{scenario::get_current, 70}, {scenario::workflow, 30}};
    if (o.threads > o.clients)
      o.threads = static_cast<unsigned>(o.clients);
  } catch (const bad_option& e) {
    return {std::nullopt, 2,
            "time-tracker-bench: " + e.message + " (see --help)"};
  }
  return {std::move(o), 0, {}};
}

} // namespace ttb
