#pragma once

// Access tokens as a resource server checks them: a JWT (RFC 9068) against
// the issuer's keys, or the claims an introspection (RFC 7662) returned,
// against the rules: issuer, audience (our resource URI: no token minted
// for another resource passes), expiry and not-before with a skew, the
// principal's claim, scopes. Plain functions of their inputs; time is
// passed in.

#include "edge/oauth_jwk.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::edge::oauth {

struct token_rules {
  std::string issuer;
  /// Our canonical resource URI: `aud` must hold it.
  std::string resource;
  std::string principal_claim = "sub";
  std::chrono::seconds clock_skew{30};
};

/// Why a token was refused; `none`: accepted. Also the metrics label
/// (`outcome`) and the audit reason, via `failure_name`.
enum class token_failure {
  none,
  malformed,        ///< not a JWT we can read
  unsupported_alg,  ///< `none`, HS256, anything but RS256/ES256/EdDSA
  wrong_type,       ///< `typ` names another kind of JWT
  unknown_kid,      ///< no key of ours has the token's kid
  alg_mismatch,     ///< the key named is of another type than `alg`
  bad_signature,
  wrong_issuer,
  wrong_audience,
  expired,
  not_yet_valid,
  no_principal,     ///< the principal claim is missing or not a string
  inactive,         ///< introspection: `active: false`
  unverifiable,     ///< an opaque token without introspection, or it failed
};

std::string_view failure_name(token_failure f) noexcept;

/// For the 401's `error_description` and the audit record.
std::string failure_text(token_failure f);

/// What an accepted token grants.
struct grant {
  std::string principal;
  std::vector<std::string> scopes;
  /// `exp` (seconds since the epoch); 0: none (introspection may omit it).
  long long expires = 0;
};

struct token_verdict {
  token_failure failure = token_failure::none;
  grant granted;
  /// The JWT header's kid (for a refetch of the keys on unknown_kid).
  std::string kid;
  bool ok() const noexcept {
    return failure == token_failure::none;
  }
};

/// Three base64url parts separated by dots: a JWS compact serialization.
bool looks_like_jwt(std::string_view token) noexcept;

/// Checks a JWT's header, signature (with `keys`) and claims at `now`.
token_verdict check_jwt(std::string_view token, const key_set& keys,
                        const token_rules& rules,
                        std::chrono::system_clock::time_point now);

/// Checks a claims object (JSON text: a JWT's payload, or an introspection
/// response, where `active` must be true) against the rules at `now`.
token_verdict check_claims(std::string_view claims_json,
                           const token_rules& rules,
                           std::chrono::system_clock::time_point now,
                           bool introspection = false);

} // namespace ttm::edge::oauth
