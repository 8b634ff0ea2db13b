#include "journal/codec.hpp"

#include "domain/clock.hpp"
#include "journal/codec_kinds.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttm::journal {

namespace {

using domain::change;

/// "by" when the origin names a tool, then the members of c's kind
/// (codec_kinds.cpp).
std::string payload_of(const change& c, const fields::context& ctx,
                       const origin& by) {
  rapidjson::StringBuffer buf;
  fields::writer w{buf};
  w.StartObject();
  if (!by.tool.empty()) {
    w.Key(kinds::by_key);
    w.StartObject();
    kinds::by_fields().write_fields(w, {by.tool, by.client}, ctx);
    w.EndObject();
  }
  kinds::payload_of(c.kind).write_fields(w, c, ctx);
  w.EndObject();
  return buf.GetString();
}

storage::event_kind kind_of(change::kind_t k) {
  switch (k) {
    case change::session_started:
      return storage::event_kind::session_started;
    case change::task_started:
      return storage::event_kind::task_started;
    case change::task_ended:
      return storage::event_kind::task_ended;
    case change::session_ended:
      return storage::event_kind::session_ended;
    case change::tasks_edited:
      return storage::event_kind::tasks_edited;
    case change::change_undone:
      return storage::event_kind::change_undone;
    case change::session_expired:
      break;
  }
  return storage::event_kind::session_expired;
}

} // namespace

storage::event to_event(const change& c, const std::string& principal,
                        const std::string& boot_id, protocol::era era,
                        const origin& by) {
  storage::event e;
  e.kind = kind_of(c.kind);
  e.session_id = c.session_id;
  e.principal = principal;
  if (c.kind == change::task_started)
    e.task_id = c.task.task_id;
  else if (c.kind == change::task_ended)
    e.task_id = c.task_id;
  e.at.wall_ns = domain::to_ns(c.at.wall);
  e.at.mono_ns = domain::to_ns(c.at.mono);
  e.at.boot_id = boot_id;
  e.payload = payload_of(c, {principal, era}, by);
  return e;
}

protocol::era era_of(const storage::stored_session& s) {
  if (s.events.empty())
    return protocol::era::legacy;
  rapidjson::Document d;
  d.Parse(s.events.front().payload.c_str());
  if (d.IsObject())
    if (auto i = d.FindMember(kinds::era_key);
        i != d.MemberEnd() && i->value.IsString())
      if (auto e = protocol::parse_era(i->value.GetString()))
        return *e;
  return protocol::era::legacy;
}

// -- reading payloads back: each getter reads its member of one kind's
// declaration (and nothing else of the payload)

payload::payload(const std::string& json) {
  doc_.Parse(json.data(), json.size());
  if (doc_.HasParseError() || !doc_.IsObject())
    throw bad_event{"payload is not a JSON object"};
}

domain::session_request payload::session_request() const {
  return kinds::payload_of(change::session_started)
    .read(doc_, &change::session);
}

std::string payload::zone_name() const {
  return kinds::payload_of(change::session_started)
    .read(doc_, &change::zone_name);
}

domain::task_start_request
payload::task_request(const std::string& task_id) const {
  auto req = kinds::payload_of(change::task_started).read(doc_, &change::task);
  req.task_id = task_id;
  return req;
}

domain::run_status payload::status() const {
  return kinds::payload_of(change::task_ended).read(doc_, &change::status);
}

domain::string_map payload::metadata() const {
  return kinds::payload_of(change::task_ended).read(doc_, &change::metadata);
}

std::string payload::expiry_reason() const {
  return kinds::payload_of(change::session_expired)
    .read(doc_, &change::reason);
}

std::vector<domain::task_op> payload::ops() const {
  return kinds::payload_of(change::tasks_edited).read(doc_, &change::ops);
}

domain::change_origin payload::by() const {
  auto i = doc_.FindMember(kinds::by_key);
  if (i == doc_.MemberEnd() || !i->value.IsObject())
    return {};
  return kinds::by_fields().read(i->value);
}

domain::change::kind_t payload::undid() const {
  return kinds::payload_of(change::change_undone)
    .read(doc_, &change::undone_kind);
}

std::size_t payload::op_count() const {
  auto i = doc_.FindMember(
    kinds::payload_of(change::tasks_edited).key_of(&change::ops));
  return i != doc_.MemberEnd() && i->value.IsArray() ? i->value.Size() : 0;
}

} // namespace ttm::journal
