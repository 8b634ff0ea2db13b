#include "mcp/methods.hpp"

#include "protocol/mcp.hpp"


#include <stdexcept>

namespace ttm::mcp {

// -- the table ------------------------------------------------------------------

void method_table::add(method m) {
  for (const auto& have : methods_)
    if (have.name == m.name)
      throw std::logic_error("method registered twice: " + std::string{m.name});
  methods_.push_back(m);
}

const method* method_table::find(std::string_view name,
                                 protocol::era e) const noexcept {
  for (const auto& m : methods_)
    if (m.name == name && in_era(m.in, e))
      return &m;
  return nullptr;
}

void method_table::write_capabilities(json_writer& w) const {
  bool has[6] = {};
  for (const auto& m : methods_)
    has[static_cast<std::size_t>(m.implies)] = true;
  w.StartObject();
  for (auto c : {capability::completions, capability::logging,
                 capability::prompts, capability::resources,
                 capability::tools}) {
    if (!has[static_cast<std::size_t>(c)])
      continue;
    switch (c) {
      case capability::completions:
        w.Key("completions");
        break;
      case capability::logging:
        w.Key("logging");
        break;
      case capability::prompts:
        w.Key("prompts");
        break;
      case capability::resources:
        w.Key("resources");
        break;
      case capability::tools:
      case capability::none:
        w.Key("tools");
        break;
    }
    w.StartObject();
    // Lists are fixed while the server runs.
    if (c == capability::prompts || c == capability::resources
        || c == capability::tools) {
      w.Key("listChanged");
      w.Bool(false);
    }
    w.EndObject();
  }
  w.EndObject();
}

std::string object_params(const protocol::message& msg,
                          rapidjson::Document& doc, std::string_view error) {
  if (msg.params.empty()) {
    doc.SetObject();
    return {};
  }
  doc.Parse(msg.params.c_str(), msg.params.size());
  if (doc.HasParseError() || !doc.IsObject())
    return std::string{error};
  return {};
}

} // namespace ttm::mcp
