// The resource methods (issue 16 item 2): templates, reading a report
// through time_session_report, and listing the caller's sessions.
// Registered in methods.cpp with the other methods.

#include "domain/history_cursor.hpp"
#include "domain/time_format.hpp"
#include "log.hpp"
#include "mcp/app_resource.hpp"
#include "mcp/resources.hpp"
#include "mcp/handlers.hpp"
#include "mcp/methods.hpp"
#include "protocol/json_rpc.hpp"

#include <rapidjson/document.h>

namespace ttm::mcp {

namespace {

// resources/list pages: the newest sessions first, as time_session_list.
constexpr std::size_t list_page_size = 50;

// A caller's session list changes with every session it starts or ends:
// 2026-07-28 clients may keep a page this long, for themselves only.
constexpr int list_ttl_ms = 5000;
constexpr int ended_report_ttl_ms = 60000;

std::string resource_not_found(const method_context& ctx,
                               const protocol::message& msg,
                               std::string_view uri) {
  // 2025-11-25 names -32002; 2026-07-28 takes SEP-2164's -32602. Both
  // carry the URI. Another caller's session gets exactly this too.
  auto data = R"({"uri":)" + protocol::json_quote(uri) + "}";
  return protocol::encode_error(
    msg.id,
    ctx.modern() ? protocol::invalid_params : protocol::resource_not_found,
    "Resource not found: " + std::string(uri), data);
}

} // namespace

std::string on_resource_templates(method_context&, const method_call& c) {
  if (c.params.HasMember("cursor"))
    return invalid_params(c.msg.id, "resources/templates/list has a single "
                                    "page; no cursor");
  result_builder b{c.msg.id, c.stamp};
  b.writer().string("resourceTemplates");
  write_resource_templates(b.writer());
  return b.finish();
}

std::string on_resources_read(method_context& ctx, const method_call& c) {
  auto u = c.params.FindMember("uri");
  if (u == c.params.MemberEnd() || !u->value.IsString())
    return invalid_params(c.msg.id, "resources/read needs a string 'uri'");
  std::string_view uri{u->value.GetString(), u->value.GetStringLength()};
  if (uri == tools::timeline_view_uri) {
    // Only for a client that renders it; others never heard of it.
    if (!ctx.ui_apps())
      return resource_not_found(ctx, c.msg, uri);
    auto stamp = c.stamp;
    if (stamp.modern != nullptr) {
      // Fixed for the server's life, the same for every caller that may
      // read it (the gate is per request, so kept privately).
      stamp.private_ttl_ms = 3600000;
      stamp.private_scope = true;
    }
    result_builder b{c.msg.id, stamp};
    b.writer().string("contents");
    write_app_contents(b.writer());
    return b.finish();
  }
  auto ref = parse_report_uri(uri);
  if (!ref)
    return resource_not_found(ctx, c.msg, uri);
  const auto* tool = ctx.env().registry.find_role(tools::role::session_report);
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
  auto tctx = ctx.tool_context(c.notes);
  tctx.ui_view = false; // the report's text only: no view here
  auto res = tool->call(args, tctx);
  // No tracking session of the caller: the tool would look for a focus
  // session of that id (a history query), but report resources are
  // tracking sessions' (resources/list lists those): not found.
  if (res.status == tools::call_result::needs_history)
    return resource_not_found(ctx, c.msg, uri);
  rapidjson::Document out;
  out.Parse(res.structured.c_str(), res.structured.size());
  if (res.status != tools::call_result::ok || !out.IsObject()
      || !out.HasMember("report") || !out["report"].IsString()) {
    std::string code = out.IsObject() && out.HasMember("error_code")
                           && out["error_code"].IsString()
                         ? out["error_code"].GetString()
                         : "";
    if (code == "SESSION_NOT_FOUND" || code == "SESSION_EXPIRED")
      return resource_not_found(ctx, c.msg, uri);
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
  auto stamp = c.stamp;
  if (stamp.modern != nullptr) {
    // The caller's own text: an active session's report changes with
    // every call (ttlMs 0: re-read it); an ended one's holds a minute.
    bool active = out.HasMember("status") && out["status"].IsString()
                  && std::string_view{out["status"].GetString()} == "active";
    stamp.private_ttl_ms = active ? 0 : ended_report_ttl_ms;
    stamp.private_scope = true;
  }
  result_builder b{c.msg.id, stamp};
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

std::string on_resources_list(method_context& ctx, const method_call& c) {
  domain::history_filter filter;
  filter.limit = list_page_size;
  if (auto cur = c.params.FindMember("cursor");
      cur != c.params.MemberEnd() && !cur->value.IsNull()) {
    auto before = cur->value.IsString()
                    ? domain::decode_history_cursor(cur->value.GetString())
                    : std::nullopt;
    if (!before)
      return invalid_params(c.msg.id, "unknown cursor; pass the nextCursor "
                                      "of a previous resources/list "
                                      "unchanged, or none for the first "
                                      "page");
    filter.before = std::move(before);
  }
  auto id = c.msg.id;
  auto stamp = c.stamp;
  if (stamp.modern != nullptr) {
    stamp.private_ttl_ms = list_ttl_ms;
    stamp.private_scope = true;
  }
  // The view heads the first page, for a client that renders it.
  bool with_app = ctx.ui_apps() && !filter.before;
  ctx.query_history(std::move(filter), [id, stamp, with_app](
                                         const history_answer& a,
                                         std::vector<std::string>&) {
    if (!a.error.empty())
      return protocol::encode_error(
        id, protocol::internal_error,
        "Internal error: the session journal cannot be read: " + a.error);
    const auto& md = report_resource_kinds().front();
    result_builder b{id, stamp};
    auto& w = b.writer();
    w.string("resources");
    w.StartArray();
    if (with_app)
      write_app_resource(w);
    for (const auto& row : a.page.rows) {
      w.StartObject();
      write_member(w, "uri", report_uri_of(row.session_id, md));
      write_member(w, "name", "session-" + row.session_id + "-report");
      auto title = row.milestone_id;
      if (row.milestone_name)
        title += " " + *row.milestone_name;
      write_member(w, "title", title + ": execution report");
      write_member(
        w, "description",
        std::string(domain::to_string(row.status)) + " session started "
          + domain::format_iso8601_utc(row.start) + ", "
          + std::to_string(row.tasks_done) + "/"
          + std::to_string(row.tasks_total)
          + " tasks completed; also as report.csv, report.json and "
            "report.html");
      write_member(w, "mimeType", md.mime_type);
      w.EndObject();
    }
    w.EndArray();
    if (a.page.more && !a.page.rows.empty()) {
      const auto& last = a.page.rows.back();
      write_member(w, "nextCursor",
                   domain::encode_history_cursor(domain::to_ns(last.start),
                                                 last.session_id));
    }
    return b.finish();
  });
  return {};
}

} // namespace ttm::mcp
