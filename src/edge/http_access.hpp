#pragma once

// Who may use the HTTP edge: the Host and Origin allow-lists (DNS rebinding
// protection) and bearer tokens with their principals. Plain C++: no Beast,
// no CAF.

#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ttm::edge {

/// Constant-time check of a bearer token against a list: the time taken
/// depends on the lengths of the configured tokens only, never on where a
/// candidate first differs.
bool token_matches(const std::string& candidate,
                   const std::vector<std::string>& tokens) noexcept;

/// The same check, returning the index of the matching token or -1. Still
/// compares against every token.
int token_index(const std::string& candidate,
                const std::vector<std::string>& tokens) noexcept;

class access_policy {
public:
  access_policy() = default;

  /// `bound_port`: the port we listen on. `bind_name`: the name of the bound
  /// address as a Host carries it (`10.0.0.5`, `[fe80::1]`), when it is a
  /// specific address other than loopback; localhost, 127.0.0.1 and [::1]
  /// are always allowed. The extra lists and tokens come from the options.
  access_policy(std::uint16_t bound_port,
                const std::optional<std::string>& bind_name,
                const std::vector<std::string>& extra_hosts,
                const std::vector<std::string>& extra_origins,
                std::vector<std::string> tokens,
                std::vector<std::string> principals);

  /// A Host header's value, as sent.
  bool host_allowed(std::string_view host) const;

  /// An Origin header's value, as sent (a trailing `/` is ignored).
  bool origin_allowed(std::string_view origin) const;

  /// OAuth access tokens (--oauth-issuer) are accepted besides the
  /// static ones: a bearer token is required even without static ones.
  void set_oauth(bool on) noexcept {
    oauth_ = on;
  }

  bool auth_required() const noexcept {
    return !tokens_.empty() || oauth_;
  }

  /// The principal of an Authorization header's `Bearer TOKEN`; nullopt
  /// when the header is absent, not Bearer, or holds no configured token.
  /// Without tokens (and without OAuth) every request is `local`'s.
  std::optional<std::string>
  principal_of(std::optional<std::string_view> authorization) const;

  /// The token of an Authorization header's `Bearer TOKEN` (trimmed);
  /// nullopt when the header is absent, not Bearer or empty.
  static std::optional<std::string>
  bearer_token(std::optional<std::string_view> authorization);

private:
  std::vector<std::string> hosts_;   // lower case
  std::vector<std::string> origins_; // lower case, no trailing '/'
  std::vector<std::string> tokens_;
  std::vector<std::string> principals_;
  bool oauth_ = false;
};

/// Throttles bearer-token guessing per client address: `max_failures`
/// wrong tokens within `window` lock the address out for `lockout`, the
/// next lockout of the same address lasts twice as long, up to
/// `max_lockout`. While locked out every request of the address is refused,
/// a correct token too (else guessing could go on). A correct token ends
/// the address's record; other addresses are untouched. At most
/// `max_addresses` records: a new one evicts the least recently failed.
/// Time is passed in (`now`), so tests need no clock. Thread-safe.
class auth_throttle {
public:
  using time_point = std::chrono::steady_clock::time_point;

  struct limits {
    std::size_t max_failures = 10;
    std::chrono::seconds window{60};
    std::chrono::seconds lockout{30};
    std::chrono::seconds max_lockout{15 * 60};
    std::size_t max_addresses = 10'000;
  };

  auth_throttle() = default;
  explicit auth_throttle(limits l) : limits_(l) {
  }

  /// While `address` is locked out: the whole seconds left (at least 1).
  std::optional<std::chrono::seconds> locked(const std::string& address,
                                             time_point now);

  /// A wrong token from `address`. When this failure locks it out: the
  /// lockout's length.
  std::optional<std::chrono::seconds> failed(const std::string& address,
                                             time_point now);

  /// A correct token from `address` (not locked out).
  void succeeded(const std::string& address);

  /// Addresses remembered.
  std::size_t size() const;

private:
  struct record {
    std::size_t failures = 0;
    time_point window_start{};
    time_point locked_until{};
    /// Lockouts so far: the next one lasts lockout * 2^strikes.
    unsigned strikes = 0;
    std::list<std::string>::iterator lru;
  };

  limits limits_;
  mutable std::mutex mtx_;
  std::unordered_map<std::string, record> records_;
  /// Least recently failed first.
  std::list<std::string> lru_;
};

} // namespace ttm::edge
