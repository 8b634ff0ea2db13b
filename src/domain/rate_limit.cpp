#include "domain/rate_limit.hpp"

#include <algorithm>
#include <charconv>

namespace ttm::domain {

namespace {

constexpr std::uint64_t max_rate_number = 1'000'000;
constexpr std::int64_t ns_per_second = 1'000'000'000;

/// A decimal from 1 to max_rate_number, digits only.
bool parse_number(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 7)
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  std::from_chars(s.data(), s.data() + s.size(), out);
  return out >= 1 && out <= max_rate_number;
}

std::optional<std::chrono::seconds> parse_period(std::string_view s) {
  if (s == "s" || s == "sec" || s == "second")
    return std::chrono::seconds{1};
  if (s == "m" || s == "min" || s == "minute")
    return std::chrono::seconds{60};
  if (s == "h" || s == "hour")
    return std::chrono::seconds{3600};
  return std::nullopt;
}

} // namespace

std::optional<rate_spec> parse_rate_spec(std::string_view text,
                                         std::string& error) {
  if (text == "off")
    return rate_spec{};
  auto fail = [&](std::string why) -> std::optional<rate_spec> {
    error = "'" + std::string{text} + "' is not a rate limit: " + why
            + " (write N/s, N/m or N/h with an optional ,burst=B, e.g. "
              "50/s,burst=100; or off)";
    return std::nullopt;
  };
  auto comma = text.find(',');
  auto rate = text.substr(0, comma);
  auto slash = rate.find('/');
  if (slash == std::string_view::npos)
    return fail("the period is missing");
  rate_spec spec;
  spec.off = false;
  if (!parse_number(rate.substr(0, slash), spec.count))
    return fail("the count must be a whole number from 1 to 1000000");
  auto period = parse_period(rate.substr(slash + 1));
  if (!period)
    return fail("the period must be s, m or h");
  spec.period = *period;
  spec.burst = spec.count;
  if (comma != std::string_view::npos) {
    auto rest = text.substr(comma + 1);
    constexpr std::string_view key = "burst=";
    if (rest.substr(0, key.size()) != key)
      return fail("after the comma only burst=B may follow");
    if (!parse_number(rest.substr(key.size()), spec.burst))
      return fail("the burst must be a whole number from 1 to 1000000");
  }
  return spec;
}

std::string to_string(const rate_spec& spec) {
  if (spec.off)
    return "off";
  auto unit = spec.period.count() == 1    ? "s"
              : spec.period.count() == 60 ? "m"
                                          : "h";
  return std::to_string(spec.count) + "/" + unit
         + ",burst=" + std::to_string(spec.burst);
}

std::uint64_t rate_verdict::retry_after_seconds() const noexcept {
  auto ms = static_cast<std::uint64_t>(retry_after.count());
  return std::max<std::uint64_t>(1, (ms + 999) / 1000);
}

rate_limiter::rate_limiter(rate_limits limits, clock_ptr clock)
  : limits_(limits), clock_(std::move(clock)) {
  if (!limits_.rate.off) {
    token_units_ = static_cast<unsigned __int128>(limits_.rate.period.count())
                   * ns_per_second;
    capacity_ = token_units_ * limits_.rate.burst;
  }
  limits_.max_keys = std::max<std::size_t>(limits_.max_keys, 1);
}

void rate_limiter::refill(bucket& b, std::int64_t now_ns) const {
  if (now_ns <= b.last_ns)
    return; // the monotonic clock does not go back; a fake one may stand
  auto elapsed = static_cast<unsigned __int128>(now_ns - b.last_ns);
  b.last_ns = now_ns;
  auto missing = capacity_ - b.units;
  // elapsed * count cannot overflow 128 bits (both below 2^64).
  auto added = elapsed * limits_.rate.count;
  b.units = added >= missing ? capacity_ : b.units + added;
}

bool rate_limiter::full(const bucket& b) const {
  return b.units >= capacity_;
}

bool rate_limiter::make_room(std::int64_t now_ns) {
  // Full and idle buckets are the same as none: forget all of them.
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    if (it->second.in_flight == 0) {
      refill(it->second, now_ns);
      if (full(it->second)) {
        it = buckets_.erase(it);
        continue;
      }
    }
    ++it;
  }
  if (buckets_.size() < limits_.max_keys)
    return true;
  // Else the one idle longest: a flood of addresses must not grow memory,
  // and forgetting a partly drained bucket only forgives its client a bit.
  auto victim = buckets_.end();
  for (auto it = buckets_.begin(); it != buckets_.end(); ++it)
    if (it->second.in_flight == 0
        && (victim == buckets_.end()
            || it->second.last_ns < victim->second.last_ns))
      victim = it;
  if (victim == buckets_.end())
    return false;
  buckets_.erase(victim);
  return true;
}

rate_verdict rate_limiter::admit(std::string_view key) {
  if (unlimited())
    return {};
  auto now_ns = to_ns(clock_->mono_now());
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = buckets_.find(std::string{key});
  if (it == buckets_.end()) {
    if (buckets_.size() >= limits_.max_keys && !make_room(now_ns))
      return {}; // every key busy: admitted, untracked (see header)
    bucket fresh;
    fresh.units = capacity_;
    fresh.last_ns = now_ns;
    it = buckets_.emplace(std::string{key}, fresh).first;
  }
  auto& b = it->second;
  if (limits_.max_in_flight > 0 && b.in_flight >= limits_.max_in_flight)
    // Answers come back in milliseconds; a second is a fair pause.
    return {rate_verdict::too_many_in_flight, std::chrono::seconds{1}};
  if (!limits_.rate.off) {
    refill(b, now_ns);
    if (b.units < token_units_) {
      auto deficit = token_units_ - b.units;
      auto count = limits_.rate.count;
      auto wait_ns = static_cast<std::int64_t>((deficit + count - 1) / count);
      auto wait_ms = (wait_ns + 999'999) / 1'000'000;
      return {rate_verdict::rate_limited, std::chrono::milliseconds{wait_ms}};
    }
    b.units -= token_units_;
  }
  ++b.in_flight;
  return {};
}

void rate_limiter::release(std::string_view key) {
  if (unlimited())
    return;
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = buckets_.find(std::string{key});
  if (it == buckets_.end() || it->second.in_flight == 0)
    return;
  if (--it->second.in_flight == 0 && limits_.rate.off)
    buckets_.erase(it); // nothing else to remember
}

std::size_t rate_limiter::keys() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return buckets_.size();
}

} // namespace ttm::domain
