#pragma once

// Per-client request limits: a token bucket (requests per period, with a
// burst) and a cap on requests in flight, per key (a principal, a client
// address, or the one stdio client). Time comes from the injected clock, so
// tests drive the bucket without sleeping. The edges ask before handing a
// request on and answer the refusal themselves (HTTP 429, or a JSON-RPC
// error over stdio).

#include "domain/clock.hpp"

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ttm::domain {

/// `--rate-limit`: N requests per second, minute or hour, up to `burst` at
/// once; `off`: no bucket.
struct rate_spec {
  bool off = true;
  std::uint64_t count = 0; ///< tokens added per `period`
  std::chrono::seconds period{1};
  std::uint64_t burst = 0; ///< the bucket's size (>= 1)
};

/// Parses `off`, `N/s`, `N/m`, `N/h` (also `/sec`, `/min`, `/hour`) with an
/// optional `,burst=B` (default: N, at least 1). Strict: no spaces, no
/// signs, N and B from 1 to 1,000,000. Nullopt and `error` set when bad.
std::optional<rate_spec> parse_rate_spec(std::string_view text,
                                         std::string& error);

/// The spec as `--rate-limit` takes it: `off` or `N/s,burst=B`.
std::string to_string(const rate_spec& spec);

/// The limits of every key (see rate_limiter).
struct rate_limits {
  rate_spec rate;
  /// Requests admitted and not yet answered, per key; 0: no cap.
  std::size_t max_in_flight = 0;
  /// Keys remembered at once: full, idle buckets are dropped first (they
  /// equal a new one), then the one unused longest.
  std::size_t max_keys = 10'000;
};

/// A refusal's kind and when to try again (never too early: a request made
/// that much later finds a token, unless others of the key took it first).
struct rate_verdict {
  enum kind_t { admit, rate_limited, too_many_in_flight } kind = admit;
  /// Rounded up to a whole millisecond; 0 when admitted.
  std::chrono::milliseconds retry_after{0};

  explicit operator bool() const noexcept {
    return kind == admit;
  }
  /// `retry_after` in whole seconds, rounded up, at least 1 (Retry-After).
  std::uint64_t retry_after_seconds() const noexcept;
};

/// Token buckets and in-flight counts per key; thread-safe (one mutex, held
/// for a map lookup and a few integer operations).
class rate_limiter {
public:
  rate_limiter(rate_limits limits, clock_ptr clock);

  /// Whether nothing is limited (the edges skip the lookup).
  bool unlimited() const noexcept {
    return limits_.rate.off && limits_.max_in_flight == 0;
  }

  /// Takes a token and an in-flight place for one request of `key`, or
  /// says why not (then nothing is taken). Every admitted request must be
  /// `release`d once answered.
  rate_verdict admit(std::string_view key);

  /// The request of `key` admitted earlier is answered.
  void release(std::string_view key);

  /// Keys remembered now (tests, and the bound on memory).
  std::size_t keys() const;

private:
  struct bucket {
    /// Tokens in units of 1/(count) of a period-nanosecond: exact integer
    /// arithmetic (a token is `period` ns worth of units; `count` units
    /// come in per ns).
    unsigned __int128 units = 0;
    std::int64_t last_ns = 0;
    std::size_t in_flight = 0;
  };

  void refill(bucket& b, std::int64_t now_ns) const;
  bool full(const bucket& b) const;
  /// Makes room for one more key; false when every key has requests in
  /// flight (then the new key is admitted without a bucket).
  bool make_room(std::int64_t now_ns);

  rate_limits limits_;
  clock_ptr clock_;
  unsigned __int128 token_units_ = 0; ///< units of one token
  unsigned __int128 capacity_ = 0;    ///< units of a full bucket
  mutable std::mutex mtx_;
  std::unordered_map<std::string, bucket> buckets_;
};

} // namespace ttm::domain
