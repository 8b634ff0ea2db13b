#include "actors/client_state.hpp"

#include "journal/codec.hpp"
#include "journal/replay.hpp"

#include "log.hpp"
#include "protocol/modern.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>

namespace ttm::actors {

using protocol::encode_error;
using protocol::encode_result;
using protocol::json_quote;
namespace ec = protocol;

namespace {

/// Params as a document: `{}` when absent; nullopt when not an object (MCP
/// params are always objects).
std::optional<rapidjson::Document> params_object(const protocol::message& m) {
  rapidjson::Document doc;
  if (m.params.empty()) {
    doc.SetObject();
    return doc;
  }
  doc.Parse(m.params.c_str(), m.params.size());
  if (doc.HasParseError() || !doc.IsObject())
    return std::nullopt;
  return doc;
}

std::string invalid_params(const protocol::message& m, std::string text) {
  return encode_error(m.id, ec::invalid_params, "Invalid params: " + text);
}

std::string tool_call_result(const std::string& structured, bool is_error) {
  std::string out = R"({"content":[{"type":"text","text":)";
  out += json_quote(structured);
  out += R"(}],"structuredContent":)";
  out += structured;
  out += is_error ? R"(,"isError":true})" : R"(,"isError":false})";
  return out;
}

/// completion/complete. The server has no prompts and no resource
/// templates, so no argument has suggestions: a well-formed request gets an
/// empty list (declaring `completions` lets clients ask without failing).
std::string on_complete(const protocol::message& msg) {
  auto params = params_object(msg);
  if (!params)
    return invalid_params(msg, "completion/complete takes an object");
  auto ref = params->FindMember("ref");
  if (ref == params->MemberEnd() || !ref->value.IsObject())
    return invalid_params(msg, "completion/complete needs an object 'ref'");
  auto type = ref->value.FindMember("type");
  if (type == ref->value.MemberEnd() || !type->value.IsString()
      || (std::string_view{type->value.GetString()} != "ref/prompt"
          && std::string_view{type->value.GetString()} != "ref/resource"))
    return invalid_params(msg, "'ref.type' must be 'ref/prompt' or "
                               "'ref/resource'");
  auto arg = params->FindMember("argument");
  if (arg == params->MemberEnd() || !arg->value.IsObject()
      || !arg->value.HasMember("name") || !arg->value["name"].IsString()
      || !arg->value.HasMember("value") || !arg->value["value"].IsString())
    return invalid_params(msg, "completion/complete needs 'argument' with "
                               "string 'name' and 'value'");
  return encode_result(
    msg.id, R"({"completion":{"values":[],"total":0,"hasMore":false}})");
}

/// The tool list never changes while the server runs and is the same for
/// every caller: clients and shared caches may keep it for an hour.
constexpr std::string_view cache_hints
  = R"(,"ttlMs":3600000,"cacheScope":"public")";

constexpr std::string_view capabilities_json
  = R"({"completions":{},"logging":{},"tools":{"listChanged":false}})";

void append(std::vector<std::string>& to, std::vector<std::string> from) {
  if (to.empty()) {
    to = std::move(from);
    return;
  }
  to.insert(to.end(), std::make_move_iterator(from.begin()),
            std::make_move_iterator(from.end()));
}

} // namespace

client_state::client_state(client_config cfg)
  : cfg_(std::move(cfg)),
    tracker_(cfg_.limits),
    last_active_(cfg_.clock->mono_now()) {
  if (cfg_.journal) {
    tracker_.record_changes(true);
    boot_id_ = cfg_.clock->boot_id();
  }
  const auto& info = cfg_.info;
  server_info_ = R"({"name":)" + json_quote(info.name) + R"(,"title":)"
                 + json_quote(info.title) + R"(,"version":)"
                 + json_quote(info.version) + "}";
}

std::vector<std::string> client_state::take_expired() {
  auto ids = tracker_.take_expired();
  gone_.insert(gone_.end(), ids.begin(), ids.end());
  return ids;
}

std::chrono::nanoseconds client_state::idle_time() const {
  return cfg_.clock->mono_now() - last_active_;
}

rpc_step client_state::handle(const protocol::frame& in) {
  if (job_)
    throw std::logic_error("client_state::handle while a frame is paused");
  last_active_ = cfg_.clock->mono_now();
  rpc_output out;
  if (in.error_code != 0) {
    out.response = encode_error(protocol::request_id::make_null(),
                                in.error_code, in.error_message);
    return finish_step(std::move(out));
  }
  if (in.batch && revision_ != protocol::batching_revision) {
    out.response = encode_error(
      protocol::request_id::make_null(), ec::invalid_request,
      era_ == era::modern
        ? std::string{"Invalid Request: JSON-RPC batches are not allowed in "
                      "protocol revision 2026-07-28"}
      : initialized() ? "Invalid Request: JSON-RPC batches are not allowed in "
                        "protocol revision "
                          + revision_ + " (only in 2025-03-26)"
                      : std::string{"Invalid Request: JSON-RPC batches are "
                                    "not allowed before initialization"});
    return finish_step(std::move(out));
  }
  job_.emplace();
  job_->frame = in;
  return run_job();
}

rpc_step client_state::run_job() {
  auto& j = *job_;
  for (; j.next < j.frame.messages.size(); ++j.next) {
    const auto& msg = j.frame.messages[j.next];
    std::string reply;
    if (j.frame.batch && msg.kind == protocol::message::request
        && msg.method == "initialize")
      reply = encode_error(msg.id, ec::invalid_request,
                           "Invalid Request: initialize must not be part of "
                           "a batch");
    else
      reply = handle_message(msg, j.out.notifications);
    if (j.paused.resume) {
      rpc_step step;
      step.slot_for = j.paused.slot_id;
      step.expired = take_expired();
      step.ended = tracker_.take_ended();
      return step;
    }
    rpc_step step;
    if (hold_for_journal(j, std::move(reply), step))
      return step;
  }
  auto out = std::move(j.out);
  if (!j.frame.batch) {
    if (!j.replies.empty())
      out.response = std::move(j.replies.front());
  } else if (!j.replies.empty()) {
    out.response = protocol::encode_batch(j.replies);
  }
  job_.reset();
  return finish_step(std::move(out));
}

rpc_step client_state::resume(bool slot_granted) {
  if (!job_ || !job_->paused.resume)
    throw std::logic_error("client_state::resume without a paused call");
  last_active_ = cfg_.clock->mono_now();
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  auto paused = std::move(j.paused);
  j.paused = {};
  mode_ = mode_for(msg);
  std::string reply;
  try {
    auto ctx = make_context(j.out.notifications);
    reply = call_reply(msg, j.paused_tool,
                       paused.resume(slot_granted, ctx), j.out.notifications);
    if (slot_granted && tracker_.find(paused.slot_id) != nullptr)
      created_.push_back(paused.slot_id);
  } catch (const std::exception& e) {
    TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                            + ") failed: " + e.what());
    reply = encode_error(msg.id, ec::internal_error,
                         "Internal error while handling '" + msg.method
                           + "'");
  }
  rpc_step step;
  if (hold_for_journal(j, std::move(reply), step))
    return step;
  ++j.next;
  return run_job();
}

