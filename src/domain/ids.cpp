#include "domain/ids.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace ttm::domain {

void random_bytes(void* out, std::size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  while (n > 0) {
    auto got = ::getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    p += got;
    n -= static_cast<std::size_t>(got);
  }
}

std::string log_id(const std::string& id) {
  return id.size() <= 8 ? id : id.substr(0, 8) + "...";
}

std::string make_uuid_v4() {
  std::uint8_t b[16];
  random_bytes(b, sizeof b);
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40); // version 4
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80); // RFC 4122 variant
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    out += hex[b[i] >> 4];
    out += hex[b[i] & 0x0f];
  }
  return out;
}

} // namespace ttm::domain
