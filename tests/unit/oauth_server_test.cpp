// The OAuth resource server against a real authorization server's
// documents, served over HTTP on loopback by the test (loopback_http.hpp):
// metadata discovery, the JWKS fetched at start and again for an unknown
// kid (paced by the injected clock), a failed fetch keeping the keys,
// start-up without keys, introspection with its cache. The scope each tool
// needs, from the published tool declarations.

#include "domain/clock.hpp"
#include "edge/oauth.hpp"
#include "metrics.hpp"
#include "oauth_test_keys.hpp"
#include "loopback_http.hpp"
#include "protocol/json_rpc.hpp"
#include "tools/registry.hpp"
#include "tools/toolsets.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <future>

using namespace ttm;
using namespace ttm::edge::oauth;
using ttm::test::test_key;

namespace {

const std::string resource = "https://mcp.example.com/mcp";

struct fixture {
  test::loopback_http as; // the authorization server
  std::shared_ptr<domain::fake_clock> clock = std::make_shared<domain::fake_clock>(
    domain::wall_time{std::chrono::seconds{1795780800}});
  test_key a{"RS256", "key-a"};
  test_key b{"ES256", "key-b"};
  test_key c{"EdDSA", "key-c"};

  std::string issuer() const {
    return as.url();
  }

  void publish_metadata(const std::string& path
                        = "/.well-known/oauth-authorization-server") {
    as.set(path, 200,
           "{\"issuer\":\"" + issuer() + "\",\"jwks_uri\":\"" + as.url("/jwks")
             + "\",\"introspection_endpoint\":\"" + as.url("/introspect")
             + "\"}");
  }

  std::unique_ptr<resource_server> server(std::string client_id = {}) {
    settings s;
    s.issuer = issuer();
    s.resource = resource;
    s.clock = clock;
    s.introspection_client_id = std::move(client_id);
    s.introspection_client_secret = "s3cret";
    // No periodic refresh during a test.
    s.refresh = std::chrono::seconds{3600};
    s.retry = std::chrono::seconds{3600};
    return std::make_unique<resource_server>(std::move(s));
  }

  std::string claims(const std::string& sub = "alice") const {
    auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 clock->wall_now().time_since_epoch())
                 .count();
    return "{\"iss\":\"" + issuer() + "\",\"sub\":\"" + sub + "\",\"aud\":\""
           + resource + "\",\"exp\":" + std::to_string(now + 300)
           + ",\"scope\":\"tracker.read\"}";
  }
};

void wait_first(resource_server& rs) {
  std::promise<void> p;
  rs.keys().after_first_fetch([&p] { p.set_value(); });
  p.get_future().wait();
}

token_verdict check(resource_server& rs, const std::string& token) {
  std::promise<token_verdict> p;
  rs.validate(token, [&p](token_verdict v) { p.set_value(std::move(v)); });
  return p.get_future().get();
}

/// A counter's value on the metrics page (0 when absent).
double counter(const std::string& series) {
  auto page = metrics::page();
  auto at = page.find("\n" + series + " ");
  if (at == std::string::npos)
    return 0;
  return std::stod(page.substr(at + series.size() + 2));
}

} // namespace

TEST_CASE("oauth server: discovery by RFC 8414, the JWKS fetched at start",
          "[oauth]") {
  fixture f;
  f.publish_metadata();
  f.as.set("/jwks", 200, test::jwks({&f.a, &f.b, &f.c}));
  auto rs = f.server();
  rs->start();
  wait_first(*rs);
  CHECK(rs->keys().keys()->keys.size() == 3);
  CHECK(rs->unready().empty());
  for (const auto* k : {&f.a, &f.b, &f.c}) {
    INFO(k->alg());
    auto v = check(*rs, k->token(f.claims()));
    CHECK(v.ok());
    CHECK(v.granted.principal == "alice");
  }
  CHECK(f.as.hits("/jwks") == 1);
  CHECK(rs->keys().metadata()->introspection_endpoint == f.as.url("/introspect"));
}

TEST_CASE("oauth server: OpenID Connect discovery when RFC 8414's is absent; "
          "a metadata document naming another issuer is refused",
          "[oauth]") {
  fixture f;
  f.as.set("/jwks", 200, test::jwks({&f.a}));
  SECTION("openid-configuration") {
    f.publish_metadata("/.well-known/openid-configuration");
    auto rs = f.server();
    rs->start();
    wait_first(*rs);
    CHECK(f.as.hits("/.well-known/oauth-authorization-server") == 1);
    CHECK(rs->keys().keys()->keys.size() == 1);
  }
  SECTION("issuer mismatch") {
    f.as.set("/.well-known/oauth-authorization-server", 200,
             "{\"issuer\":\"" + f.issuer() + "/other\",\"jwks_uri\":\""
               + f.as.url("/jwks") + "\"}");
    auto rs = f.server();
    rs->start();
    wait_first(*rs);
    CHECK(rs->keys().keys()->keys.empty());
    CHECK(f.as.hits("/jwks") == 0);
    CHECK(rs->keys().failures() == 1);
    CHECK_FALSE(rs->unready().empty());
  }
  CHECK(metadata_urls("https://as.example.com/tenant/1")
        == std::vector<std::string>{
          "https://as.example.com/.well-known/oauth-authorization-server/"
          "tenant/1",
          "https://as.example.com/tenant/1/.well-known/openid-configuration"});
}

