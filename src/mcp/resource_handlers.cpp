// The session's resource methods (issue 16 item 2): templates, reading a
// report through time_session_report, and listing the caller's sessions.
// Registered in handlers.cpp with the other methods.

#include "log.hpp"
#include "mcp/resources.hpp"
#include "mcp/session.hpp"
#include "protocol/json_rpc.hpp"

#include <rapidjson/document.h>

namespace ttm::mcp {

namespace {

constexpr std::string_view report_tool = "time_session_report";

} // namespace

std::string session::resource_not_found(const protocol::message& msg,
                                        std::string_view uri) const {
  // 2025-11-25 names -32002; 2026-07-28 takes SEP-2164's -32602. Both
  // carry the URI. Another caller's session gets exactly this too.
  auto data = R"({"uri":)" + protocol::json_quote(uri) + "}";
  return protocol::encode_error(
    msg.id,
    mode_.modern ? protocol::invalid_params : protocol::resource_not_found,
    "Resource not found: " + std::string(uri), data);
}

std::string session::on_resource_templates(const method_call& c) {
  if (c.params.HasMember("cursor"))
    return invalid_params(c.msg.id, "resources/templates/list has a single "
                                    "page; no cursor");
  result_builder b{c.msg.id, c.stamp};
  b.writer().string("resourceTemplates");
  write_resource_templates(b.writer());
  return b.finish();
}

std::string session::on_resources_read(const method_call& c) {
  auto u = c.params.FindMember("uri");
  if (u == c.params.MemberEnd() || !u->value.IsString())
    return invalid_params(c.msg.id, "resources/read needs a string 'uri'");
  std::string_view uri{u->value.GetString(), u->value.GetStringLength()};
  auto ref = parse_report_uri(uri);
  if (!ref)
    return resource_not_found(c.msg, uri);
  const auto* tool = cfg_.registry->find(report_tool);
  if (tool == nullptr)
    throw std::logic_error("resources/read without time_session_report");
  rapidjson::Document args;
  args.SetObject();
  auto& a = args.GetAllocator();
  args.AddMember("session_id",
                 rapidjson::Value(ref->session_id.c_str(),
                                  static_cast<rapidjson::SizeType>(
                                    ref->session_id.size()),
                                  a),
                 a);
  args.AddMember("format",
                 rapidjson::Value(ref->kind->format.data(),
                                  static_cast<rapidjson::SizeType>(
                                    ref->kind->format.size()),
                                  a),
                 a);
  auto ctx = make_context(c.notes);
  auto res = tool->call(args, ctx);
  rapidjson::Document out;
  out.Parse(res.structured.c_str(), res.structured.size());
  if (res.status != tools::call_result::ok || !out.IsObject()
      || !out.HasMember("report") || !out["report"].IsString()) {
    std::string code = out.IsObject() && out.HasMember("error_code")
                           && out["error_code"].IsString()
                         ? out["error_code"].GetString()
                         : "";
    if (code == "SESSION_NOT_FOUND" || code == "SESSION_EXPIRED")
      return resource_not_found(c.msg, uri);
    // The journal cannot be read, or a bug: not the client's fault.
    std::string why = out.IsObject() && out.HasMember("message")
                          && out["message"].IsString()
                        ? out["message"].GetString()
                        : res.message;
    TTM_LOG(warning, "mcp", "resources/read " + std::string(uri)
                              + " failed: " + why);
    return protocol::encode_error(c.msg.id, protocol::internal_error,
                                  "Internal error: the report could not be "
                                  "made: "
                                    + why);
  }
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  w.string("contents");
  w.StartArray();
  w.StartObject();
  write_member(w, "uri", uri);
  write_member(w, "mimeType", ref->kind->mime_type);
  write_member(w, "text", {out["report"].GetString(),
                           out["report"].GetStringLength()});
  w.EndObject();
  w.EndArray();
  return b.finish();
}

} // namespace ttm::mcp