bool client_state::hold_for_journal(job& j, std::string reply,
                                    rpc_step& step) {
  auto changes = tracker_.take_changes();
  if (changes.empty()) {
    if (!reply.empty())
      j.replies.push_back(std::move(reply));
    return false;
  }
  j.held_reply = std::move(reply);
  j.held_updates = false;
  j.held_started.clear();
  for (const auto& c : changes) {
    if (c.kind != domain::change::session_expired)
      j.held_updates = true;
    if (c.kind == domain::change::session_started)
      j.held_started.push_back(c.session_id);
  }
  // Slots and ends are reported only once the journal decided: an end that
  // is undone must not make its session reclaimable.
  step.journal = to_events(std::move(changes));
  return true;
}

std::vector<storage::event>
client_state::to_events(std::vector<domain::change> changes) {
  std::vector<storage::event> out;
  out.reserve(changes.size());
  // The era of the request that made them: after a restart only a client
  // of that era takes a session over.
  const auto era = mode_.modern ? protocol::era::modern : protocol::era::legacy;
  for (const auto& c : changes)
    out.push_back(journal::to_event(c, cfg_.principal, boot_id_, era));
  return out;
}

rpc_step client_state::resume_journal(const std::string& error) {
  if (!job_ || job_->next >= job_->frame.messages.size())
    throw std::logic_error("client_state::resume_journal without a paused "
                           "message");
  auto& j = *job_;
  const auto& msg = j.frame.messages[j.next];
  auto reply = std::move(j.held_reply);
  if (error.empty() || !j.held_updates) {
    if (!error.empty())
      TTM_LOG(warning, "journal", "an expiry was not recorded (it is "
                                  "redone at the next start): " + error);
    tracker_.commit();
  } else {
    tracker_.rollback();
    // Sessions this call started are gone again: free their slots.
    for (const auto& id : j.held_started) {
      auto c = std::find(created_.begin(), created_.end(), id);
      if (c != created_.end())
        created_.erase(c);
      released_.push_back(id);
    }
    TTM_LOG(error, "journal", "request " + msg.id.json
                                + " refused, nothing changed: " + error);
    mode_ = mode_for(msg);
    reply = modern_result(
      encode_result(msg.id,
                    tool_call_result(
                      tools::encode_tool_error(
                        {"STORAGE_UNAVAILABLE",
                         "The session journal cannot record this change, so "
                         "nothing was changed: "
                           + error
                           + ". time_get_current still works; retry once "
                             "the server's storage is fixed (see its log)."}),
                      true)),
      msg);
  }
  j.held_started.clear();
  if (!reply.empty())
    j.replies.push_back(std::move(reply));
  ++j.next;
  return run_job();
}

