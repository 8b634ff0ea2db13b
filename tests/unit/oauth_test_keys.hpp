#pragma once

// Real keys for the OAuth tests and the microbench, made with OpenSSL 3
// (RSA 2048, EC P-256, Ed25519): their public JWKs and JWTs signed with
// them, as an authorization server would mint them. Header-only.

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ttm::test {

inline std::string b64url(std::string_view bytes) {
  static constexpr char abc[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += abc[(acc >> bits) & 0x3F];
    }
  }
  if (bits > 0)
    out += abc[(acc << (6 - bits)) & 0x3F];
  return out;
}

inline std::string bn_bytes(const BIGNUM* bn, int pad = 0) {
  int n = pad > 0 ? pad : BN_num_bytes(bn);
  std::string out(static_cast<std::size_t>(n), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), n);
  return out;
}

/// One signing key: "RS256", "ES256" or "EdDSA".
class test_key {
public:
  test_key(std::string alg, std::string kid)
    : alg_(std::move(alg)), kid_(std::move(kid)) {
    EVP_PKEY* k = nullptr;
    if (alg_ == "RS256")
      k = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
    else if (alg_ == "ES256")
      k = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    else if (alg_ == "EdDSA")
      k = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
    if (k == nullptr)
      throw std::runtime_error("cannot make a " + alg_ + " key");
    key_.reset(k);
  }

  const std::string& alg() const {
    return alg_;
  }
  const std::string& kid() const {
    return kid_;
  }

  /// The public JWK (JSON text).
  std::string jwk() const {
    std::string j = "{\"kid\":\"" + kid_ + "\",\"use\":\"sig\",";
    if (alg_ == "RS256") {
      BIGNUM* n = nullptr;
      BIGNUM* e = nullptr;
      EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_RSA_N, &n);
      EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_RSA_E, &e);
      j += "\"kty\":\"RSA\",\"alg\":\"RS256\",\"n\":\"" + b64url(bn_bytes(n))
           + "\",\"e\":\"" + b64url(bn_bytes(e)) + "\"}";
      BN_free(n);
      BN_free(e);
    } else if (alg_ == "ES256") {
      BIGNUM* x = nullptr;
      BIGNUM* y = nullptr;
      EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_EC_PUB_X, &x);
      EVP_PKEY_get_bn_param(key_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, &y);
      j += "\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"" + b64url(bn_bytes(x, 32))
           + "\",\"y\":\"" + b64url(bn_bytes(y, 32)) + "\"}";
      BN_free(x);
      BN_free(y);
    } else {
      unsigned char raw[32];
      size_t len = sizeof raw;
      EVP_PKEY_get_raw_public_key(key_.get(), raw, &len);
      j += "\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\""
           + b64url({reinterpret_cast<char*>(raw), len}) + "\"}";
    }
    return j;
  }

  /// The JWS signature of `input` as the token carries it (ES256: r||s).
  std::string sign(std::string_view input) const {
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx{EVP_MD_CTX_new(),
                                                          EVP_MD_CTX_free};
    const EVP_MD* md = alg_ == "EdDSA" ? nullptr : EVP_sha256();
    if (EVP_DigestSignInit(ctx.get(), nullptr, md, nullptr, key_.get()) <= 0)
      throw std::runtime_error("DigestSignInit");
    size_t len = 0;
    auto* in = reinterpret_cast<const unsigned char*>(input.data());
    if (EVP_DigestSign(ctx.get(), nullptr, &len, in, input.size()) <= 0)
      throw std::runtime_error("DigestSign");
    std::string sig(len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                       &len, in, input.size())
        <= 0)
      throw std::runtime_error("DigestSign");
    sig.resize(len);
    if (alg_ != "ES256")
      return sig;
    auto* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(es, &r, &s);
    auto raw = bn_bytes(r, 32) + bn_bytes(s, 32);
    ECDSA_SIG_free(es);
    return raw;
  }

  /// A compact JWS of `claims` (JSON text); `header` without alg and kid
  /// (they are added), e.g. "\"typ\":\"at+jwt\"".
  std::string token(const std::string& claims,
                    const std::string& header = "\"typ\":\"at+jwt\"",
                    const std::string& alg_override = {}) const {
    auto alg = alg_override.empty() ? alg_ : alg_override;
    std::string h = "{\"alg\":\"" + alg + "\",\"kid\":\"" + kid_ + "\""
                    + (header.empty() ? "" : "," + header) + "}";
    auto input = b64url(h) + "." + b64url(claims);
    return input + "." + b64url(sign(input));
  }

private:
  std::string alg_;
  std::string kid_;
  std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY*)> key_{nullptr, EVP_PKEY_free};
};

inline std::string jwks(std::initializer_list<const test_key*> keys) {
  std::string out = "{\"keys\":[";
  bool first = true;
  for (const auto* k : keys) {
    out += (first ? "" : ",") + k->jwk();
    first = false;
  }
  return out + "]}";
}

} // namespace ttm::test
