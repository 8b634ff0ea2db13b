#pragma once

// Inside the configuration unit only (src/config*.cpp): the option table's
// row type, the value syntaxes its setters share, and what load_config
// checks and derives once every source is read. `config` is only named
// here, not included: config.cpp defines the table with these.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttm {

struct config;

namespace config_detail {

using setter = std::function<std::string(config&, const std::string&)>;

/// One option, declared once: its flag, config-file key, environment
/// variable, help text and parser.
struct option {
  const char* flag;    ///< --flag VALUE
  const char* key;     ///< key in the JSON config file
  const char* env;     ///< environment variable
  const char* arg;     ///< placeholder in --help
  const char* help;
  setter set;          ///< returns an error message or ""
};

/// The option table (config.cpp), in --help order.
const std::vector<option>& options();

// -- value syntaxes (config_values.cpp); each returns an error or "" ------

std::string parse_size(const std::string& text, std::size_t min,
                       std::size_t max, std::size_t& out);

/// "90s", "30m", "4h", "2d" or a number of seconds, from `min` to `max`
/// seconds. One syntax for every duration option.
std::string parse_duration(const std::string& text, long long min,
                           long long max, long long& seconds);

/// Tracking-session limits: 1 second to 366 days.
std::string parse_duration(const std::string& text, std::chrono::seconds& out);

/// HOST:PORT or [V6]:PORT; HOST an IP literal ("localhost" is 127.0.0.1).
std::string parse_host_port(const std::string& text, std::string& host_out,
                            std::uint16_t& port_out);

std::string parse_listen(const std::string& text, config& c);

std::vector<std::string> split_list(const std::string& text);

/// HTTP timeouts: `min` seconds to 7 days.
std::string parse_seconds(const std::string& v, std::size_t min,
                          std::size_t& out);

/// An OAuth scope name (RFC 6749 §3.3 scope-token: visible ASCII but
/// '"' and the backslash, no space).
std::string parse_scope(const std::string& v, std::string& out);

// -- after every source (config_checks.cpp) -------------------------------

/// The options checked together and the values derived from several (the
/// shares' defaults, the data directory, the tokens, the OAuth secret):
/// an error or "".
std::string resolve(config& c,
                    const std::function<const char*(const char*)>& getenv);

} // namespace config_detail
} // namespace ttm
