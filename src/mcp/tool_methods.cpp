// The tool methods: tools/list and tools/call, and the tools/call reply of
// a finished call (also for calls the session resumes after a pause).

#include "log.hpp"
#include "mcp/app_resource.hpp"
#include "mcp/handlers.hpp"
#include "mcp/methods.hpp"
#include "protocol/mcp.hpp"
#include "tools/toolsets.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ttm::mcp {

std::string on_tools_list(method_context& ctx, const method_call& c) {
  if (auto cur = c.params.FindMember("cursor"); cur != c.params.MemberEnd()) {
    // We never hand out cursors: the whole list is one page.
    return invalid_params(
      c.msg.id, "unknown cursor "
                  + (cur->value.IsString()
                       ? protocol::json_quote(cur->value.GetString())
                       : std::string{"(not a string)"})
                  + "; tools/list has a single page");
  }
  auto stamp = c.stamp;
  if (ctx.ui_apps() && stamp.modern != nullptr) {
    // With the view links the list is no longer every caller's: kept as
    // long, but by this caller only.
    stamp.cacheable = false;
    stamp.private_scope = true;
    stamp.private_ttl_ms = 3600000;
  }
  result_builder b{c.msg.id, stamp};
  const auto& tools
    = ctx.env().registry.tools_json(ctx.modern(), ctx.ui_apps());
  // One allocation for the ~60 KB list rather than a string of regrowths:
  // under backpressure hundreds of these replies wait at once.
  b.reserve(tools.size() + 512);
  b.writer().Key("tools");
  b.writer().raw(tools, rapidjson::kArrayType);
  return b.finish();
}

std::string on_tools_call(method_context& ctx, const method_call& c) {
  auto name = c.params.FindMember("name");
  if (name == c.params.MemberEnd() || !name->value.IsString())
    return invalid_params(c.msg.id, "tools/call needs a string 'name'");
  std::string tool_name{name->value.GetString(),
                        name->value.GetStringLength()};
  const auto env = ctx.env();
  const auto* t = env.registry.find(tool_name);
  if (t == nullptr) {
    const auto& on = env.registry.toolsets();
    if (auto set = env.registry.toolset_of(tool_name);
        !set.empty() && std::find(on.begin(), on.end(), set) == on.end())
      return invalid_params(
        c.msg.id, "unknown tool '" + tool_name + "': it is in the '" + set
                    + "' toolset, which this server does not enable; start "
                      "it with --toolsets including "
                    + set + " (or all)");
    // Name the tools a client may call, so a mistyped or guessed name is
    // fixed in one step; the echoed name is clipped (it is the client's).
    std::string known;
    for (const auto& tool : env.registry.tools())
      known += (known.empty() ? "" : ", ") + tool.name();
    if (tool_name.size() > 64) {
      std::size_t n = 64; // never inside a UTF-8 sequence
      while (n > 0
             && (static_cast<unsigned char>(tool_name[n]) & 0xC0) == 0x80)
        --n;
      tool_name = tool_name.substr(0, n) + "...";
    }
    return invalid_params(c.msg.id, "unknown tool '" + tool_name
                                      + "'; the available tools are: "
                                      + known);
  }
  rapidjson::Value empty{rapidjson::kObjectType};
  auto a = c.params.FindMember("arguments");
  const rapidjson::Value& args = a != c.params.MemberEnd() ? a->value : empty;
  // The caller's activity, and the audit trail: the changes this call
  // makes are its tool's.
  ctx.begin_call(tool_name);
  auto tctx = ctx.tool_context(c.notes);
  // Timed only when the client asked for debug notifications.
  bool timed = ctx.log_level() == protocol::log_level::debug;
  auto started = timed ? env.clock.mono_now() : domain::mono_time{};
  // The caller's locale and week start stand in for omitted ones.
  auto patched = ctx.with_preferences(*t, args);
  auto res = t->call(patched ? *patched : args, tctx);
  if (res.status == tools::call_result::needs_slot) {
    // Finished by the session's resume() once the supervisor answered.
    ctx.wait_for_slot(std::move(res), std::move(tool_name));
    return {};
  }
  // A continuation runs while the frame still holds this message.
  const protocol::message* msg = &c.msg;
  if (res.status == tools::call_result::needs_history) {
    // Finished once the caller's history is read (the journal answers
    // later, off this thread; --ephemeral at once).
    ctx.query_history(
      std::move(res.history),
      [&ctx, msg, tool_name, finish = std::move(res.resume_history)](
        const history_answer& a, std::vector<std::string>& notes) {
        if (!a.error.empty())
          return tool_error_reply(
            *msg, request_stamp(ctx), "STORAGE_UNAVAILABLE",
            "The session journal cannot be read, so no sessions were "
            "listed: "
              + a.error
              + ". time_get_current still works; retry once the server's "
                "storage is fixed (see its log).");
        auto tctx = ctx.tool_context(notes);
        return call_reply(ctx, *msg, tool_name, finish(a.page, tctx), notes);
      });
    return {};
  }
  if (res.status == tools::call_result::needs_principal) {
    // Finished once the journal (or, --ephemeral, the board) ran it.
    ctx.run_principal(
      std::move(res.principal),
      [&ctx, msg, tool_name, finish = std::move(res.resume_principal)](
        const domain::principal_state* st, const std::string& error,
        std::vector<std::string>& notes) {
        if (st == nullptr)
          return tool_error_reply(
            *msg, request_stamp(ctx), "STORAGE_UNAVAILABLE",
            "The journal cannot be read or written, so nothing changed: "
              + error + ". Retry once the server's storage is fixed.");
        auto tctx = ctx.tool_context(notes);
        return call_reply(ctx, *msg, tool_name, finish(*st, tctx), notes);
      });
    return {};
  }
  if (timed && res.status == tools::call_result::ok) {
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      env.clock.mono_now() - started);
    ctx.notify(c.notes, protocol::log_level::debug,
               tool_name + " answered in " + std::to_string(took.count())
                 + " us");
  }
  return call_reply(ctx, c.msg, tool_name, std::move(res), c.notes);
}

