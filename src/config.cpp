#include "config.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <charconv>
#include <chrono>
#include <fstream>
#include <sstream>

namespace ttm {

namespace {

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

std::string parse_size(const std::string& text, std::size_t min,
                       std::size_t max, std::size_t& out) {
  std::size_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < min
      || v > max)
    return "expected an integer from " + std::to_string(min) + " to "
           + std::to_string(max) + ", got '" + text + "'";
  out = v;
  return {};
}

/// "90s", "30m", "4h", "2d" or a number of seconds.
std::string parse_duration(const std::string& text, std::chrono::seconds& out) {
  std::size_t n = 0;
  auto* first = text.data();
  auto* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, n);
  long long unit = 1;
  if (ec == std::errc{} && end + 1 == last) {
    switch (*end) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86'400;
        break;
      default:
        end = first; // not a unit: rejected below
    }
    if (end != first)
      ++end;
  }
  constexpr long long max_seconds = 366LL * 86'400;
  if (ec != std::errc{} || end != last || n == 0
      || static_cast<long long>(n) > max_seconds / unit)
    return "expected a duration such as 90s, 30m, 4h or 1d (1 second to "
           "366 days), got '"
           + text + "'";
  out = std::chrono::seconds{static_cast<long long>(n) * unit};
  return {};
}

const std::vector<option>& options() {
  static const std::vector<option> opts{
    {"--log-level", "log_level", "TIME_TRACKER_MCP_LOG_LEVEL", "LEVEL",
     "stderr log threshold: trace, debug, info, warning, error, off "
     "(default info)",
     [](config& c, const std::string& v) -> std::string {
       if (auto l = log::parse_level(v)) {
         c.log_level = *l;
         return {};
       }
       return "expected one of " + std::string{log::level_names()} + ", got '"
              + v + "'";
     }},
    {"--max-line-bytes", "max_line_bytes", "TIME_TRACKER_MCP_MAX_LINE_BYTES",
     "N",
     "stdio: longest accepted message line in bytes; longer lines get an "
     "error reply and are discarded (default 4194304)",
     [](config& c, const std::string& v) {
       return parse_size(v, 256, std::size_t{1} << 30, c.max_line_bytes);
     }},
    {"--local-timezone", "local_timezone", "TIME_TRACKER_MCP_LOCAL_TIMEZONE",
     "ZONE",
     "IANA zone that 'local' stands for (default: detected from TZ, "
     "/etc/timezone, /etc/localtime; UTC if none)",
     [](config& c, const std::string& v) {
       c.local_timezone = v;
       return std::string{};
     }},
    {"--max-mcp-sessions", "max_mcp_sessions",
     "TIME_TRACKER_MCP_MAX_MCP_SESSIONS", "N",
     "most concurrent MCP client sessions (default 10000)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.max_clients);
     }},
    {"--max-tracking-sessions", "max_tracking_sessions",
     "TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS", "N",
     "most tracking sessions held at once, over all clients; ended ones "
     "count until they expire or make room (default 100)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.tracking.max_sessions);
     }},
    {"--max-tasks-per-session", "max_tasks_per_session",
     "TIME_TRACKER_MCP_MAX_TASKS_PER_SESSION", "N",
     "most task ids in one tracking session (default 500)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 100'000, c.tracking.max_tasks_per_session);
     }},
    {"--session-max-age", "session_max_age",
     "TIME_TRACKER_MCP_SESSION_MAX_AGE", "DURATION",
     "a tracking session expires this long after it started, e.g. 24h "
     "(default 24h)",
     [](config& c, const std::string& v) {
       return parse_duration(v, c.tracking.max_age);
     }},
    {"--session-max-idle", "session_max_idle",
     "TIME_TRACKER_MCP_SESSION_MAX_IDLE", "DURATION",
     "a tracking session expires this long after its last call, e.g. 4h "
     "(default 4h)",
     [](config& c, const std::string& v) {
       return parse_duration(v, c.tracking.max_idle);
     }},
    {"--threads", "threads", "TIME_TRACKER_MCP_THREADS", "N",
     "actor scheduler threads (default: one per core)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 256, c.worker_threads);
     }},
  };
  return opts;
}

