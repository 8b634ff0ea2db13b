#include "edge/oauth_jwk.hpp"

#include "protocol/base64.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <rapidjson/document.h>

#include <algorithm>

namespace ttm::edge::oauth {

std::optional<std::string> base64url_decode(std::string_view text) {
  return protocol::base64_decode(text, protocol::base64_alphabet::url, true);
}

std::string_view alg_of(key_type t) noexcept {
  switch (t) {
    case key_type::rsa:
      return "RS256";
    case key_type::ec_p256:
      return "ES256";
    case key_type::ed25519:
      return "EdDSA";
  }
  return {};
}

struct verify_key::pkey {
  EVP_PKEY* k = nullptr;
  ~pkey() {
    EVP_PKEY_free(k);
  }
};

namespace {

template <class T, void (*Free)(T*)>
struct deleter {
  void operator()(T* p) const noexcept {
    Free(p);
  }
};
using bn_ptr = std::unique_ptr<BIGNUM, deleter<BIGNUM, BN_free>>;
using ctx_ptr = std::unique_ptr<EVP_PKEY_CTX, deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using bld_ptr = std::unique_ptr<OSSL_PARAM_BLD, deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using params_ptr = std::unique_ptr<OSSL_PARAM, deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using sig_ptr = std::unique_ptr<ECDSA_SIG, deleter<ECDSA_SIG, ECDSA_SIG_free>>;

std::optional<std::string> member(const rapidjson::Value& o, const char* name) {
  auto it = o.FindMember(name);
  if (it == o.MemberEnd() || !it->value.IsString())
    return std::nullopt;
  return std::string{it->value.GetString(), it->value.GetStringLength()};
}

/// A base64url member as bytes; nullopt when absent or not base64url.
std::optional<std::string> bytes(const rapidjson::Value& o, const char* name) {
  auto s = member(o, name);
  return s ? base64url_decode(*s) : std::nullopt;
}

EVP_PKEY* from_params(const char* type, OSSL_PARAM_BLD* bld) {
  params_ptr params{OSSL_PARAM_BLD_to_param(bld)};
  ctx_ptr ctx{EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr)};
  EVP_PKEY* k = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0
      || EVP_PKEY_fromdata(ctx.get(), &k, EVP_PKEY_PUBLIC_KEY, params.get())
           <= 0)
    return nullptr;
  return k;
}

EVP_PKEY* rsa_key(const rapidjson::Value& jwk, std::string& error) {
  auto n = bytes(jwk, "n");
  auto e = bytes(jwk, "e");
  if (!n || !e || n->empty() || e->empty()) {
    error = "an RSA key needs base64url 'n' and 'e'";
    return nullptr;
  }
  bn_ptr bn_n{BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()),
                        static_cast<int>(n->size()), nullptr)};
  bn_ptr bn_e{BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()),
                        static_cast<int>(e->size()), nullptr)};
  if (!bn_n || !bn_e) {
    error = "out of memory";
    return nullptr;
  }
  // RFC 7518 §3.3: 2048 bits or more.
  if (BN_num_bits(bn_n.get()) < 2048) {
    error = "an RSA key of " + std::to_string(BN_num_bits(bn_n.get()))
            + " bits (RS256 needs 2048 or more)";
    return nullptr;
  }
  bld_ptr bld{OSSL_PARAM_BLD_new()};
  if (!bld || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get())
      || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    error = "out of memory";
    return nullptr;
  }
  auto* k = from_params("RSA", bld.get());
  if (!k)
    error = "OpenSSL refused the RSA key";
  return k;
}

EVP_PKEY* ec_key(const rapidjson::Value& jwk, std::string& error) {
  if (member(jwk, "crv") != std::optional<std::string>{"P-256"}) {
    error = "an EC key on a curve other than P-256";
    return nullptr;
  }
  auto x = bytes(jwk, "x");
  auto y = bytes(jwk, "y");
  if (!x || !y || x->size() != 32 || y->size() != 32) {
    error = "a P-256 key needs 32-byte 'x' and 'y'";
    return nullptr;
  }
  // The uncompressed point: 0x04 || x || y. OpenSSL checks it is on the
  // curve.
  std::string point = "\x04" + *x + *y;
  char group[] = "prime256v1";
  bld_ptr bld{OSSL_PARAM_BLD_new()};
  if (!bld
      || !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME,
                                          group, 0)
      || !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                           point.data(), point.size())) {
    error = "out of memory";
    return nullptr;
  }
  auto* k = from_params("EC", bld.get());
  if (!k)
    error = "OpenSSL refused the P-256 key (not a point on the curve?)";
  return k;
}

EVP_PKEY* okp_key(const rapidjson::Value& jwk, std::string& error) {
  if (member(jwk, "crv") != std::optional<std::string>{"Ed25519"}) {
    error = "an OKP key other than Ed25519";
    return nullptr;
  }
  auto x = bytes(jwk, "x");
  if (!x || x->size() != 32) {
    error = "an Ed25519 key needs a 32-byte 'x'";
    return nullptr;
  }
  auto* k = EVP_PKEY_new_raw_public_key(
    EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(x->data()),
    x->size());
  if (!k)
    error = "OpenSSL refused the Ed25519 key";
  return k;
}

