#include "journal/dump.hpp"

#include "journal/codec.hpp"
#include "journal/codec_kinds.hpp"
#include "protocol/json_writer.hpp"
#include "storage/sqlite_store.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ttm::journal {

namespace {

using writer = protocol::json_writer;
using json = rapidjson::Value;

/// `text` (a stored JSON value) parsed and written compact.
void write_json(writer& w, const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError()) { // never stored (json_valid): keep it a string
    w.string(text);
    return;
  }
  doc.Accept(static_cast<writer::base&>(w));
}

template <class F>
std::string line(F body) {
  rapidjson::StringBuffer buf;
  writer w{buf};
  w.StartObject();
  body(w);
  w.EndObject();
  return buf.GetString();
}

const json* member(const json& obj, const char* key) {
  auto i = obj.FindMember(key);
  return i == obj.MemberEnd() ? nullptr : &i->value;
}

} // namespace

std::string dump_header(std::int64_t schema_version) {
  return line([&](writer& w) {
    w.Key("format");
    w.string(dump_format);
    w.Key("schema_version");
    w.Int64(schema_version);
  });
}

std::string dump_line(const storage::event& ev) {
  return line([&](writer& w) {
    w.Key("event");
    w.string(storage::to_string(ev.kind));
    w.Key("session_id");
    w.string(ev.session_id);
    w.Key("principal");
    w.string(ev.principal);
    if (!ev.task_id.empty()) {
      w.Key("task_id");
      w.string(ev.task_id);
    }
    w.Key("wall_ns");
    w.Int64(ev.at.wall_ns);
    w.Key("mono_ns");
    w.Int64(ev.at.mono_ns);
    w.Key("boot_id");
    w.string(ev.at.boot_id);
    w.Key("payload");
    write_json(w, ev.payload);
  });
}

std::string dump_line(const storage::preference_row& p) {
  return line([&](writer& w) {
    w.Key("preference");
    w.string(p.key);
    w.Key("principal");
    w.string(p.principal);
    w.Key("value");
    write_json(w, p.value);
  });
}

std::string dump_line(const storage::focus_row& f) {
  return line([&](writer& w) {
    w.Key("focus");
    w.string(f.focus.session_id);
    w.Key("principal");
    w.string(f.principal);
    w.Key("intent");
    w.string(f.focus.intent);
    w.Key("started_wall_ns");
    w.Int64(f.focus.started_wall_ns);
    if (f.focus.ended_wall_ns) {
      w.Key("ended_wall_ns");
      w.Int64(*f.focus.ended_wall_ns);
    }
    w.Key("summary");
    w.string(f.focus.summary);
  });
}

std::string dump_line(const storage::audit_entry& a) {
  return line([&](writer& w) {
    w.Key("audit");
    w.string(a.kind);
    w.Key("wall_ns");
    w.Int64(a.wall_ns);
    w.Key("principal");
    w.string(a.principal);
    w.Key("payload");
    write_json(w, a.payload);
  });
}

bool dump_reader::fail(const std::string& why) {
  if (error_.empty())
    error_ = "line " + std::to_string(line_) + ": " + why;
  return false;
}

namespace {

/// A member's value, or why not: the reader's `fail` message.
struct fields_of {
  const json& obj;
  std::string problem;

  std::string text(const char* key, bool required = true) {
    auto* v = member(obj, key);
    if (v == nullptr || !v->IsString()) {
      if ((v != nullptr || required) && problem.empty())
        problem = std::string{"'"} + key + "' must be a string";
      return {};
    }
    return {v->GetString(), v->GetStringLength()};
  }
  std::int64_t integer(const char* key) {
    auto* v = member(obj, key);
    if (v == nullptr || !v->IsInt64()) {
      if (problem.empty())
        problem = std::string{"'"} + key + "' must be an integer";
      return 0;
    }
    return v->GetInt64();
  }
  /// A JSON value written compact; `object`: it must be an object.
  std::string value(const char* key, bool object) {
    auto* v = member(obj, key);
    if (v == nullptr || (object && !v->IsObject())) {
      if (problem.empty())
        problem = std::string{"'"} + key + "' must be "
                  + (object ? "an object" : "present");
      return {};
    }
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w{buf};
    v->Accept(w);
    return buf.GetString();
  }
};

/// Reads the payload back as replay would (throws bad_event).
void check_payload(const storage::event& ev) {
  payload p{ev.payload};
  p.by();
  switch (ev.kind) {
    case storage::event_kind::session_started:
      p.session_request();
      p.zone_name();
      break;
    case storage::event_kind::task_started:
      p.task_request(ev.task_id);
      break;
    case storage::event_kind::task_ended:
      p.status();
      p.metadata();
      break;
    case storage::event_kind::session_ended:
      break;
    case storage::event_kind::session_expired:
      p.expiry_reason();
      break;
    case storage::event_kind::tasks_edited:
      p.ops();
      break;
    case storage::event_kind::change_undone:
      p.undid();
      break;
  }
}

} // namespace

