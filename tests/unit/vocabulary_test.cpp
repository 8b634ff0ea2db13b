// Issue 29 item 10: one vocabulary across the tools (docs/tools.md
// "Vocabulary"). Walks every output schema of the tools/list snapshot
// (--toolsets all) and the JSON report golden files, so a new tool or field
// that drifts from the vocabulary fails here, not in a client.

#include "golden.hpp"
#include "test_json.hpp"
#include "tools_snapshot.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace ttm;
using test::str;

/// A property of an output schema: where it is, its name and JSON type.
struct prop {
  std::string tool;
  std::string path; ///< e.g. "tasks[].pauses[].start_time"
  std::string name;
  std::string type; ///< "string", "integer", ..., "object", "array"
  std::string description;
};

/// The object schemas of an object's properties, following "#/$defs/x".
struct walker {
  const rapidjson::Value& root;
  std::string tool;
  std::vector<prop>& out;

  const rapidjson::Value& resolve(const rapidjson::Value& s) const {
    if (s.IsObject() && s.HasMember("$ref")) {
      auto ref = str(s["$ref"]);
      REQUIRE(ref.rfind("#/$defs/", 0) == 0);
      return root["$defs"][ref.substr(8).c_str()];
    }
    return s;
  }

  /// The type of a property schema, its null branch left out.
  std::string type_of(const rapidjson::Value& raw) const {
    const auto& s = resolve(raw);
    if (s.HasMember("type"))
      return str(s["type"]);
    if (s.HasMember("properties"))
      return "object";
    if (s.HasMember("anyOf"))
      for (const auto& b : s["anyOf"].GetArray()) {
        auto t = type_of(b);
        if (t != "null" && !t.empty())
          return t;
      }
    return "";
  }

  void object(const rapidjson::Value& raw, const std::string& at) {
    const auto& s = resolve(raw);
    if (!s.IsObject())
      return;
    if (s.HasMember("anyOf"))
      for (const auto& b : s["anyOf"].GetArray())
        if (b.HasMember("properties") || b.HasMember("$ref"))
          object(b, at);
    if (!s.HasMember("properties"))
      return;
    for (const auto& m : s["properties"].GetObject()) {
      std::string name = m.name.GetString();
      const auto& v = resolve(m.value);
      std::string d = v.HasMember("description") ? str(v["description"]) : "";
      out.push_back({tool, at + name, name, type_of(m.value), d});
      object(m.value, at + name + ".");
      if (v.HasMember("items"))
        object(v["items"], at + name + "[].");
    }
  }
};

/// Every property of every tool's output schema (the wrap of a nullable
/// result included: its object is walked under "result.").
std::vector<prop> all_output_props() {
  static const auto doc = test::tools_snapshot("all");
  std::vector<prop> out;
  for (const auto& t : doc["tools"].GetArray()) {
    const auto& schema = t["outputSchema"];
    walker{schema, str(t["name"]), out}.object(schema, "");
  }
  return out;
}

/// Sibling names in one object of a tool's output: path prefix -> names.
std::map<std::string, std::set<std::string>>
siblings(const std::vector<prop>& props) {
  std::map<std::string, std::set<std::string>> by_object;
  for (const auto& p : props)
    by_object[p.tool + ":" + p.path.substr(0, p.path.size() - p.name.size())]
      .insert(p.name);
  return by_object;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size()
         && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// Names the vocabulary replaced (docs/tools.md "Vocabulary").
const std::set<std::string> retired{
  "started_at",  "ended_at", "tasks_done",   "tasks_total", "iso_duration",
  "human",       "ms",       "paused_ms",    "summary",     "focus_sessions",
  "sessions_total"};

} // namespace

TEST_CASE("vocabulary: no tool's output uses a retired name, times are "
          "start_time/end_time, never *_at",
          "[vocabulary][issue29]") {
  auto props = all_output_props();
  REQUIRE(props.size() > 200);
  for (const auto& p : props) {
    INFO(p.tool << ": " << p.path);
    CHECK(retired.count(p.name) == 0);
    CHECK_FALSE(ends_with(p.name, "_at"));
  }
}

TEST_CASE("vocabulary: one name, one JSON type, in every tool",
          "[vocabulary][issue29]") {
  std::map<std::string, std::map<std::string, std::string>> types;
  for (const auto& p : all_output_props())
    if (!p.type.empty())
      types[p.name].emplace(p.type, p.tool + ": " + p.path);
  for (const auto& [name, seen] : types) {
    std::string where;
    for (const auto& [type, at] : seen)
      where += " " + type + " (" + at + ")";
    INFO(name << " is" << where);
    CHECK(seen.size() == 1);
  }
}

