#include "edge/oauth.hpp"

#include "log.hpp"
#include "metrics.hpp"
#include "protocol/mcp.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <openssl/evp.h>

#include <mutex>
#include <unordered_map>

namespace ttm::edge::oauth {

namespace {

constexpr std::string_view well_known = "/.well-known/oauth-protected-resource";

/// The cache key of an opaque token: its SHA-256, so the cache holds no
/// token.
std::string digest(const std::string& token) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(token.data(), token.size(), md, &len, EVP_sha256(), nullptr)
      != 1)
    return {};
  return std::string{reinterpret_cast<char*>(md), len};
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

struct resource_server::workers {
  explicit workers(std::size_t n) : checks(n), network(2) {
  }
  boost::asio::thread_pool checks;
  /// Introspection calls wait on the network: apart from the checks.
  boost::asio::thread_pool network;
  std::mutex cache_mtx;
  struct cached {
    token_verdict verdict;
    domain::mono_time until;
  };
  std::unordered_map<std::string, cached> cache;
  bool stopped = false;
};

resource_server::resource_server(settings s) : s_(std::move(s)) {
  if (!s_.clock)
    s_.clock = std::make_shared<domain::system_clock_source>();
  rules_ = token_rules{s_.issuer, s_.resource, s_.principal_claim,
                       s_.clock_skew};
  key_store::settings ks;
  ks.issuer = s_.issuer;
  ks.clock = s_.clock;
  ks.min_refetch = s_.min_refetch;
  ks.refresh = s_.refresh;
  ks.retry = s_.retry;
  keys_ = std::make_unique<key_store>(std::move(ks));
}

resource_server::~resource_server() {
  stop();
}

void resource_server::set_resource(std::string uri) {
  s_.resource = uri;
  rules_.resource = std::move(uri);
}

void resource_server::start() {
  if (workers_)
    return;
  workers_ = std::make_unique<workers>(std::max<std::size_t>(s_.threads, 1));
  keys_->start();
  keys_->after_first_fetch([this] {
    if (keys_->keys()->keys.empty())
      TTM_LOG(warning, "oauth",
              "started without the signing keys of " + s_.issuer
                + (s_.introspection_client_id.empty()
                     ? std::string{": /readyz says not ready until they "
                                   "are fetched"}
                     : std::string{": JWT access tokens are refused until "
                                   "they are fetched"}));
  });
}

void resource_server::stop() {
  keys_->stop(); // its waiters post their last checks to the workers
  if (!workers_ || workers_->stopped)
    return;
  workers_->stopped = true;
  workers_->checks.join();
  workers_->network.join();
}

token_verdict resource_server::check_jwt_now(std::string_view token) const {
  return check_jwt(token, *keys_->keys(), rules_, s_.clock->wall_now());
}

void resource_server::validate(std::string token,
                               std::function<void(token_verdict)> done) {
  auto finish = [done = std::move(done)](token_verdict v) {
    metrics::oauth_token(failure_name(v.failure));
    done(std::move(v));
  };
  boost::asio::post(workers_->checks, [this, token = std::move(token),
                                       finish = std::move(finish)]() mutable {
    if (!looks_like_jwt(token)) {
      if (s_.introspection_client_id.empty())
        return finish(token_verdict{token_failure::unverifiable, {}, {}});
      boost::asio::post(workers_->network,
                        [this, token = std::move(token),
                         finish = std::move(finish)]() mutable {
                          finish(introspect(token));
                        });
      return;
    }
    auto v = check_jwt_now(token);
    if (v.failure != token_failure::unknown_kid)
      return finish(std::move(v));
    // A key we do not have: maybe rotated in. One fetch (paced), then
    // one more look; a refetch refused by the pace refuses the token.
    auto again = std::make_shared<std::pair<std::string, decltype(finish)>>(
      std::move(token), std::move(finish));
    bool asked = keys_->refetch([this, again] {
      boost::asio::post(workers_->checks, [this, again] {
        again->second(check_jwt_now(again->first));
      });
    });
    if (!asked)
      again->second(std::move(v));
  });
}

token_verdict resource_server::introspect(const std::string& token) {
  auto key = digest(token);
  auto now = s_.clock->mono_now();
  {
    std::lock_guard<std::mutex> guard{workers_->cache_mtx};
    auto it = workers_->cache.find(key);
    if (it != workers_->cache.end()) {
      if (now < it->second.until)
        return it->second.verdict;
      workers_->cache.erase(it);
    }
  }
  auto meta = keys_->metadata();
  if (!meta || meta->introspection_endpoint.empty())
    return token_verdict{token_failure::unverifiable, {}, {}};
  auto r = http_post_form(meta->introspection_endpoint,
                          "token=" + form_escape(token)
                            + "&token_type_hint=access_token",
                          s_.introspection_client_id,
                          s_.introspection_client_secret);
  metrics::oauth_introspection(r.ok());
  if (!r.ok()) {
    TTM_LOG(warning, "oauth", "token introspection at "
                                + meta->introspection_endpoint
                                + " failed: " + r.what());
    return token_verdict{token_failure::unverifiable, {}, {}};
  }
  auto v = check_claims(r.body, rules_, s_.clock->wall_now(), true);
  // Kept no longer than the bound, nor than the token lives.
  auto ttl = s_.introspection_cache;
  if (v.ok() && v.granted.expires > 0) {
    auto wall = std::chrono::duration_cast<std::chrono::seconds>(
                  s_.clock->wall_now().time_since_epoch())
                  .count();
    ttl = std::min(ttl, std::chrono::seconds{v.granted.expires - wall});
  }
  if (ttl.count() > 0) {
    std::lock_guard<std::mutex> guard{workers_->cache_mtx};
    auto& cache = workers_->cache;
    if (cache.size() >= s_.introspection_cache_entries)
      for (auto it = cache.begin(); it != cache.end();)
        it = now >= it->second.until ? cache.erase(it) : std::next(it);
    if (cache.size() >= s_.introspection_cache_entries)
      cache.clear(); // all live: start again rather than grow
    cache[key] = {v, now + ttl};
  }
  return v;
}

bool resource_server::is_metadata_path(std::string_view path,
                                       std::string_view mcp_path) const {
  if (path.substr(0, well_known.size()) != well_known)
    return false;
  auto rest = path.substr(well_known.size());
  auto resource_path = parse_url(s_.resource).path;
  return rest.empty() || rest == mcp_path
         || (resource_path != "/" && rest == resource_path);
}

std::string resource_server::metadata_document() const {
  std::string doc = "{\"resource\":" + protocol::json_quote(s_.resource)
                    + ",\"authorization_servers\":["
                    + protocol::json_quote(s_.issuer)
                    + "],\"scopes_supported\":["
                    + protocol::json_quote(s_.scopes.read) + ","
                    + protocol::json_quote(s_.scopes.write)
                    + "],\"bearer_methods_supported\":[\"header\"]"
                    + ",\"resource_name\":\"time-tracker-mcp\"}";
  return doc;
}

std::string resource_server::metadata_url() const {
  auto p = parse_url(s_.resource);
  return p.origin() + std::string{well_known} + (p.path == "/" ? "" : p.path);
}

std::string resource_server::challenge(token_failure f) const {
  std::string c = "Bearer resource_metadata=" + quoted(metadata_url())
                  + ", scope=" + quoted(s_.scopes.read + " " + s_.scopes.write);
  if (f != token_failure::none)
    c += ", error=\"invalid_token\", error_description="
         + quoted(failure_text(f));
  return c;
}

std::string resource_server::insufficient_scope(const std::string& scope) const {
  return "Bearer error=\"insufficient_scope\", scope=" + quoted(scope)
         + ", resource_metadata=" + quoted(metadata_url())
         + ", error_description="
         + quoted("this call needs the scope " + scope);
}

const scope_map* resource_server::scopes() const {
  std::call_once(scopes_once_, [this] {
    if (s_.tools)
      scopes_ = std::make_unique<scope_map>(*s_.tools);
  });
  return scopes_.get();
}

std::string
resource_server::missing_scope(const protocol::frame& f,
                               const std::vector<std::string>& granted) const {
  const auto* map = scopes();
  if (map == nullptr)
    return {};
  return oauth::missing_scope(*map, f, granted, s_.scopes);
}

std::string resource_server::unready() const {
  if (!keys_->keys()->keys.empty() || !s_.introspection_client_id.empty())
    return {};
  return "no signing keys from the OAuth issuer " + s_.issuer + " yet";
}

} // namespace ttm::edge::oauth
