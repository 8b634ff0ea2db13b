// The server's methods: the table's registrations and the session's
// handlers beside them, so a method is added in one place. The table's
// mechanism (lookup, capabilities) is in methods.cpp.

#include "log.hpp"
#include "mcp/methods.hpp"
#include "mcp/session.hpp"
#include "protocol/mcp.hpp"
#include "protocol/modern.hpp"

#include <rapidjson/stringbuffer.h>

#include <chrono>
#include <stdexcept>

namespace ttm::mcp {

const method_table& server_methods() {
  static const method_table table = [] {
    method_table t;
    t.add([] {
      method m;
      m.name = "ping";
      m.in = eras::legacy;
      m.life = lifecycle::any_time;
      m.handle = &session::on_ping;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "initialize";
      m.in = eras::legacy;
      m.life = lifecycle::opens_session;
      m.params_error = "initialize takes an object";
      m.handle = &session::on_initialize;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "tools/call";
      m.implies = capability::tools;
      m.params_error = "tools/call takes an object";
      m.handle = &session::on_tools_call;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "tools/list";
      m.implies = capability::tools;
      m.cacheable = true;
      m.params_error = "tools/list takes an object";
      m.handle = &session::on_tools_list;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "logging/setLevel";
      m.in = eras::legacy; // 2026-07-28 asks per request (_meta logLevel)
      m.implies = capability::logging;
      m.params_error
        = "logging/setLevel takes an object with a string 'level'";
      m.handle = &session::on_set_level;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "completion/complete";
      m.implies = capability::completions;
      m.params_error = "completion/complete takes an object";
      m.handle = &session::on_complete;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "server/discover";
      m.in = eras::modern;
      m.cacheable = true;
      m.handle = &session::on_discover;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "subscriptions/listen";
      m.in = eras::modern;
      m.decode = [](const protocol::message& msg, rapidjson::Document& doc) {
        std::string_view error
          = "subscriptions/listen needs an object 'notifications'";
        auto problem = object_params(msg, doc, error);
        if (problem.empty()
            && (!doc.HasMember("notifications")
                || !doc["notifications"].IsObject()))
          problem = error;
        return problem;
      };
      m.handle = &session::on_listen;
      return m;
    }());
    return t;
  }();
  return table;
}

// -- handlers -------------------------------------------------------------------

std::string session::on_ping(const method_call& c) {
  return result_builder{c.msg.id, c.stamp}.finish();
}

std::string session::on_initialize(const method_call& c) {
  auto pv = c.params.FindMember("protocolVersion");
  if (pv == c.params.MemberEnd() || !pv->value.IsString())
    return invalid_params(c.msg.id,
                          "initialize needs a string 'protocolVersion'");
  std::string requested{pv->value.GetString(), pv->value.GetStringLength()};
  revision_ = std::string{protocol::negotiate_revision(requested)};
  era_ = protocol::era::legacy;
  if (auto ci = c.params.FindMember("clientInfo");
      ci != c.params.MemberEnd() && ci->value.IsObject()) {
    if (auto n = ci->value.FindMember("name");
        n != ci->value.MemberEnd() && n->value.IsString())
      client_name_ = n->value.GetString();
  }
  TTM_LOG(info, "mcp", "initialize from '" + client_name_ + "': requested "
                         + requested + ", negotiated " + revision_);
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  write_member(w, "protocolVersion", revision_);
  w.Key("capabilities");
  server_methods().write_capabilities(w);
  w.Key("serverInfo");
  write_server_info(w, cfg_.info);
  write_member(w, "instructions", cfg_.info.instructions);
  return b.finish();
}

std::string session::on_tools_list(const method_call& c) {
  if (auto cur = c.params.FindMember("cursor"); cur != c.params.MemberEnd()) {
    // We never hand out cursors: the whole list is one page.
    return invalid_params(
      c.msg.id, "unknown cursor "
                  + (cur->value.IsString()
                       ? protocol::json_quote(cur->value.GetString())
                       : std::string{"(not a string)"})
                  + "; tools/list has a single page");
  }
  result_builder b{c.msg.id, c.stamp};
  const auto& tools = cfg_.registry->tools_json();
  b.writer().Key("tools");
  b.writer().raw(tools, rapidjson::kArrayType);
  return b.finish();
}

std::string session::on_tools_call(const method_call& c) {
  auto name = c.params.FindMember("name");
  if (name == c.params.MemberEnd() || !name->value.IsString())
    return invalid_params(c.msg.id, "tools/call needs a string 'name'");
  std::string tool_name{name->value.GetString(),
                        name->value.GetStringLength()};
  const auto* t = cfg_.registry->find(tool_name);
  if (t == nullptr) {
    // Name the tools a client may call, so a mistyped or guessed name is
    // fixed in one step; the echoed name is clipped (it is the client's).
    std::string known;
    for (const auto& tool : cfg_.registry->tools())
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
  auto ctx = make_context(c.notes);
  // Timed only when the client asked for debug notifications.
  bool timed = mode_.level == protocol::log_level::debug;
  auto started = timed ? cfg_.clock->mono_now() : domain::mono_time{};
  auto res = t->call(args, ctx);
  if (res.status == tools::call_result::needs_slot) {
    // Finished by resume() once the supervisor answered.
    job_->paused = std::move(res);
    job_->paused_tool = std::move(tool_name);
    return {};
  }
  if (res.status == tools::call_result::needs_history) {
    // Finished once the caller's history is read (the journal answers
    // later, off this thread; --ephemeral at once).
    query_history(
      std::move(res.history),
      [this, tool_name, finish = std::move(res.resume_history)](
        const history_answer& a, std::vector<std::string>& notes) {
        const auto& msg = job_->frame.messages[job_->next];
        if (!a.error.empty())
          return tool_error_reply(
            msg, "STORAGE_UNAVAILABLE",
            "The session journal cannot be read, so no sessions were "
            "listed: "
              + a.error
              + ". time_get_current still works; retry once the server's "
                "storage is fixed (see its log).");
        auto ctx = make_context(notes);
        return call_reply(msg, tool_name, finish(a.page, ctx), notes);
      });
    return {};
  }
  if (timed && res.status == tools::call_result::ok) {
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      cfg_.clock->mono_now() - started);
    notify(c.notes, protocol::log_level::debug,
           tool_name + " answered in " + std::to_string(took.count())
             + " us");
  }
  return call_reply(c.msg, tool_name, std::move(res), c.notes);
}

std::string session::on_set_level(const method_call& c) {
  auto lv = c.params.FindMember("level");
  std::optional<protocol::log_level> level;
  if (lv != c.params.MemberEnd() && lv->value.IsString())
    level = protocol::parse_log_level(
      {lv->value.GetString(), lv->value.GetStringLength()});
  if (!level)
    return invalid_params(c.msg.id,
                          std::string{"'level' must be one of "}
                            + std::string{protocol::log_level_names});
  client_log_level_ = level;
  return result_builder{c.msg.id, c.stamp}.finish();
}

/// The server has no prompts and no resource templates, so no argument has
/// suggestions: a well-formed request gets an empty list (declaring
/// `completions` lets clients ask without failing).
std::string session::on_complete(const method_call& c) {
  const auto& params = c.params;
  const auto& id = c.msg.id;
  auto ref = params.FindMember("ref");
  if (ref == params.MemberEnd() || !ref->value.IsObject())
    return invalid_params(id, "completion/complete needs an object 'ref'");
  auto type = ref->value.FindMember("type");
  if (type == ref->value.MemberEnd() || !type->value.IsString()
      || (std::string_view{type->value.GetString()} != "ref/prompt"
          && std::string_view{type->value.GetString()} != "ref/resource"))
    return invalid_params(id, "'ref.type' must be 'ref/prompt' or "
                              "'ref/resource'");
  auto arg = params.FindMember("argument");
  if (arg == params.MemberEnd() || !arg->value.IsObject()
      || !arg->value.HasMember("name") || !arg->value["name"].IsString()
      || !arg->value.HasMember("value") || !arg->value["value"].IsString())
    return invalid_params(id, "completion/complete needs 'argument' with "
                              "string 'name' and 'value'");
  result_builder b{id, c.stamp};
  auto& w = b.writer();
  w.Key("completion");
  w.StartObject();
  w.Key("values");
  w.StartArray();
  w.EndArray();
  w.Key("total");
  w.Int(0);
  w.Key("hasMore");
  w.Bool(false);
  w.EndObject();
  return b.finish();
}

std::string session::on_discover(const method_call& c) {
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  w.Key("supportedVersions");
  w.RawValue(protocol::all_revisions_json.data(),
             protocol::all_revisions_json.size(), rapidjson::kArrayType);
  w.Key("capabilities");
  server_methods().write_capabilities(w);
  write_member(w, "instructions", cfg_.info.instructions);
  return b.finish();
}

std::string session::on_listen(const method_call& c) {
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

std::string session::requested_version(const protocol::message& msg) {
  rapidjson::Document params;
  if (!object_params(msg, params, "-").empty())
    return {};
  auto pv = params.FindMember("protocolVersion");
  if (pv == params.MemberEnd() || !pv->value.IsString())
    return {};
  return {pv->value.GetString(), pv->value.GetStringLength()};
}

} // namespace ttm::mcp
