#include "tools/toolsets.hpp"

#include <algorithm>

namespace ttm::tools {

const std::vector<toolset>& toolsets() {
  static const std::vector<toolset> sets{
    {"time", "current time, conversion, arithmetic",
     {"time_get_current", "time_convert", "time_calculate"}},
    {"tracking", "a milestone's session and its tasks",
     {"time_session_start", "time_task_start", "time_task_end",
      "time_session_summary", "time_session_end"}},
    {"edit", "bulk edits and undo of tracked tasks",
     {"time_tasks_edit", "time_undo"}},
    {"history", "past sessions: list, report, statistics",
     {"time_session_list", "time_session_report", "time_stats"}},
    {"chronometric", "focus sessions, elapsed time, breaks, idle",
     {"get_time_context", "mark_session_start", "mark_session_end",
      "request_break_if_needed", "idle_status"}},
    {"preferences", "your zone, week start, break ladder, ...",
     {"time_preferences_get", "time_preferences_set"}},
  };
  return sets;
}

std::optional<std::vector<std::string>>
parse_toolsets(std::string_view list, std::string& error) {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  };
  std::size_t pos = 0;
  while (pos <= list.size()) {
    auto comma = list.find(',', pos);
    auto item = list.substr(pos, comma == std::string_view::npos
                                   ? std::string_view::npos
                                   : comma - pos);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    std::string name{item};
    if (name == "all") {
      for (const auto& s : toolsets())
        add(s.name);
    } else if (std::any_of(toolsets().begin(), toolsets().end(),
                           [&](const toolset& s) { return name == s.name; })) {
      add(name);
    } else {
      std::string valid;
      for (const auto& s : toolsets())
        valid += std::string{s.name} + ", ";
      error = "unknown toolset '" + name.substr(0, 64)
              + "'; expected a comma-separated list of " + valid + "or all";
      return std::nullopt;
    }
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

std::string toolset_of(std::string_view tool_name) {
  for (const auto& s : toolsets())
    for (const char* t : s.tools)
      if (tool_name == t)
        return s.name;
  return {};
}

} // namespace ttm::tools