TEST_CASE("vocabulary: a duration is X_ms (integer), and when it is shown "
          "as text, X (words) and X_iso (ISO 8601) both",
          "[vocabulary][issue29]") {
  auto props = all_output_props();
  auto objects = siblings(props);
  for (const auto& p : props) {
    INFO(p.tool << ": " << p.path << " (" << p.description << ")");
    const auto& names
      = objects[p.tool + ":" + p.path.substr(0, p.path.size() - p.name.size())];
    if (ends_with(p.name, "_ms")) {
      CHECK(p.type == "integer");
      auto x = p.name.substr(0, p.name.size() - 3);
      // Text forms come in pairs: words and ISO 8601, or neither.
      CHECK(names.count(x) == names.count(x + "_iso"));
    }
    if (ends_with(p.name, "_iso"))
      CHECK(p.type == "string");
    // An ISO 8601 duration is named *_iso.
    if (p.description.find("ISO 8601 duration") != std::string::npos)
      CHECK(ends_with(p.name, "_iso"));
  }
}

TEST_CASE("vocabulary: every success carries error: false (the success "
          "branch of every output schema requires `error`)",
          "[vocabulary][issue29]") {
  auto doc = test::tools_snapshot("all");
  for (const auto& t : doc["tools"].GetArray()) {
    INFO(str(t["name"]));
    const rapidjson::Value* s = &t["outputSchema"];
    // A nullable result (request_break_if_needed): its object, wrapped.
    if ((*s)["properties"].HasMember("result")
        && (*s)["properties"]["result"].HasMember("anyOf"))
      for (const auto& b : (*s)["properties"]["result"]["anyOf"].GetArray())
        if (b.HasMember("properties"))
          s = &b;
    REQUIRE(s->HasMember("anyOf"));
    const auto& success = (*s)["anyOf"][0]["required"];
    bool requires_error = false;
    for (const auto& n : success.GetArray())
      requires_error = requires_error || str(n) == "error";
    CHECK(requires_error);
    CHECK(str((*s)["properties"]["error"]["type"]) == "boolean");
  }
}

TEST_CASE("vocabulary: the JSON report uses the summary's names and "
          "shapes (estimates, pauses, corrections, counts)",
          "[vocabulary][issue29][report]") {
  // The summary's properties by path, as time_session_summary shows them.
  std::map<std::string, std::string> summary;
  std::map<std::string, std::string> undo;
  for (const auto& p : all_output_props()) {
    if (p.tool == "time_session_summary")
      summary[p.path] = p.type;
    if (p.tool == "time_undo")
      undo[p.path] = p.type;
  }
  auto type_of = [](const rapidjson::Value& v) -> std::string {
    if (v.IsString())
      return "string";
    if (v.IsBool())
      return "boolean";
    if (v.IsInt64())
      return "integer";
    if (v.IsArray())
      return "array";
    if (v.IsObject())
      return "object";
    return "null";
  };
  // Report path -> the summary's path for the same thing.
  auto check_like = [&](const rapidjson::Value& obj, const std::string& at,
                        const std::map<std::string, std::string>& names,
                        const std::string& as) {
    for (const auto& m : obj.GetObject()) {
      std::string name = m.name.GetString();
      INFO("report " << at << name << " as " << as << name);
      auto i = names.find(as + name);
      REQUIRE(i != names.end());
      auto t = type_of(m.value);
      if (t != "null")
        CHECK(t == i->second);
    }
  };
  for (const char* file : {"report.json", "report_edited.json"}) {
    INFO(file);
    auto text = test::read_golden(test::golden_path(file));
    REQUIRE(text.has_value());
    auto doc = test::parse(*text);
    // "summary": the summary's top-level numbers (run_count is the
    // report's own: the summary lists the runs).
    for (const auto& m : doc["summary"].GetObject()) {
      std::string name = m.name.GetString();
      if (name == "run_count")
        continue;
      INFO("summary." << name);
      REQUIRE(summary.count(name) == 1);
      CHECK(type_of(m.value) == summary[name]);
    }
    for (const auto& run : doc["runs"].GetArray())
      for (const auto& m : run.GetObject()) {
        std::string name = m.name.GetString();
        if (name == "offset_ms") // the timeline's, report only
          continue;
        INFO("runs[]." << name);
        REQUIRE(summary.count("tasks[]." + name) == 1);
        if (m.value.IsArray())
          for (const auto& item : m.value.GetArray())
            check_like(item, "runs[]." + name + "[].", summary,
                       "tasks[]." + name + "[].");
      }
    if (doc.HasMember("estimates")) {
      REQUIRE(doc["estimates"].IsArray());
      for (const auto& e : doc["estimates"].GetArray())
        check_like(e, "estimates[].", summary, "estimates[].");
    }
    if (doc.HasMember("changes"))
      for (const auto& c : doc["changes"].GetArray())
        for (const auto& m : c.GetObject()) {
          std::string name = m.name.GetString();
          // A change's fields named as time_undo's `undone` names them.
          if (undo.count("undone." + name)) {
            INFO("changes[]." << name);
            CHECK(type_of(m.value) == undo["undone." + name]);
          }
          CHECK(retired.count(name) == 0);
          CHECK(name != "undone");
          CHECK(name != "operations");
        }
  }
}
