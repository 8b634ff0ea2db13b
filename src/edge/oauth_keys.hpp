#pragma once

// The issuer's metadata (RFC 8414, else OpenID Connect discovery) and its
// signing keys (the JWK Set at `jwks_uri`), fetched on the store's own
// thread: at start, again when a token names a kid we do not have (at most
// once per `min_refetch`), and every `refresh`. A failed fetch keeps the
// keys we have, is logged and counted; keys rotate without a restart.

#include "domain/clock.hpp"
#include "edge/oauth_fetch.hpp"
#include "edge/oauth_jwk.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ttm::edge::oauth {

struct issuer_metadata {
  std::string issuer;
  std::string jwks_uri;
  /// Empty: the issuer offers no introspection.
  std::string introspection_endpoint;
};

/// Where an issuer's metadata is looked for, in order: RFC 8414 §3.1
/// (`/.well-known/oauth-authorization-server` inserted before the issuer's
/// path), then OpenID Connect Discovery (appended to it).
std::vector<std::string> metadata_urls(const std::string& issuer);

/// A metadata document; nullopt with `error` unless its `issuer` is exactly
/// `issuer` (RFC 8414 §3.3) and its jwks_uri is usable (check_url).
std::optional<issuer_metadata> parse_metadata(std::string_view json,
                                              const std::string& issuer,
                                              std::string& error);

class key_store {
public:
  struct settings {
    std::string issuer;
    /// Its monotonic clock paces the refetches (tests move it).
    domain::clock_ptr clock;
    std::chrono::seconds min_refetch{10};
    std::chrono::seconds refresh{15 * 60};
    /// The next attempt after a failed fetch.
    std::chrono::seconds retry{30};
    std::size_t max_keys = 64;
    fetch_limits limits;
  };

  explicit key_store(settings s);
  ~key_store();
  key_store(const key_store&) = delete;
  key_store& operator=(const key_store&) = delete;

  /// Starts the thread, which fetches at once.
  void start();
  void stop();

  /// The current keys (never null; empty before the first good fetch).
  std::shared_ptr<const key_set> keys() const;
  std::optional<issuer_metadata> metadata() const;

  /// A token names a kid we lack: fetch again. True: `done` runs on the
  /// store's thread once that fetch (or one under way) has ended. False:
  /// the keys were fetched less than `min_refetch` ago; `done` is dropped.
  bool refetch(std::function<void()> done);

  /// Fetches ended, and of them failed (for tests and the log).
  std::size_t fetches() const;
  std::size_t failures() const;

  /// Runs `done` on the store's thread after the first fetch has ended (at
  /// once when it has); for start-up logging and tests.
  void after_first_fetch(std::function<void()> done);

private:
  void run();
  void fetch_once();
  void failed(const std::string& why);

  settings s_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::shared_ptr<const key_set> keys_;
  std::optional<issuer_metadata> meta_;
  std::vector<std::function<void()>> waiters_;
  std::vector<std::function<void()>> first_waiters_;
  domain::mono_time last_started_{};
  bool started_once_ = false;
  bool requested_ = false;
  bool fetching_ = false;
  bool stop_ = false;
  std::size_t fetches_ = 0;
  std::size_t failures_ = 0;
  std::thread thread_;
};

} // namespace ttm::edge::oauth
