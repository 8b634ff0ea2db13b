#pragma once

#include "domain/tracking.hpp"
#include "log.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ttm {

/// Everything the server reads at start-up. Built once in main from compiled
/// defaults, then a config file, then the environment, then the command line
/// (later sources win), and passed on as plain values.
struct config {
  std::string mode; ///< "stdio"
  log::level log_level = log::level::info;
  /// stdio: a longer line is answered with an error and discarded.
  std::size_t max_line_bytes = 4 * 1024 * 1024;
  /// The zone "local" means; empty: detect the host's zone.
  std::string local_timezone;
  /// Concurrent MCP client sessions.
  std::size_t max_clients = 10'000;
  /// Tracking-session limits and expiry (the spec's defaults).
  domain::tracking_limits tracking;
  /// Actor scheduler threads; 0: one per core.
  std::size_t worker_threads = 0;
  std::string config_file;
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

/// The --help text.
std::string usage();

} // namespace ttm