std::vector<storage::event> client_state::close_all() {
  tracker_.close_all(domain::now_of(*cfg_.clock), "closed");
  return take_journal();
}

std::vector<storage::event> client_state::take_journal() {
  if (!tracker_.recording())
    return {};
  // Only expiry happens outside a frame, and it has nothing to undo: a
  // paused frame's undo log stays as it is.
  return to_events(tracker_.take_changes());
}

client_state::adopted
client_state::adopt(const std::vector<storage::stored_session>& sessions) {
  std::vector<std::string> problems;
  adopted out;
  out.ids = journal::replay(tracker_, sessions, *cfg_.clock, cfg_.local_zone,
                           problems);
  for (const auto& p : problems)
    TTM_LOG(error, "journal", "cannot recover " + p);
  for (const auto& id : out.ids)
    created_.push_back(id);
  out.ended = tracker_.take_ended();
  return out;
}

rpc_step client_state::finish_step(rpc_output out) {
  rpc_step step;
  step.expired = take_expired();
  append(step.expired, std::exchange(released_, {}));
  step.ended = tracker_.take_ended();
  append(out.created, std::exchange(created_, {}));
  append(out.gone, std::exchange(gone_, {}));
  step.output = std::move(out);
  return step;
}

std::vector<std::string> client_state::expire_due() {
  auto ids = tracker_.expire_due(domain::now_of(*cfg_.clock));
  for (const auto& id : ids)
    TTM_LOG(info, "tracking", "session " + id + " expired");
  gone_.insert(gone_.end(), ids.begin(), ids.end());
  return ids;
}

void client_state::evict(const std::string& session_id) {
  TTM_LOG(info, "tracking", "ended session " + session_id
                              + " dropped to make room for a new one");
  tracker_.evict(session_id);
  gone_.push_back(session_id);
}

tools::tool_context
client_state::make_context(std::vector<std::string>& notes) {
  return tools::tool_context{*cfg_.clock, cfg_.local_zone,
                             [this, &notes](protocol::log_level lvl,
                                            std::string text) {
                               notify(notes, lvl, std::move(text));
                             },
                             tracker_};
}

std::string client_state::handle_message(const protocol::message& msg,
                                         std::vector<std::string>& notes) {
  switch (msg.kind) {
    case protocol::message::invalid:
      return encode_error(msg.id, msg.error_code, msg.error_message);
    case protocol::message::malformed_notification:
      TTM_LOG(warning, "mcp", "ignored a malformed notification: "
                                + msg.error_message);
      return {};
    case protocol::message::response:
      // We never send requests to the client, so nothing waits for this.
      TTM_LOG(debug, "mcp", "ignored a response from the client, id "
                              + msg.id.json);
      return {};
    case protocol::message::notification:
      handle_notification(msg);
      return {};
    case protocol::message::request:
      mode_ = mode_for(msg);
      try {
        if (!log::enabled(log::level::debug))
          return handle_request(msg, notes);
        auto started = cfg_.clock->mono_now();
        auto reply = handle_request(msg, notes);
        auto took = std::chrono::duration_cast<std::chrono::microseconds>(
          cfg_.clock->mono_now() - started);
        log::write(log::level::debug, "mcp",
                   "request " + msg.id.json + " " + msg.method
                     + (job_->paused.resume ? " waits for a session slot after "
                                            : " answered in ")
                     + std::to_string(took.count()) + " us");
        return reply;
      } catch (const std::exception& e) {
        TTM_LOG(error, "mcp", "request " + msg.id.json + " (" + msg.method
                                + ") failed: " + e.what());
        return encode_error(msg.id, ec::internal_error,
                            "Internal error while handling '" + msg.method
                              + "'");
      }
  }
  return {};
}

