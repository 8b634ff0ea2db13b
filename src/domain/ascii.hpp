#pragma once

// ASCII case folding for names (zones, Windows zones, locales, typed
// prefixes): inline and locale-independent, unlike std::tolower, which is a
// call per byte that depends on the C locale.

#include <string>
#include <string_view>

namespace ttm::domain {

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = ascii_lower(c);
  return out;
}

inline bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i]))
      return false;
  return true;
}

inline bool ascii_istarts_with(std::string_view s,
                               std::string_view prefix) noexcept {
  return s.size() >= prefix.size()
         && ascii_iequals(s.substr(0, prefix.size()), prefix);
}

} // namespace ttm::domain
