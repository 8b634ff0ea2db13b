#include "tools/toolsets.hpp"

#include <algorithm>

namespace ttm::tools {

const std::vector<toolset>& toolsets() {
  // The instructions: the clock first, then focus, then milestones.
  static const std::vector<toolset> sets{
    {"time", "current time, conversion, arithmetic", "", 0},
    {"tracking", "a milestone's session and its tasks",
     "To time a milestone: ", 2},
    {"edit", "bulk edits and undo of tracked tasks", "", 3},
    {"history", "past sessions: list, report, statistics", "", 3},
    {"chronometric", "focus sessions, elapsed time, breaks, idle", "Focus: ",
     1},
    {"preferences", "your zone, week start, break ladder, ...", "", 3},
  };
  return sets;
}

const toolset* find_toolset(std::string_view name) {
  for (const auto& s : toolsets())
    if (name == s.name)
      return &s;
  return nullptr;
}

std::vector<std::string>
toolsets_warnings(const std::vector<std::string>& enabled) {
  auto on = [&](const char* name) {
    return std::find(enabled.begin(), enabled.end(), name) != enabled.end();
  };
  std::vector<std::string> out;
  if (on("edit") && !on("tracking"))
    out.push_back("--toolsets enables 'edit' without 'tracking': "
                  "time_tasks_edit and time_undo act on tracking sessions, "
                  "which no enabled tool starts; add 'tracking'");
  return out;
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
    } else if (find_toolset(name) != nullptr) {
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

} // namespace ttm::tools