std::string client_state::handle_request(const protocol::message& msg,
                                         std::vector<std::string>& notes) {
  if (mode_.modern)
    return handle_modern(msg, notes);
  const auto& m = msg.method;
  if (era_ == era::modern) {
    // This connection speaks 2026-07-28 since its first request (stdio).
    if (m == "initialize")
      return encode_error(msg.id, ec::unsupported_protocol_version,
                          "Unsupported protocol version: this connection "
                          "speaks 2026-07-28 (per-request _meta) since its "
                          "first request; initialize is not part of it",
                          protocol::unsupported_version(requested_version(msg))
                            .data_json);
    return invalid_params(msg, "this connection speaks 2026-07-28 since its "
                               "first request: every request needs "
                               "params._meta with '"
                                 + std::string{protocol::meta_key::
                                                 protocol_version}
                                 + "' and '"
                                 + std::string{protocol::meta_key::
                                                 client_capabilities}
                                 + "'");
  }
  if (m == "ping")
    return encode_result(msg.id, "{}");
  if (m == "initialize")
    return on_initialize(msg);
  if (!initialized())
    return encode_error(msg.id, ec::invalid_request,
                        "Server not initialized: the first request must be "
                        "'initialize' (got '"
                          + m + "')");
  if (m == "tools/call")
    return on_tools_call(msg, notes);
  if (m == "tools/list")
    return on_tools_list(msg);
  if (m == "logging/setLevel")
    return on_set_level(msg);
  if (m == "completion/complete")
    return on_complete(msg);
  return encode_error(msg.id, ec::method_not_found,
                      "Method not found: '" + m + "'");
}

void client_state::handle_notification(const protocol::message& msg) {
  if (msg.method == "notifications/initialized") {
    // Nothing to unlock: we send the client no requests of our own.
    TTM_LOG(debug, "mcp", "client '" + client_name_ + "' is initialized");
    return;
  }
  if (era_ == era::modern && msg.method != "notifications/cancelled") {
    TTM_LOG(debug, "mcp", "ignored notification '" + msg.method
                            + "' (not part of 2026-07-28)");
    return;
  }
  if (msg.method == "notifications/cancelled") {
    // Calls run to completion before this actor reads its next message, so a
    // cancellation that reaches us names a call already answered; the
    // transport drops replies to calls cancelled while still in flight.
    TTM_LOG(debug, "mcp", "cancellation for a request no longer running");
    return;
  }
  TTM_LOG(debug, "mcp", "ignored notification '" + msg.method + "'");
}

std::string client_state::on_initialize(const protocol::message& msg) {
  if (initialized())
    return encode_error(msg.id, ec::invalid_request,
                        "Invalid Request: this session is already "
                        "initialized (revision "
                          + revision_ + ")");
  auto params = params_object(msg);
  if (!params)
    return invalid_params(msg, "initialize takes an object");
  auto pv = params->FindMember("protocolVersion");
  if (pv == params->MemberEnd() || !pv->value.IsString())
    return invalid_params(msg,
                          "initialize needs a string 'protocolVersion'");
  std::string requested{pv->value.GetString(), pv->value.GetStringLength()};
  revision_ = std::string{protocol::negotiate_revision(requested)};
  era_ = era::legacy;
  if (auto ci = params->FindMember("clientInfo");
      ci != params->MemberEnd() && ci->value.IsObject()) {
    if (auto n = ci->value.FindMember("name");
        n != ci->value.MemberEnd() && n->value.IsString())
      client_name_ = n->value.GetString();
  }
  TTM_LOG(info, "mcp", "initialize from '" + client_name_ + "': requested "
                         + requested + ", negotiated " + revision_);
  std::string res = R"({"protocolVersion":)" + json_quote(revision_);
  res += R"(,"capabilities":)";
  res += capabilities_json;
  res += R"(,"serverInfo":)" + server_info_;
  res += R"(,"instructions":)" + json_quote(cfg_.info.instructions) + "}";
  return encode_result(msg.id, res);
}

