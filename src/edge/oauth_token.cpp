#include "edge/oauth_token.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <sstream>

namespace ttm::edge::oauth {

std::string_view failure_name(token_failure f) noexcept {
  switch (f) {
    case token_failure::none:
      return "accepted";
    case token_failure::malformed:
      return "malformed";
    case token_failure::unsupported_alg:
      return "unsupported_alg";
    case token_failure::wrong_type:
      return "wrong_type";
    case token_failure::unknown_kid:
      return "unknown_kid";
    case token_failure::alg_mismatch:
      return "alg_mismatch";
    case token_failure::bad_signature:
      return "bad_signature";
    case token_failure::wrong_issuer:
      return "wrong_issuer";
    case token_failure::wrong_audience:
      return "wrong_audience";
    case token_failure::expired:
      return "expired";
    case token_failure::not_yet_valid:
      return "not_yet_valid";
    case token_failure::no_principal:
      return "no_principal";
    case token_failure::inactive:
      return "inactive";
    case token_failure::unverifiable:
      return "unverifiable";
  }
  return "malformed";
}

std::string failure_text(token_failure f) {
  switch (f) {
    case token_failure::none:
      return "the access token is valid";
    case token_failure::malformed:
      return "the access token is not a JWT this server can read";
    case token_failure::unsupported_alg:
      return "the access token's algorithm is not accepted (RS256, ES256, "
             "EdDSA)";
    case token_failure::wrong_type:
      return "the token is not an access token (typ)";
    case token_failure::unknown_kid:
      return "the access token is signed with a key the issuer does not "
             "publish";
    case token_failure::alg_mismatch:
      return "the access token's algorithm does not fit its key";
    case token_failure::bad_signature:
      return "the access token's signature does not verify";
    case token_failure::wrong_issuer:
      return "the access token is from another issuer";
    case token_failure::wrong_audience:
      return "the access token was issued for another resource";
    case token_failure::expired:
      return "the access token has expired";
    case token_failure::not_yet_valid:
      return "the access token is not valid yet";
    case token_failure::no_principal:
      return "the access token names no principal";
    case token_failure::inactive:
      return "the access token is not active";
    case token_failure::unverifiable:
      return "the access token cannot be verified";
  }
  return {};
}

bool looks_like_jwt(std::string_view token) noexcept {
  auto first = token.find('.');
  if (first == std::string_view::npos || first == 0)
    return false;
  auto second = token.find('.', first + 1);
  return second != std::string_view::npos && second > first + 1
         && token.find('.', second + 1) == std::string_view::npos;
}

namespace {

std::optional<std::string> string_member(const rapidjson::Value& o,
                                         const char* name) {
  auto it = o.FindMember(name);
  if (it == o.MemberEnd() || !it->value.IsString())
    return std::nullopt;
  return std::string{it->value.GetString(), it->value.GetStringLength()};
}

/// A NumericDate (seconds, possibly fractional) or nullopt when absent;
/// `bad` when present but not a number.
std::optional<long long> date_member(const rapidjson::Value& o,
                                     const char* name, bool& bad) {
  auto it = o.FindMember(name);
  if (it == o.MemberEnd())
    return std::nullopt;
  if (!it->value.IsNumber()) {
    bad = true;
    return std::nullopt;
  }
  return static_cast<long long>(it->value.GetDouble());
}

bool audience_holds(const rapidjson::Value& claims, const std::string& ours) {
  auto it = claims.FindMember("aud");
  if (it == claims.MemberEnd())
    return false;
  const auto& aud = it->value;
  if (aud.IsString())
    return ours == aud.GetString();
  if (!aud.IsArray())
    return false;
  for (const auto& a : aud.GetArray())
    if (a.IsString() && ours == a.GetString())
      return true;
  return false;
}

/// `scope` (RFC 9068, RFC 7662: space-separated) or `scp` (an array, as
/// some providers send it).
std::vector<std::string> scopes_of(const rapidjson::Value& claims) {
  std::vector<std::string> out;
  if (auto s = string_member(claims, "scope")) {
    std::istringstream words{*s};
    for (std::string w; words >> w;)
      out.push_back(w);
  } else if (auto it = claims.FindMember("scp");
             it != claims.MemberEnd() && it->value.IsArray()) {
    for (const auto& v : it->value.GetArray())
      if (v.IsString())
        out.emplace_back(v.GetString(), v.GetStringLength());
  } else if (auto sp = string_member(claims, "scp")) {
    std::istringstream words{*sp};
    for (std::string w; words >> w;)
      out.push_back(w);
  }
  return out;
}

} // namespace

token_verdict check_claims(std::string_view claims_json,
                           const token_rules& rules,
                           std::chrono::system_clock::time_point now,
                           bool introspection) {
  token_verdict v;
  auto fail = [&v](token_failure f) {
    v.failure = f;
    return v;
  };
  rapidjson::Document claims;
  claims.Parse(claims_json.data(), claims_json.size());
  if (claims.HasParseError() || !claims.IsObject())
    return fail(token_failure::malformed);
  if (introspection) {
    auto active = claims.FindMember("active");
    if (active == claims.MemberEnd() || !active->value.IsBool()
        || !active->value.GetBool())
      return fail(token_failure::inactive);
  }
  // An introspection response may leave out iss and aud (RFC 7662 §2.2
  // makes them optional); when it names them, they must be right. A JWT
  // must carry both.
  auto iss = string_member(claims, "iss");
  if ((iss || !introspection) && iss != rules.issuer)
    return fail(token_failure::wrong_issuer);
  if ((claims.HasMember("aud") || !introspection)
      && !audience_holds(claims, rules.resource))
    return fail(token_failure::wrong_audience);
  bool bad = false;
  auto exp = date_member(claims, "exp", bad);
  auto nbf = date_member(claims, "nbf", bad);
  if (bad || (!exp && !introspection))
    return fail(token_failure::malformed);
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(
                now.time_since_epoch())
                .count();
  auto skew = static_cast<long long>(rules.clock_skew.count());
  if (exp && secs >= *exp + skew)
    return fail(token_failure::expired);
  if (nbf && secs + skew < *nbf)
    return fail(token_failure::not_yet_valid);
  auto principal = string_member(claims, rules.principal_claim.c_str());
  if (!principal || principal->empty())
    return fail(token_failure::no_principal);
  v.granted.principal = std::move(*principal);
  v.granted.scopes = scopes_of(claims);
  v.granted.expires = exp.value_or(0);
  return v;
}

token_verdict check_jwt(std::string_view token, const key_set& keys,
                        const token_rules& rules,
                        std::chrono::system_clock::time_point now) {
  token_verdict v;
  auto fail = [&v](token_failure f) {
    v.failure = f;
    return v;
  };
  if (!looks_like_jwt(token))
    return fail(token_failure::malformed);
  auto dot1 = token.find('.');
  auto dot2 = token.find('.', dot1 + 1);
  auto header_json = base64url_decode(token.substr(0, dot1));
  auto payload_json = base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = base64url_decode(token.substr(dot2 + 1));
  if (!header_json || !payload_json || !signature)
    return fail(token_failure::malformed);
  rapidjson::Document header;
  header.Parse(header_json->data(), header_json->size());
  if (header.HasParseError() || !header.IsObject())
    return fail(token_failure::malformed);
  // `crit` names extensions we would have to understand (RFC 7515 §4.1.11):
  // we understand none.
  if (header.HasMember("crit"))
    return fail(token_failure::malformed);
  auto alg = string_member(header, "alg").value_or("");
  if (alg != "RS256" && alg != "ES256" && alg != "EdDSA")
    return fail(token_failure::unsupported_alg);
  if (auto typ = string_member(header, "typ")) {
    // RFC 9068 §2.1: at+jwt; plain JWT as many providers send it.
    auto t = *typ;
    std::transform(t.begin(), t.end(), t.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (t != "at+jwt" && t != "application/at+jwt" && t != "jwt")
      return fail(token_failure::wrong_type);
  }
  v.kid = string_member(header, "kid").value_or("");
  auto candidates = keys.candidates(v.kid, alg);
  if (candidates.empty())
    return fail(v.kid.empty() ? token_failure::bad_signature
                              : token_failure::unknown_kid);
  if (std::none_of(candidates.begin(), candidates.end(),
                   [&](const key_ptr& k) { return alg_of(k->type()) == alg; }))
    return fail(token_failure::alg_mismatch);
  auto input = token.substr(0, dot2);
  bool verified = std::any_of(
    candidates.begin(), candidates.end(),
    [&](const key_ptr& k) { return k->verify(alg, input, *signature); });
  if (!verified)
    return fail(token_failure::bad_signature);
  auto kid = std::move(v.kid);
  v = check_claims(*payload_json, rules, now);
  v.kid = std::move(kid);
  return v;
}

} // namespace ttm::edge::oauth
