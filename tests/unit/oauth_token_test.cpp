// OAuth access tokens checked as a resource server does (edge/oauth_jwk,
// edge/oauth_token): real keys made here with OpenSSL, tokens signed with
// them, time passed in.

#include "edge/oauth_jwk.hpp"
#include "edge/oauth_token.hpp"
#include "oauth_test_keys.hpp"

#include <catch2/catch.hpp>

using namespace ttm::edge::oauth;
using ttm::test::test_key;

namespace {

const std::string issuer = "https://auth.example.com";
const std::string resource = "https://mcp.example.com/mcp";

/// 2026-11-27T12:00:00Z
const std::chrono::system_clock::time_point t0{std::chrono::seconds{1795780800}};

long long at(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch())
    .count();
}

std::string claims(long long exp, const std::string& extra = "",
                   const std::string& aud = "\"" + resource + "\"",
                   const std::string& iss = issuer) {
  return "{\"iss\":\"" + iss + "\",\"sub\":\"alice\",\"aud\":" + aud
         + ",\"exp\":" + std::to_string(exp)
         + ",\"scope\":\"tracker.read openid\"" + extra + "}";
}

key_set set_of(std::initializer_list<const test_key*> keys) {
  std::string error;
  auto s = parse_jwks(ttm::test::jwks(keys), 64, error);
  REQUIRE(s);
  REQUIRE(s->skipped.empty());
  return std::move(*s);
}

token_rules rules() {
  return token_rules{issuer, resource, "sub", std::chrono::seconds{30}};
}

} // namespace

TEST_CASE("oauth: RS256, ES256 and EdDSA tokens verify; a changed byte does "
          "not",
          "[oauth]") {
  for (std::string alg : {"RS256", "ES256", "EdDSA"}) {
    INFO(alg);
    test_key key{alg, "k-" + alg};
    test_key other{alg, "k-" + alg}; // same kid, another key
    auto keys = set_of({&key});
    auto token = key.token(claims(at(t0) + 300));
    auto v = check_jwt(token, keys, rules(), t0);
    REQUIRE(v.failure == token_failure::none);
    CHECK(v.granted.principal == "alice");
    CHECK(v.granted.scopes == std::vector<std::string>{"tracker.read", "openid"});
    CHECK(v.granted.expires == at(t0) + 300);
    // A payload changed after signing.
    auto dot1 = token.find('.');
    auto dot2 = token.find('.', dot1 + 1);
    auto forged = token.substr(0, dot1) + "."
                  + ttm::test::b64url(claims(at(t0) + 300, ",\"x\":1"))
                  + token.substr(dot2);
    CHECK(check_jwt(forged, keys, rules(), t0).failure
          == token_failure::bad_signature);
    // Signed by another key under the same kid.
    CHECK(check_jwt(other.token(claims(at(t0) + 300)), keys, rules(), t0)
            .failure
          == token_failure::bad_signature);
    // A signature cut short.
    CHECK(check_jwt(token.substr(0, token.size() - 4), keys, rules(), t0)
            .failure
          != token_failure::none);
  }
}

