// The option table: every option once, with its flag, config-file key,
// environment variable, help text and setter. The docs (--help, the man
// page, docs/options.md) are generated from it (config_help.cpp); the
// value syntaxes are in config_values.cpp, the loading in config_load.cpp.

#include "config.hpp"

#include "config_parts.hpp"

#include <string>
#include <vector>

namespace ttm {

namespace config_detail {

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
    {"--log-format", "log_format", "TIME_TRACKER_MCP_LOG_FORMAT", "FORMAT",
     "stderr log lines: text, or json (one object per line: time, level, "
     "component, request_id, trace_id, principal, method, tool, outcome, "
     "error_code, duration_ms) (default text)",
     [](config& c, const std::string& v) -> std::string {
       if (auto f = log::parse_format(v)) {
         c.log_format = *f;
         return {};
       }
       return "expected text or json, got '" + v + "'";
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
     "IANA (or Windows) zone that 'local' stands for (default: detected "
     "from TZ, /etc/timezone, /etc/localtime; UTC if none)",
     [](config& c, const std::string& v) {
       c.local_timezone = v;
       return std::string{};
     }},
    {"--toolsets", "toolsets", "TIME_TRACKER_MCP_TOOLSETS", "LIST",
     "tool groups to offer, comma-separated (a config file may give an "
     "array): time, tracking, edit, history, chronometric, preferences, or "
     "all (default time,tracking,history,chronometric)",
     set_toolsets},
    {"--max-mcp-sessions", "max_mcp_sessions",
     "TIME_TRACKER_MCP_MAX_MCP_SESSIONS", "N",
     "most concurrent MCP client sessions (default 10000)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.max_clients);
     }},
    {"--max-tracking-sessions", "max_tracking_sessions",
     "TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS", "N",
     "most open tracking sessions in the data directory, over all servers "
     "that share it (LIMIT_REACHED beyond), and most one server holds in "
     "memory, ended ones included until they expire or make room "
     "(default 100)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.tracking.max_sessions);
     }},
    {"--max-tracking-sessions-per-principal",
     "max_tracking_sessions_per_principal",
     "TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS_PER_PRINCIPAL", "N",
     "most open tracking sessions of one principal (bearer token; without "
     "tokens every client is 'local') in the data directory, over all "
     "servers that share it, 1 to --max-tracking-sessions "
     "(default 50, at most --max-tracking-sessions)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.max_sessions_per_principal);
     }},
    {"--max-tracking-sessions-per-mcp-session",
     "max_tracking_sessions_per_mcp_session",
     "TIME_TRACKER_MCP_MAX_TRACKING_SESSIONS_PER_MCP_SESSION", "N",
     "most open tracking sessions of one MCP session (stdio, or a 2025-era "
     "HTTP session), 1 to --max-tracking-sessions (default 20, at most "
     "--max-tracking-sessions)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.max_sessions_per_mcp_session);
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
    {"--data-dir", "data_dir", "TIME_TRACKER_MCP_DATA_DIR", "DIR",
     "where the session journal lives (default $XDG_STATE_HOME/"
     "time-tracker-mcp, else ~/.local/state/time-tracker-mcp); every "
     "server on the machine may use the same one at once",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a directory";
       c.data_dir = v;
       return {};
     }},
    {"--ephemeral", "ephemeral", "TIME_TRACKER_MCP_EPHEMERAL", "",
     "keep tracking sessions in memory only: no journal, nothing survives "
     "a restart (default off)",
     [](config& c, const std::string& v) -> std::string {
       if (v == "true" || v == "1" || v == "yes" || v == "on")
         c.ephemeral = true;
       else if (v == "false" || v == "0" || v == "no" || v == "off")
         c.ephemeral = false;
       else
         return "expected true or false, got '" + v + "'";
       return {};
     }},
    {"--history-retention", "history_retention",
     "TIME_TRACKER_MCP_HISTORY_RETENTION", "DURATION",
     "ended sessions stay in the journal this long, e.g. 90d; 0: forever "
     "(default 90d)",
     [](config& c, const std::string& v) {
       return parse_duration(v, 0, 100LL * 366 * 86'400,
                             c.history_retention_s);
     }},
    {"--journal-sync", "journal_sync", "TIME_TRACKER_MCP_JOURNAL_SYNC",
     "full|normal",
     "full: a reply waits until its change is on disk (survives power "
     "loss); normal: until the OS has it (survives a crash of the server, "
     "not of the machine) (default full)",
     [](config& c, const std::string& v) -> std::string {
       if (v != "full" && v != "normal")
         return "expected full or normal, got '" + v + "'";
       c.journal_sync = v;
       return {};
     }},
    {"--journal", "journal", "TIME_TRACKER_MCP_JOURNAL", "URI",
     "keep the session journal in PostgreSQL instead of SQLite in "
     "--data-dir: a connection URI (postgresql://user@host:5432/db) or "
     "the word postgresql (the standard PG* environment); every server "
     "naming the same database shares it (default: SQLite in --data-dir)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty() || v == "sqlite") {
         c.journal.clear();
         return {};
       }
       if (v != "postgresql" && v.rfind("postgresql://", 0) != 0
           && v.rfind("postgres://", 0) != 0)
         return "expected postgresql://..., postgres://... or postgresql,"
                " got '" + v + "'";
       c.journal = v;
       return {};
     }},
    {"--lease", "lease", "TIME_TRACKER_MCP_LEASE", "DURATION",
     "with --journal postgresql: a server counts as alive this long after "
     "it last renewed its lease (every third of it); a server silent "
     "longer loses its sessions to the next server a client calls, e.g. "
     "10s (default 10s)",
     [](config& c, const std::string& v) {
       return parse_duration(v, 2, 3600, c.lease_s);
     }},
    {"--threads", "threads", "TIME_TRACKER_MCP_THREADS", "N",
     "actor scheduler threads (default: the cores the process may run "
     "on, its CPU affinity)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 256, c.worker_threads);
     }},
    {"--metrics-listen", "metrics_listen", "TIME_TRACKER_MCP_METRICS_LISTEN",
     "HOST:PORT",
     "serve Prometheus metrics at http://HOST:PORT/metrics, in either "
     "mode; port 0 picks a free one (default: none; http mode also serves "
     "/metrics on --listen)",
     [](config& c, const std::string& v) {
       c.metrics_listen = true;
       return parse_host_port(v, c.metrics_host, c.metrics_port);
     }},
    // -- http mode --------------------------------------------------------
    {"--listen", "listen", "TIME_TRACKER_MCP_LISTEN", "HOST:PORT",
     "http: address and port to serve on; port 0 picks a free one "
     "(default 127.0.0.1:8787)",
     [](config& c, const std::string& v) { return parse_listen(v, c); }},
    {"--path", "http_path", "TIME_TRACKER_MCP_HTTP_PATH", "PATH",
     "http: the MCP endpoint (default /mcp)",
     [](config& c, const std::string& v) -> std::string {
       if (v.size() < 2 || v.front() != '/'
           || v.find_first_of("?# ") != std::string::npos)
         return "expected a path such as /mcp (starting with '/', no query), "
                "got '" + v + "'";
       if (v == "/healthz" || v == "/readyz")
         return "'" + v + "' is reserved for health checks";
       if (v == "/metrics")
         return "'/metrics' is reserved for the Prometheus metrics";
       c.http_path = v;
       return {};
     }},
    {"--max-body-bytes", "max_body_bytes", "TIME_TRACKER_MCP_MAX_BODY_BYTES",
     "N", "http: largest accepted request body; larger gets 413 "
          "(default 1048576)",
     [](config& c, const std::string& v) {
       return parse_size(v, 256, std::size_t{1} << 30, c.max_body_bytes);
     }},
    {"--auth-token-file", "auth_token_file",
     "TIME_TRACKER_MCP_AUTH_TOKEN_FILE", "FILE",
     "http: require 'Authorization: Bearer TOKEN' with a token from FILE "
     "(one per line, 'TOKEN' or 'NAME TOKEN'; '#' comments)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a file name";
       c.auth_token_file = v;
       return {};
     }},
    {"--allowed-hosts", "allowed_hosts", "TIME_TRACKER_MCP_ALLOWED_HOSTS",
     "LIST", "http: Host header values accepted besides localhost, "
             "127.0.0.1 and [::1] on our port (comma-separated host[:port])",
     [](config& c, const std::string& v) {
       c.allowed_hosts = split_list(v);
       return std::string{};
     }},
    {"--allowed-origins", "allowed_origins",
     "TIME_TRACKER_MCP_ALLOWED_ORIGINS", "LIST",
     "http: Origin values accepted besides http://localhost (etc.) on our "
     "port (comma-separated scheme://host[:port])",
     [](config& c, const std::string& v) -> std::string {
       c.allowed_origins = split_list(v);
       for (const auto& o : c.allowed_origins)
         if (o.find("://") == std::string::npos)
           return "expected origins such as https://app.example.com, got '"
                  + o + "'";
       return {};
     }},
    {"--session-idle-timeout", "session_idle_timeout",
     "TIME_TRACKER_MCP_SESSION_IDLE_TIMEOUT", "DURATION",
     "http: end MCP sessions that see no request for this long; 0: never "
     "(default 30m)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 0, c.session_idle_timeout_s);
     }},
    {"--keep-alive-timeout", "keep_alive_timeout",
     "TIME_TRACKER_MCP_KEEP_ALIVE_TIMEOUT", "DURATION",
     "http: close a connection idle between requests this long (default 60s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 1, c.keep_alive_timeout_s);
     }},
    {"--header-timeout", "header_timeout",
     "TIME_TRACKER_MCP_HEADER_TIMEOUT", "DURATION",
     "http: close a new connection whose first request's headers have not "
     "arrived this long after it opened (default 10s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 1, c.header_timeout_s);
     }},
    {"--read-timeout", "read_timeout", "TIME_TRACKER_MCP_READ_TIMEOUT",
     "DURATION", "http: longest time to receive one request, headers and body "
                "(default 30s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 1, c.read_timeout_s);
     }},
    {"--write-timeout", "write_timeout", "TIME_TRACKER_MCP_WRITE_TIMEOUT",
     "DURATION", "http: longest time to send one response (default 30s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 1, c.write_timeout_s);
     }},
    {"--drain-timeout", "drain_timeout", "TIME_TRACKER_MCP_DRAIN_TIMEOUT",
     "DURATION", "on SIGTERM/SIGINT, how long requests in flight may take "
                "to finish before the server exits anyway (HTTP: /readyz answers "
                "503 meanwhile, exit status 1 when cut short; stdio: 5s at "
                "most) (default 10s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 0, c.drain_timeout_s);
     }},
    {"--rate-limit", "rate_limit", "TIME_TRACKER_MCP_RATE_LIMIT", "RATE",
     "requests per principal (per client address without auth; the one "
     "client over stdio): N/s, N/m or N/h with an optional ,burst=B, or "
     "off; beyond it HTTP 429 with Retry-After, over stdio error -32050 "
     "(default 1000/s,burst=2000)",
     [](config& c, const std::string& v) -> std::string {
       std::string error;
       auto spec = domain::parse_rate_spec(v, error);
       if (spec)
         c.rate_limit = *spec;
       return error;
     }},
    {"--max-in-flight", "max_in_flight", "TIME_TRACKER_MCP_MAX_IN_FLIGHT",
     "N",
     "requests of one principal (client address, stdio client) being "
     "answered at once; over HTTP one more gets 429, over stdio reading "
     "pauses until one is answered (default 256)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 100'000, c.max_in_flight);
     }},
    {"--request-timeout", "request_timeout",
     "TIME_TRACKER_MCP_REQUEST_TIMEOUT", "DURATION",
     "a request still waiting this long (for the journal, behind another "
     "request) is answered with error -32051 and changes nothing; one "
     "whose journal write has begun gets its result; 0: none (default 30s)",
     [](config& c, const std::string& v) {
       return parse_seconds(v, 0, c.request_timeout_s);
     }},
    {"--http-threads", "http_threads", "TIME_TRACKER_MCP_HTTP_THREADS", "N",
     "http: I/O threads (default 1)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 64, c.http_threads);
     }},
    {"--max-connections", "max_connections",
     "TIME_TRACKER_MCP_MAX_CONNECTIONS", "N",
     "http: open connections at once; one more closes one stalled in "
     "its header, not yet served or idle (in that order), or, with none "
     "of those, gets 503 and is closed (default 4096)",
     [](config& c, const std::string& v) {
       return parse_size(v, 1, 1'000'000, c.max_connections);
     }},
    // -- OAuth 2.1 (http mode) ---------------------------------------------
    {"--oauth-issuer", "oauth_issuer", "TIME_TRACKER_MCP_OAUTH_ISSUER", "URL",
     "http: accept OAuth access tokens of this authorization server (its "
     "issuer identifier; https, or http on a loopback host): its metadata "
     "(RFC 8414, else OpenID Connect discovery) names its keys; tokens must "
     "name --oauth-resource as audience. Static tokens stay valid beside "
     "them (default: off)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected the issuer's URL";
       c.oauth_issuer = v;
       return {};
     }},
    {"--oauth-resource", "oauth_resource", "TIME_TRACKER_MCP_OAUTH_RESOURCE",
     "URI",
     "http: this server's canonical resource URI as clients reach it (the "
     "reverse proxy's public URL of the MCP endpoint, e.g. "
     "https://mcp.example.com/mcp): the audience tokens must name, and the "
     "origin of the metadata URL in 401 challenges (default with a loopback "
     "--listen: http://HOST:PORT/PATH of --listen and --path; required "
     "otherwise)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a URI such as https://mcp.example.com/mcp";
       c.oauth_resource = v;
       return {};
     }},
    {"--oauth-read-scope", "oauth_read_scope",
     "TIME_TRACKER_MCP_OAUTH_READ_SCOPE", "SCOPE",
     "http: the scope read-only tools need (their readOnlyHint: time, "
     "history, reports, stats); the write scope allows them too (default "
     "tracker.read)",
     [](config& c, const std::string& v) {
       return parse_scope(v, c.oauth_read_scope);
     }},
    {"--oauth-write-scope", "oauth_write_scope",
     "TIME_TRACKER_MCP_OAUTH_WRITE_SCOPE", "SCOPE",
     "http: the scope every other tool needs (tracking, edits, preferences) "
     "(default tracker.write)",
     [](config& c, const std::string& v) {
       return parse_scope(v, c.oauth_write_scope);
     }},
    {"--oauth-principal-claim", "oauth_principal_claim",
     "TIME_TRACKER_MCP_OAUTH_PRINCIPAL_CLAIM", "CLAIM",
     "http: the access token claim whose value is the principal (sessions, "
     "shares, preferences and audit records belong to it), e.g. email "
     "(default sub)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a claim name such as sub or email";
       c.oauth_principal_claim = v;
       return {};
     }},
    {"--oauth-clock-skew", "oauth_clock_skew",
     "TIME_TRACKER_MCP_OAUTH_CLOCK_SKEW", "DURATION",
     "http: leeway for an access token's exp and nbf, 0 to 5m (default 30s)",
     [](config& c, const std::string& v) {
       long long s = 0;
       auto err = parse_duration(v, 0, 300, s);
       if (err.empty())
         c.oauth_clock_skew_s = static_cast<std::size_t>(s);
       return err;
     }},
    {"--oauth-jwks-min-refetch", "oauth_jwks_min_refetch",
     "TIME_TRACKER_MCP_OAUTH_JWKS_MIN_REFETCH", "DURATION",
     "http: a token signed with a key we do not have (an unknown kid, e.g. "
     "after a key rotation) fetches the issuer's JWKS again, at most this "
     "often, 0 to 1h (default 10s)",
     [](config& c, const std::string& v) {
       long long s = 0;
       auto err = parse_duration(v, 0, 3600, s);
       if (err.empty())
         c.oauth_jwks_min_refetch_s = static_cast<std::size_t>(s);
       return err;
     }},
    {"--oauth-introspection-client-id", "oauth_introspection_client_id",
     "TIME_TRACKER_MCP_OAUTH_INTROSPECTION_CLIENT_ID", "ID",
     "http: check opaque (non-JWT) access tokens by introspection (RFC "
     "7662) at the issuer's introspection_endpoint as this client, with "
     "--oauth-introspection-client-secret-file; results are kept at most "
     "60 s and never past the token's exp (default: off)",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a client id";
       c.oauth_introspection_client_id = v;
       return {};
     }},
    {"--oauth-introspection-client-secret-file",
     "oauth_introspection_client_secret_file",
     "TIME_TRACKER_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET_FILE", "FILE",
     "http: the introspection client's secret, the first line of FILE",
     [](config& c, const std::string& v) -> std::string {
       if (v.empty())
         return "expected a file name";
       c.oauth_introspection_client_secret_file = v;
       return {};
     }},
  };
  return opts;
}

} // namespace config_detail

std::vector<option_doc> option_docs() {
  std::vector<option_doc> out{
    {"--config", "FILE", "TIME_TRACKER_MCP_CONFIG", "", "JSON config file"}};
  for (const auto& o : config_detail::options())
    out.push_back({o.flag, o.arg, o.env, o.key, o.help});
  return out;
}

} // namespace ttm
