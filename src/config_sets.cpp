// The options of issue 19 beside the option table of config.cpp (kept
// under its size): --toolsets and the config file's "preferences" object.

#include "config.hpp"

#include "tools/preferences.hpp"
#include "tools/toolsets.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttm {

std::string set_toolsets(config& c, const std::string& list) {
  std::string error;
  auto sets = tools::parse_toolsets(list, error);
  if (!sets)
    return error;
  c.toolsets = std::move(*sets);
  return {};
}

std::string set_preferences(config& c, const rapidjson::Value& obj) {
  // Checked now (a zone name is a zone name); 'local' resolves in main.
  domain::preferences scratch;
  if (auto err = tools::apply_preference_object(scratch, obj, "UTC");
      !err.empty())
    return err;
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w{buf};
  obj.Accept(w);
  c.preferences_json = buf.GetString();
  return {};
}

} // namespace ttm