std::string client_state::on_tools_list(const protocol::message& msg) {
  auto params = params_object(msg);
  if (!params)
    return invalid_params(msg, "tools/list takes an object");
  if (auto c = params->FindMember("cursor"); c != params->MemberEnd()) {
    // We never hand out cursors: the whole list is one page.
    return invalid_params(msg, "unknown cursor "
                                 + (c->value.IsString()
                                      ? json_quote(c->value.GetString())
                                      : std::string{"(not a string)"})
                                 + "; tools/list has a single page");
  }
  return encode_result(msg.id, cfg_.registry->list_result_json());
}

std::string client_state::on_tools_call(const protocol::message& msg,
                                        std::vector<std::string>& notes) {
  auto params = params_object(msg);
  if (!params)
    return invalid_params(msg, "tools/call takes an object");
  auto name = params->FindMember("name");
  if (name == params->MemberEnd() || !name->value.IsString())
    return invalid_params(msg, "tools/call needs a string 'name'");
  std::string tool_name{name->value.GetString(),
                        name->value.GetStringLength()};
  const auto* t = cfg_.registry->find(tool_name);
  if (t == nullptr)
    return invalid_params(msg, "unknown tool '" + tool_name + "'");
  rapidjson::Value empty{rapidjson::kObjectType};
  auto a = params->FindMember("arguments");
  const rapidjson::Value& args = a != params->MemberEnd() ? a->value : empty;
  auto ctx = make_context(notes);
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
  if (timed && res.status == tools::call_result::ok) {
    auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      cfg_.clock->mono_now() - started);
    notify(notes, protocol::log_level::debug,
           tool_name + " answered in " + std::to_string(took.count())
             + " us");
  }
  return call_reply(msg, tool_name, std::move(res), notes);
}

std::string client_state::call_reply(const protocol::message& msg,
                                     const std::string& tool_name,
                                     tools::call_result res,
                                     std::vector<std::string>& notes) {
  switch (res.status) {
    case tools::call_result::invalid_arguments:
      TTM_LOG(debug, "tools", "request " + msg.id.json + " " + tool_name
                                + ": " + res.message);
      notify(notes, protocol::log_level::warning,
             tool_name + ": invalid arguments: " + res.message);
      if (!mode_.modern
          && revision_ < protocol::tool_validation_errors_since)
        return invalid_params(msg, res.message);
      return modern_result(
        encode_result(msg.id, tool_call_result(
                                tools::encode_tool_error(
                                  {"VALIDATION_ERROR", std::move(res.message)}),
                                true)),
        msg);
    case tools::call_result::failed:
      TTM_LOG(debug, "tools", "request " + msg.id.json + " " + tool_name
                                + " failed: " + res.structured);
      notify(notes, protocol::log_level::info,
             tool_name + " failed: " + res.structured);
      return modern_result(
        encode_result(msg.id, tool_call_result(res.structured, true)), msg);
    case tools::call_result::needs_slot:
      throw std::logic_error("a resumed call asked for a second slot");
    case tools::call_result::ok:
      break;
  }
  return modern_result(
    encode_result(msg.id, tool_call_result(res.structured, false)), msg);
}

std::string client_state::on_set_level(const protocol::message& msg) {
  auto params = params_object(msg);
  if (!params)
    return invalid_params(msg, "logging/setLevel takes an object with a "
                               "string 'level'");
  auto lv = params->FindMember("level");
  std::optional<protocol::log_level> level;
  if (lv != params->MemberEnd() && lv->value.IsString())
    level = protocol::parse_log_level(
      {lv->value.GetString(), lv->value.GetStringLength()});
  if (!level)
    return invalid_params(msg, std::string{"'level' must be one of "}
                                 + std::string{protocol::log_level_names});
  client_log_level_ = level;
  return encode_result(msg.id, "{}");
}

