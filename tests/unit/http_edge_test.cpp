// The HTTP edge's pure helpers. The edge itself is tested end to end by
// tests/integration/http_*.test.mjs against the real binary.

#include "edge/http.hpp"

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
