// near() stops early once a typo is out of reach; it must still agree with
// the plain distance on every pair.

#include "domain/fuzzy_match.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using ttm::domain::edit_distance;
using ttm::domain::near;

namespace {

/// near() answers the distance when it is within near()'s limit for `a`
/// (a quarter of its length, at least 2; half of a shorter one), else none.
void require_near_agrees(const std::string& a, const std::string& b) {
  std::size_t limit = a.size() < 4 ? a.size() / 2
                                   : std::max<std::size_t>(2, a.size() / 4);
  auto d = edit_distance(a, b);
  auto n = near(a, b);
  CAPTURE(a, b, d, limit);
  if (d <= limit) {
    REQUIRE(n.has_value());
    REQUIRE(*n == d);
  } else {
    REQUIRE_FALSE(n.has_value());
  }
}

} // namespace

TEST_CASE("near agrees with edit_distance under its limit", "[fuzzy]") {
  std::mt19937 rng{1125};
  const std::string alphabet = "abcde/_";
  auto random_string = [&](std::size_t n) {
    std::string s(n, 'a');
    for (auto& c : s)
      c = alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 20000; ++round) {
    auto a = random_string(rng() % 20);
    // Targets near and far: mutate a copy, or draw a fresh one.
    std::string b = a;
    if (rng() % 2 == 0) {
      b = random_string(rng() % 20);
    } else {
      for (unsigned k = rng() % 6; k > 0 && !b.empty(); --k)
        b[rng() % b.size()] = alphabet[rng() % alphabet.size()];
      if (b.size() > 1 && rng() % 3 == 0)
        std::swap(b[0], b[1]);
    }
    require_near_agrees(a, b);
  }
}

TEST_CASE("near agrees with edit_distance on bytes that share a class",
          "[fuzzy]") {
  // near() skips pairs by counting bytes in 32 classes (byte & 31): 'a',
  // 'A', 'A'+32... and UTF-8 bytes share classes; the bound must hold.
  std::mt19937 rng{3407};
  const std::string alphabet = "aA!AqQ1/_\xC3\xA9\xE2\x80";
  for (int round = 0; round < 20000; ++round) {
    std::string a(rng() % 24, 'a'), b(rng() % 24, 'a');
    for (auto& c : a)
      c = alphabet[rng() % alphabet.size()];
    for (auto& c : b)
      c = alphabet[rng() % alphabet.size()];
    if (rng() % 2 == 0 && !a.empty()) { // a near one: a few edits of a
      b = a;
      for (unsigned k = rng() % 5; k > 0 && !b.empty(); --k)
        b[rng() % b.size()] = alphabet[rng() % alphabet.size()];
    }
    require_near_agrees(a, b);
  }
}

TEST_CASE("near finds the typos zone names have", "[fuzzy]") {
  CHECK(near("america/newyork", "america/new_york") == std::size_t{1});
  CHECK(near("asia/tokoy", "asia/tokyo") == std::size_t{1});
  CHECK_FALSE(near("america/newyork", "europe/london").has_value());
}