void client_state::notify(std::vector<std::string>& notes,
                          protocol::log_level lvl, std::string text) const {
  if (!mode_.level || lvl < *mode_.level)
    return;
  std::string params = R"({"level":)";
  params += json_quote(protocol::to_string(lvl));
  params += R"(,"logger":)";
  params += json_quote(cfg_.info.name);
  params += R"(,"data":)";
  params += json_quote(text);
  params += '}';
  notes.push_back(protocol::encode_notification("notifications/message",
                                                params));
}

} // namespace ttm::actors

namespace ttm::actors {

client_state::request_mode
client_state::mode_for(const protocol::message& msg) const {
  request_mode m;
  m.modern = msg.meta.claimed && era_ != era::legacy;
  m.level = m.modern ? protocol::parse_log_level(msg.meta.log_level)
                     : client_log_level_;
  return m;
}

std::string client_state::modern_result(std::string reply,
                                        const protocol::message& msg,
                                        std::string_view extra) const {
  if (!mode_.modern || reply.empty())
    return reply;
  // encode_result's layout: PREFIX {BODY} }. Errors do not match it.
  std::string prefix = R"({"jsonrpc":"2.0","id":)";
  prefix += msg.id.json_or_null();
  prefix += R"(,"result":{)";
  if (reply.size() < prefix.size() + 2
      || reply.compare(0, prefix.size(), prefix) != 0)
    return reply;
  auto body = std::string_view{reply}.substr(
    prefix.size(), reply.size() - prefix.size() - 2);
  std::string out;
  out.reserve(reply.size() + 160 + extra.size());
  out += prefix;
  out += R"("resultType":"complete")";
  if (!body.empty()) {
    out += ',';
    out += body;
  }
  out += extra;
  out += R"(,"_meta":{)";
  out += json_quote(protocol::meta_key::server_info);
  out += ':';
  out += server_info_;
  out += "}}}";
  return out;
}

std::string client_state::handle_modern(const protocol::message& msg,
                                        std::vector<std::string>& notes) {
  if (auto r = protocol::check_modern_request(msg))
    return encode_error(msg.id, r->code, r->message, r->data_json);
  // A valid modern request decides an undecided connection (stdio).
  era_ = era::modern;
  const auto& m = msg.method;
  if (m == "tools/call")
    return on_tools_call(msg, notes); // wrapped in call_reply
  if (m == "tools/list")
    return modern_result(on_tools_list(msg), msg, cache_hints);
  if (m == "server/discover")
    return on_discover(msg);
  if (m == "completion/complete")
    return modern_result(on_complete(msg), msg);
  if (m == "subscriptions/listen")
    return on_listen(msg, notes);
  return encode_error(msg.id, ec::method_not_found,
                      "Method not found: '" + m + "'");
}

std::string client_state::on_discover(const protocol::message& msg) {
  std::string res = R"({"supportedVersions":)";
  res += protocol::all_revisions_json;
  res += R"(,"capabilities":)";
  res += capabilities_json;
  res += R"(,"instructions":)" + json_quote(cfg_.info.instructions) + "}";
  return modern_result(encode_result(msg.id, res), msg, cache_hints);
}

std::string client_state::on_listen(const protocol::message& msg,
                                    std::vector<std::string>& notes) {
  auto params = params_object(msg);
  if (!params || !params->HasMember("notifications")
      || !(*params)["notifications"].IsObject())
    return invalid_params(msg, "subscriptions/listen needs an object "
                               "'notifications'");
  // Nothing here ever changes (the tool list is fixed, there are no
  // resources): acknowledge no subscription and end the stream at once.
  std::string sub = json_quote(protocol::meta_key::subscription_id) + ":"
                    + msg.id.json;
  notes.push_back(protocol::encode_notification(
    "notifications/subscriptions/acknowledged",
    R"({"_meta":{)" + sub + R"(},"notifications":{}})"));
  return encode_result(msg.id, R"({"resultType":"complete","_meta":{)" + sub
                                 + "," + json_quote(protocol::meta_key::server_info)
                                 + ":" + server_info_ + "}}");
}

std::string client_state::requested_version(const protocol::message& msg) {
  auto params = params_object(msg);
  if (!params)
    return {};
  auto pv = params->FindMember("protocolVersion");
  if (pv == params->MemberEnd() || !pv->value.IsString())
    return {};
  return {pv->value.GetString(), pv->value.GetStringLength()};
}

} // namespace ttm::actors