TEST_CASE("oauth server: an unknown kid fetches the JWKS again, at most once "
          "per 10 s of the injected clock",
          "[oauth]") {
  fixture f;
  f.publish_metadata();
  f.as.set("/jwks", 200, test::jwks({&f.a}));
  auto rs = f.server();
  rs->start();
  wait_first(*rs);
  REQUIRE(f.as.hits("/jwks") == 1);
  // Rotation: key-b appears; a token signed with it is accepted after one
  // more fetch, without a restart. Not within 10 s of the start's fetch:
  CHECK(check(*rs, f.b.token(f.claims())).failure
        == token_failure::unknown_kid);
  CHECK(f.as.hits("/jwks") == 1);
  f.clock->advance(std::chrono::seconds{10});
  f.as.set("/jwks", 200, test::jwks({&f.b}));
  CHECK(check(*rs, f.b.token(f.claims())).ok());
  CHECK(f.as.hits("/jwks") == 2);
  // key-a was rotated out: refused now.
  CHECK(check(*rs, f.a.token(f.claims())).failure
        == token_failure::unknown_kid);
  // That asked for no fetch: the last one was less than 10 s ago.
  CHECK(f.as.hits("/jwks") == 2);
  f.clock->advance(std::chrono::seconds{10});
  CHECK(check(*rs, f.c.token(f.claims())).failure
        == token_failure::unknown_kid);
  CHECK(f.as.hits("/jwks") == 3);
}

TEST_CASE("oauth server: a failed JWKS fetch keeps the cached keys, logged "
          "and counted",
          "[oauth]") {
  fixture f;
  f.publish_metadata();
  f.as.set("/jwks", 200, test::jwks({&f.a}));
  auto rs = f.server();
  rs->start();
  wait_first(*rs);
  auto failed_before
    = counter("time_tracker_oauth_key_fetches_total{result=\"failed\"}");
  f.as.set("/jwks", 503, "down");
  f.clock->advance(std::chrono::seconds{11});
  // An unknown kid makes it fetch: the fetch fails.
  CHECK(check(*rs, f.b.token(f.claims())).failure
        == token_failure::unknown_kid);
  CHECK(f.as.hits("/jwks") == 2);
  CHECK(rs->keys().failures() == 1);
  CHECK(counter("time_tracker_oauth_key_fetches_total{result=\"failed\"}")
        == failed_before + 1);
  // The key fetched before still works.
  CHECK(check(*rs, f.a.token(f.claims())).ok());
  CHECK(rs->unready().empty());
}

TEST_CASE("oauth server: started without keys, not ready until a fetch "
          "succeeds",
          "[oauth]") {
  fixture f;
  f.publish_metadata();
  f.as.set("/jwks", 500, "boom");
  auto rs = f.server();
  rs->start();
  wait_first(*rs);
  CHECK(rs->keys().keys()->keys.empty());
  CHECK(rs->unready() == "no signing keys from the OAuth issuer " + f.issuer()
                           + " yet");
  CHECK(check(*rs, f.a.token(f.claims())).failure
        == token_failure::unknown_kid);
  f.as.set("/jwks", 200, test::jwks({&f.a}));
  f.clock->advance(std::chrono::seconds{10});
  CHECK(check(*rs, f.a.token(f.claims())).ok());
  CHECK(rs->unready().empty());
}

TEST_CASE("oauth server: opaque tokens by introspection, cached for at most "
          "their lifetime and 60 s",
          "[oauth]") {
  fixture f;
  f.publish_metadata();
  f.as.set("/jwks", 200, test::jwks({&f.a}));
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               f.clock->wall_now().time_since_epoch())
               .count();
  f.as.set("/introspect", 200,
           "{\"active\":true,\"sub\":\"carol\",\"scope\":\"tracker.write\","
           "\"exp\":"
             + std::to_string(now + 30) + ",\"aud\":\"" + resource + "\"}");
  SECTION("without a client: refused unchecked") {
    auto rs = f.server();
    rs->start();
    wait_first(*rs);
    CHECK(check(*rs, "opaque-token-1").failure == token_failure::unverifiable);
    CHECK(f.as.hits("/introspect") == 0);
  }
  SECTION("with a client") {
    auto rs = f.server("ttm-rs");
    rs->start();
    wait_first(*rs);
    auto v = check(*rs, "opaque-token-1");
    REQUIRE(v.ok());
    CHECK(v.granted.principal == "carol");
    CHECK(v.granted.scopes == std::vector<std::string>{"tracker.write"});
    CHECK(f.as.hits("/introspect") == 1);
    // HTTP Basic with the client's credentials; the token in the form.
    CHECK(f.as.last_authorization("/introspect") == "Basic dHRtLXJzOnMzY3JldA==");
    CHECK(f.as.last_body("/introspect")
          == "token=opaque-token-1&token_type_hint=access_token");
    CHECK(check(*rs, "opaque-token-1").ok());
    CHECK(f.as.hits("/introspect") == 1); // cached
    // The token's exp (30 s) ends the cache entry before the 60 s bound.
    f.clock->advance(std::chrono::seconds{31});
    CHECK(check(*rs, "opaque-token-1").ok()); // within the clock skew
    CHECK(f.as.hits("/introspect") == 2);
    f.clock->advance(std::chrono::seconds{30});
    CHECK(check(*rs, "opaque-token-1").failure == token_failure::expired);
    CHECK(f.as.hits("/introspect") == 3);
    f.as.set("/introspect", 200, "{\"active\":false}");
    CHECK(check(*rs, "opaque-token-2").failure == token_failure::inactive);
    f.as.set("/introspect", 200,
             "{\"active\":true,\"sub\":\"x\",\"aud\":\"https://else\"}");
    CHECK(check(*rs, "opaque-token-3").failure
          == token_failure::wrong_audience);
  }
}

