#include "domain/history_cursor.hpp"

#include "domain/absolute_time.hpp"

#include <cstdint>
#include <string>

namespace ttm::domain {

namespace {

constexpr const char* b64
  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

} // namespace

std::string encode_history_cursor(std::int64_t start_ns, const std::string& id) {
  auto plain = "1:" + std::to_string(start_ns) + ":" + id;
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : plain) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += b64[(acc >> bits) & 63];
    }
  }
  if (bits > 0)
    out += b64[(acc << (6 - bits)) & 63];
  return out;
}

std::optional<std::pair<std::int64_t, std::string>>
decode_history_cursor(const std::string& text) {
  std::string plain;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const char* at = std::char_traits<char>::find(b64, 64, c);
    if (at == nullptr)
      return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(at - b64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      plain += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (plain.rfind("1:", 0) != 0)
    return std::nullopt;
  auto colon = plain.find(':', 2);
  if (colon == std::string::npos || colon == 2 || colon + 1 == plain.size())
    return std::nullopt;
  auto digits = plain.substr(2, colon - 2);
  bool negative = digits[0] == '-';
  if (!all_digits(negative ? digits.substr(1) : digits)
      || digits.size() > 19)
    return std::nullopt;
  try {
    return std::make_pair(std::stoll(digits), plain.substr(colon + 1));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace ttm::domain