std::string apply_file(config& c, const std::string& path) {
  std::ifstream in{path};
  if (!in)
    return "cannot read config file '" + path + "'";
  std::stringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError())
    return "config file '" + path + "': "
           + rapidjson::GetParseError_En(doc.GetParseError()) + " at byte "
           + std::to_string(doc.GetErrorOffset());
  if (!doc.IsObject())
    return "config file '" + path + "' must hold a JSON object";
  for (const auto& m : doc.GetObject()) {
    std::string key = m.name.GetString();
    const option* opt = nullptr;
    for (const auto& o : options())
      if (key == o.key)
        opt = &o;
    if (opt == nullptr)
      return "config file '" + path + "': unknown key '" + key + "'";
    std::string value;
    if (m.value.IsString())
      value = m.value.GetString();
    else if (m.value.IsUint64())
      value = std::to_string(m.value.GetUint64());
    else
      return "config file '" + path + "': '" + key
             + "' must be a string or a non-negative integer";
    if (auto err = opt->set(c, value); !err.empty())
      return "config file '" + path + "', '" + key + "': " + err;
  }
  return {};
}

} // namespace

std::string usage() {
  std::string out
    = "Usage: time-tracker-mcp stdio [options]\n"
      "       time-tracker-mcp --help | --version\n\n"
      "Modes:\n"
      "  stdio    serve one MCP client on stdin/stdout (newline-delimited "
      "JSON-RPC);\n"
      "           logs go to stderr\n\n"
      "Options (also settable in a JSON config file and the environment; "
      "command line\nwins over environment, environment over file):\n"
      "  --config FILE           JSON config file (env "
      "TIME_TRACKER_MCP_CONFIG)\n";
  for (const auto& o : options()) {
    std::string lhs = std::string{"  "} + o.flag + " " + o.arg;
    lhs.resize(std::max<std::size_t>(lhs.size() + 1, 26), ' ');
    out += lhs + o.help + "\n" + std::string(26, ' ') + "env " + o.env
           + ", file key \"" + o.key + "\"\n";
  }
  return out;
}

config_result
load_config(const std::vector<std::string>& args,
            const std::function<const char*(const char*)>& getenv) {
  config_result res;
  auto fail = [&](std::string text) {
    res.cfg.reset();
    res.exit_code = 2;
    res.text = std::move(text) + "\nRun 'time-tracker-mcp --help' for usage.";
    res.text_is_error = true;
    return res;
  };
  config c;
  // Pass 1: mode, --help/--version and the config file's name.
  std::vector<std::pair<const option*, std::string>> cli;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      res.text = usage();
      return res;
    }
    if (a == "--version") {
      res.text = std::string{"time-tracker-mcp "} + TTM_VERSION + "\n";
      return res;
    }
    if (a.rfind("--", 0) == 0) {
      auto eq = a.find('=');
      std::string flag = a.substr(0, eq);
      const option* opt = nullptr;
      for (const auto& o : options())
        if (flag == o.flag)
          opt = &o;
      if (opt == nullptr && flag != "--config")
        return fail("unknown option '" + flag + "'");
      std::string value;
      if (eq != std::string::npos)
        value = a.substr(eq + 1);
      else if (i + 1 < args.size())
        value = args[++i];
      else
        return fail("option " + flag + " needs a value");
      if (opt == nullptr)
        c.config_file = value;
      else
        cli.emplace_back(opt, value);
      continue;
    }
    if (!c.mode.empty())
      return fail("unexpected argument '" + a + "'");
    c.mode = a;
  }
  if (c.mode.empty())
    return fail("missing mode: use 'time-tracker-mcp stdio'");
  if (c.mode != "stdio")
    return fail("unknown mode '" + c.mode + "' (available: stdio)");
  // Pass 2: file, then environment, then command line.
  if (c.config_file.empty())
    if (const char* f = getenv("TIME_TRACKER_MCP_CONFIG"); f && *f)
      c.config_file = f;
  if (!c.config_file.empty())
    if (auto err = apply_file(c, c.config_file); !err.empty())
      return fail(err);
  for (const auto& o : options())
    if (const char* v = getenv(o.env); v != nullptr && *v != '\0')
      if (auto err = o.set(c, v); !err.empty())
        return fail(std::string{o.env} + ": " + err);
  for (const auto& [opt, value] : cli)
    if (auto err = opt->set(c, value); !err.empty())
      return fail(std::string{opt->flag} + ": " + err);
  res.cfg = std::move(c);
  return res;
}

} // namespace ttm
