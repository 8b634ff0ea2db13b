// The token-guessing throttle of the HTTP edge, with explicit times: no
// clock, no sleeping.

#include "edge/http_access.hpp"
#include "edge/http_rules.hpp"

#include <catch2/catch.hpp>

using namespace ttm::edge;
using std::chrono::seconds;

namespace {

const auth_throttle::time_point t0 = auth_throttle::time_point{} + seconds{1000};

/// `n` failures of `address`, one second apart from `at`; the last result.
std::optional<seconds> fail(auth_throttle& t, const std::string& address,
                            int n, auth_throttle::time_point at = t0) {
  std::optional<seconds> last;
  for (int i = 0; i < n; ++i)
    last = t.failed(address, at + seconds{i});
  return last;
}

} // namespace

TEST_CASE("auth_throttle: the 10th failure within 60 s locks out for 30 s",
          "[http_access]") {
  auth_throttle t;
  for (int i = 0; i < 9; ++i) {
    CHECK_FALSE(t.failed("10.0.0.1", t0 + seconds{i}).has_value());
    CHECK_FALSE(t.locked("10.0.0.1", t0 + seconds{i}).has_value());
  }
  auto lockout = t.failed("10.0.0.1", t0 + seconds{9});
  REQUIRE(lockout);
  CHECK(*lockout == seconds{30});
  CHECK(t.locked("10.0.0.1", t0 + seconds{9}) == seconds{30});
  CHECK(t.locked("10.0.0.1", t0 + seconds{38}) == seconds{1});
  CHECK_FALSE(t.locked("10.0.0.1", t0 + seconds{39}).has_value());
  SECTION("Retry-After rounds up") {
    auto almost = t0 + seconds{9} + std::chrono::milliseconds{29'001};
    CHECK(t.locked("10.0.0.1", almost) == seconds{1});
    CHECK(t.locked("10.0.0.1", t0 + seconds{9} + std::chrono::milliseconds{
                                                   500})
          == seconds{30});
  }
  SECTION("failures while locked out do not extend it") {
    CHECK(t.failed("10.0.0.1", t0 + seconds{20}) == seconds{19});
    CHECK_FALSE(t.locked("10.0.0.1", t0 + seconds{39}).has_value());
  }
}

TEST_CASE("auth_throttle: failures spread over more than the window do not "
          "lock out",
          "[http_access]") {
  auth_throttle t;
  for (int i = 0; i < 30; ++i) // one every 7 s: at most 9 within 61 s
    CHECK_FALSE(t.failed("a", t0 + seconds{7 * i}).has_value());
}

TEST_CASE("auth_throttle: each lockout doubles, up to the cap",
          "[http_access]") {
  auth_throttle t{{3, seconds{60}, seconds{30}, seconds{100}, 100}};
  auto at = t0;
  for (auto expected : {30, 60, 100, 100}) {
    INFO("lockout of " << expected << " s");
    auto l = fail(t, "b", 3, at);
    REQUIRE(l);
    CHECK(*l == seconds{expected});
    at += seconds{2} + seconds{expected}; // after the lockout
    CHECK_FALSE(t.locked("b", at).has_value());
  }
}

TEST_CASE("auth_throttle: addresses are independent, a success ends only its "
          "own record",
          "[http_access]") {
  auth_throttle t;
  fail(t, "x", 9);
  fail(t, "y", 9);
  t.succeeded("y");
  CHECK(t.size() == 1);
  CHECK_FALSE(t.failed("y", t0 + seconds{10}).has_value()); // counts from 0
  CHECK(t.failed("x", t0 + seconds{10}) == seconds{30});
  // A success does not lift another address's lockout.
  t.succeeded("y");
  CHECK(t.locked("x", t0 + seconds{11}).has_value());
  CHECK_FALSE(t.locked("y", t0 + seconds{11}).has_value());
}

TEST_CASE("auth_throttle: bounded memory, the least recently failed goes "
          "first",
          "[http_access]") {
  auth_throttle t{{2, seconds{60}, seconds{30}, seconds{600}, 3}};
  t.failed("a", t0);
  t.failed("b", t0);
  t.failed("c", t0);
  t.failed("a", t0 + seconds{1}); // locks a out, and makes it recent
  CHECK(t.size() == 3);
  t.failed("d", t0 + seconds{2}); // evicts b
  CHECK(t.size() == 3);
  CHECK(t.locked("a", t0 + seconds{2}).has_value());
  CHECK_FALSE(t.failed("b", t0 + seconds{3}).has_value()); // a new record: 1
  for (int i = 0; i < 50; ++i)
    t.failed("n" + std::to_string(i), t0 + seconds{4});
  CHECK(t.size() == 3);
}

TEST_CASE("http rules: 429 with Retry-After while the address is locked out",
          "[http_rules][http_access]") {
  access_policy tokens{8787, std::nullopt, {}, {}, {"s3cret"}, {}};
  auth_throttle t{{3, seconds{60}, seconds{30}, seconds{600}, 100}};
  request_head h;
  h.host = "127.0.0.1:8787";
  h.host_count = 1;
  h.content_type = "application/json";
  h.authorization = "Bearer wrong";
  auto at = [&](int s, std::string address = "10.1.1.1") {
    return decide_head(tokens, h, 1000, auth_gate{&t, address, t0 + seconds{s}});
  };
  for (int i = 0; i < 2; ++i) {
    auto d = at(i);
    CHECK(d.why.status == 401);
    CHECK(d.why.close);
    CHECK(d.why.retry_after.empty());
  }
  auto trip = at(2);
  CHECK(trip.why.status == 429);
  CHECK(trip.why.code == http_refusal_code);
  CHECK(trip.why.retry_after == "30");
  CHECK(trip.why.close);
  // A correct token from the locked-out address is refused too.
  h.authorization = "Bearer s3cret";
  auto right = at(12);
  CHECK(right.kind == head_decision::refuse);
  CHECK(right.why.status == 429);
  CHECK(right.why.retry_after == "20");
  // ... but not from another address, nor after the lockout.
  CHECK(at(12, "10.1.1.2").kind == head_decision::read_body);
  CHECK(at(32).kind == head_decision::read_body);
  // A missing token is a 401 and no guess.
  h.authorization.reset();
  for (int i = 0; i < 10; ++i)
    CHECK(at(40 + i).why.status == 401);
  // Without tokens configured, nothing is throttled.
  access_policy open{8787, std::nullopt, {}, {}, {}, {}};
  h.authorization = "Bearer whatever";
  for (int i = 0; i < 10; ++i)
    CHECK(decide_head(open, h, 1000, auth_gate{&t, "10.9.9.9", t0}).kind
          == head_decision::read_body);
  CHECK_FALSE(t.locked("10.9.9.9", t0).has_value());
}
