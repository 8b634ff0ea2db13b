#include "mcp/app_resource.hpp"

#include "protocol/meta.hpp"
#include "tools/tool.hpp"

namespace ttm::mcp {

namespace {

rapidjson::Value::ConstMemberIterator member(const rapidjson::Value& v,
                                             std::string_view key) {
  return v.FindMember(rapidjson::StringRef(
    key.data(), static_cast<rapidjson::SizeType>(key.size())));
}

/// `_meta.ui` of the view: nothing may be loaded, connected to or framed
/// (empty domain lists; the host's default CSP then allows inline code
/// only), and a border from the host.
void write_ui_meta(json_writer& w) {
  w.Key("_meta");
  w.StartObject();
  w.Key("ui");
  w.StartObject();
  w.Key("csp");
  w.StartObject();
  for (const char* k : {"connectDomains", "resourceDomains"}) {
    w.Key(k);
    w.StartArray();
    w.EndArray();
  }
  w.EndObject();
  w.Key("prefersBorder");
  w.Bool(true);
  w.EndObject();
  w.EndObject();
}

} // namespace

bool declares_ui_extension(const rapidjson::Value& capabilities) {
  if (!capabilities.IsObject())
    return false;
  auto ext = member(capabilities, "extensions");
  if (ext == capabilities.MemberEnd() || !ext->value.IsObject())
    return false;
  auto ui = member(ext->value, ui_extension);
  if (ui == ext->value.MemberEnd() || !ui->value.IsObject())
    return false;
  auto types = member(ui->value, "mimeTypes");
  if (types == ui->value.MemberEnd())
    return true; // the extension without a list: its one MIME type
  if (!types->value.IsArray())
    return false;
  for (const auto& t : types->value.GetArray())
    if (t.IsString()
        && std::string_view{t.GetString(), t.GetStringLength()}
             == app_mime_type)
      return true;
  return false;
}

bool client_json_declares_ui(std::string_view client_json) {
  rapidjson::Document d;
  d.Parse(client_json.data(), client_json.size());
  if (d.HasParseError() || !d.IsObject())
    return false;
  auto caps = member(d, "capabilities");
  return caps != d.MemberEnd() && declares_ui_extension(caps->value);
}

bool request_declares_ui(const rapidjson::Value* params) {
  if (params == nullptr || !params->IsObject())
    return false;
  auto meta = member(*params, "_meta");
  if (meta == params->MemberEnd() || !meta->value.IsObject())
    return false;
  auto caps = member(meta->value, protocol::meta_key::client_capabilities);
  return caps != meta->value.MemberEnd() && declares_ui_extension(caps->value);
}

void write_app_resource(json_writer& w) {
  w.StartObject();
  write_member(w, "uri", tools::timeline_view_uri);
  write_member(w, "name", "timeline-app");
  write_member(w, "title", "Session timeline (MCP App)");
  write_member(w, "description",
               "The interactive view of time_session_summary, "
               "time_session_report and time_stats: a session's timeline "
               "(live while it runs) or the statistics as a bar chart.");
  write_member(w, "mimeType", app_mime_type);
  write_ui_meta(w);
  w.EndObject();
}

void write_app_contents(json_writer& w) {
  w.StartArray();
  w.StartObject();
  write_member(w, "uri", tools::timeline_view_uri);
  write_member(w, "mimeType", app_mime_type);
  write_member(w, "text", timeline_app_html());
  write_ui_meta(w);
  w.EndObject();
  w.EndArray();
}

} // namespace ttm::mcp
