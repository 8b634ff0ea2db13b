// load_config: the mode, then the config file, the environment and the
// command line (later sources win), each option set through its row of the
// option table (config.cpp).

#include "config.hpp"

#include "config_parts.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <fstream>
#include <sstream>

namespace ttm {

namespace {

using config_detail::option;
using config_detail::options;

std::string apply_file(config& c, const std::string& path) {
  std::ifstream in{path};
  if (!in)
    return "cannot read config file '" + path + "'";
  std::stringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError())
    return "config file '" + path + "': "
           + rapidjson::GetParseError_En(doc.GetParseError()) + " at byte "
           + std::to_string(doc.GetErrorOffset());
  if (!doc.IsObject())
    return "config file '" + path + "' must hold a JSON object";
  for (const auto& m : doc.GetObject()) {
    std::string key = m.name.GetString();
    if (key == "preferences") { // an object, unlike every option
      if (auto err = set_preferences(c, m.value); !err.empty())
        return "config file '" + path + "', 'preferences': " + err;
      continue;
    }
    const option* opt = nullptr;
    for (const auto& o : options())
      if (key == o.key)
        opt = &o;
    if (opt == nullptr)
      return "config file '" + path + "': unknown key '" + key + "'";
    std::string value;
    if (m.value.IsArray() && std::string{opt->arg} == "LIST") {
      // A list option as a JSON array too: ["time", "history"].
      for (const auto& item : m.value.GetArray()) {
        if (!item.IsString())
          return "config file '" + path + "': '" + key
                 + "' must be a comma-separated string or an array of "
                   "strings";
        value += (value.empty() ? "" : ",") + std::string{item.GetString()};
      }
    } else if (m.value.IsString())
      value = m.value.GetString();
    else if (m.value.IsBool())
      value = m.value.GetBool() ? "true" : "false";
    else if (m.value.IsUint64())
      value = std::to_string(m.value.GetUint64());
    else
      return "config file '" + path + "': '" + key
             + "' must be a string, a boolean or a non-negative integer";
    if (auto err = opt->set(c, value); !err.empty())
      return "config file '" + path + "', '" + key + "': " + err;
  }
  return {};
}

} // namespace

config_result
load_config(const std::vector<std::string>& args,
            const std::function<const char*(const char*)>& getenv) {
  config_result res;
  auto fail = [&](std::string text) {
    res.cfg.reset();
    res.exit_code = 2;
    res.text = std::move(text) + "\nRun 'time-tracker-mcp --help' for usage.";
    res.text_is_error = true;
    return res;
  };
  config c;
  // Pass 1: mode, --help/--version and the config file's name.
  std::vector<std::pair<const option*, std::string>> cli;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      res.text = usage();
      return res;
    }
    if (a == "--help-markdown") {
      res.text = usage_markdown();
      return res;
    }
    if (a == "--help-man") {
      res.text = usage_man();
      return res;
    }
    if (a == "--version") {
      res.text = std::string{"time-tracker-mcp "} + TTM_VERSION + "\n";
      return res;
    }
    if (a.rfind("--", 0) == 0) {
      auto eq = a.find('=');
      std::string flag = a.substr(0, eq);
      const option* opt = nullptr;
      for (const auto& o : options())
        if (flag == o.flag)
          opt = &o;
      if (opt == nullptr && flag != "--config")
        return fail("unknown option '" + flag + "'");
      std::string value;
      if (eq != std::string::npos)
        value = a.substr(eq + 1);
      else if (opt != nullptr && *opt->arg == '\0')
        value = "true"; // a switch: --ephemeral
      else if (i + 1 < args.size())
        value = args[++i];
      else
        return fail("option " + flag + " needs a value");
      if (opt == nullptr)
        c.config_file = value;
      else
        cli.emplace_back(opt, value);
      continue;
    }
    if (!c.mode.empty())
      return fail("unexpected argument '" + a + "'");
    c.mode = a;
  }
  if (c.mode.empty())
    return fail("missing mode: use 'time-tracker-mcp stdio' or "
                "'time-tracker-mcp http'");
  if (c.mode != "stdio" && c.mode != "http")
    return fail("unknown mode '" + c.mode
                + "' (available: stdio, http; admin commands: sessions,"
                  " audit, check, backup, export, import)");
  // Pass 2: file, then environment, then command line.
  if (c.config_file.empty())
    if (const char* f = getenv("TIME_TRACKER_MCP_CONFIG"); f && *f)
      c.config_file = f;
  if (!c.config_file.empty())
    if (auto err = apply_file(c, c.config_file); !err.empty())
      return fail(err);
  for (const auto& o : options())
    if (const char* v = getenv(o.env); v != nullptr && *v != '\0')
      if (auto err = o.set(c, v); !err.empty())
        return fail(std::string{o.env} + ": " + err);
  for (const auto& [opt, value] : cli)
    if (auto err = opt->set(c, value); !err.empty())
      return fail(std::string{opt->flag} + ": " + err);
  if (auto err = config_detail::resolve(c, getenv); !err.empty())
    return fail(err);
  res.cfg = std::move(c);
  return res;
}

} // namespace ttm
