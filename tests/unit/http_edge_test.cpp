// The HTTP edge's pure helpers. The edge itself is tested end to end by
// tests/integration/http_*.test.mjs against the real binary.

#include "edge/http_access.hpp"
#include "edge/http_headers.hpp"

#include <catch2/catch.hpp>

using ttm::edge::token_matches;

TEST_CASE("http: bearer tokens match exactly") {
  std::vector<std::string> tokens{"alpha-123", "beta"};
  CHECK(token_matches("alpha-123", tokens));
  CHECK(token_matches("beta", tokens));
  CHECK_FALSE(token_matches("alpha-12", tokens));
  CHECK_FALSE(token_matches("alpha-1234", tokens));
  CHECK_FALSE(token_matches("Alpha-123", tokens));
  CHECK_FALSE(token_matches("bet", tokens));
  CHECK_FALSE(token_matches("", tokens));
  CHECK_FALSE(token_matches(std::string{"beta\0", 5}, tokens));
  CHECK_FALSE(token_matches("beta", {}));
  // An empty configured token never matches, not even an empty candidate.
  CHECK_FALSE(token_matches("", {""}));
}

using ttm::edge::decode_header_value;
using ttm::edge::token_index;

TEST_CASE("http: token_index names the matching token") {
  std::vector<std::string> tokens{"alpha-123", "beta", "gamma-gamma"};
  CHECK(token_index("alpha-123", tokens) == 0);
  CHECK(token_index("beta", tokens) == 1);
  CHECK(token_index("gamma-gamma", tokens) == 2);
  for (std::string miss : {"", "alpha-12", "alpha-1234", "Beta", "bet",
                           "betaa", "gamma", "delta"}) {
    INFO("candidate: " << miss);
    CHECK(token_index(miss, tokens) == -1);
    CHECK_FALSE(token_matches(miss, tokens));
  }
  CHECK(token_index(std::string{"beta\0", 5}, tokens) == -1);
  CHECK(token_index("beta", {}) == -1);
  // An empty configured token never matches; the others keep their index.
  CHECK(token_index("", {""}) == -1);
  CHECK(token_index("", {"", "x"}) == -1);
  CHECK(token_index("x", {"", "x"}) == 1);
  SECTION("every index of a long list") {
    std::vector<std::string> many;
    for (int i = 0; i < 300; ++i)
      many.push_back("token-" + std::to_string(i * 7919));
    for (int i = 0; i < 300; ++i)
      CHECK(token_index("token-" + std::to_string(i * 7919), many) == i);
    CHECK(token_index("token-1", many) == -1);
  }
  SECTION("a token given twice matches its first line") {
    std::vector<std::string> twice{"same", "other", "same"};
    CHECK(token_index("same", twice) == 0);
    CHECK(token_index("other", twice) == 1);
  }
}

TEST_CASE("http: decode_header_value decodes =?base64?...?= and keeps plain "
          "values") {
  for (std::string plain :
       {"", "tools/call", "time_get_current", "=?base64?", "?=",
        "=?base64?SGVsbG8=", "SGVsbG8=?=", "=?BASE64?SGVsbG8=?=",
        "x=?base64?SGVsbG8=?=", "=?base64?SGVsbG8=?= ", "=?base64=?"}) {
    INFO("value: '" << plain << "'");
    auto v = decode_header_value(plain);
    REQUIRE(v.has_value());
    CHECK(*v == plain);
  }
  struct sample {
    std::string encoded;
    std::string decoded;
  };
  for (const auto& t : std::vector<sample>{
         {"=?base64?SGVsbG8=?=", "Hello"},
         {"=?base64?SGVsbG8?=", "Hello"}, // padding optional
         {"=?base64?SGVsbA==?=", "Hell"},
         {"=?base64?SGVs?=", "Hel"},
         {"=?base64??=", ""},
         {"=?base64?w6k=?=", "\xc3\xa9"},                 // é
         {"=?base64?5pel5pys6Kqe?=", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"},
         {"=?base64?dGltZV9nZXRfY3VycmVudA==?=", "time_get_current"},
         {"=?base64?+/+/?=", "\xfb\xff\xbf"},
         {"=?base64?AA==?=", std::string{"\0", 1}},
       }) {
    INFO("value: " << t.encoded);
    auto v = decode_header_value(t.encoded);
    REQUIRE(v.has_value());
    CHECK(*v == t.decoded);
  }
  for (std::string bad : {"=?base64?SGVsbG8*?=", "=?base64?SGVs bG8=?=",
                          "=?base64?S?=", "=?base64?SGVsb?=",
                          "=?base64?SG=Vs?=", "=?base64?-_-_?=",
                          "=?base64?SGVsbG8=\n?="}) {
    INFO("value: " << bad);
    CHECK_FALSE(decode_header_value(bad).has_value());
  }
}
