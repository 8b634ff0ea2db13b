// The value syntaxes the option table's setters share: sizes, durations,
// addresses, lists, scopes. One syntax per kind of value.

#include "config_parts.hpp"

#include "config.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <sstream>

namespace ttm::config_detail {

std::string parse_size(const std::string& text, std::size_t min,
                       std::size_t max, std::size_t& out) {
  std::size_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v < min
      || v > max)
    return "expected an integer from " + std::to_string(min) + " to "
           + std::to_string(max) + ", got '" + text + "'";
  out = v;
  return {};
}

/// "90s", "30m", "4h", "2d" or a number of seconds, from `min` to `max`
/// seconds. One syntax for every duration option.
std::string parse_duration(const std::string& text, long long min,
                           long long max, long long& seconds) {
  std::size_t n = 0;
  auto* first = text.data();
  auto* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, n);
  long long unit = 1;
  if (ec == std::errc{} && end + 1 == last) {
    switch (*end) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86'400;
        break;
      default:
        end = first; // not a unit: rejected below
    }
    if (end != first)
      ++end;
  }
  // Compared unsigned: a count past LLONG_MAX (a size_t) must not turn
  // negative and slip under `max` (found by tests/fuzz/config).
  if (ec != std::errc{} || end != last
      || n > static_cast<unsigned long long>(max / unit)
      || static_cast<long long>(n) * unit < min)
    return "expected a duration such as 90s, 30m, 4h or 1d, from "
           + std::to_string(min) + " to " + std::to_string(max)
           + " seconds, got '" + text + "'";
  seconds = static_cast<long long>(n) * unit;
  return {};
}

/// Tracking-session limits: 1 second to 366 days.
std::string parse_duration(const std::string& text, std::chrono::seconds& out) {
  long long s = 0;
  auto err = parse_duration(text, 1, 366LL * 86'400, s);
  if (err.empty())
    out = std::chrono::seconds{s};
  return err;
}

/// HOST:PORT or [V6]:PORT; HOST an IP literal ("localhost" is 127.0.0.1).
std::string parse_host_port(const std::string& text, std::string& host_out,
                            std::uint16_t& port_out) {
  auto bad = [&](const std::string& why) {
    return "expected HOST:PORT with an IP address, e.g. 127.0.0.1:8787 or "
           "[::1]:8787; " + why + " in '" + text + "'";
  };
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return bad("no port");
  auto host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']')
      return bad("unbalanced brackets");
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost")
    host = "127.0.0.1";
  unsigned char addr[16];
  int family = host.find(':') == std::string::npos ? AF_INET : AF_INET6;
  if (::inet_pton(family, host.c_str(), addr) != 1)
    return bad("'" + host + "' is not an IP address");
  std::size_t port = 0;
  if (auto err = parse_size(text.substr(colon + 1), 0, 65535, port);
      !err.empty())
    return bad("the port is not 0 to 65535");
  host_out = host;
  port_out = static_cast<std::uint16_t>(port);
  return {};
}

std::string parse_listen(const std::string& text, config& c) {
  return parse_host_port(text, c.listen_host, c.listen_port);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss{text};
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto b = item.find_first_not_of(" \t");
    auto e = item.find_last_not_of(" \t");
    if (b != std::string::npos)
      out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

/// HTTP timeouts: `min` seconds to 7 days.
std::string parse_seconds(const std::string& v, std::size_t min,
                          std::size_t& out) {
  long long s = 0;
  auto err = parse_duration(v, static_cast<long long>(min), 7 * 86'400, s);
  if (err.empty())
    out = static_cast<std::size_t>(s);
  return err;
}

/// An OAuth scope name (RFC 6749 §3.3 scope-token: visible ASCII but
/// '"' and the backslash, no space).
std::string parse_scope(const std::string& v, std::string& out) {
  if (v.empty())
    return "expected a scope name such as tracker.read";
  for (unsigned char ch : v)
    if (ch < 0x21 || ch > 0x7E || ch == '"' || ch == '\\')
      return "a scope name is visible ASCII without spaces, '\"' or '\\', "
             "got '"
             + v + "'";
  out = v;
  return {};
}

} // namespace ttm::config_detail
