#include "tools/registry.hpp"

#include "tools/session_common.hpp"
#include "tools/toolsets.hpp"

#include <algorithm>
#include <stdexcept>

namespace ttm::tools {

// Each in its own file (the session tools: session_common.hpp).
tool make_time_convert();
tool make_time_calculate();
tool make_time_session_list();
tool make_time_stats();
tool make_time_preferences_get();
tool make_time_preferences_set();
/// get_time_context, mark_session_start, mark_session_end,
/// request_break_if_needed, idle_status (chronometric.cpp).
std::vector<tool> make_chronometric_tools();

namespace {

/// The one list of all tools, in tools/list order. A tool's declaration
/// (its file) says everything else: toolset, preference defaults, role,
/// what the instructions say of it.
std::vector<tool> declared_tools(const domain::tracking_limits& limits) {
  std::vector<tool> all{
    make_time_get_current(),
    make_time_session_start(limits),
    make_time_task_start(),
    make_time_task_end(),
    make_time_session_end(),
    make_time_session_summary(),
    make_time_session_report(),
    make_time_convert(),
    make_time_calculate(),
    make_time_session_list(),
    make_time_stats(),
    make_time_tasks_edit(),
    make_time_undo(),
  };
  for (auto& t : make_chronometric_tools())
    all.push_back(std::move(t));
  all.push_back(make_time_preferences_get());
  all.push_back(make_time_preferences_set());
  return all;
}

/// "Trusted time for agents.", a sentence per toolset whose enabled tools
/// carry instructions notes (toolset::lead, then the notes by phase, then
/// in list order) and the error convention. Never a command-line flag:
/// the model reading them cannot start the server (issue 29).
std::string render_instructions(const std::vector<tool>& tools) {
  std::vector<const toolset*> sets;
  for (const auto& s : toolsets())
    sets.push_back(&s);
  std::stable_sort(sets.begin(), sets.end(),
                   [](const toolset* a, const toolset* b) {
                     return a->sentence < b->sentence;
                   });
  std::string out = "Trusted time for agents.";
  for (const auto* set : sets) {
    std::vector<const instructions_note*> notes;
    for (const auto& t : tools)
      if (t.about().toolset == set->name
          && !t.about().instructions.text.empty())
        notes.push_back(&t.about().instructions);
    if (notes.empty())
      continue;
    std::stable_sort(notes.begin(), notes.end(),
                     [](const instructions_note* a,
                        const instructions_note* b) {
                       return a->phase < b->phase;
                     });
    out += std::string{" "} + set->lead;
    for (std::size_t i = 0; i < notes.size(); ++i)
      out += (i == 0 ? "" : ", ") + notes[i]->text;
    out += ".";
  }
  out += " Failures are isError results with an error_code and a fix.";
  return out;
}

} // namespace

registry::registry(std::vector<tool> tools) : tools_(std::move(tools)) {
  instructions_ = render_instructions(tools_);
  build();
}

registry::registry(std::vector<tool> declared,
                   std::vector<std::string> toolsets)
  : toolsets_(std::move(toolsets)) {
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& t = declared[i];
    const auto& set = t.about().toolset;
    if (find_toolset(set) == nullptr)
      throw std::invalid_argument(
        "tool '" + t.name() + "' is in no toolset ('" + set
        + "'): set tool_spec::toolset to one of toolsets() (toolsets.cpp)");
    for (std::size_t j = 0; j < i; ++j)
      if (declared[j].name() == t.name())
        throw std::invalid_argument("two tools are named '" + t.name()
                                    + "'");
  }
  for (auto& t : declared) {
    const auto& set = t.about().toolset;
    bool on = std::find(toolsets_.begin(), toolsets_.end(), set)
              != toolsets_.end();
    (on ? tools_ : off_).push_back(std::move(t));
  }
  instructions_ = render_instructions(tools_);
}

registry::registry(std::function<std::vector<tool>()> make,
                   std::vector<std::string> toolsets)
  : make_(std::move(make)), toolsets_(std::move(toolsets)) {
}

void registry::build() const {
  // A throwing make_ leaves the flag unset: the next caller tries again.
  built_.call([this] { set(); });
}

void registry::set() const {
  std::vector<tool> made;
  if (make_)
    made = make_();
  const auto& tools = make_ ? made : tools_;
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
  // For clients that render MCP Apps: the same with the view links.
  for (bool modern : {false, true}) {
    json_writer ui{buf};
    ui.StartArray();
    for (const auto& t : tools)
      t.write_definition(ui, modern, true);
    ui.EndArray();
    (modern ? ui_modern_tools_json_ : ui_tools_json_) = buf.GetString();
    buf.Clear();
  }
  json_writer list{buf};
  list.StartObject();
  list.Key("tools");
  list.RawValue(tools_json_.data(), tools_json_.size(), rapidjson::kArrayType);
  list.EndObject();
  list_json_ = buf.GetString();
  for (const auto& t : tools) {
    rapidjson::Document d;
    d.Parse(t.input_schema_json().c_str());
    auto props = d.IsObject() ? d.FindMember("properties") : d.MemberEnd();
    if (!d.IsObject() || props == d.MemberEnd() || !props->value.IsObject())
      continue;
    header_params found;
    for (const auto& p : props->value.GetObject())
      if (auto h = p.value.IsObject() ? p.value.FindMember("x-mcp-header")
                                      : p.value.MemberEnd();
          p.value.IsObject() && h != p.value.MemberEnd()
          && h->value.IsString())
        found.emplace_back(p.name.GetString(), h->value.GetString());
    if (!found.empty())
      mirrored_.emplace_back(t.name(), std::move(found));
  }
  if (make_) {
    instructions_ = render_instructions(made);
    tools_ = std::move(made);
  }
}

const std::vector<tool>& registry::enabled() const {
  if (make_)
    build();
  return tools_;
}

const std::vector<tool>& registry::tools() const {
  return enabled();
}

const std::string& registry::instructions() const {
  enabled();
  return instructions_;
}

const std::string& registry::list_result_json() const {
  build();
  return list_json_;
}

const std::string& registry::tools_json(bool modern, bool ui) const {
  build();
  if (ui)
    return modern ? ui_modern_tools_json_ : ui_tools_json_;
  return modern ? modern_tools_json_ : tools_json_;
}

const registry::header_params*
registry::mirrored_params(std::string_view name) const {
  build();
  for (const auto& [tool, params] : mirrored_)
    if (tool == name)
      return &params;
  return nullptr;
}

const tool* registry::find(std::string_view name) const {
  for (const auto& t : enabled())
    if (t.name() == name)
      return &t;
  return nullptr;
}

bool registry::heavy(std::string_view name) const {
  const auto* t = find(name);
  return t != nullptr && t->about().cost == cost::heavy;
}

const tool* registry::find_role(role r) const {
  if (r == role::none)
    return nullptr;
  for (const auto& t : enabled())
    if (t.about().role == r)
      return &t;
  return nullptr;
}

const tool* registry::declared(role r) const {
  if (const auto* t = find_role(r))
    return t;
  for (const auto& t : off_)
    if (r != role::none && t.about().role == r)
      return &t;
  return nullptr;
}

std::string registry::toolset_of(std::string_view name) const {
  if (const auto* t = find(name))
    return t->about().toolset;
  for (const auto& t : off_)
    if (t.name() == name)
      return t.about().toolset;
  return {};
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
  return std::make_shared<const registry>(declared_tools(limits),
                                          std::move(*parsed));
}

} // namespace ttm::tools
