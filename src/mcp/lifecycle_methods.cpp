// The lifecycle methods: initialize, ping and logging/setLevel (2025 era),
// server/discover and subscriptions/listen (2026-07-28).

#include "log.hpp"
#include "mcp/handlers.hpp"
#include "mcp/methods.hpp"
#include "protocol/mcp.hpp"
#include "protocol/meta.hpp"

#include <rapidjson/stringbuffer.h>

namespace ttm::mcp {

std::string on_ping(method_context&, const method_call& c) {
  return result_builder{c.msg.id, c.stamp}.finish();
}

std::string on_initialize(method_context& ctx, const method_call& c) {
  auto pv = c.params.FindMember("protocolVersion");
  if (pv == c.params.MemberEnd() || !pv->value.IsString())
    return invalid_params(c.msg.id,
                          "initialize needs a string 'protocolVersion'");
  std::string requested{pv->value.GetString(), pv->value.GetStringLength()};
  std::string revision{protocol::negotiate_revision(requested)};
  std::string client_name;
  if (auto ci = c.params.FindMember("clientInfo");
      ci != c.params.MemberEnd() && ci->value.IsObject()) {
    if (auto n = ci->value.FindMember("name");
        n != ci->value.MemberEnd() && n->value.IsString())
      client_name = n->value.GetString();
  }
  // What the client said of itself, kept with the MCP session.
  std::string client_json;
  {
    rapidjson::StringBuffer buf;
    json_writer w{buf};
    w.StartObject();
    for (const char* key : {"clientInfo", "capabilities"})
      if (auto m = c.params.FindMember(key);
          m != c.params.MemberEnd() && m->value.IsObject()) {
        w.Key(key);
        m->value.Accept(w);
      }
    w.EndObject();
    client_json.assign(buf.GetString(), buf.GetSize());
  }
  TTM_LOG(info, "mcp", "initialize from '" + client_name + "': requested "
                         + requested + ", negotiated " + revision);
  ctx.open(revision, std::move(client_name), std::move(client_json));
  const auto& info = ctx.env().info;
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  write_member(w, "protocolVersion", revision);
  w.Key("capabilities");
  server_methods().write_capabilities(w);
  w.Key("serverInfo");
  write_server_info(w, info);
  write_member(w, "instructions", info.instructions);
  return b.finish();
}

std::string on_set_level(method_context& ctx, const method_call& c) {
  auto lv = c.params.FindMember("level");
  std::optional<protocol::log_level> level;
  if (lv != c.params.MemberEnd() && lv->value.IsString())
    level = protocol::parse_log_level(
      {lv->value.GetString(), lv->value.GetStringLength()});
  if (!level)
    return invalid_params(c.msg.id,
                          std::string{"'level' must be one of "}
                            + std::string{protocol::log_level_names});
  ctx.set_log_level(*level);
  return result_builder{c.msg.id, c.stamp}.finish();
}

std::string on_discover(method_context& ctx, const method_call& c) {
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  w.Key("supportedVersions");
  w.RawValue(protocol::all_revisions_json.data(),
             protocol::all_revisions_json.size(), rapidjson::kArrayType);
  w.Key("capabilities");
  server_methods().write_capabilities(w);
  write_member(w, "instructions", ctx.env().info.instructions);
  return b.finish();
}

std::string on_listen(method_context&, const method_call& c) {
  // Nothing here ever changes (the tool list is fixed, there are no
  // resources): acknowledge no subscription and end the stream at once.
  const auto& id = c.msg.id.json;
  const auto sub_key = protocol::meta_key::subscription_id;
  {
    rapidjson::StringBuffer buf;
    json_writer w{buf};
    w.StartObject();
    write_member(w, "jsonrpc", "2.0");
    write_member(w, "method", "notifications/subscriptions/acknowledged");
    w.Key("params");
    w.StartObject();
    w.Key("_meta");
    w.StartObject();
    w.Key(sub_key.data(), static_cast<rapidjson::SizeType>(sub_key.size()));
    w.RawValue(id.data(), id.size(), rapidjson::kNumberType);
    w.EndObject();
    w.Key("notifications");
    w.StartObject();
    w.EndObject();
    w.EndObject();
    w.EndObject();
    c.notes.emplace_back(buf.GetString(), buf.GetSize());
  }
  return result_builder{c.msg.id, c.stamp}.finish(sub_key, id);
}

} // namespace ttm::mcp
