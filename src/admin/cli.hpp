#pragma once

// What the admin commands share: their flags, the data directory as the
// server resolves it, time filters, progress on stderr. Internal to
// src/admin.

#include "domain/clock.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace ttm::admin {

/// A flag a command takes; `arg` empty: a switch.
struct flag {
  const char* name; ///< "--since"
  const char* arg;  ///< "TIME"
  const char* help;
  bool repeats = false;
};

/// One command's arguments, parsed.
struct args {
  std::multimap<std::string, std::string> flags;
  std::vector<std::string> positional;
  /// After a lone "--" (check: server options).
  std::vector<std::string> rest;
  bool help = false;

  std::optional<std::string> get(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
};

/// Everything a command needs from outside.
struct context {
  std::ostream& out;
  std::ostream& err;
  std::function<const char*(const char*)> getenv;
  domain::clock_ptr clock;
};

/// A command: its flags and what it does with them.
struct command {
  const char* name;
  const char* usage;   ///< "sessions list [options]"
  const char* summary; ///< one line
  std::vector<flag> flags;
  int (*run)(context& ctx, const args& a);
};

/// The flags every command takes (--data-dir, --config).
const std::vector<flag>& common_flags();

/// Parses `in` against `c`'s flags (and the common ones); an unknown flag
/// or a missing value is an error message.
std::variant<args, std::string> parse(const command& c,
                                      const std::vector<std::string>& in);

/// The --help text of `c`.
std::string help_of(const command& c);

/// Prints "time-tracker-mcp NAME: MESSAGE" and the help hint; returns 2.
int usage_error(context& ctx, const std::string& name,
                const std::string& message);

/// Prints "time-tracker-mcp NAME: MESSAGE"; returns 1.
int fault(context& ctx, const std::string& name, const std::string& message);

/// The PostgreSQL journal the server would use (--journal, its config
/// file or environment); empty: SQLite in the data directory.
std::string journal_uri(context& ctx, const args& a);

/// The data directory as the server would resolve it (--data-dir, the
/// config file, TIME_TRACKER_MCP_* variables, XDG_STATE_HOME, HOME); or
/// why there is none.
std::variant<std::string, std::string> data_dir(context& ctx, const args& a);

/// A time filter (--since, --until) through the tools' time grammar in
/// `z`; or why not.
std::variant<domain::wall_time, std::string>
read_time(context& ctx, const char* flag, const std::string& text,
          const domain::zone& z);

/// The zone of --timezone (default UTC); or why not.
std::variant<domain::zone, std::string> zone_of(const args& a);

/// A positive integer flag within [1, max]; or why not.
std::variant<std::int64_t, std::string>
count_of(const args& a, const char* name, std::int64_t fallback,
         std::int64_t max);

/// Progress lines on stderr at most once a second ("export: 20000 of
/// 51234 events"; a total < 0: not known); nothing for a run shorter than
/// a second.
class progress {
public:
  progress(context& ctx, std::string what, std::string unit);
  void operator()(std::int64_t done, std::int64_t total);
  /// A last line when earlier ones were printed.
  void finish(std::int64_t done);

private:
  context& ctx_;
  std::string what_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool printed_ = false;
};

// The commands, one file each.
int run_sessions(context& ctx, const std::vector<std::string>& in);
const command& audit_command();
const command& check_command();
const command& backup_command();
const command& export_command();
const command& import_command();

} // namespace ttm::admin
