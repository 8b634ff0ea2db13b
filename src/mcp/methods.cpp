#include "mcp/methods.hpp"

#include "mcp/handlers.hpp"
#include "protocol/mcp.hpp"

#include <stdexcept>

namespace ttm::mcp {

// -- the server's methods ---------------------------------------------------------

namespace {

std::string decode_listen(const protocol::message& msg,
                          rapidjson::Document& doc) {
  std::string_view error
    = "subscriptions/listen needs an object 'notifications'";
  auto problem = object_params(msg, doc, error);
  if (problem.empty()
      && (!doc.HasMember("notifications") || !doc["notifications"].IsObject()))
    problem = error;
  return problem;
}

using cap = capability;
using life = lifecycle;
constexpr bool cached = true;

} // namespace

const method_table& server_methods() {
  // 2026-07-28 drops ping, initialize and logging/setLevel (a log level is
  // asked per request, _meta logLevel); server/discover and
  // subscriptions/listen are its own.
  static const method_table table({
    // name, eras, lifecycle, capability, cacheable,
    //   params error (empty: params not read), decoder, handler
    {"ping", eras::legacy, life::any_time, cap::none, false, {}, nullptr,
     &on_ping},
    {"initialize", eras::legacy, life::opens_session, cap::none, false,
     "initialize takes an object", nullptr, &on_initialize},
    {"tools/call", eras::both, life::after_initialize, cap::tools, false,
     "tools/call takes an object", nullptr, &on_tools_call},
    {"tools/list", eras::both, life::after_initialize, cap::tools, cached,
     "tools/list takes an object", nullptr, &on_tools_list},
    {"logging/setLevel", eras::legacy, life::after_initialize, cap::logging,
     false, "logging/setLevel takes an object with a string 'level'",
     nullptr, &on_set_level},
    {"prompts/list", eras::both, life::after_initialize, cap::prompts, cached,
     "prompts/list takes an object", nullptr, &on_prompts_list},
    {"prompts/get", eras::both, life::after_initialize, cap::prompts, false,
     "prompts/get takes an object", nullptr, &on_prompts_get},
    {"resources/list", eras::both, life::after_initialize, cap::resources,
     false, "resources/list takes an object", nullptr, &on_resources_list},
    {"resources/templates/list", eras::both, life::after_initialize,
     cap::resources, cached, "resources/templates/list takes an object",
     nullptr, &on_resource_templates},
    {"resources/read", eras::both, life::after_initialize, cap::resources,
     false, "resources/read takes an object", nullptr, &on_resources_read},
    {"completion/complete", eras::both, life::after_initialize,
     cap::completions, false, "completion/complete takes an object", nullptr,
     &on_complete},
    {"server/discover", eras::modern, life::after_initialize, cap::none,
     cached, {}, nullptr, &on_discover},
    {"subscriptions/listen", eras::modern, life::after_initialize, cap::none,
     false, {}, &decode_listen, &on_listen},
  });
  return table;
}

// -- the table ------------------------------------------------------------------

method_table::method_table(std::initializer_list<method> methods) {
  for (const auto& m : methods)
    add(m);
}

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