TEST_CASE("oauth server: the metadata document and the challenges",
          "[oauth]") {
  settings s;
  s.issuer = "https://auth.example.com";
  s.resource = "https://mcp.example.com/mcp";
  resource_server rs{s};
  CHECK(rs.metadata_url()
        == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
  CHECK(rs.is_metadata_path("/.well-known/oauth-protected-resource", "/mcp"));
  CHECK(rs.is_metadata_path("/.well-known/oauth-protected-resource/mcp",
                            "/mcp"));
  CHECK_FALSE(rs.is_metadata_path("/.well-known/oauth-protected-resource/x",
                                  "/mcp"));
  rapidjson::Document d;
  d.Parse(rs.metadata_document().c_str());
  REQUIRE(d.IsObject());
  CHECK(std::string{d["resource"].GetString()} == s.resource);
  CHECK(std::string{d["authorization_servers"][0].GetString()} == s.issuer);
  CHECK(d["scopes_supported"].Size() == 2);
  CHECK(std::string{d["bearer_methods_supported"][0].GetString()} == "header");
  CHECK(rs.challenge()
        == "Bearer resource_metadata=\"https://mcp.example.com/.well-known/"
           "oauth-protected-resource/mcp\", scope=\"tracker.read "
           "tracker.write\"");
  CHECK(rs.challenge(token_failure::expired)
        == rs.challenge()
             + ", error=\"invalid_token\", error_description=\"the access "
               "token has expired\"");
  CHECK(rs.insufficient_scope("tracker.write").rfind(
          "Bearer error=\"insufficient_scope\", scope=\"tracker.write\"", 0)
        == 0);
}

TEST_CASE("oauth scopes: each tool's scope follows its published readOnlyHint",
          "[oauth]") {
  // Every toolset on: each declared tool, compared with what tools/list
  // publishes of it (the declaration), not with a list kept here.
  std::string error;
  auto all = tools::parse_toolsets("all", error);
  REQUIRE(all);
  auto reg = tools::make_registry({}, *all);
  rapidjson::Document list;
  list.Parse(reg->list_result_json().c_str());
  REQUIRE(list.IsObject());
  scope_names names;
  scope_map map{*reg};
  std::size_t reads = 0, writes = 0;
  for (const auto& t : list["tools"].GetArray()) {
    std::string name = t["name"].GetString();
    bool read_only = t["annotations"]["readOnlyHint"].GetBool();
    INFO(name);
    CHECK(map.tool_need(name) == (read_only ? scope_need::read
                                            : scope_need::write));
    protocol::frame f;
    protocol::message m;
    m.kind = protocol::message::request;
    m.method = "tools/call";
    m.name = name;
    f.messages.push_back(m);
    CHECK(missing_scope(map, f, {"tracker.write"}, names).empty());
    CHECK(missing_scope(map, f, {"tracker.read"}, names)
          == (read_only ? "" : "tracker.write"));
    CHECK(missing_scope(map, f, {"openid"}, names)
          == (read_only ? "tracker.read" : "tracker.write"));
    (read_only ? reads : writes) += 1;
  }
  CHECK(reads > 0);
  CHECK(writes > 0);
  CHECK(map.tools().size() == reads + writes);
  // Methods other than tools/call need just a valid token.
  for (std::string method : {"initialize", "tools/list", "resources/read",
                             "prompts/get", "ping"}) {
    protocol::frame f;
    protocol::message m;
    m.kind = protocol::message::request;
    m.method = method;
    f.messages.push_back(m);
    CHECK(missing_scope(map, f, {}, names).empty());
  }
  // The table the docs show, one line per tool.
  auto table = scope_table(map, names);
  CHECK(static_cast<std::size_t>(std::count(table.begin(), table.end(), '\n'))
        == reads + writes);
}
