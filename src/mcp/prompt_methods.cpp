// The prompt methods: prompts/list and prompts/get (the prompts
// themselves are in prompts.cpp).

#include "mcp/handlers.hpp"
#include "mcp/methods.hpp"
#include "mcp/prompts.hpp"

namespace ttm::mcp {

std::string on_prompts_list(method_context& context, const method_call& c) {
  if (auto cur = c.params.FindMember("cursor"); cur != c.params.MemberEnd())
    return invalid_params(c.msg.id,
                          "prompts/list has a single page; no cursor");
  result_builder b{c.msg.id, c.stamp};
  b.writer().string("prompts");
  write_prompt_list(b.writer(), context.env().registry);
  return b.finish();
}

std::string on_prompts_get(method_context& context, const method_call& c) {
  auto name = c.params.FindMember("name");
  if (name == c.params.MemberEnd() || !name->value.IsString())
    return invalid_params(c.msg.id, "prompts/get needs a string 'name'");
  std::string_view n{name->value.GetString(), name->value.GetStringLength()};
  const auto* p = find_prompt(n);
  if (p == nullptr) {
    std::string known;
    for (const auto& q : server_prompts())
      if (offered(q, context.env().registry))
        known += (known.empty() ? "" : ", ") + q.name;
    return invalid_params(c.msg.id, "unknown prompt "
                                      + protocol::json_quote(n)
                                      + "; the prompts are " + known);
  }
  if (!offered(*p, context.env().registry))
    return invalid_params(c.msg.id, not_offered(*p, context.env().registry));
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
  const auto env = context.env();
  prompt_context ctx{env.clock.wall_now(), env.local_zone};
  ctx.reports = env.registry.find_role(tools::role::session_report) != nullptr;
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