TEST_CASE("oauth: alg none, HS256 and an alg that does not fit the key are "
          "refused",
          "[oauth]") {
  test_key rsa{"RS256", "rsa-1"};
  test_key ec{"ES256", "ec-1"};
  auto keys = set_of({&rsa, &ec});
  auto body = claims(at(t0) + 300);
  auto h = ttm::test::b64url(R"({"alg":"none","kid":"rsa-1"})");
  CHECK(check_jwt(h + "." + ttm::test::b64url(body) + ".", keys, rules(), t0)
          .failure
        != token_failure::none);
  CHECK(check_jwt(h + "." + ttm::test::b64url(body) + ".AAAA", keys, rules(),
                  t0)
          .failure
        == token_failure::unsupported_alg);
  // HS256 with the RSA key's public modulus as the "secret": the classic
  // confusion; never accepted.
  CHECK(check_jwt(rsa.token(body, "", "HS256"), keys, rules(), t0).failure
        == token_failure::unsupported_alg);
  // The EC key's kid with alg RS256 (signed by the RSA key).
  auto h2 = ttm::test::b64url(R"({"alg":"RS256","kid":"ec-1"})");
  auto input = h2 + "." + ttm::test::b64url(body);
  CHECK(check_jwt(input + "." + ttm::test::b64url(rsa.sign(input)), keys,
                  rules(), t0)
          .failure
        == token_failure::alg_mismatch);
  // A JWK whose alg says otherwise than its type is not used at all.
  std::string error;
  auto odd = parse_jwks(
    R"({"keys":[)" + ec.jwk().substr(0, ec.jwk().size() - 1)
      + R"(,"alg":"RS256"}]})",
    64, error);
  REQUIRE(odd);
  CHECK(odd->keys.empty());
  CHECK(odd->skipped.size() == 1);
}

TEST_CASE("oauth: issuer, audience and type are checked", "[oauth]") {
  test_key key{"ES256", "k1"};
  auto keys = set_of({&key});
  auto exp = at(t0) + 300;
  CHECK(check_jwt(key.token(claims(exp, "", "\"" + resource + "\"",
                                   "https://evil.example.com")),
                  keys, rules(), t0)
          .failure
        == token_failure::wrong_issuer);
  // Minted for another resource: no passthrough.
  CHECK(check_jwt(key.token(claims(exp, "", "\"https://other.example.com/mcp\"")),
                  keys, rules(), t0)
          .failure
        == token_failure::wrong_audience);
  CHECK(check_jwt(key.token(claims(exp, "", "[\"a\",\"b\"]")), keys, rules(),
                  t0)
          .failure
        == token_failure::wrong_audience);
  CHECK(check_jwt(key.token(claims(exp, "", "[\"a\",\"" + resource + "\"]")),
                  keys, rules(), t0)
          .ok());
  // A resource URI differing only by a trailing slash is another one.
  CHECK(check_jwt(key.token(claims(exp, "", "\"" + resource + "/\"")), keys,
                  rules(), t0)
          .failure
        == token_failure::wrong_audience);
  CHECK(check_jwt(key.token(claims(exp), "\"typ\":\"JWT\""), keys, rules(), t0)
          .ok());
  CHECK(check_jwt(key.token(claims(exp), "\"typ\":\"application/at+jwt\""),
                  keys, rules(), t0)
          .ok());
  CHECK(check_jwt(key.token(claims(exp), "\"typ\":\"dpop+jwt\""), keys,
                  rules(), t0)
          .failure
        == token_failure::wrong_type);
  CHECK(check_jwt(key.token(claims(exp), "\"crit\":[\"b64\"]"), keys, rules(),
                  t0)
          .failure
        == token_failure::malformed);
  // No exp at all: refused (RFC 9068 requires it).
  CHECK(check_jwt(key.token("{\"iss\":\"" + issuer + "\",\"sub\":\"a\",\"aud\":\""
                            + resource + "\"}"),
                  keys, rules(), t0)
          .failure
        == token_failure::malformed);
}

TEST_CASE("oauth: exp and nbf with the clock skew", "[oauth]") {
  test_key key{"EdDSA", "k1"};
  auto keys = set_of({&key});
  auto exp = at(t0);
  auto token = key.token(claims(exp));
  using std::chrono::seconds;
  CHECK(check_jwt(token, keys, rules(), t0 + seconds{29}).ok());
  CHECK(check_jwt(token, keys, rules(), t0 + seconds{30}).failure
        == token_failure::expired);
  auto r = rules();
  r.clock_skew = seconds{0};
  CHECK(check_jwt(token, keys, r, t0).failure == token_failure::expired);
  CHECK(check_jwt(token, keys, r, t0 - seconds{1}).ok());
  auto later = key.token(claims(at(t0) + 600, ",\"nbf\":" + std::to_string(at(t0) + 100)));
  CHECK(check_jwt(later, keys, rules(), t0 + seconds{69}).failure
        == token_failure::not_yet_valid);
  CHECK(check_jwt(later, keys, rules(), t0 + seconds{70}).ok());
}

