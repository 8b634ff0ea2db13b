#include "mcp/principal_prefs.hpp"

#include "domain/ascii.hpp"
#include "tools/preferences.hpp"

namespace ttm::mcp {

namespace {

/// The tool's arguments that fall back to the caller's preferences (its
/// declaration: tools::preference_defaults); nullptr when none does.
const tools::preference_defaults* rule_of(const tools::tool* tool) {
  return tool != nullptr ? tool->preference_defaults() : nullptr;
}

} // namespace

bool principal_prefs::needs_zone(const protocol::message& msg,
                                 const tools::registry& registry) {
  if (msg.kind != protocol::message::request || msg.method != "tools/call")
    return false;
  const auto* rule = rule_of(registry.find(msg.name));
  if (rule == nullptr)
    return false;
  rapidjson::Document own;
  const rapidjson::Value* params = msg.params_value.get();
  if (params == nullptr) {
    own.Parse(msg.params.data(), msg.params.size());
    if (own.HasParseError())
      return false;
    params = &own;
  }
  if (!params->IsObject())
    return false;
  auto args = params->FindMember("arguments");
  if (args == params->MemberEnd() || !args->value.IsObject())
    return rule->omitted_is_local;
  auto zone = args->value.FindMember(rule->zone_arg);
  if (zone == args->value.MemberEnd())
    return rule->omitted_is_local;
  return zone->value.IsString()
         && domain::ascii_iequals(
           {zone->value.GetString(), zone->value.GetStringLength()}, "local");
}

const pref_entries* principal_prefs::cached(domain::mono_time now) const {
  if (cache_ && now - cache_->at < prefs_cache_ttl)
    return &cache_->prefs;
  return nullptr;
}

void principal_prefs::remember(pref_entries prefs, domain::mono_time now) {
  cache_ = cache{std::move(prefs), now};
}

void principal_prefs::take(const domain::preferences& defaults,
                           const pref_entries* prefs,
                           const std::string& local_zone) {
  auto p = tools::effective_preferences(
    defaults, prefs != nullptr ? *prefs : pref_entries{}, local_zone);
  zone_ = p.timezone;
  locale_ = p.locale;
  week_start_ = p.week_start;
  read_ = true;
}

void principal_prefs::clear() {
  read_ = false;
  zone_.clear();
}

std::optional<rapidjson::Document>
principal_prefs::with_preferences(const tools::tool& tool,
                                  const rapidjson::Value& args) const {
  const auto* rule = rule_of(&tool);
  if (!read_ || rule == nullptr || !args.IsObject())
    return std::nullopt;
  std::optional<rapidjson::Document> out;
  auto add = [&](const char* key, const std::string& value) {
    if (args.HasMember(key))
      return;
    if (!out) {
      out.emplace();
      out->CopyFrom(args, out->GetAllocator());
    }
    out->AddMember(rapidjson::Value{key, out->GetAllocator()},
                   rapidjson::Value{value.c_str(),
                                    static_cast<rapidjson::SizeType>(
                                      value.size()),
                                    out->GetAllocator()},
                   out->GetAllocator());
  };
  if (rule->locale)
    add("locale", locale_);
  if (rule->week_start)
    add("week_start", week_start_);
  return out;
}

} // namespace ttm::mcp
