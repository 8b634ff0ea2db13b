// The per-client token bucket and in-flight cap (domain/rate_limit.hpp),
// driven by a fake clock: no test waits for time to pass.

#include "domain/rate_limit.hpp"

#include <catch2/catch.hpp>

using namespace ttm::domain;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<fake_clock> new_clock() {
  return std::make_shared<fake_clock>(wall_time{} + 1'800'000'000s);
}

rate_spec parse_ok(std::string_view text) {
  std::string error;
  auto spec = parse_rate_spec(text, error);
  INFO(text << ": " << error);
  REQUIRE(spec);
  CHECK(error.empty());
  return *spec;
}

std::string parse_bad(std::string_view text) {
  std::string error;
  auto spec = parse_rate_spec(text, error);
  INFO(text);
  CHECK_FALSE(spec);
  return error;
}

rate_limits per_second(std::uint64_t n, std::uint64_t burst,
                       std::size_t in_flight = 0) {
  rate_limits l;
  l.rate.off = false;
  l.rate.count = n;
  l.rate.burst = burst;
  l.max_in_flight = in_flight;
  return l;
}

} // namespace

TEST_CASE("rate limit: the option's grammar", "[rate_limit]") {
  auto s = parse_ok("50/s,burst=100");
  CHECK_FALSE(s.off);
  CHECK(s.count == 50);
  CHECK(s.period == 1s);
  CHECK(s.burst == 100);
  CHECK(parse_ok("off").off);
  auto m = parse_ok("30/m");
  CHECK(m.period == 60s);
  CHECK(m.burst == 30); // the burst defaults to N
  CHECK(parse_ok("1/h,burst=5").period == 3600s);
  CHECK(parse_ok("7/min").period == 60s);
  CHECK(to_string(parse_ok("50/s,burst=100")) == "50/s,burst=100");
  CHECK(to_string(parse_ok("30/m")) == "30/m,burst=30");
  CHECK(to_string(rate_spec{}) == "off");

  CHECK_THAT(parse_bad("50"), Catch::Contains("period is missing"));
  CHECK_THAT(parse_bad("50/d"), Catch::Contains("s, m or h"));
  CHECK_THAT(parse_bad("0/s"), Catch::Contains("from 1 to 1000000"));
  CHECK_THAT(parse_bad("-5/s"), Catch::Contains("whole number"));
  CHECK_THAT(parse_bad("2.5/s"), Catch::Contains("whole number"));
  CHECK_THAT(parse_bad("1000001/s"), Catch::Contains("from 1 to 1000000"));
  CHECK_THAT(parse_bad("50/s,burst=0"), Catch::Contains("burst must be"));
  CHECK_THAT(parse_bad("50/s,burst="), Catch::Contains("burst must be"));
  CHECK_THAT(parse_bad("50/s,bust=9"), Catch::Contains("only burst=B"));
  CHECK_THAT(parse_bad("50/s, burst=9"), Catch::Contains("only burst=B"));
  CHECK_THAT(parse_bad(" 50/s"), Catch::Contains("whole number"));
  CHECK_THAT(parse_bad("OFF"), Catch::Contains("'OFF' is not a rate limit"));
  CHECK_THAT(parse_bad(""), Catch::Contains("e.g. 50/s,burst=100"));
}

TEST_CASE("rate limit: a burst, then one token per 1/N s", "[rate_limit]") {
  auto clock = new_clock();
  rate_limiter rl{per_second(10, 3), clock};
  for (int i = 0; i < 3; ++i) {
    REQUIRE(rl.admit("a"));
    rl.release("a");
  }
  auto v = rl.admit("a");
  CHECK(v.kind == rate_verdict::rate_limited);
  CHECK(v.retry_after == 100ms); // one token per 100 ms
  CHECK(v.retry_after_seconds() == 1);
  // Never too early: 1 ns short of the promised wait is still refused ...
  clock->advance(100ms - 1ns);
  auto early = rl.admit("a");
  CHECK(early.kind == rate_verdict::rate_limited);
  CHECK(early.retry_after == 1ms); // rounded up, never 0
  // ... and at it, admitted.
  clock->advance(1ns);
  CHECK(rl.admit("a"));
  rl.release("a");
  // Idle long enough, the bucket is full again, never fuller.
  clock->advance(1h);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(rl.admit("a"));
    rl.release("a");
  }
  CHECK_FALSE(rl.admit("a"));
}

