#pragma once

// What main wires before the actor system starts, for both modes: the zone
// "local" stands for, the client actors' configuration, the edges' rate
// limiter, the supervisor's limits, and the journal's directory lock.

#include "actors/client.hpp"
#include "actors/supervisor.hpp"
#include "config.hpp"
#include "domain/clock.hpp"
#include "domain/rate_limit.hpp"
#include "storage/change_signal.hpp"
#include "storage/pg_listener.hpp"
#include "storage/store.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace ttm {

namespace edge::oauth {
class resource_server;
}

/// What both modes set up before the actor system: the zone "local" stands
/// for and the client actors' configuration, without loading the tz database
/// or compiling the tool schemas (see warm_up), and the journal's lock.
struct prepared_config {
  actors::client_config client;
  std::string tzdb_version;
  /// The journal (client.journal): how its actor opens the store (the
  /// directory is locked already), or why it cannot.
  std::function<storage::result<storage::store_ptr>()> open_store;
  std::string journal_summary; ///< for the start-up log line
  /// HTTP: the MCP-session change signal (storage/change_signal.hpp): on
  /// SQLite the data directory's file; on PostgreSQL this process's
  /// counters, which `mcp_listener` bumps. Null: every request on a stored
  /// MCP session asks the journal (the file could not be mapped).
  storage::change_signal_ptr mcp_changes;
  /// HTTP on PostgreSQL: LISTENs for other nodes' MCP session changes.
  std::shared_ptr<storage::pg_listener> mcp_listener;
  /// Set by the journal actor once the store is open (/readyz).
  std::shared_ptr<std::atomic<bool>> journal_open =
    std::make_shared<std::atomic<bool>>(false);
  /// Not 0: do not start (2: a bad --local-timezone; 1: the data
  /// directory is another server's), already logged.
  int exit_code = 0;
};

/// Resolves the zone, builds the client configuration and locks the
/// journal's directory; `exit_code` says when the server must not start.
prepared_config prepare(const config& cfg);

/// --rate-limit and --max-in-flight, for an edge; null when neither limits.
/// `in_flight`: whether the edge counts requests in flight here (HTTP) or
/// pauses reading instead (stdio).
std::shared_ptr<domain::rate_limiter>
make_limiter(const config& cfg, const domain::clock_ptr& clock,
             bool in_flight);

/// The OAuth resource server of --oauth-issuer (http mode), not started
/// (the edge starts it); null when OAuth is off, or with `error` set when
/// an option's URL cannot be used (exit 2).
std::shared_ptr<edge::oauth::resource_server>
make_oauth(const config& cfg, const actors::client_config& client,
           std::string& error);

actors::supervisor_config make_supervisor_config(const config& cfg,
                                                 bool http);

} // namespace ttm
