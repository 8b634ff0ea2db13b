// The MCP session's principal state: a tools/call of a zone-using tool
// without its zone first reads the caller's preferences (its zone stands in
// for 'local'); a tool's principal_wait (preferences, focus sessions) runs
// its operation. With a journal the frame pauses while the journal actor
// runs it (a zone read answered within prefs_cache_ttl of the last answer
// uses that one instead); with --ephemeral it runs at once on the
// server's in-memory board.

#include "mcp/session.hpp"

#include "domain/ascii.hpp"
#include "journal/principal.hpp"
#include "log.hpp"
#include "tools/preferences.hpp"

#include <rapidjson/document.h>

#include <stdexcept>
#include <utility>

namespace ttm::mcp {

namespace {

/// The tool's arguments that fall back to the caller's preferences (its
/// declaration: tools::preference_defaults); nullptr when none does or the
/// tool is not enabled.
const tools::preference_defaults* rule_of(const tools::registry& registry,
                                          std::string_view tool) {
  const auto* t = registry.find(tool);
  return t != nullptr ? t->preference_defaults() : nullptr;
}

} // namespace

std::optional<rapidjson::Document>
session::with_preferences(const std::string& tool,
                          const rapidjson::Value& args) const {
  const auto* rule = rule_of(*cfg_.registry, tool);
  if (!job_ || !job_->prefs_read || rule == nullptr || !args.IsObject())
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
    add("locale", job_->locale);
  if (rule->week_start)
    add("week_start", job_->week_start);
  return out;
}

principal_board& session::board() {
  if (!cfg_.board)
    cfg_.board = std::make_shared<principal_board>();
  return *cfg_.board;
}

bool session::needs_principal_zone(const protocol::message& msg) const {
  if (msg.kind != protocol::message::request || msg.method != "tools/call")
    return false;
  const auto* rule = rule_of(*cfg_.registry, msg.name);
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

std::optional<rpc_step>
session::run_principal(domain::principal_op op,
                       domain::principal_state& state) {
  // The principal is the caller's identity, never a tool's choice.
  op.principal = cfg_.principal;
  if (cfg_.journal) {
    rpc_step step;
    step.principal = journal::to_store(op);
    return step;
  }
  state = journal::from_store(board().memory().apply(journal::to_store(op)));
  return std::nullopt;
}

void session::take_zone(job& j, const domain::principal_state* state) {
  j.prefs_pending = false;
  j.zone.clear();
  auto p = tools::effective_preferences(
    cfg_.defaults, state != nullptr ? state->prefs : decltype(state->prefs){},
    cfg_.local_zone);
  j.zone = p.timezone;
  j.locale = p.locale;
  j.week_start = p.week_start;
  j.prefs_read = true;
}

std::string session::finish_principal(job& j,
                                      const domain::principal_state* state,
                                      const std::string& error) {
  const auto& msg = j.frame.messages[j.next];
  mode_ = mode_for(msg);
  auto then = std::exchange(j.after_principal, {});
  try {
    return then(state, error, j.out.notifications);
  } catch (const std::exception& e) {
    TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                            + ") failed: " + e.what());
    return encode_error(msg.id, protocol::internal_error,
                        "Internal error while handling '" + msg.method + "'");
  }
}

rpc_step session::resume_principal(const storage::principal_state& state,
                                   const std::string& error) {
  if (!job_ || (!job_->prefs_pending && !job_->after_principal))
    throw std::logic_error("session::resume_principal without a paused "
                           "operation");
  last_active_ = cfg_.clock->mono_now();
  auto& j = *job_;
  domain::principal_state st;
  if (error.empty()) {
    st = journal::from_store(state);
    // Every answer carries the principal's preferences as of its
    // transaction: after a change of its own, the cache holds the new ones.
    prefs_cache_ = prefs_cache{st.prefs, cfg_.clock->mono_now()};
  }
  if (j.prefs_pending) {
    if (!error.empty())
      TTM_LOG(warning, "mcp", "preferences unreadable, the server's zone "
                              "stands in: " + error);
    take_zone(j, error.empty() ? &st : nullptr);
    return run_job();
  }
  auto reply = finish_principal(j, error.empty() ? &st : nullptr, error);
  rpc_step step;
  if (hold_for_journal(j, std::move(reply), step))
    return step;
  next_message(j);
  return run_job();
}

} // namespace ttm::mcp
