// Issue 20 item 9: every tool schema is a plain, portable JSON Schema
// subset (what the MCP Inspector's `--strict` check accepts without a
// warning): no `type` arrays, a nullable result field is
// {"anyOf": [{"type": T, ...}, {"type": "null"}]}, and only the keywords
// below, plus (issue 19) local references "#/$defs/NAME" to the root's
// `$defs`. tests/inspector/run.mjs runs the Inspector itself.

#include "tools/registry.hpp"

#include <catch2/catch.hpp>
#include "test_json.hpp"
#include "tools_snapshot.hpp"

#include <set>
#include <string>
#include <vector>

using namespace ttm;
using ttm::test::parse;
using ttm::test::to_json;

namespace {

const std::set<std::string> portable_keywords{
  "type",      "properties", "required",  "additionalProperties",
  "items",     "anyOf",      "enum",      "minLength",
  "maxLength", "minItems",   "maxItems",  "maxProperties",
  "description", "default",
  // Issue 32: MCP's own annotation (2026-07-28, SEP-2243) on session_id,
  // which MCP clients read and schema mappers drop as an x- extension.
  "x-mcp-header"};

/// Collects what is not portable in `schema` (at `where`). `root`: the
/// document's root, whose `$defs` (issue 19: output schemas write a
/// repeated object once) a `$ref` may name, as "#/$defs/NAME" only (a
/// local reference: the Inspector's --strict accepts it).
void check(const rapidjson::Value& schema, const std::string& where,
           std::vector<std::string>& problems,
           const rapidjson::Value* root = nullptr) {
  if (!schema.IsObject()) {
    problems.push_back(where + ": not an object");
    return;
  }
  if (root == nullptr) {
    root = &schema;
    if (auto d = schema.FindMember("$defs"); d != schema.MemberEnd()) {
      if (!d->value.IsObject())
        problems.push_back(where + ": $defs is not an object");
      else
        for (const auto& m : d->value.GetObject())
          check(m.value, where + ".$defs." + m.name.GetString(), problems,
                root);
    }
  }
  for (const auto& m : schema.GetObject()) {
    std::string key{m.name.GetString()};
    if (key == "$defs" && &schema == root)
      continue;
    if (key == "$ref") {
      std::string ref = m.value.IsString() ? m.value.GetString() : "";
      auto defs = root->FindMember("$defs");
      if (ref.rfind("#/$defs/", 0) != 0 || defs == root->MemberEnd()
          || !defs->value.HasMember(ref.substr(8).c_str()))
        problems.push_back(where + ": $ref '" + ref
                           + "' names no #/$defs entry");
      continue;
    }
    if (portable_keywords.count(key) == 0)
      problems.push_back(where + ": keyword '" + key + "'");
  }
  if (auto t = schema.FindMember("type"); t != schema.MemberEnd()
                                          && !t->value.IsString())
    problems.push_back(where + ": type " + to_json(t->value)
                       + " is not a single name");
  if (auto p = schema.FindMember("properties"); p != schema.MemberEnd())
    for (const auto& m : p->value.GetObject())
      check(m.value, where + ".properties." + m.name.GetString(), problems,
            root);
  if (auto i = schema.FindMember("items"); i != schema.MemberEnd())
    check(i->value, where + ".items", problems, root);
  if (auto a = schema.FindMember("additionalProperties");
      a != schema.MemberEnd() && a->value.IsObject())
    check(a->value, where + ".additionalProperties", problems, root);
  if (auto a = schema.FindMember("anyOf"); a != schema.MemberEnd()) {
    rapidjson::SizeType k = 0;
    for (const auto& branch : a->value.GetArray())
      check(branch, where + ".anyOf[" + std::to_string(k++) + "]", problems,
            root);
  }
}

} // namespace

TEST_CASE("schema portability: every tool schema is a plain JSON Schema "
          "subset without type arrays",
          "[tools][issue20]") {
  auto reg = tools::make_registry({}, {"all"});
  REQUIRE(reg->tools().size() == test::snapshot_tool_names("all").size());
  std::vector<std::string> problems;
  for (const auto& t : reg->tools()) {
    check(parse(t.input_schema_json()), t.name() + ".inputSchema", problems);
    check(parse(t.output_schema_json()), t.name() + ".outputSchema",
          problems);
  }
  INFO("problems:\n" << [&] {
    std::string all;
    for (const auto& p : problems)
      all += p + "\n";
    return all;
  }());
  CHECK(problems.empty());
}

TEST_CASE("schema portability: a nullable result field is anyOf with a null "
          "branch, and null and values still validate",
          "[tools][issue20]") {
  auto reg = tools::make_registry({}, {"all"});
  const auto* end = reg->find("time_session_end");
  REQUIRE(end != nullptr);
  auto schema = parse(end->output_schema_json());
  const auto& name = schema["properties"]["milestone_name"];
  CHECK(to_json(name["anyOf"]) == R"([{"type":"string"},{"type":"null"}])");
  CHECK_FALSE(name.HasMember("type"));
  const auto& item = schema["properties"]["tasks"]["items"]["properties"];
  CHECK(to_json(item["run"]["anyOf"])
        == R"([{"type":"integer"},{"type":"null"}])");
  // Fields that are never null keep a plain type.
  CHECK(std::string{schema["properties"]["session_id"]["type"].GetString()}
        == "string");
  CHECK(std::string{item["status"]["type"].GetString()} == "string");
}