bool dump_reader::read_event(const void* raw) {
  const auto& obj = *static_cast<const json*>(raw);
  fields_of f{obj, {}};
  storage::event ev;
  auto kind_name = f.text("event");
  auto kind = storage::event_kind_from(kind_name);
  if (f.problem.empty() && !kind)
    return fail("unknown event kind '" + kind_name + "'");
  ev.kind = kind.value_or(storage::event_kind::session_started);
  ev.session_id = f.text("session_id");
  ev.principal = f.text("principal");
  ev.task_id = f.text("task_id", false);
  ev.at.wall_ns = f.integer("wall_ns");
  ev.at.mono_ns = f.integer("mono_ns");
  ev.at.boot_id = f.text("boot_id");
  ev.payload = f.value("payload", true);
  if (!f.problem.empty())
    return fail(f.problem);
  if (ev.session_id.empty())
    return fail("'session_id' is empty");
  bool task_event = ev.kind == storage::event_kind::task_started
                    || ev.kind == storage::event_kind::task_ended;
  if (task_event && ev.task_id.empty())
    return fail("a " + kind_name + " event needs a 'task_id'");
  bool start = ev.kind == storage::event_kind::session_started;
  auto seen = closed_.find(ev.session_id);
  if (start && seen != closed_.end())
    return fail("session " + ev.session_id + " starts a second time");
  if (!start && seen == closed_.end())
    return fail("session " + ev.session_id
                + " has no session_started event before this one");
  try {
    check_payload(ev);
  } catch (const bad_event& e) {
    return fail("the " + kind_name + " payload: " + e.what());
  }
  closed_[ev.session_id] = false;
  dump_.events.push_back(std::move(ev));
  return true;
}

bool dump_reader::add(const std::string& text) {
  if (!error_.empty())
    return false;
  ++line_;
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError())
    return fail(std::string{"not JSON ("}
                + rapidjson::GetParseError_En(doc.GetParseError())
                + " at column " + std::to_string(doc.GetErrorOffset() + 1)
                + ")");
  if (!doc.IsObject())
    return fail("not a JSON object");
  fields_of f{doc, {}};
  if (!header_) {
    if (f.text("format") != dump_format)
      return fail(std::string{"not an export of time-tracker-mcp (the first"
                              " line must be {\"format\":\""}
                  + dump_format + "\",\"schema_version\":N})");
    auto version = f.integer("schema_version");
    if (!f.problem.empty())
      return fail(f.problem);
    if (version < 1 || version > storage::journal_schema_version)
      return fail("schema version " + std::to_string(version)
                  + " is not one this time-tracker-mcp reads (1 to "
                  + std::to_string(storage::journal_schema_version) + ")");
    header_ = true;
    return true;
  }
  if (member(doc, "event"))
    return read_event(&doc);
  if (member(doc, "preference")) {
    storage::preference_row p;
    p.key = f.text("preference");
    p.principal = f.text("principal");
    p.value = f.value("value", false);
    if (!f.problem.empty())
      return fail(f.problem);
    dump_.preferences.push_back(std::move(p));
    return true;
  }
  if (member(doc, "focus")) {
    storage::focus_row r;
    r.focus.session_id = f.text("focus");
    r.principal = f.text("principal");
    r.focus.intent = f.text("intent");
    r.focus.started_wall_ns = f.integer("started_wall_ns");
    if (member(doc, "ended_wall_ns"))
      r.focus.ended_wall_ns = f.integer("ended_wall_ns");
    r.focus.summary = f.text("summary");
    if (!f.problem.empty())
      return fail(f.problem);
    dump_.focus.push_back(std::move(r));
    return true;
  }
  if (member(doc, "audit")) {
    storage::audit_entry a;
    a.kind = f.text("audit");
    a.wall_ns = f.integer("wall_ns");
    a.principal = f.text("principal");
    a.payload = f.value("payload", true);
    if (!f.problem.empty())
      return fail(f.problem);
    if (a.kind != kinds::refusal_kind)
      return fail("unknown audit kind '" + a.kind + "'");
    try {
      rapidjson::Document pd;
      pd.Parse(a.payload.c_str());
      kinds::refusal_fields().read(pd);
    } catch (const bad_event& e) {
      return fail("the refusal payload: " + std::string{e.what()});
    }
    dump_.audit.push_back(std::move(a));
    return true;
  }
  return fail("neither the header, an event, a preference, a focus session"
              " nor an audit record");
}

bool dump_reader::finish() {
  if (!error_.empty())
    return false;
  if (!header_) {
    line_ = std::max<std::size_t>(line_, 1);
    return fail("no header line: the input is empty");
  }
  return true;
}

} // namespace ttm::journal
