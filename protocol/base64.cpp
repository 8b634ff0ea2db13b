#include "protocol/base64.hpp"

namespace ttm::protocol {

std::optional<std::string> base64_decode(std::string_view text,
                                         base64_alphabet alphabet,
                                         bool canonical) {
  const char c62 = alphabet == base64_alphabet::url ? '-' : '+';
  const char c63 = alphabet == base64_alphabet::url ? '_' : '/';
  auto value = [&](char c) -> int {
    if (c >= 'A' && c <= 'Z')
      return c - 'A';
    if (c >= 'a' && c <= 'z')
      return c - 'a' + 26;
    if (c >= '0' && c <= '9')
      return c - '0' + 52;
    if (c == c62)
      return 62;
    if (c == c63)
      return 63;
    return -1;
  };
  if (text.size() % 4 == 1)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (canonical && bits > 0 && (acc & ((1u << bits) - 1)) != 0)
    return std::nullopt;
  return out;
}

} // namespace ttm::protocol
