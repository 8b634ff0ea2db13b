// The completion method: completion/complete of prompt and
// resource-template arguments.

#include "domain/ascii.hpp"
#include "domain/zone_completion.hpp"
#include "mcp/handlers.hpp"
#include "mcp/methods.hpp"
#include "mcp/prompts.hpp"
#include "mcp/resources.hpp"

#include <algorithm>

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

/// Completes prompt and resource-template arguments: `timezone` with zone
/// names (IANA, then Windows), `date` with day forms, `session_id` with the
/// caller's 100 most recent sessions (a history query: the frame pauses
/// for the journal). Other arguments get an empty list.
std::string on_complete(method_context& ctx, const method_call& c) {
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
    if (!offered(*p, ctx.env().registry))
      return invalid_params(id, not_offered(*p, ctx.env().registry));
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
    ctx.query_history(std::move(recent),
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

} // namespace ttm::mcp
