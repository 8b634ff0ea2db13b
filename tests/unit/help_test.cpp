// Unit test for the --help text of src/config: every option's description
// (and the env/file-key line under it) starts in one column, however long
// the option's name.

#include "config.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

using namespace ttm;

TEST_CASE("config: --help descriptions start in one column") {
  std::istringstream in(usage());
  std::string line;
  bool in_options = false;
  std::set<std::size_t> columns;
  int option_lines = 0, env_lines = 0;
  while (std::getline(in, line)) {
    // The option list starts at --config (its heading spans two lines).
    if (line.rfind("  --config ", 0) == 0)
      in_options = true;
    if (!in_options || line.empty())
      continue;
    INFO(line);
    if (line.rfind("  --", 0) == 0) {
      // "  --flag ARG" then at least two spaces, then the description.
      auto gap = line.find("  ", 2);
      REQUIRE(gap != std::string::npos);
      auto col = line.find_first_not_of(' ', gap);
      REQUIRE(col != std::string::npos);
      columns.insert(col);
      ++option_lines;
    } else {
      // A continuation line: "env NAME, file key ..." under the description.
      auto col = line.find_first_not_of(' ');
      REQUIRE(col != std::string::npos);
      CHECK(line.compare(col, 4, "env ") == 0);
      columns.insert(col);
      ++env_lines;
    }
  }
  CHECK(option_lines > 20);
  CHECK(env_lines == option_lines - 1); // --config has its env on its line
  CHECK(columns.size() == 1);
}

TEST_CASE("config: --help-markdown is the same option table as a Markdown "
          "table (issue 29)") {
  auto docs = option_docs();
  std::istringstream in(usage_markdown());
  std::string line;
  std::getline(in, line);
  CHECK(line == "| option | env / file key | meaning |");
  std::getline(in, line);
  CHECK(line == "|---|---|---|");
  std::size_t row = 0;
  while (std::getline(in, line)) {
    INFO(line);
    REQUIRE(row < docs.size());
    const auto& o = docs[row++];
    CHECK(line.rfind("| `" + o.flag, 0) == 0);
    CHECK(line.find("`" + o.env + "`") != std::string::npos);
    // Three cells: every '|' inside a cell is escaped.
    int bars = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
        ++bars;
    CHECK(bars == 4);
  }
  CHECK(row == docs.size());
  // --help shows the same options, in the same order.
  auto text = usage();
  std::size_t at = 0;
  for (const auto& o : docs) {
    auto next = text.find("  " + o.flag + " ", at);
    if (next == std::string::npos)
      next = text.find("  " + o.flag + "\n", at);
    INFO(o.flag);
    REQUIRE(next != std::string::npos);
    at = next;
  }
}
