#pragma once

// The committed tools/list snapshots, tests/golden/tools_list.<set>.json
// ("default": no --toolsets; "all": --toolsets all): the full tools/list
// result, pretty-printed. tools_snapshot_test.cpp compares the registry
// with them; tests that need the set of tools read it here instead of
// keeping their own copy (the Node tests read the same files).

#include "golden.hpp"
#include "test_json.hpp"

#include <rapidjson/prettywriter.h>

#include <string>
#include <vector>

namespace ttm::test {

/// The snapshot's file name: "default" or "all".
inline std::string tools_snapshot_file(const std::string& set) {
  return "tools_list." + set + ".json";
}

/// The tools/list result of snapshot `set`.
inline rapidjson::Document tools_snapshot(const std::string& set) {
  auto path = golden_path(tools_snapshot_file(set));
  auto text = read_golden(path);
  INFO("snapshot " << path);
  REQUIRE(text.has_value());
  return parse(*text);
}

/// The names of snapshot `set`'s tools, in tools/list order.
inline std::vector<std::string> snapshot_tool_names(const std::string& set) {
  auto doc = tools_snapshot(set);
  std::vector<std::string> names;
  for (const auto& t : doc["tools"].GetArray())
    names.push_back(str(t["name"]));
  return names;
}

/// `json` as a snapshot holds it: two-space indents, a final newline.
inline std::string snapshot_text(const std::string& json) {
  auto doc = parse(json);
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w{buf};
  w.SetIndent(' ', 2);
  doc.Accept(w);
  return std::string{buf.GetString(), buf.GetSize()} + "\n";
}

} // namespace ttm::test
