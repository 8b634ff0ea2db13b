#include "edge/http_access.hpp"

#include "edge/http_headers.hpp"

#include <algorithm>

namespace ttm::edge {

int token_index(const std::string& candidate,
                const std::vector<std::string>& tokens) noexcept {
  // Every configured token is compared over its full length, whatever the
  // candidate: no early exit on the first differing byte or on a match.
  int found = -1;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const auto& token = tokens[t];
    unsigned diff = static_cast<unsigned>(token.size() ^ candidate.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
      auto c = i < candidate.size() ? static_cast<unsigned char>(candidate[i])
                                    : 0u;
      diff |= static_cast<unsigned char>(token[i]) ^ c;
    }
    // Branch-free select: found = t when this token matched and none
    // before it did (the first line with a token wins).
    int match = -static_cast<int>(diff == 0 && !token.empty());
    int take = match & (found >> 31); // found < 0: all ones
    found = (found & ~take) | (static_cast<int>(t) & take);
  }
  return found;
}

bool token_matches(const std::string& candidate,
                   const std::vector<std::string>& tokens) noexcept {
  return token_index(candidate, tokens) >= 0;
}

namespace {

std::string without_trailing_slashes(std::string v) {
  while (!v.empty() && v.back() == '/')
    v.pop_back();
  return v;
}

bool contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

} // namespace

access_policy::access_policy(std::uint16_t bound_port,
                             const std::optional<std::string>& bind_name,
                             const std::vector<std::string>& extra_hosts,
                             const std::vector<std::string>& extra_origins,
                             std::vector<std::string> tokens,
                             std::vector<std::string> principals)
  : tokens_(std::move(tokens)), principals_(std::move(principals)) {
  auto port = std::to_string(bound_port);
  std::vector<std::string> names{"localhost", "127.0.0.1", "[::1]"};
  if (bind_name)
    names.push_back(lower(*bind_name));
  for (const auto& n : names) {
    hosts_.push_back(n + ":" + port);
    if (bound_port == 80)
      hosts_.push_back(n);
    origins_.push_back("http://" + n + ":" + port);
    if (bound_port == 80)
      origins_.push_back("http://" + n);
  }
  for (const auto& h : extra_hosts)
    hosts_.push_back(lower(trim(h)));
  for (const auto& o : extra_origins)
    origins_.push_back(without_trailing_slashes(lower(trim(o))));
}

bool access_policy::host_allowed(std::string_view host) const {
  return contains(hosts_, lower(trim(host)));
}

bool access_policy::origin_allowed(std::string_view origin) const {
  return contains(origins_, without_trailing_slashes(lower(trim(origin))));
}

std::optional<std::string> access_policy::principal_of(
  std::optional<std::string_view> authorization) const {
  if (!auth_required())
    return std::string{"local"};
  auto bearer = bearer_token(authorization);
  int token = bearer ? token_index(*bearer, tokens_) : -1;
  if (token < 0)
    return std::nullopt;
  auto t = static_cast<std::size_t>(token);
  return t < principals_.size() ? principals_[t]
                                : "token-" + std::to_string(t + 1);
}

std::optional<std::string>
access_policy::bearer_token(std::optional<std::string_view> authorization) {
  std::string_view value = authorization.value_or(std::string_view{});
  if (value.size() <= 7 || lower(value.substr(0, 7)) != "bearer ")
    return std::nullopt;
  auto token = trim(value.substr(7));
  if (token.empty())
    return std::nullopt;
  return std::string{token};
}

namespace {

/// Whole seconds, rounded up: a Retry-After that is never too early.
std::chrono::seconds ceil_seconds(std::chrono::steady_clock::duration d) {
  auto s = std::chrono::ceil<std::chrono::seconds>(d);
  return std::max(s, std::chrono::seconds{1});
}

} // namespace

std::optional<std::chrono::seconds>
auth_throttle::locked(const std::string& address, time_point now) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = records_.find(address);
  if (it == records_.end() || now >= it->second.locked_until)
    return std::nullopt;
  return ceil_seconds(it->second.locked_until - now);
}

std::optional<std::chrono::seconds>
auth_throttle::failed(const std::string& address, time_point now) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = records_.find(address);
  if (it == records_.end()) {
    if (limits_.max_addresses == 0)
      return std::nullopt;
    if (records_.size() >= limits_.max_addresses) {
      records_.erase(lru_.front());
      lru_.pop_front();
    }
    lru_.push_back(address);
    it = records_.emplace(address, record{}).first;
    it->second.lru = std::prev(lru_.end());
  } else {
    lru_.splice(lru_.end(), lru_, it->second.lru);
  }
  auto& r = it->second;
  if (now < r.locked_until) // refused before its token was looked at
    return ceil_seconds(r.locked_until - now);
  // The window opens at the first failure counted.
  if (r.failures == 0 || now - r.window_start > limits_.window) {
    r.failures = 0;
    r.window_start = now;
  }
  if (++r.failures < limits_.max_failures)
    return std::nullopt;
  auto length = limits_.lockout;
  for (unsigned i = 0; i < r.strikes && length < limits_.max_lockout; ++i)
    length *= 2;
  length = std::min(length, limits_.max_lockout);
  ++r.strikes;
  r.failures = 0;
  r.locked_until = now + length;
  return length;
}

void auth_throttle::succeeded(const std::string& address) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto it = records_.find(address);
  if (it == records_.end())
    return;
  lru_.erase(it->second.lru);
  records_.erase(it);
}

std::size_t auth_throttle::size() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return records_.size();
}

} // namespace ttm::edge
