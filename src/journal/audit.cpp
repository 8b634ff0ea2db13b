#include "journal/audit.hpp"

#include "journal/codec.hpp"
#include "journal/codec_kinds.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttm::journal {

storage::audit_entry to_audit_entry(const domain::refusal& r) {
  rapidjson::StringBuffer buf;
  fields::writer w{buf};
  w.StartObject();
  kinds::refusal_fields().write_fields(w, r, {});
  w.EndObject();
  storage::audit_entry e;
  e.kind = kinds::refusal_kind;
  e.wall_ns = domain::to_ns(r.at);
  e.principal = r.principal;
  e.payload = buf.GetString();
  return e;
}

domain::refusal refusal_of(const storage::audit_entry& e) {
  if (e.kind != kinds::refusal_kind)
    throw bad_event{"audit record of kind '" + e.kind + "', not a refusal"};
  rapidjson::Document doc;
  doc.Parse(e.payload.c_str(), e.payload.size());
  if (doc.HasParseError() || !doc.IsObject())
    throw bad_event{"the refusal's payload is not a JSON object"};
  auto r = kinds::refusal_fields().read(doc);
  r.at = domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{e.wall_ns})};
  return r;
}

by_record by_of(const storage::event& ev) {
  payload p{ev.payload};
  auto origin = p.by();
  by_record out{{}, origin.client, origin.tool};
  // The principal is a stamp of `by` (the change's maker), not a member of
  // change_origin: read it as written.
  rapidjson::Document doc;
  doc.Parse(ev.payload.c_str(), ev.payload.size());
  auto by = doc.FindMember(kinds::by_key);
  if (by != doc.MemberEnd() && by->value.IsObject()) {
    auto who = by->value.FindMember("principal");
    if (who != by->value.MemberEnd() && who->value.IsString())
      out.principal = who->value.GetString();
  }
  return out;
}

} // namespace ttm::journal
