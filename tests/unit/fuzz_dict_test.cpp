// tests/fuzz/mcp.dict lists MCP's names for the fuzzers (libFuzzer reads a
// dictionary file, not code): this test keeps the list from drifting from
// the declarations. Every method of the method table, every declared tool
// and every name in a tool's input schema must be in it.

#include "golden.hpp"

#include "mcp/methods.hpp"
#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

using namespace ttm;

namespace {

/// The dictionary's entries: the quoted value of each line (`"x"` or
/// `name="x"`), with `\\` and `\"` unescaped; `\xNN` kept as written.
std::set<std::string> dict_entries() {
  std::ifstream in{test::golden_path("../fuzz/mcp.dict")};
  REQUIRE(in);
  std::set<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    auto open = line.find('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos)
      continue;
    std::string v;
    for (std::size_t k = open + 1; k + 1 < line.size(); ++k) {
      if (line[k] == '\\' && (line[k + 1] == '\\' || line[k + 1] == '"'))
        ++k;
      v += line[k];
    }
    out.insert(v);
  }
  return out;
}

/// Property names anywhere in a schema (nested objects, array items, $defs).
void property_names(const rapidjson::Value& v, std::set<std::string>& out) {
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      if (std::string{m.name.GetString()} == "properties" && m.value.IsObject())
        for (const auto& p : m.value.GetObject())
          out.insert(p.name.GetString());
      property_names(m.value, out);
    }
  } else if (v.IsArray()) {
    for (const auto& e : v.GetArray())
      property_names(e, out);
  }
}

} // namespace

TEST_CASE("fuzz dictionary: every method, tool and tool argument is listed",
          "[fuzz]") {
  auto dict = dict_entries();
  std::set<std::string> want;
  for (const auto& m : mcp::server_methods().methods())
    want.insert(std::string{m.name});
  auto reg = tools::make_registry({}, {"all"});
  for (const auto& t : reg->tools()) {
    want.insert(t.name());
    rapidjson::Document schema;
    schema.Parse(t.input_schema_json().c_str());
    REQUIRE_FALSE(schema.HasParseError());
    property_names(schema, want);
  }
  std::string missing;
  for (const auto& w : want)
    if (dict.count(w) == 0)
      missing += "\"" + w + "\"\n";
  INFO("add these lines to tests/fuzz/mcp.dict:\n" << missing);
  CHECK(missing.empty());
  CHECK(want.size() > 40); // the declarations were read
}
