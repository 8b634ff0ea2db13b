// Issue 19: the context budget of tools/list. What the model reads on every
// turn (names, titles, descriptions, input schemas) is measured per toolset
// and printed; the default set is bounded (<= 14,000 bytes since issue 29
// added the history to it, <= 1,000 per tool on average). A size, not a
// speed: it does not vary between runs.

#include "test_json.hpp"
#include "tools_snapshot.hpp"
#include "tools/registry.hpp"
#include "tools/toolsets.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>

namespace {

using namespace ttm;

struct sizes {
  std::size_t tools = 0;
  std::size_t total = 0;        ///< the whole tools/list result
  std::size_t model_facing = 0; ///< name, title, description, inputSchema
};

sizes measure(const std::vector<std::string>& sets) {
  auto reg = tools::make_registry({}, sets);
  sizes out;
  out.total = reg->list_result_json().size();
  auto doc = test::parse(reg->tools_json());
  for (const auto& t : doc.GetArray()) {
    ++out.tools;
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w{buf};
    w.StartObject();
    for (const char* key : {"name", "title", "description", "inputSchema"}) {
      w.Key(key);
      t[key].Accept(w);
    }
    w.EndObject();
    out.model_facing += buf.GetSize();
  }
  return out;
}

} // namespace

TEST_CASE("tools/list budget: sizes per toolset, the default set within "
          "14.1 KB model-facing and 1 KB per tool",
          "[issue19][budget]") {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows{
    {"default", {}}, {"all", {"all"}}};
  for (const auto& s : tools::toolsets())
    rows.push_back({s.name, {s.name}});
  for (const auto& [label, sets] : rows) {
    auto m = measure(sets);
    std::printf("tools/list %-13s %2zu tools: %6zu bytes, model-facing %6zu "
                "(%zu per tool)\n",
                label.c_str(), m.tools, m.total, m.model_facing,
                m.tools ? m.model_facing / m.tools : 0);
  }
  auto def = measure({});
  CHECK(def.tools == test::snapshot_tool_names("default").size());
  // Issue 32: "x-mcp-header" on the 5 session_id arguments, +140 bytes.
  CHECK(def.model_facing <= 14'100);
  CHECK(def.model_facing <= 1'000 * def.tools);
  // Output schemas stay (clients validate with them), but not unbounded
  // (issue 17's estimates, pauses, corrections and operation_index took
  // the default set from 52 to 62 KB; issue 19's compaction, repeated
  // objects once in $defs and shorter error-shape texts, to 58.4 KB;
  // issue 29's default adds the history tools' output schemas: 70.1 KB).
  // Issue 32: "x-mcp-header" on the 5 session_id arguments, +140 bytes.
  CHECK(def.total <= 71'100);
}
