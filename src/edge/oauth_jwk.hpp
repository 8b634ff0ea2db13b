#pragma once

// Public keys of a JWK Set (RFC 7517) and JWS signature checks (RFC 7515,
// 7518, 8037) with OpenSSL 3's EVP API: RS256 (RSA >= 2048 bits), ES256
// (P-256) and EdDSA (Ed25519). No hand-written cryptography: the JWK's
// numbers go to EVP_PKEY_fromdata (or a raw Ed25519 key), the signature to
// EVP_DigestVerify. OpenSSL stays behind this header.

#include <rapidjson/fwd.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::edge::oauth {

/// Base64url without padding (RFC 7515 §2); nullopt for any other byte.
std::optional<std::string> base64url_decode(std::string_view text);

enum class key_type { rsa, ec_p256, ed25519 };

/// The JWS algorithm a key type verifies: RS256, ES256, EdDSA.
std::string_view alg_of(key_type t) noexcept;

/// One verification key. Immutable, shared by the threads that check tokens.
class verify_key {
public:
  /// A JWK object; nullptr with `error` set for a key we cannot use (a
  /// private part is ignored, `use: enc` and unknown types are refused).
  static std::shared_ptr<const verify_key> from_jwk(const rapidjson::Value& jwk,
                                                    std::string& error);
  ~verify_key();
  verify_key(const verify_key&) = delete;
  verify_key& operator=(const verify_key&) = delete;

  key_type type() const noexcept {
    return type_;
  }
  /// Empty: the JWK had none.
  const std::string& kid() const noexcept {
    return kid_;
  }

  /// Whether `signature` (as in the JWS: ES256's raw r||s) signs `input`
  /// with `alg`. False for an alg other than the key type's (alg_of), and
  /// for a JWK `alg` other than `alg`.
  bool verify(std::string_view alg, std::string_view input,
              std::string_view signature) const;

private:
  struct pkey;
  verify_key(key_type t, std::string kid, std::string alg, pkey* k);

  key_type type_;
  std::string kid_;
  std::string alg_; ///< the JWK's `alg`, empty: any of its type
  pkey* key_;
};

using key_ptr = std::shared_ptr<const verify_key>;

/// A JWK Set's usable keys, at most `max_keys` (the rest are dropped, with
/// the reason in `skipped`).
struct key_set {
  std::vector<key_ptr> keys;
  std::vector<std::string> skipped;

  /// The keys a token may be checked with: those of `kid`, or, without a
  /// kid, every key of `alg`'s type.
  std::vector<key_ptr> candidates(const std::string& kid,
                                  std::string_view alg) const;
  bool has_kid(const std::string& kid) const;
};

/// Parses a JWK Set document; nullopt with `error` when it is not one.
std::optional<key_set> parse_jwks(std::string_view json, std::size_t max_keys,
                                  std::string& error);

} // namespace ttm::edge::oauth