TEST_CASE("rate limit: per minute, Retry-After in whole seconds rounded up",
          "[rate_limit]") {
  auto clock = new_clock();
  std::string error;
  rate_limits l;
  l.rate = *parse_rate_spec("2/m,burst=1", error);
  rate_limiter rl{l, clock};
  REQUIRE(rl.admit("a"));
  rl.release("a");
  auto v = rl.admit("a");
  CHECK(v.kind == rate_verdict::rate_limited);
  CHECK(v.retry_after == 30s);
  CHECK(v.retry_after_seconds() == 30);
  clock->advance(29'500ms);
  v = rl.admit("a");
  CHECK(v.retry_after == 500ms);
  CHECK(v.retry_after_seconds() == 1);
  clock->advance(500ms);
  CHECK(rl.admit("a"));
}

TEST_CASE("rate limit: keys do not share a bucket", "[rate_limit]") {
  auto clock = new_clock();
  rate_limiter rl{per_second(1, 1), clock};
  REQUIRE(rl.admit("alice"));
  CHECK_FALSE(rl.admit("alice"));
  CHECK(rl.admit("bob"));
}

TEST_CASE("rate limit: the in-flight cap, released by answers",
          "[rate_limit]") {
  auto clock = new_clock();
  rate_limits l;
  l.max_in_flight = 2; // rate off
  rate_limiter rl{l, clock};
  REQUIRE(rl.admit("a"));
  REQUIRE(rl.admit("a"));
  auto v = rl.admit("a");
  CHECK(v.kind == rate_verdict::too_many_in_flight);
  CHECK(v.retry_after_seconds() == 1);
  CHECK(rl.admit("b")); // another key has its own cap
  rl.release("a");
  CHECK(rl.admit("a"));
  // A refusal takes nothing: the bucket is not drained by refused requests.
  rate_limiter both{per_second(1, 2, 1), clock};
  REQUIRE(both.admit("a"));
  CHECK(both.admit("a").kind == rate_verdict::too_many_in_flight);
  both.release("a");
  CHECK(both.admit("a")); // the second token was still there
}

TEST_CASE("rate limit: off and no cap admits everything, remembers nothing",
          "[rate_limit]") {
  rate_limiter rl{rate_limits{}, new_clock()};
  CHECK(rl.unlimited());
  for (int i = 0; i < 1000; ++i)
    CHECK(rl.admit("a"));
  CHECK(rl.keys() == 0);
}

TEST_CASE("rate limit: the number of buckets is bounded", "[rate_limit]") {
  auto clock = new_clock();
  auto l = per_second(1, 2);
  l.max_keys = 100;
  rate_limiter rl{l, clock};
  // Many addresses, each with a partly drained bucket: the oldest go.
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(rl.admit("10.0.0." + std::to_string(i)));
    rl.release("10.0.0." + std::to_string(i));
    clock->advance(1ms);
  }
  CHECK(rl.keys() <= 100);
  // Idle and refilled buckets are forgotten first: the newest keeps its
  // (drained) state while room is made.
  REQUIRE(rl.admit("x"));
  REQUIRE(rl.admit("x"));
  CHECK_FALSE(rl.admit("x"));
  clock->advance(10s); // every other bucket is full again
  for (int i = 0; i < 5; ++i)
    rl.admit("new" + std::to_string(i));
  CHECK(rl.keys() <= 100);
  // A key with requests in flight is never forgotten.
  rate_limits cap;
  cap.max_in_flight = 1;
  cap.max_keys = 2;
  rate_limiter busy{cap, clock};
  REQUIRE(busy.admit("a"));
  REQUIRE(busy.admit("b"));
  CHECK(busy.admit("c")); // admitted untracked: a and b stay
  CHECK(busy.admit("a").kind == rate_verdict::too_many_in_flight);
}
