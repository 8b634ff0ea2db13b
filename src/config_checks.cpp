// What load_config checks and derives once the file, the environment and
// the command line are read: options that depend on each other, and the
// values several options (or the environment) decide.

#include "config_parts.hpp"

#include "config.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ttm::config_detail {

namespace {

/// Default shares of the tracking-session cap: room for an agent that
/// keeps a few sessions per task list open, while one client can take at
/// most a fifth (an MCP session) or half (a principal, who may drive
/// several windows) of the default cap of 100.
constexpr std::size_t default_sessions_per_principal = 50;
constexpr std::size_t default_sessions_per_mcp_session = 20;

/// A stable name for a token given without one: 32 bits of its FNV-1a
/// hash, enough to tell a few tokens apart, too few to help guess one.
std::string token_principal(const std::string& token) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : token)
    h = (h ^ c) * 1099511628211ull;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "token-";
  for (int shift = 28; shift >= 0; shift -= 4)
    out += hex[(h >> (32 + shift)) & 0xF];
  return out;
}

/// Reads bearer tokens: one per line, `TOKEN` or `NAME TOKEN` (NAME is the
/// principal that owns what the token's requests start); blank lines and
/// '#' comments skipped.
std::string read_tokens(const std::string& path,
                        std::vector<std::string>& tokens,
                        std::vector<std::string>& principals) {
  std::ifstream in{path};
  if (!in)
    return "cannot read the auth token file '" + path + "'";
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream words{line};
    std::vector<std::string> w;
    for (std::string x; words >> x;)
      w.push_back(x);
    if (w.empty() || w.front().front() == '#')
      continue;
    if (w.size() > 2)
      return "the auth token file '" + path + "', line "
             + std::to_string(number)
             + ": expected 'TOKEN' or 'NAME TOKEN'";
    tokens.push_back(w.back());
    principals.push_back(w.size() == 2 ? w.front()
                                       : token_principal(w.back()));
  }
  if (tokens.empty())
    return "the auth token file '" + path + "' holds no token (one per line)";
  return {};
}

/// The OAuth options together (http mode): what needs --oauth-issuer, the
/// resource's default, the introspection secret. URLs are checked where
/// the resource server is made (wiring.cpp), with its URL parser.
std::string check_oauth(config& c) {
  if (c.oauth_issuer.empty()) {
    if (!c.oauth_resource.empty()
        || !c.oauth_introspection_client_id.empty())
      return "--oauth-resource and --oauth-introspection-* need "
             "--oauth-issuer";
    return {};
  }
  if (c.oauth_read_scope == c.oauth_write_scope)
    return "--oauth-read-scope and --oauth-write-scope must differ";
  bool loopback = c.listen_host.rfind("127.", 0) == 0 || c.listen_host == "::1";
  if (c.oauth_resource.empty() && !loopback)
    return "--oauth-resource: required with --oauth-issuer when --listen is "
           "beyond loopback (the public URL of the MCP endpoint, e.g. "
           "https://mcp.example.com/mcp)";
  if (c.oauth_introspection_client_id.empty()
      != c.oauth_introspection_client_secret_file.empty())
    return "--oauth-introspection-client-id and "
           "--oauth-introspection-client-secret-file go together";
  if (!c.oauth_introspection_client_secret_file.empty()) {
    std::ifstream in{c.oauth_introspection_client_secret_file};
    std::string line;
    if (!in || !std::getline(in, line))
      return "--oauth-introspection-client-secret-file: cannot read '"
             + c.oauth_introspection_client_secret_file + "'";
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.empty())
      return "--oauth-introspection-client-secret-file: '"
             + c.oauth_introspection_client_secret_file
             + "' has an empty first line";
    c.oauth_introspection_client_secret = line;
  }
  return {};
}

} // namespace

std::string resolve(config& c,
                    const std::function<const char*(const char*)>& getenv) {
  // The shares: a value given must fit the global cap; a default is
  // lowered to it.
  struct share {
    std::size_t& value;
    std::size_t fallback;
    const char* flag;
  };
  for (auto s : {share{c.max_sessions_per_principal,
                       default_sessions_per_principal,
                       "--max-tracking-sessions-per-principal"},
                 share{c.max_sessions_per_mcp_session,
                       default_sessions_per_mcp_session,
                       "--max-tracking-sessions-per-mcp-session"}}) {
    if (s.value > c.tracking.max_sessions)
      return std::string{s.flag} + ": " + std::to_string(s.value)
             + " is above --max-tracking-sessions ("
             + std::to_string(c.tracking.max_sessions)
             + "); a share is at most the global cap";
    if (s.value == 0)
      s.value = std::min(s.fallback, c.tracking.max_sessions);
  }
  if (!c.ephemeral && c.data_dir.empty()) {
    // XDG: a relative XDG_STATE_HOME is invalid and ignored.
    const char* xdg = getenv("XDG_STATE_HOME");
    const char* home = getenv("HOME");
    if (xdg && *xdg == '/')
      c.data_dir = std::string{xdg} + "/time-tracker-mcp";
    else if (home && *home == '/')
      c.data_dir = std::string{home} + "/.local/state/time-tracker-mcp";
    else
      return "no data directory for the session journal: neither "
             "XDG_STATE_HOME nor HOME is an absolute path; use "
             "--data-dir DIR, or --ephemeral to keep sessions in "
             "memory only";
  }
  if (c.mode == "http" && !c.auth_token_file.empty())
    if (auto err = read_tokens(c.auth_token_file, c.auth_tokens,
                               c.auth_principals);
        !err.empty())
      return "--auth-token-file: " + err;
  if (c.mode == "http")
    if (auto err = check_oauth(c); !err.empty())
      return err;
  return {};
}

} // namespace ttm::config_detail
