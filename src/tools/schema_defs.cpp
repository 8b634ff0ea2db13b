#include "tools/schema_defs.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <cstring>
#include <map>
#include <vector>

namespace ttm::tools {

namespace {

using value = rapidjson::Value;

/// A sub-schema where a `$ref` may stand, and the name a def of it gets.
struct slot {
  value* at;
  std::string name;
};

std::size_t size_of(const value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  v.Accept(w);
  return buf.GetSize();
}

/// `v` without its own "description": what two uses must share.
std::string body_of(const value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  w.StartObject();
  for (const auto& m : v.GetObject()) {
    if (m.name == "description")
      continue;
    w.Key(m.name.GetString(), m.name.GetStringLength());
    m.value.Accept(w);
  }
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

/// Every schema position under `schema` (not `schema` itself, not the
/// defs themselves: their insides do count).
void collect(value& schema, const std::string& name, std::vector<slot>& out) {
  if (!schema.IsObject())
    return;
  for (const char* k : {"properties", "$defs"}) {
    auto m = schema.FindMember(k);
    if (m == schema.MemberEnd() || !m->value.IsObject())
      continue;
    for (auto& p : m->value.GetObject()) {
      std::string n{p.name.GetString(), p.name.GetStringLength()};
      if (k[0] != '$')
        out.push_back({&p.value, n});
      collect(p.value, n, out);
    }
  }
  for (const char* k : {"items", "additionalProperties"}) {
    auto m = schema.FindMember(k);
    if (m == schema.MemberEnd() || !m->value.IsObject())
      continue;
    auto n = name + (k[0] == 'i' ? "_item" : "_value");
    out.push_back({&m->value, n});
    collect(m->value, n, out);
  }
  auto a = schema.FindMember("anyOf");
  if (a != schema.MemberEnd() && a->value.IsArray())
    for (auto& branch : a->value.GetArray()) {
      out.push_back({&branch, name});
      collect(branch, name, out);
    }
}

/// A def name: the use's property name, letters, digits and '_' only (no
/// JSON Pointer escapes), unique among the defs.
std::string def_name(const value& root, const std::string& hint) {
  std::string base;
  for (char c : hint)
    base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c
                                                                       : '_';
  if (base.empty())
    base = "schema";
  auto defs = root.FindMember("$defs");
  auto taken = [&](const std::string& n) {
    return defs != root.MemberEnd() && defs->value.HasMember(n.c_str());
  };
  auto name = base;
  for (int i = 2; taken(name); ++i)
    name = base + std::to_string(i);
  return name;
}

const value* description_of(const value& v) {
  auto d = v.FindMember("description");
  return d == v.MemberEnd() ? nullptr : &d->value;
}

} // namespace

std::string compact_with_defs(const std::string& schema) {
  rapidjson::Document doc;
  doc.Parse(schema.c_str(), schema.size());
  if (doc.HasParseError() || !doc.IsObject())
    return schema;
  auto& al = doc.GetAllocator();
  const std::size_t ref_overhead = std::strlen(R"({"$ref":"#/$defs/"})");
  const std::size_t desc_overhead = std::strlen(R"(,"description":)");
  for (;;) {
    std::vector<slot> slots;
    collect(doc, "", slots);
    std::map<std::string, std::vector<std::size_t>> uses;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      // Objects with properties only (the timestamp object, a task's
      // row): a nullable string or the error fields are not worth a
      // reference a reader has to follow.
      const auto& v = *slots[i].at;
      if (v.IsObject() && v.HasMember("properties") && !v.HasMember("$ref"))
        uses[body_of(v)].push_back(i);
    }
    // The move that saves the most bytes, if any does.
    long best = 0;
    const std::vector<std::size_t>* pick = nullptr;
    bool pick_same = false;
    std::string pick_name;
    for (const auto& [body, idx] : uses) {
      if (idx.size() < 2)
        continue;
      const auto* d0 = description_of(*slots[idx[0]].at);
      bool same = true;
      for (auto i : idx) {
        const auto* d = description_of(*slots[i].at);
        same = same && ((d == nullptr) == (d0 == nullptr))
               && (d == nullptr || *d == *d0);
      }
      auto name = def_name(doc, slots[idx[0]].name);
      long before = 0;
      long after = 0;
      for (auto i : idx) {
        before += static_cast<long>(size_of(*slots[i].at));
        after += static_cast<long>(ref_overhead + name.size());
        if (const auto* d = description_of(*slots[i].at); d && !same)
          after += static_cast<long>(desc_overhead + size_of(*d));
      }
      long def = static_cast<long>(name.size() + 4 + body.size());
      if (same && d0 != nullptr)
        def += static_cast<long>(desc_overhead + size_of(*d0));
      if (!doc.HasMember("$defs"))
        def += static_cast<long>(std::strlen(R"(,"$defs":{})"));
      if (before - after - def > best) {
        best = before - after - def;
        pick = &idx;
        pick_same = same;
        pick_name = std::move(name);
      }
    }
    if (pick == nullptr)
      break;
    // The def: the first use (its description too when all share it).
    const auto& first = *slots[pick->front()].at;
    value def{rapidjson::kObjectType};
    for (const auto& m : first.GetObject())
      if (pick_same || m.name != "description")
        def.AddMember(value{m.name, al}, value{m.value, al}, al);
    auto pointer = "#/$defs/" + pick_name;
    for (auto i : *pick) {
      auto& use = *slots[i].at;
      value ref{rapidjson::kObjectType};
      ref.AddMember("$ref", value{pointer.c_str(), al}, al);
      if (const auto* d = description_of(use); d && !pick_same)
        ref.AddMember("description", value{*d, al}, al);
      use = ref; // moves
    }
    if (!doc.HasMember("$defs"))
      doc.AddMember("$defs", value{rapidjson::kObjectType}, al);
    doc["$defs"].AddMember(value{pick_name.c_str(), al}, def, al);
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  doc.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

} // namespace ttm::tools
