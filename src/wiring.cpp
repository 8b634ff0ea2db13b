#include "wiring.hpp"

#include "edge/oauth.hpp"

#include "crash_signals.hpp"
#include "domain/zones.hpp"
#include "lazy_libs.hpp"
#include "log.hpp"
#include "storage/pg_store.hpp"
#include "storage/sqlite_store.hpp"
#include "tools/preferences.hpp"
#include "tools/registry.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include <unistd.h>

namespace ttm {

namespace {

/// The zone "local" stands for: configured, else detected, else UTC.
std::optional<std::string> resolve_local_zone(const config& cfg) {
  if (!cfg.local_timezone.empty()) {
    // The usual case, a zone name, is checked without loading the tz
    // database; anything else (a Windows name: reported as its IANA zone)
    // gets resolve_zone's full answer.
    if (domain::names_iana_zone(cfg.local_timezone))
      return cfg.local_timezone;
    auto z = domain::resolve_zone(cfg.local_timezone, "UTC");
    if (!z.found || z.found->is_fixed()) {
      TTM_LOG(error, "main", "--local-timezone '" + cfg.local_timezone
                               + "' is not an IANA or Windows zone. "
                               + z.message);
      return std::nullopt;
    }
    return z.found->name();
  }
  const char* tz = std::getenv("TZ");
  auto name = domain::detect_local_zone_name(tz);
  // A TZ that names no zone must not pass silently: 'local' would quietly
  // mean another zone than the one the user set. (TZ alone: no files.)
  if (tz != nullptr && *tz != '\0'
      && domain::detect_local_zone_name(tz, "", "").empty())
    TTM_LOG(warning, "main", std::string{"TZ='"} + tz
                                 + "' names no IANA time zone; 'local' means "
                                 + (name.empty() ? std::string{"UTC"} : name)
                                 + " instead (from /etc/timezone or "
                                   "/etc/localtime, else UTC); set TZ or "
                                   "--local-timezone to a name such as "
                                   "Europe/Paris");
  if (name.empty()) {
    TTM_LOG(warning, "main", "cannot determine the host's time zone (TZ, "
                             "/etc/timezone, /etc/localtime); 'local' means "
                             "UTC");
    return std::string{"UTC"};
  }
  return name;
}

actors::client_config make_client_config(const config& cfg,
                                         const std::string& local_zone) {
  actors::client_config client_cfg;
  client_cfg.registry = tools::make_registry(cfg.tracking, cfg.toolsets);
  if (!cfg.preferences_json.empty()) {
    rapidjson::Document doc;
    doc.Parse(cfg.preferences_json.c_str());
    // Checked by load_config; only 'local' resolves here.
    tools::apply_preference_object(client_cfg.defaults, doc, local_zone);
  }
  // One board per server: every client of a principal sees its last call
  // (and, --ephemeral, its preferences and focus sessions).
  client_cfg.board = std::make_shared<mcp::principal_board>();
  client_cfg.clock = std::make_shared<domain::system_clock_source>();
  client_cfg.local_zone = local_zone;
  // Derived from the enabled tools' declarations, without compiling them.
  client_cfg.info = {"time-tracker-mcp", "Time Tracker MCP", TTM_VERSION,
                     client_cfg.registry->instructions()};
  client_cfg.limits = cfg.tracking;
  client_cfg.request_timeout = std::chrono::seconds{cfg.request_timeout_s};
  return client_cfg;
}

/// Locks the journal's directory: a second server on it exits here (after
/// waiting 2 s for the first to go). Opening the database and recovering
/// its sessions is the journal actor's first job, on its own thread, so
/// that start-up (the initialize reply) does not wait for SQLite. Any other
/// fault (a directory it cannot create, a corrupt or newer journal, a full
/// disk) is the journal actor's too: it retries until the fault clears.
void lock_journal(const config& cfg, prepared_config& p) {
  if (cfg.ephemeral) {
    p.journal_summary = "ephemeral (sessions in memory only)";
    return;
  }
  p.client.journal = true;
  if (!cfg.journal.empty()) {
    // PostgreSQL: nothing to lock here (liveness is a lease); the journal
    // actor opens it, and retries while the server cannot be reached.
    storage::pg_options pg;
    pg.conninfo = cfg.journal == "postgresql" ? "" : cfg.journal;
    pg.instance = std::string{"time-tracker-mcp "} + TTM_VERSION + " pid "
                  + std::to_string(::getpid());
    pg.max_open_sessions = cfg.tracking.max_sessions;
    pg.max_open_per_principal = cfg.max_sessions_per_principal;
    pg.max_age = cfg.tracking.max_age;
    pg.max_idle = cfg.tracking.max_idle;
    pg.lease = std::chrono::seconds{cfg.lease_s};
    auto clock = p.client.clock;
    pg.wall_now_ns = [clock] { return domain::to_ns(clock->wall_now()); };
    // libpq is loaded on first use (lazy_libs.hpp): load it now, so that
    // a machine without it fails here, not at the journal's first call.
    if (auto err = lazy::load(lazy::library::pq); !err.empty()) {
      TTM_LOG(error, "main", "--journal postgresql: " + err);
      p.exit_code = 1;
      return;
    }
    p.journal_summary = "journal " + storage::describe_postgresql(pg);
    // HTTP's MCP sessions live in the journal: cached here until another
    // node's change is notified (storage/pg_listener.hpp).
    if (cfg.mode == "http")
      if ((p.mcp_changes = storage::change_signal::in_memory()))
        p.mcp_listener =
          std::make_shared<storage::pg_listener>(pg, p.mcp_changes);
    p.open_store = [pg] { return storage::open_postgresql(pg); };
    return;
  }
  storage::sqlite_options opts;
  opts.dir = cfg.data_dir;
  opts.sync = cfg.journal_sync == "normal" ? storage::sync_mode::normal
                                           : storage::sync_mode::full;
  opts.instance = std::string{"time-tracker-mcp "} + TTM_VERSION + " pid "
                  + std::to_string(::getpid());
  opts.max_open_sessions = cfg.tracking.max_sessions;
  opts.max_open_per_principal = cfg.max_sessions_per_principal;
  opts.max_age = cfg.tracking.max_age;
  opts.max_idle = cfg.tracking.max_idle;
  // The journal actor acknowledges an append once the WAL is synced.
  opts.defer_sync = true;
  // A stdio server is often short-lived and only reads (its one call reads
  // the caller's preferences): no write, no sync at its open and close.
  opts.register_at_first_write = cfg.mode != "http";
  // Servers of this version share the directory; one of an older version
  // holds it alone, and a client restarting such a server gets the
  // directory as soon as it exits.
  opts.lock_wait = std::chrono::seconds{2};
  auto locked = storage::lock_data_dir(opts);
  std::shared_ptr<storage::dir_lock> lock;
  if (auto* err = std::get_if<storage::error>(&locked)) {
    if (err->kind == storage::error_kind::locked) {
      TTM_LOG(error, "main", err->message);
      p.exit_code = 1;
      return;
    }
    p.journal_summary = "journal UNAVAILABLE (retrying)";
  } else {
    lock = std::make_shared<storage::dir_lock>(
      std::move(std::get<storage::dir_lock>(locked)));
    p.journal_summary = "journal " + lock->dir() + "/journal.sqlite3";
    // HTTP's MCP sessions live in the journal; every server on the
    // directory maps the same signal file (stdio keeps none there).
    if (cfg.mode == "http") {
      std::string why;
      p.mcp_changes = storage::change_signal::open(
        lock->dir() + "/mcp_sessions.signal", why);
      if (!p.mcp_changes)
        TTM_LOG(warning, "main", why + "; every request on a stored MCP "
                                       "session asks the journal");
    }
  }
  // SQLite writes the journal's -shm through a mapping: if that file turns
  // unwritable the process dies of SIGBUS; it now says why first.
  explain_sigbus(lock ? lock->dir() : cfg.data_dir);
  // A failed open releases the lock; a retry takes it again, not waiting.
  opts.lock_wait = std::chrono::milliseconds{0};
  p.open_store = [opts, lock]() mutable {
    if (!lock)
      return storage::open_sqlite(opts);
    auto held = std::move(lock);
    return storage::open_sqlite(opts, std::move(*held));
  };
}

} // namespace

std::shared_ptr<domain::rate_limiter>
make_limiter(const config& cfg, const domain::clock_ptr& clock,
             bool in_flight) {
  domain::rate_limits limits;
  limits.rate = cfg.rate_limit;
  limits.max_in_flight = in_flight ? cfg.max_in_flight : 0;
  // At least one bucket per connection the edge may hold.
  limits.max_keys = std::max<std::size_t>(cfg.max_connections, 10'000);
  auto limiter = std::make_shared<domain::rate_limiter>(limits, clock);
  if (limiter->unlimited())
    return nullptr;
  return limiter;
}

actors::supervisor_config make_supervisor_config(const config& cfg,
                                                 bool http) {
  actors::supervisor_config sup_cfg;
  sup_cfg.max_clients = cfg.max_clients;
  sup_cfg.max_sessions = cfg.tracking.max_sessions;
  sup_cfg.max_sessions_per_principal = cfg.max_sessions_per_principal;
  sup_cfg.max_sessions_per_mcp_session = cfg.max_sessions_per_mcp_session;
  // stdio's one MCP session lives as long as its connection; HTTP
  // sessions end when idle.
  if (http)
    sup_cfg.mcp_idle_timeout = std::chrono::seconds{cfg.session_idle_timeout_s};
  return sup_cfg;
}


prepared_config prepare(const config& cfg) {
  prepared_config p;
  auto local_zone = resolve_local_zone(cfg);
  if (!local_zone) {
    p.exit_code = 2; // a bad --local-timezone, already logged
    return p;
  }
  p.tzdb_version = domain::tz_database_version();
  p.client = make_client_config(cfg, *local_zone);
  p.client.network_transport = cfg.mode == "http" ? "tcp" : "pipe";
  lock_journal(cfg, p);
  return p;
}

std::shared_ptr<edge::oauth::resource_server>
make_oauth(const config& cfg, const actors::client_config& client,
           std::string& error) {
  if (cfg.oauth_issuer.empty())
    return nullptr;
  error = edge::oauth::check_url(cfg.oauth_issuer, "--oauth-issuer");
  if (error.empty() && !cfg.oauth_resource.empty())
    error = edge::oauth::check_url(cfg.oauth_resource, "--oauth-resource");
  if (!error.empty())
    return nullptr;
  // OAuth's libraries load on first use (lazy_libs.hpp): now, so that a
  // machine without them fails at start-up.
  for (auto lib : {lazy::library::curl, lazy::library::crypto})
    if (error = lazy::load(lib); !error.empty())
      return nullptr;
  edge::oauth::settings s;
  s.issuer = cfg.oauth_issuer;
  s.resource = cfg.oauth_resource; // empty: the edge's URL (loopback)
  s.scopes = {cfg.oauth_read_scope, cfg.oauth_write_scope};
  s.principal_claim = cfg.oauth_principal_claim;
  s.clock_skew = std::chrono::seconds{cfg.oauth_clock_skew_s};
  s.min_refetch = std::chrono::seconds{cfg.oauth_jwks_min_refetch_s};
  s.introspection_client_id = cfg.oauth_introspection_client_id;
  s.introspection_client_secret = cfg.oauth_introspection_client_secret;
  s.clock = client.clock;
  s.tools = client.registry;
  return std::make_shared<edge::oauth::resource_server>(std::move(s));
}

} // namespace ttm
