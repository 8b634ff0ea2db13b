#include "edge/oauth_scope.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <stdexcept>

namespace ttm::edge::oauth {

scope_map::scope_map(const tools::registry& tools) {
  rapidjson::Document list;
  const auto& json = tools.list_result_json();
  list.Parse(json.c_str(), json.size());
  if (list.HasParseError() || !list.IsObject() || !list.HasMember("tools")
      || !list["tools"].IsArray())
    throw std::logic_error("scope_map: tools/list is not {\"tools\": [...]}");
  for (const auto& t : list["tools"].GetArray()) {
    std::string name = t["name"].GetString();
    bool read_only = false;
    auto a = t.FindMember("annotations");
    if (a != t.MemberEnd() && a->value.IsObject()) {
      auto r = a->value.FindMember("readOnlyHint");
      read_only = r != a->value.MemberEnd() && r->value.IsBool()
                  && r->value.GetBool();
    }
    read_only_[name] = read_only;
    order_.emplace_back(std::move(name), read_only);
  }
}

scope_need scope_map::tool_need(std::string_view tool) const {
  auto it = read_only_.find(std::string{tool});
  if (it == read_only_.end())
    return scope_need::read;
  return it->second ? scope_need::read : scope_need::write;
}

scope_need scope_map::message_need(const protocol::message& m) const {
  if ((m.kind == protocol::message::request
       || m.kind == protocol::message::notification)
      && m.method == "tools/call")
    return tool_need(m.name);
  return scope_need::any;
}

std::string missing_scope(const scope_map& map, const protocol::frame& f,
                          const std::vector<std::string>& granted,
                          const scope_names& names) {
  auto holds = [&granted](const std::string& s) {
    return std::find(granted.begin(), granted.end(), s) != granted.end();
  };
  for (const auto& m : f.messages) {
    switch (map.message_need(m)) {
      case scope_need::any:
        break;
      case scope_need::read:
        if (!holds(names.read) && !holds(names.write))
          return names.read;
        break;
      case scope_need::write:
        if (!holds(names.write))
          return names.write;
        break;
    }
  }
  return {};
}

std::string scope_table(const scope_map& map, const scope_names& names) {
  std::string out;
  for (const auto& [name, read] : map.tools())
    out += name + ": "
           + (read ? names.read + " or " + names.write : names.write) + "\n";
  return out;
}

} // namespace ttm::edge::oauth
