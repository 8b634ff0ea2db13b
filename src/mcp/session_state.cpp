// The MCP session as the journal keeps it (issue 32): what the client
// negotiated at initialize, and its log level, as one JSON object, so that
// any server sharing the journal goes on with the session as if it had
// issued it.

#include "mcp/session.hpp"

#include "mcp/app_resource.hpp"

#include "protocol/json_writer.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

namespace ttm::mcp {

std::string session::state_json() const {
  rapidjson::StringBuffer buf;
  protocol::json_writer w{buf};
  w.StartObject();
  w.Key("revision");
  w.String(revision_.data(), static_cast<rapidjson::SizeType>(revision_.size()));
  w.Key("client_name");
  w.String(client_name_.data(),
           static_cast<rapidjson::SizeType>(client_name_.size()));
  if (client_log_level_) {
    auto level = protocol::to_string(*client_log_level_);
    w.Key("log_level");
    w.String(level.data(), static_cast<rapidjson::SizeType>(level.size()));
  }
  w.Key("client");
  w.RawValue(client_json_.data(), client_json_.size(), rapidjson::kObjectType);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

bool session::restore(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.data(), json.size());
  if (d.HasParseError() || !d.IsObject())
    return false;
  auto rev = d.FindMember("revision");
  if (rev == d.MemberEnd() || !rev->value.IsString()
      || rev->value.GetStringLength() == 0)
    return false;
  std::optional<protocol::log_level> level;
  if (auto lv = d.FindMember("log_level"); lv != d.MemberEnd()) {
    if (!lv->value.IsString())
      return false;
    level = protocol::parse_log_level(
      {lv->value.GetString(), lv->value.GetStringLength()});
    if (!level)
      return false;
  }
  revision_.assign(rev->value.GetString(), rev->value.GetStringLength());
  era_ = protocol::era::legacy;
  client_log_level_ = level;
  if (auto n = d.FindMember("client_name");
      n != d.MemberEnd() && n->value.IsString())
    client_name_.assign(n->value.GetString(), n->value.GetStringLength());
  if (auto c = d.FindMember("client");
      c != d.MemberEnd() && c->value.IsObject()) {
    rapidjson::StringBuffer buf;
    protocol::json_writer w{buf};
    c->value.Accept(w);
    client_json_.assign(buf.GetString(), buf.GetSize());
  }
  client_ui_ = client_json_declares_ui(client_json_);
  return true;
}

} // namespace ttm::mcp
