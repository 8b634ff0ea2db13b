#include "edge/oauth_keys.hpp"

#include "log.hpp"
#include "metrics.hpp"

#include <rapidjson/document.h>

namespace ttm::edge::oauth {

std::vector<std::string> metadata_urls(const std::string& issuer) {
  auto p = parse_url(issuer);
  std::string path = p.path == "/" ? "" : p.path;
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  auto base = issuer;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return {p.origin() + "/.well-known/oauth-authorization-server" + path,
          base + "/.well-known/openid-configuration"};
}

std::optional<issuer_metadata> parse_metadata(std::string_view json,
                                              const std::string& issuer,
                                              std::string& error) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) {
    error = "the metadata is not a JSON object";
    return std::nullopt;
  }
  auto str = [&d](const char* name) -> std::string {
    auto it = d.FindMember(name);
    return it != d.MemberEnd() && it->value.IsString()
             ? std::string{it->value.GetString(), it->value.GetStringLength()}
             : std::string{};
  };
  issuer_metadata m{str("issuer"), str("jwks_uri"),
                    str("introspection_endpoint")};
  if (m.issuer != issuer) {
    error = "the metadata names issuer '" + m.issuer + "', not '" + issuer
            + "' (RFC 8414 §3.3: they must be identical)";
    return std::nullopt;
  }
  if (m.jwks_uri.empty()) {
    error = "the metadata has no jwks_uri";
    return std::nullopt;
  }
  if (auto why = check_url(m.jwks_uri, "jwks_uri"); !why.empty()) {
    error = why;
    return std::nullopt;
  }
  if (!m.introspection_endpoint.empty())
    if (auto why = check_url(m.introspection_endpoint,
                             "introspection_endpoint");
        !why.empty()) {
      TTM_LOG(warning, "oauth", why + "; introspection is off");
      m.introspection_endpoint.clear();
    }
  return m;
}

key_store::key_store(settings s)
  : s_(std::move(s)), keys_(std::make_shared<const key_set>()) {
}

key_store::~key_store() {
  stop();
}

void key_store::start() {
  std::lock_guard<std::mutex> guard{mtx_};
  if (thread_.joinable())
    return;
  stop_ = false;
  thread_ = std::thread{[this] { run(); }};
}

void key_store::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

std::shared_ptr<const key_set> key_store::keys() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return keys_;
}

std::optional<issuer_metadata> key_store::metadata() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return meta_;
}

std::size_t key_store::fetches() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return fetches_;
}

std::size_t key_store::failures() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return failures_;
}

bool key_store::refetch(std::function<void()> done) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!fetching_ && !requested_) {
      if (started_once_ && s_.clock->mono_now() - last_started_ < s_.min_refetch)
        return false;
      requested_ = true;
    }
    waiters_.push_back(std::move(done));
  }
  cv_.notify_all();
  return true;
}

void key_store::after_first_fetch(std::function<void()> done) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (fetches_ == 0) {
      first_waiters_.push_back(std::move(done));
      return;
    }
  }
  done();
}

void key_store::run() {
  std::unique_lock<std::mutex> lock{mtx_};
  while (!stop_) {
    requested_ = false;
    fetching_ = true;
    started_once_ = true;
    last_started_ = s_.clock->mono_now();
    lock.unlock();
    fetch_once();
    lock.lock();
    fetching_ = false;
    ++fetches_;
    auto waiting = std::move(waiters_);
    waiters_.clear();
    auto first = std::move(first_waiters_);
    first_waiters_.clear();
    bool good = !keys_->keys.empty();
    lock.unlock();
    for (auto& w : first)
      w();
    for (auto& w : waiting)
      w();
    lock.lock();
    cv_.wait_for(lock, good ? s_.refresh : s_.retry,
                 [this] { return stop_ || requested_; });
  }
  // Nobody fetches any more: let the waiters go (they see the old keys).
  auto waiting = std::move(waiters_);
  auto first = std::move(first_waiters_);
  lock.unlock();
  for (auto& w : first)
    w();
  for (auto& w : waiting)
    w();
}

void key_store::failed(const std::string& why) {
  bool none;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    ++failures_;
    none = keys_->keys.empty();
  }
  metrics::oauth_key_fetch(false);
  TTM_LOG(warning, "oauth",
          "cannot fetch the signing keys of " + s_.issuer + ": " + why
            + (none ? "; no keys yet: every OAuth access token is refused "
                      "until a fetch succeeds"
                    : "; the keys fetched before stay in use"));
}

void key_store::fetch_once() {
  auto meta = metadata();
  if (!meta) {
    std::string errors;
    for (const auto& url : metadata_urls(s_.issuer)) {
      auto r = http_get(url, s_.limits);
      std::string error;
      if (r.ok())
        meta = parse_metadata(r.body, s_.issuer, error);
      if (meta)
        break;
      errors += (errors.empty() ? "" : "; ") + url + ": "
                + (r.ok() ? error : r.what());
    }
    if (!meta)
      return failed("no authorization server metadata (" + errors + ")");
    TTM_LOG(info, "oauth",
            "authorization server " + meta->issuer + ": keys at "
              + meta->jwks_uri
              + (meta->introspection_endpoint.empty()
                   ? std::string{", no introspection"}
                   : ", introspection at " + meta->introspection_endpoint));
    std::lock_guard<std::mutex> guard{mtx_};
    meta_ = meta;
  }
  auto r = http_get(meta->jwks_uri, s_.limits);
  if (!r.ok())
    return failed(meta->jwks_uri + ": " + r.what());
  std::string error;
  auto set = parse_jwks(r.body, s_.max_keys, error);
  if (!set)
    return failed(meta->jwks_uri + ": " + error);
  for (const auto& why : set->skipped)
    TTM_LOG(debug, "oauth", "a key of " + meta->jwks_uri + " is unused: " + why);
  if (set->keys.empty())
    return failed(meta->jwks_uri + ": no usable signing key (RS256, ES256, "
                                   "EdDSA)");
  std::string kids;
  for (const auto& k : set->keys)
    kids += (kids.empty() ? "" : ", ") + (k->kid().empty() ? "?" : k->kid());
  std::size_t n = set->keys.size();
  bool changed;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    std::string old;
    for (const auto& k : keys_->keys)
      old += (old.empty() ? "" : ", ") + (k->kid().empty() ? "?" : k->kid());
    changed = old != kids;
    keys_ = std::make_shared<const key_set>(std::move(*set));
  }
  metrics::oauth_key_fetch(true);
  metrics::oauth_keys(n);
  if (changed)
    TTM_LOG(info, "oauth", "signing keys of " + s_.issuer + ": "
                             + std::to_string(n) + " (kid " + kids + ")");
}

} // namespace ttm::edge::oauth