TEST_CASE("oauth: the principal is the configured claim; scopes from scope or "
          "scp",
          "[oauth]") {
  test_key key{"RS256", "k1"};
  auto keys = set_of({&key});
  auto exp = at(t0) + 300;
  auto r = rules();
  r.principal_claim = "email";
  auto with_email = key.token(claims(exp, ",\"email\":\"alice@example.com\""));
  auto v = check_jwt(with_email, keys, r, t0);
  REQUIRE(v.ok());
  CHECK(v.granted.principal == "alice@example.com");
  CHECK(check_jwt(key.token(claims(exp)), keys, r, t0).failure
        == token_failure::no_principal);
  auto scp = key.token("{\"iss\":\"" + issuer + "\",\"sub\":\"bob\",\"aud\":\""
                       + resource + "\",\"exp\":" + std::to_string(exp)
                       + ",\"scp\":[\"tracker.write\"]}");
  auto v2 = check_jwt(scp, keys, rules(), t0);
  REQUIRE(v2.ok());
  CHECK(v2.granted.scopes == std::vector<std::string>{"tracker.write"});
}

TEST_CASE("oauth: an unknown kid is named as such (the key store refetches)",
          "[oauth]") {
  test_key a{"ES256", "a"};
  test_key b{"ES256", "b"};
  auto keys = set_of({&a});
  auto v = check_jwt(b.token(claims(at(t0) + 300)), keys, rules(), t0);
  CHECK(v.failure == token_failure::unknown_kid);
  CHECK(v.kid == "b");
}

TEST_CASE("oauth: JWK Sets: unusable keys are skipped, not fatal", "[oauth]") {
  std::string error;
  // RSA under 2048 bits, a P-384 key, an encryption key, a symmetric key.
  auto set = parse_jwks(
    R"({"keys":[{"kty":"RSA","kid":"small","n":"AQAB","e":"AQAB"},)"
    R"({"kty":"EC","crv":"P-384","kid":"p384","x":"AA","y":"AA"},)"
    R"({"kty":"RSA","use":"enc","kid":"enc","n":"AQAB","e":"AQAB"},)"
    R"({"kty":"oct","kid":"hmac","k":"c2VjcmV0"}]})",
    64, error);
  REQUIRE(set);
  CHECK(set->keys.empty());
  CHECK(set->skipped.size() == 4);
  CHECK_FALSE(parse_jwks("[]", 64, error));
  CHECK_FALSE(parse_jwks("{\"keys\":{}}", 64, error));
  // A point that is not on the curve.
  test_key ec{"ES256", "ec"};
  auto jwk = ec.jwk();
  auto y = jwk.find("\"y\":\"") + 5;
  jwk[y] = jwk[y] == 'A' ? 'B' : 'A';
  auto bad = parse_jwks("{\"keys\":[" + jwk + "]}", 64, error);
  REQUIRE(bad);
  CHECK(bad->keys.empty());
  // The bound.
  test_key k1{"EdDSA", "1"}, k2{"EdDSA", "2"}, k3{"EdDSA", "3"};
  auto capped = parse_jwks(ttm::test::jwks({&k1, &k2, &k3}), 2, error);
  REQUIRE(capped);
  CHECK(capped->keys.size() == 2);
}

TEST_CASE("oauth: base64url is strict", "[oauth]") {
  CHECK(base64url_decode("SGVsbG8") == std::optional<std::string>{"Hello"});
  CHECK(base64url_decode("") == std::optional<std::string>{""});
  CHECK_FALSE(base64url_decode("SGVsbG8="));
  CHECK_FALSE(base64url_decode("SGVs+G8"));
  CHECK_FALSE(base64url_decode("S"));
  CHECK_FALSE(base64url_decode("SGVsbG9")); // non-zero leftover bits
}
