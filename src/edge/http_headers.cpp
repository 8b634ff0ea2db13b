#include "edge/http_headers.hpp"

#include "protocol/base64.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <sys/random.h>

namespace ttm::edge {

std::string lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string media_type(std::string_view entry) {
  return lower(trim(entry.substr(0, entry.find(';'))));
}

bool q_is_zero(std::string_view entry) {
  for (auto pos = entry.find(';'); pos != std::string_view::npos;) {
    auto next = entry.find(';', pos + 1);
    auto param = trim(entry.substr(pos + 1, next == std::string_view::npos
                                              ? std::string_view::npos
                                              : next - pos - 1));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q')
        && param[1] == '=') {
      auto v = param.substr(2);
      return v.find_first_not_of("0.") == std::string_view::npos;
    }
    pos = next;
  }
  return false;
}

accept_info parse_accept(std::optional<std::string_view> header) {
  if (!header)
    return {true, false};
  accept_info a;
  std::string_view rest = *header;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{}
                                           : rest.substr(comma + 1);
    if (q_is_zero(entry))
      continue;
    auto type = media_type(entry);
    if (type == "application/json" || type == "application/*"
        || type == "*/*")
      a.json = true;
    if (type == "text/event-stream" || type == "text/*")
      a.sse = true;
  }
  return a;
}

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (value.size() < open.size() + close.size()
      || value.substr(0, open.size()) != open
      || value.substr(value.size() - close.size()) != close)
    return std::string{value};
  auto b64 = value.substr(open.size(),
                          value.size() - open.size() - close.size());
  while (!b64.empty() && b64.back() == '=')
    b64.remove_suffix(1);
  return protocol::base64_decode(b64, protocol::base64_alphabet::standard,
                                 false);
}

std::string new_session_id() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    auto n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw std::runtime_error(std::string{"getrandom: "}
                               + std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (auto b : bytes) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

bool valid_session_id(std::string_view id) {
  return !id.empty() && id.size() <= 128
         && std::all_of(id.begin(), id.end(),
                        [](char c) { return c >= 0x21 && c <= 0x7e; });
}

std::string short_id(const std::string& id) {
  return id.size() <= 8 ? id : id.substr(0, 8) + "...";
}

} // namespace ttm::edge
