#pragma once

#include "domain/rate_limit.hpp"
#include "domain/tracking.hpp"
#include "log.hpp"

#include <rapidjson/fwd.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ttm {

/// Everything the server reads at start-up. Built once in main from compiled
/// defaults, then a config file, then the environment, then the command line
/// (later sources win), and passed on as plain values.
struct config {
  std::string mode; ///< "stdio" or "http"
  log::level log_level = log::level::info;
  /// stderr lines as text or one JSON object each (--log-format).
  log::format log_format = log::format::text;
  /// stdio: a longer line is answered with an error and discarded.
  std::size_t max_line_bytes = 4 * 1024 * 1024;
  /// The zone "local" means; empty: detect the host's zone.
  std::string local_timezone;
  /// Concurrent MCP client sessions.
  std::size_t max_clients = 10'000;
  /// Tracking-session limits and expiry (the spec's defaults).
  domain::tracking_limits tracking;
  /// Shares of `tracking.max_sessions`, in open (not ended) tracking
  /// sessions: of one principal (all its clients), of one MCP session.
  /// Resolved by load_config: the default, at most the global cap.
  std::size_t max_sessions_per_principal = 0;
  std::size_t max_sessions_per_mcp_session = 0;
  /// Actor scheduler threads; 0: the cores of the CPU affinity mask.
  std::size_t worker_threads = 0;
  std::string config_file;
  /// Enabled toolsets (tools::toolsets); empty: tools::default_toolsets.
  std::vector<std::string> toolsets;
  /// The config file's "preferences" object as JSON text, checked: every
  /// principal's defaults (applied in main, where 'local' is known).
  std::string preferences_json;

  // -- the session journal --------------------------------------------------
  /// Keep tracking sessions in memory only: nothing survives a restart.
  bool ephemeral = false;
  /// Where the journal lives; empty until resolved by load_config:
  /// $XDG_STATE_HOME/time-tracker-mcp, else ~/.local/state/time-tracker-mcp.
  std::string data_dir;
  /// Ended sessions are kept this long, then purged; 0: forever.
  long long history_retention_s = 90LL * 86'400;
  /// SQLite's `synchronous`: "full" survives power loss, "normal" only a
  /// crash of the process.
  std::string journal_sync = "full";

  /// --metrics-listen HOST:PORT: a listener serving /metrics only (either
  /// mode); unset: none.
  bool metrics_listen = false;
  std::string metrics_host;
  std::uint16_t metrics_port = 0;

  // -- http mode ------------------------------------------------------------
  /// --listen HOST:PORT: an IP literal and a port (0: any free port).
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 8787;
  /// The MCP endpoint's path.
  std::string http_path = "/mcp";
  /// Larger request bodies get 413.
  std::size_t max_body_bytes = 1024 * 1024;
  /// Bearer tokens read from `auth_token_file`; empty: no authentication.
  std::string auth_token_file;
  std::vector<std::string> auth_tokens;
  /// The principal of each token (same order): the NAME of a `NAME TOKEN`
  /// line, else `token-` and a short hash of the token.
  std::vector<std::string> auth_principals;
  /// Accepted besides localhost names on our port.
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
  /// MCP sessions without a request for this long are ended; 0: never.
  std::size_t session_idle_timeout_s = 30 * 60;
  /// Connection timeouts, seconds.
  std::size_t keep_alive_timeout_s = 60;
  std::size_t read_timeout_s = 30;
  /// A new connection must send its first request's headers within this.
  std::size_t header_timeout_s = 10;
  std::size_t write_timeout_s = 30;
  /// On SIGTERM/SIGINT, how long requests in flight may take to finish.
  std::size_t drain_timeout_s = 10;
  std::size_t http_threads = 1;
  std::size_t max_connections = 4096;

  // -- OAuth 2.1 resource server (http mode) -------------------------------
  /// The authorization server's issuer; empty: OAuth off.
  std::string oauth_issuer;
  /// Our canonical resource URI (tokens' audience); empty: the edge's own
  /// URL (loopback --listen only; load_config checks).
  std::string oauth_resource;
  std::string oauth_read_scope = "tracker.read";
  std::string oauth_write_scope = "tracker.write";
  std::string oauth_principal_claim = "sub";
  std::size_t oauth_clock_skew_s = 30;
  /// A token naming an unknown kid fetches the JWKS again at most this
  /// often.
  std::size_t oauth_jwks_min_refetch_s = 10;
  /// Opaque tokens by introspection (RFC 7662): both or neither.
  std::string oauth_introspection_client_id;
  std::string oauth_introspection_client_secret_file;
  /// Read from the file (its first line) by load_config.
  std::string oauth_introspection_client_secret;

  // -- limits (both modes) --------------------------------------------------
  /// Per principal (client address without auth; the stdio client).
  /// Generous: an agent never meets it, a runaway loop does (see
  /// docs/operations.md).
  domain::rate_spec rate_limit{false, 1000, std::chrono::seconds{1}, 2000};
  std::size_t max_in_flight = 256;
  /// A request still waiting this long is answered with an error, before
  /// its change is written; 0: none.
  std::size_t request_timeout_s = 30;
};

/// The outcome of reading the configuration.
struct config_result {
  std::optional<config> cfg; ///< empty: exit with `exit_code`
  int exit_code = 0;
  /// For the user: an error (stderr) or the help/version text (stdout).
  std::string text;
  bool text_is_error = false;
};

/// Reads the configuration. `getenv` is a parameter so that tests can supply
/// an environment.
config_result
load_config(const std::vector<std::string>& args,
            const std::function<const char*(const char*)>& getenv);

/// One option as the docs show it, from the option table (config.cpp);
/// --config first.
struct option_doc {
  std::string flag; ///< "--data-dir"
  std::string arg;  ///< "DIR"; empty for a switch
  std::string env;
  std::string key; ///< config-file key; empty: none (--config)
  std::string help;
};
std::vector<option_doc> option_docs();

/// The --help text (config_help.cpp).
std::string usage();

/// docs/options.md's option table, generated from the same option table
/// (--help-markdown; a test compares it with the committed page).
std::string usage_markdown();

/// The man page time-tracker-mcp(1) in roff, from the same option table
/// (--help-man; the build installs it).
std::string usage_man();

/// --toolsets: "time,tracking", "all" (config_sets.cpp).
std::string set_toolsets(config& c, const std::string& list);

/// The config file's "preferences" object, checked and kept as JSON text.
std::string set_preferences(config& c, const rapidjson::Value& obj);

} // namespace ttm
