#pragma once

// The OAuth 2.1 resource server of the HTTP edge (--oauth-issuer): what MCP
// asks of an HTTP server (authorization, 2025-06-18 onwards). It publishes
// Protected Resource Metadata (RFC 9728), words the WWW-Authenticate
// challenges, and checks bearer tokens: JWT access tokens (RFC 9068)
// against the issuer's keys (oauth_keys.hpp), opaque ones by introspection
// (RFC 7662) when configured. Checks run on its own worker threads, never
// on an I/O thread; network calls on the key store's thread or the
// introspection workers. No Beast, no CAF.

#include "domain/clock.hpp"
#include "edge/oauth_keys.hpp"
#include "edge/oauth_scope.hpp"
#include "edge/oauth_token.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace ttm::edge::oauth {

struct settings {
  /// The authorization server's issuer identifier (https, or http on
  /// loopback).
  std::string issuer;
  /// Our canonical resource URI (the audience tokens must name); empty:
  /// set_resource before start (the edge's own URL on loopback).
  std::string resource;
  scope_names scopes;
  std::string principal_claim = "sub";
  std::chrono::seconds clock_skew{30};
  /// Introspection of opaque tokens: both set, and the issuer's metadata
  /// names an introspection_endpoint.
  std::string introspection_client_id;
  std::string introspection_client_secret;
  /// exp/nbf against its wall clock; the key refetch pace on its
  /// monotonic one.
  domain::clock_ptr clock;
  /// Whose declarations say which scope a tool needs.
  tools::registry_ptr tools;
  /// Token checks at once (signatures: CPU).
  std::size_t threads = 2;
  /// Introspection results are kept at most this long (and never beyond
  /// the token's exp).
  std::chrono::seconds introspection_cache{60};
  std::size_t introspection_cache_entries = 10'000;
  std::chrono::seconds min_refetch{10};
  std::chrono::seconds refresh{15 * 60};
  std::chrono::seconds retry{30};
};

class resource_server {
public:
  explicit resource_server(settings s);
  ~resource_server();
  resource_server(const resource_server&) = delete;
  resource_server& operator=(const resource_server&) = delete;

  /// Before start only.
  void set_resource(std::string uri);
  const settings& config() const noexcept {
    return s_;
  }

  /// Starts the key store (which fetches at once) and the workers.
  void start();
  /// Waits for checks under way (their `done` runs), stops the threads.
  void stop();

  /// Checks `token` off the calling thread; `done` runs once, on one of
  /// the resource server's threads. Counted in the metrics by outcome.
  void validate(std::string token, std::function<void(token_verdict)> done);

  /// A JWT against the keys at hand, on the calling thread (what a worker
  /// runs; the microbench measures it).
  token_verdict check_jwt_now(std::string_view token) const;

  /// /.well-known/oauth-protected-resource, with or without the
  /// resource's path (RFC 9728 §3.1), or with the MCP endpoint's path.
  bool is_metadata_path(std::string_view path,
                        std::string_view mcp_path) const;
  /// The Protected Resource Metadata document (JSON).
  std::string metadata_document() const;
  /// Its absolute URL, from the resource URI's origin (the public one, as
  /// a reverse proxy serves it; never from a request's Host).
  std::string metadata_url() const;

  /// WWW-Authenticate of a 401: no token (`f` none), or a refused one.
  std::string challenge(token_failure f = token_failure::none) const;
  /// WWW-Authenticate of a 403 for a token without `scope`.
  std::string insufficient_scope(const std::string& scope) const;

  /// The scope the frame needs that `granted` lacks; empty: none.
  std::string missing_scope(const protocol::frame& f,
                            const std::vector<std::string>& granted) const;

  /// Why no token can be accepted now (no signing keys and no
  /// introspection), for /readyz; empty: ready.
  std::string unready() const;

  key_store& keys() noexcept {
    return *keys_;
  }

private:
  struct workers;
  token_verdict introspect(const std::string& token);
  /// Built on first use (tools/list renders the tools once).
  const scope_map* scopes() const;

  settings s_;
  token_rules rules_;
  std::unique_ptr<key_store> keys_;
  std::unique_ptr<workers> workers_;
  mutable std::once_flag scopes_once_;
  mutable std::unique_ptr<scope_map> scopes_;
};

using resource_server_ptr = std::shared_ptr<resource_server>;

} // namespace ttm::edge::oauth