/// ES256's JWS signature (r || s, 32 bytes each) as the DER ECDSA-Sig-Value
/// EVP_DigestVerify takes.
std::optional<std::string> es256_der(std::string_view raw) {
  if (raw.size() != 64)
    return std::nullopt;
  auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  bn_ptr r{BN_bin2bn(p, 32, nullptr)};
  bn_ptr s{BN_bin2bn(p + 32, 32, nullptr)};
  sig_ptr sig{ECDSA_SIG_new()};
  if (!r || !s || !sig || !ECDSA_SIG_set0(sig.get(), r.get(), s.get()))
    return std::nullopt;
  r.release(); // owned by sig now
  s.release();
  int len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (len <= 0)
    return std::nullopt;
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_ECDSA_SIG(sig.get(), &out) != len)
    return std::nullopt;
  return der;
}

} // namespace

verify_key::verify_key(key_type t, std::string kid, std::string alg, pkey* k)
  : type_(t), kid_(std::move(kid)), alg_(std::move(alg)), key_(k) {
}

verify_key::~verify_key() {
  delete key_;
}

std::shared_ptr<const verify_key>
verify_key::from_jwk(const rapidjson::Value& jwk, std::string& error) {
  if (!jwk.IsObject()) {
    error = "a key that is not a JSON object";
    return nullptr;
  }
  auto kty = member(jwk, "kty").value_or("");
  auto use = member(jwk, "use");
  if (use && *use != "sig") {
    error = "a key for '" + *use + "', not signatures";
    return nullptr;
  }
  key_type type;
  EVP_PKEY* k = nullptr;
  if (kty == "RSA") {
    type = key_type::rsa;
    k = rsa_key(jwk, error);
  } else if (kty == "EC") {
    type = key_type::ec_p256;
    k = ec_key(jwk, error);
  } else if (kty == "OKP") {
    type = key_type::ed25519;
    k = okp_key(jwk, error);
  } else {
    error = "a key of type '" + kty + "' (RSA, EC and OKP are supported)";
    return nullptr;
  }
  if (!k)
    return nullptr;
  auto alg = member(jwk, "alg").value_or("");
  auto holder = new pkey{k};
  std::shared_ptr<const verify_key> key{
    new verify_key(type, member(jwk, "kid").value_or(""), alg, holder)};
  if (!alg.empty() && alg != alg_of(type)) {
    error = "a key of type '" + kty + "' for alg '" + alg + "' (we verify "
            + std::string{alg_of(type)} + " with it)";
    return nullptr;
  }
  return key;
}

bool verify_key::verify(std::string_view alg, std::string_view input,
                        std::string_view signature) const {
  // The token's alg must be the key's: an RSA key never checks an HMAC or
  // EdDSA signature, whatever the header says.
  if (alg != alg_of(type_) || (!alg_.empty() && alg != alg_))
    return false;
  std::string der;
  const EVP_MD* md = EVP_sha256();
  if (type_ == key_type::ec_p256) {
    auto d = es256_der(signature);
    if (!d)
      return false;
    der = std::move(*d);
    signature = der;
  } else if (type_ == key_type::ed25519) {
    md = nullptr; // EdDSA hashes inside (PureEdDSA)
  }
  md_ctx_ptr ctx{EVP_MD_CTX_new()};
  if (!ctx
      || EVP_DigestVerifyInit(ctx.get(), nullptr, md, nullptr, key_->k) <= 0)
    return false;
  return EVP_DigestVerify(
           ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
           signature.size(),
           reinterpret_cast<const unsigned char*>(input.data()), input.size())
         == 1;
}

std::vector<key_ptr> key_set::candidates(const std::string& kid,
                                         std::string_view alg) const {
  std::vector<key_ptr> out;
  for (const auto& k : keys)
    if (kid.empty() ? alg_of(k->type()) == alg : k->kid() == kid)
      out.push_back(k);
  return out;
}

bool key_set::has_kid(const std::string& kid) const {
  return std::any_of(keys.begin(), keys.end(),
                     [&](const key_ptr& k) { return k->kid() == kid; });
}

std::optional<key_set> parse_jwks(std::string_view json, std::size_t max_keys,
                                  std::string& error) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject()) {
    error = "the JWK Set is not a JSON object";
    return std::nullopt;
  }
  auto it = d.FindMember("keys");
  if (it == d.MemberEnd() || !it->value.IsArray()) {
    error = "the JWK Set has no 'keys' array";
    return std::nullopt;
  }
  key_set set;
  for (const auto& jwk : it->value.GetArray()) {
    std::string why;
    auto key = verify_key::from_jwk(jwk, why);
    if (!key) {
      set.skipped.push_back(std::move(why));
      continue;
    }
    if (set.keys.size() >= max_keys) {
      set.skipped.push_back("more than " + std::to_string(max_keys)
                            + " keys");
      continue;
    }
    set.keys.push_back(std::move(key));
  }
  return set;
}

} // namespace ttm::edge::oauth
