#pragma once

// What every fuzz target shares: a failed check is a crash (libFuzzer keeps
// the input), and a few helpers to carve one input into several fields.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

/// A property the target checks beyond "no crash": its failure is a defect,
/// reported like one (the message first, for the log of the CI run).
#define FUZZ_CHECK(cond, what)                                                \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d): %s\n", #cond,      \
                   __FILE__, __LINE__, std::string{what}.c_str());            \
      __builtin_trap();                                                       \
    }                                                                         \
  } while (false)

/// On a target's oracle (the checks of what the code under test returned):
/// no coverage instrumentation there. Its branches are not the code under
/// test, yet a per-byte scan of a rendered page called libFuzzer's compare
/// hooks more often than the renderers did (a third of the reports target's
/// time). AddressSanitizer and UBSan still check it; FUZZ_CHECK still traps.
#define FUZZ_ORACLE __attribute__((no_sanitize("coverage")))

namespace ttm::fuzz {

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// `text` split at every `sep` (empty fields kept), as views into it.
inline std::vector<std::string_view> split_views(std::string_view text,
                                                 char sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (;;) {
    auto at = text.find(sep, from);
    out.push_back(text.substr(from, at == std::string_view::npos
                                      ? std::string_view::npos
                                      : at - from));
    if (at == std::string_view::npos)
      return out;
    from = at + 1;
  }
}

/// `text` split at every `sep` (empty fields kept), as copies.
inline std::vector<std::string> split(std::string_view text, char sep) {
  auto views = split_views(text, sep);
  return {views.begin(), views.end()};
}

/// Takes the first byte of `in` (0 when empty) and drops it.
inline std::uint8_t take_byte(std::string_view& in) {
  if (in.empty())
    return 0;
  auto b = static_cast<std::uint8_t>(in.front());
  in.remove_prefix(1);
  return b;
}

} // namespace ttm::fuzz
