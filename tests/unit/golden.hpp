#pragma once

// Golden files (tests/golden/): a test compares what the code produces with
// a committed, reviewed file. After a deliberate change,
//   TTM_UPDATE_GOLDEN=1 build/tests/unit_tests "[tag]"
// rewrites the files and FAILS, naming each one, so that an update run can
// never pass unnoticed; review the diff, commit, and re-run without
// TTM_UPDATE_GOLDEN.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace ttm::test {

/// tests/golden/ of the checkout: $TTM_GOLDEN_DIR, else the line CMake
/// wrote beside the test binary (golden_dir.txt). Read at run time, not
/// compiled in, so that no compile command names the checkout (ccache hits
/// across checkouts).
inline std::string golden_dir() {
  if (const char* dir = std::getenv("TTM_GOLDEN_DIR"); dir && *dir)
    return dir;
  static const std::string from_file = [] {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::ifstream in{exe.parent_path() / "golden_dir.txt"};
    std::string line;
    std::getline(in, line);
    return line;
  }();
  return from_file;
}

/// tests/golden/`name`.
inline std::string golden_path(const std::string& name) {
  auto dir = golden_dir();
  INFO("the golden files' directory: $TTM_GOLDEN_DIR, else the line of "
       "golden_dir.txt beside the test binary");
  REQUIRE(!dir.empty());
  return dir + "/" + name;
}

/// The file's bytes; nullopt when it cannot be read.
inline std::optional<std::string> read_golden(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in.good())
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace detail {

/// Line `n` (from 1) of `text`, empty past its end.
inline std::string line_of(const std::string& text, std::size_t n) {
  std::size_t at = 0;
  for (std::size_t i = 1; i < n && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos)
      ++at;
  }
  if (at == std::string::npos || at >= text.size())
    return {};
  return text.substr(at, text.find('\n', at) - at);
}

/// Where `a` and `b` first differ, as a line number (from 1).
inline std::size_t first_differing_line(const std::string& a,
                                        const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i])
    ++i;
  std::size_t line = 1;
  for (std::size_t k = 0; k < i; ++k)
    line += a[k] == '\n' ? 1 : 0;
  return line;
}

} // namespace detail

/// Checks `actual` against the golden file tests/golden/`name` (a failed
/// check shows the first line that differs). Under TTM_UPDATE_GOLDEN=1 it
/// rewrites the file instead and fails.
inline void check_golden(const std::string& name, const std::string& actual) {
  auto path = golden_path(name);
  auto expected = read_golden(path);
  if (const char* up = std::getenv("TTM_UPDATE_GOLDEN"); up && *up == '1') {
    bool changed = !expected || *expected != actual;
    if (changed)
      std::ofstream{path, std::ios::binary} << actual;
    FAIL_CHECK("TTM_UPDATE_GOLDEN: "
               << path << (changed ? " rewritten" : " unchanged")
               << ": review the diff and commit, then re-run without "
                  "TTM_UPDATE_GOLDEN");
    return;
  }
  INFO("golden file " << path);
  REQUIRE(expected.has_value());
  if (actual == *expected) {
    SUCCEED();
    return;
  }
  auto n = detail::first_differing_line(*expected, actual);
  FAIL_CHECK("differs from the golden file at line "
             << n << ":\n  golden: " << detail::line_of(*expected, n)
             << "\n  actual: " << detail::line_of(actual, n)
             << "\nIf the change is deliberate: run this test with "
                "TTM_UPDATE_GOLDEN=1 (docs/development.md), review the "
                "diff and commit it.");
}

} // namespace ttm::test
