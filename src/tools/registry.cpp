#include "tools/registry.hpp"

#include "tools/session_common.hpp"

namespace ttm::tools {

registry::registry(std::vector<tool> tools) : tools_(std::move(tools)) {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  w.StartObject();
  w.Key("tools");
  w.StartArray();
  for (const auto& t : tools_)
    t.write_definition(w);
  w.EndArray();
  w.EndObject();
  list_json_ = buf.GetString();
}

const tool* registry::find(std::string_view name) const noexcept {
  for (const auto& t : tools_)
    if (t.name() == name)
      return &t;
  return nullptr;
}

registry_ptr make_registry(const domain::tracking_limits& limits) {
  std::vector<tool> tools;
  tools.push_back(make_time_get_current());
  tools.push_back(make_time_session_start(limits));
  tools.push_back(make_time_task_start());
  tools.push_back(make_time_task_end());
  tools.push_back(make_time_session_end());
  tools.push_back(make_time_session_summary());
  return std::make_shared<const registry>(std::move(tools));
}

} // namespace ttm::tools
