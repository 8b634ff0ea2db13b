// The server's methods: the table's registrations and the session's
// handlers beside them, so a method is added in one place. The table's
// mechanism (lookup, capabilities) is in methods.cpp.

#include "log.hpp"
#include "mcp/methods.hpp"
#include "mcp/prompts.hpp"
#include "mcp/resources.hpp"
#include "domain/ascii.hpp"
#include "domain/zone_completion.hpp"
#include "tools/toolsets.hpp"
#include "mcp/session.hpp"
#include "protocol/mcp.hpp"
#include "protocol/modern.hpp"

#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace ttm::mcp {

namespace {

// The protocol's cap on completion values per reply.
constexpr std::size_t max_completions = 100;

std::string completion_reply(const protocol::request_id& id,
                             result_stamp stamp,
                             const domain::completion_values& found) {
  result_builder b{id, stamp};
  auto& w = b.writer();
  w.string("completion");
  w.StartObject();
  w.string("values");
  w.StartArray();
  for (const auto& v : found.values)
    w.string(v);
  w.EndArray();
  w.string("total");
  w.Uint64(found.total);
  w.string("hasMore");
  w.Bool(found.total > found.values.size());
  w.EndObject();
  return b.finish();
}

// The day forms of the time grammar a `date` argument is typed as.
domain::completion_values complete_day_forms(std::string_view typed) {
  static const char* const forms[]
    = {"today",         "yesterday",     "last monday",  "last tuesday",
       "last wednesday", "last thursday", "last friday",  "last saturday",
       "last sunday"};
  domain::completion_values out;
  for (std::string_view f : forms)
    if (domain::ascii_istarts_with(f, typed))
      out.values.emplace_back(f);
  out.total = out.values.size();
  return out;
}

} // namespace

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
      m.name = "prompts/list";
      m.implies = capability::prompts;
      m.cacheable = true;
      m.params_error = "prompts/list takes an object";
      m.handle = &session::on_prompts_list;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "prompts/get";
      m.implies = capability::prompts;
      m.params_error = "prompts/get takes an object";
      m.handle = &session::on_prompts_get;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "resources/list";
      m.implies = capability::resources;
      m.params_error = "resources/list takes an object";
      m.handle = &session::on_resources_list;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "resources/templates/list";
      m.implies = capability::resources;
      m.cacheable = true;
      m.params_error = "resources/templates/list takes an object";
      m.handle = &session::on_resource_templates;
      return m;
    }());
    t.add([] {
      method m;
      m.name = "resources/read";
      m.implies = capability::resources;
      m.params_error = "resources/read takes an object";
      m.handle = &session::on_resources_read;
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
  const auto& tools = cfg_.registry->tools_json(mode_.modern);
  // One allocation for the ~60 KB list rather than a string of regrowths:
  // under backpressure hundreds of these replies wait at once.
  b.reserve(tools.size() + 512);
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
    const auto& on = cfg_.registry->toolsets();
    if (auto set = cfg_.registry->toolset_of(tool_name);
        !set.empty() && std::find(on.begin(), on.end(), set) == on.end())
      return invalid_params(
        c.msg.id, "unknown tool '" + tool_name + "': it is in the '" + set
                    + "' toolset, which this server does not enable; start "
                      "it with --toolsets including "
                    + set + " (or all)");
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
  if (!job_->touched) { // once per message: a fenced retry runs it again
    job_->touched = true;
    job_->previous_request
      = board().touch(cfg_.principal, cfg_.clock->wall_now());
  }
  auto ctx = make_context(c.notes);
  // The audit trail: the changes this call makes are its tool's.
  tracker_.set_origin({tool_name, cfg_.client_label});
  // Timed only when the client asked for debug notifications.
  bool timed = mode_.level == protocol::log_level::debug;
  auto started = timed ? cfg_.clock->mono_now() : domain::mono_time{};
  // The caller's locale and week start stand in for omitted ones.
  auto patched = with_preferences(tool_name, args);
  auto res = t->call(patched ? *patched : args, ctx);
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
  if (res.status == tools::call_result::needs_principal) {
    // Finished once the journal (or, --ephemeral, the board) ran it.
    job_->principal = std::move(res.principal);
    job_->after_principal
      = [this, tool_name, finish = std::move(res.resume_principal)](
          const domain::principal_state* st, const std::string& error,
          std::vector<std::string>& notes) {
          const auto& msg = job_->frame.messages[job_->next];
          if (st == nullptr)
            return tool_error_reply(
              msg, "STORAGE_UNAVAILABLE",
              "The journal cannot be read or written, so nothing changed: "
                + error + ". Retry once the server's storage is fixed.");
          auto ctx = make_context(notes);
          return call_reply(msg, tool_name, finish(*st, ctx), notes);
        };
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

/// Completes prompt and resource-template arguments: `timezone` with zone
/// names (IANA, then Windows), `date` with day forms, `session_id` with the
/// caller's 100 most recent sessions (a history query: the frame pauses
/// for the journal). Other arguments get an empty list.
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
  std::string_view arg_name{arg->value["name"].GetString(),
                            arg->value["name"].GetStringLength()};
  std::string_view value{arg->value["value"].GetString(),
                         arg->value["value"].GetStringLength()};
  domain::completion_values found;
  if (std::string_view{type->value.GetString()} == "ref/prompt") {
    auto pn = ref->value.FindMember("name");
    if (pn == ref->value.MemberEnd() || !pn->value.IsString())
      return invalid_params(id, "'ref.name' must name a prompt");
    const auto* p = find_prompt(
      {pn->value.GetString(), pn->value.GetStringLength()});
    if (p == nullptr)
      return invalid_params(id, "unknown prompt "
                                  + protocol::json_quote(pn->value.GetString()));
    if (!offered(*p, *cfg_.registry))
      return invalid_params(id, not_offered(*p, *cfg_.registry));
    bool has_arg = std::any_of(
      p->arguments.begin(), p->arguments.end(),
      [arg_name](const prompt_argument& a) { return a.name == arg_name; });
    if (!has_arg)
      return invalid_params(id, "prompt '" + p->name + "' has no argument "
                                  + protocol::json_quote(arg_name));
    if (arg_name == "timezone")
      found = domain::complete_zone_names(value, max_completions);
    if (arg_name == "date")
      found = complete_day_forms(value);
  } else {
    auto uri = ref->value.FindMember("uri");
    if (uri == ref->value.MemberEnd() || !uri->value.IsString()
        || !is_report_template(uri->value.GetString()))
      return invalid_params(id, "'ref.uri' must be one of the resource "
                                "templates (resources/templates/list)");
    if (arg_name != "session_id")
      return invalid_params(id, "the resource template has no argument "
                                  + protocol::json_quote(arg_name));
  }
  if (arg_name == "session_id") {
    // The caller's most recent sessions whose id starts with what is typed.
    domain::history_filter recent;
    recent.limit = max_completions;
    query_history(std::move(recent),
                  [id, stamp = c.stamp, typed = std::string(value)](
                    const history_answer& a, std::vector<std::string>&) {
                    domain::completion_values ids;
                    for (const auto& row : a.page.rows)
                      if (row.session_id.compare(0, typed.size(), typed) == 0)
                        ids.values.push_back(row.session_id);
                    ids.total = ids.values.size();
                    return completion_reply(id, stamp, ids);
                  });
    return {};
  }
  return completion_reply(id, c.stamp, found);
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

std::string session::on_prompts_list(const method_call& c) {
  if (auto cur = c.params.FindMember("cursor"); cur != c.params.MemberEnd())
    return invalid_params(c.msg.id,
                          "prompts/list has a single page; no cursor");
  result_builder b{c.msg.id, c.stamp};
  b.writer().string("prompts");
  write_prompt_list(b.writer(), *cfg_.registry);
  return b.finish();
}

std::string session::on_prompts_get(const method_call& c) {
  auto name = c.params.FindMember("name");
  if (name == c.params.MemberEnd() || !name->value.IsString())
    return invalid_params(c.msg.id, "prompts/get needs a string 'name'");
  std::string_view n{name->value.GetString(), name->value.GetStringLength()};
  const auto* p = find_prompt(n);
  if (p == nullptr) {
    std::string known;
    for (const auto& q : server_prompts())
      if (offered(q, *cfg_.registry))
        known += (known.empty() ? "" : ", ") + q.name;
    return invalid_params(c.msg.id, "unknown prompt "
                                      + protocol::json_quote(n)
                                      + "; the prompts are " + known);
  }
  if (!offered(*p, *cfg_.registry))
    return invalid_params(c.msg.id, not_offered(*p, *cfg_.registry));
  prompt_args args;
  if (auto a = c.params.FindMember("arguments");
      a != c.params.MemberEnd() && !a->value.IsNull()) {
    if (!a->value.IsObject())
      return invalid_params(c.msg.id, "'arguments' must be an object of "
                                      "strings");
    for (const auto& m : a->value.GetObject()) {
      if (!m.value.IsString())
        return invalid_params(c.msg.id,
                              "argument "
                                + protocol::json_quote(m.name.GetString())
                                + " must be a string");
      args.emplace_back(
        std::string{m.name.GetString(), m.name.GetStringLength()},
        std::string{m.value.GetString(), m.value.GetStringLength()});
    }
  }
  prompt_context ctx{cfg_.clock->wall_now(), cfg_.local_zone};
  ctx.reports
    = cfg_.registry->find_role(tools::role::session_report) != nullptr;
  auto out = render_prompt(*p, args, ctx);
  if (auto* why = std::get_if<std::string>(&out))
    return invalid_params(c.msg.id, *why);
  const auto& text = std::get<prompt_text>(out);
  result_builder b{c.msg.id, c.stamp};
  auto& w = b.writer();
  write_member(w, "description", text.description);
  w.string("messages");
  w.StartArray();
  w.StartObject();
  write_member(w, "role", "user");
  w.string("content");
  w.StartObject();
  write_member(w, "type", "text");
  write_member(w, "text", text.text);
  w.EndObject();
  w.EndObject();
  w.EndArray();
  return b.finish();
}

} // namespace ttm::mcp
