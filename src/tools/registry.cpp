#include "tools/registry.hpp"

#include "tools/session_common.hpp"
#include "tools/toolsets.hpp"

#include <algorithm>
#include <stdexcept>

namespace ttm::tools {

registry::registry(std::vector<tool> tools) {
  std::call_once(built_, [&] { set(std::move(tools)); });
}

registry::registry(std::function<std::vector<tool>()> make,
                   std::vector<std::string> toolsets)
  : make_(std::move(make)), toolsets_(std::move(toolsets)) {
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
  {
    json_writer modern{buf};
    modern.StartArray();
    for (const auto& t : tools)
      t.write_definition(modern, true);
    modern.EndArray();
    modern_tools_json_ = buf.GetString();
    buf.Clear();
  }
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

const std::string& registry::tools_json(bool modern) const {
  build();
  return modern ? modern_tools_json_ : tools_json_;
}

const tool* registry::find(std::string_view name) const {
  for (const auto& t : tools())
    if (t.name() == name)
      return &t;
  return nullptr;
}

registry_ptr make_registry(const domain::tracking_limits& limits,
                           std::vector<std::string> sets) {
  std::string joined;
  for (const auto& s : sets)
    joined += s + ",";
  if (!joined.empty())
    joined.pop_back();
  std::string error;
  auto parsed = parse_toolsets(sets.empty() ? default_toolsets : joined,
                               error);
  if (!parsed)
    throw std::invalid_argument(error);
  sets = std::move(*parsed);
  return std::make_shared<const registry>(
    [limits, sets] {
      std::vector<tool> all;
      all.push_back(make_time_get_current());
      all.push_back(make_time_session_start(limits));
      all.push_back(make_time_task_start());
      all.push_back(make_time_task_end());
      all.push_back(make_time_session_end());
      all.push_back(make_time_session_summary());
      all.push_back(make_time_session_report());
      all.push_back(make_time_convert());
      all.push_back(make_time_calculate());
      all.push_back(make_time_session_list());
      all.push_back(make_time_stats());
      all.push_back(make_time_tasks_edit());
      all.push_back(make_time_undo());
      for (auto& t : make_chronometric_tools())
        all.push_back(std::move(t));
      all.push_back(make_time_preferences_get());
      all.push_back(make_time_preferences_set());
      std::vector<tool> tools;
      for (auto& t : all)
        if (std::find(sets.begin(), sets.end(), toolset_of(t.name()))
            != sets.end())
          tools.push_back(std::move(t));
      return tools;
    },
    sets);
}

} // namespace ttm::tools