std::string call_reply(const method_context& ctx, const protocol::message& msg,
                       const std::string& tool_name, tools::call_result res,
                       std::vector<std::string>& notes) {
  switch (res.status) {
    case tools::call_result::invalid_arguments:
      TTM_LOG(debug, "tools", "request " + msg.id.json + " " + tool_name
                                + ": " + res.message);
      ctx.notify(notes, protocol::log_level::warning,
                 tool_name + ": invalid arguments: " + res.message);
      if (!ctx.modern()
          && ctx.revision() < protocol::tool_validation_errors_since)
        return invalid_params(msg.id, res.message);
      res.structured = tools::encode_tool_error(
        {"VALIDATION_ERROR", std::move(res.message)});
      break;
    case tools::call_result::failed:
      // Not the message: it may quote the caller's values (names, notes).
      TTM_LOG(debug, "tools", "request " + msg.id.json + " " + tool_name
                                + " failed");
      ctx.notify(notes, protocol::log_level::info,
                 tool_name + " failed: " + res.structured);
      break;
    case tools::call_result::needs_slot:
      throw std::logic_error("a resumed call asked for a second slot");
    case tools::call_result::needs_history:
    case tools::call_result::needs_principal:
      throw std::logic_error("a resumed call asked for a second query");
    case tools::call_result::ok:
      break;
  }
  if (res.wrap_for_legacy && res.status == tools::call_result::ok
      && !ctx.modern()) // see tools::nullable_result
    res.structured = "{\"result\":" + res.structured + "}";
  const auto stamp = request_stamp(ctx);
  result_builder b{msg.id, stamp};
  // The result goes out twice (text, escaped, and structuredContent).
  b.reserve(2 * res.structured.size() + res.structured.size() / 4 + 256);
  write_tool_call(b.writer(), res.structured,
                  res.status != tools::call_result::ok, stamp.trace);
  if (res.view_svg.empty() || !ctx.ui_apps())
    return b.finish();
  // The view's SVG, for the app only (docs/app.md): in `_meta`, which the
  // model does not read; 2026-07-28 results have a `_meta` already.
  auto svg = protocol::json_quote(res.view_svg);
  if (stamp.modern != nullptr)
    return b.finish(view_svg_meta_key, svg);
  auto& w = b.writer();
  w.Key("_meta");
  w.StartObject();
  w.Key(view_svg_meta_key.data(),
        static_cast<rapidjson::SizeType>(view_svg_meta_key.size()));
  w.RawValue(svg.data(), svg.size(), rapidjson::kStringType);
  w.EndObject();
  return b.finish();
}

std::string tool_error_reply(const protocol::message& msg, result_stamp stamp,
                             const std::string& code,
                             const std::string& text,
                             const std::string& limit) {
  result_builder b{msg.id, stamp};
  tools::tool_error err{code, text};
  if (code == "LIMIT_REACHED")
    err.limit = limit;
  write_tool_call(b.writer(), tools::encode_tool_error(err), true,
                  stamp.trace);
  return b.finish();
}

} // namespace ttm::mcp
