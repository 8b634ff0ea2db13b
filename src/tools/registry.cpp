#include "tools/registry.hpp"

#include "tools/session_common.hpp"

namespace ttm::tools {

registry::registry(std::vector<tool> tools) {
  std::call_once(built_, [&] { set(std::move(tools)); });
}

registry::registry(std::function<std::vector<tool>()> make)
  : make_(std::move(make)) {
}

void registry::build() const {
  // A throwing make_ leaves the flag unset: the next caller tries again.
  std::call_once(built_, [this] { set(make_()); });
}

void registry::set(std::vector<tool> tools) const {
  rapidjson::StringBuffer buf;
  json_writer w{buf};
  w.StartArray();
  for (const auto& t : tools)
    t.write_definition(w);
  w.EndArray();
  tools_json_ = buf.GetString();
  buf.Clear();
  json_writer list{buf};
  list.StartObject();
  list.Key("tools");
  list.RawValue(tools_json_.data(), tools_json_.size(), rapidjson::kArrayType);
  list.EndObject();
  list_json_ = buf.GetString();
  tools_ = std::move(tools);
}

const std::vector<tool>& registry::tools() const {
  build();
  return tools_;
}

const std::string& registry::list_result_json() const {
  build();
  return list_json_;
}

const std::string& registry::tools_json() const {
  build();
  return tools_json_;
}

const tool* registry::find(std::string_view name) const {
  for (const auto& t : tools())
    if (t.name() == name)
      return &t;
  return nullptr;
}

registry_ptr make_registry(const domain::tracking_limits& limits) {
  return std::make_shared<const registry>([limits] {
    std::vector<tool> tools;
    tools.push_back(make_time_get_current());
    tools.push_back(make_time_session_start(limits));
    tools.push_back(make_time_task_start());
    tools.push_back(make_time_task_end());
    tools.push_back(make_time_session_end());
    tools.push_back(make_time_session_summary());
    tools.push_back(make_time_session_report());
    tools.push_back(make_time_convert());
    tools.push_back(make_time_calculate());
    tools.push_back(make_time_session_list());
    tools.push_back(make_time_stats());
    tools.push_back(make_time_tasks_edit());
    return tools;
  });
}

} // namespace ttm::tools
