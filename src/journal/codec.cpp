#include "journal/codec.hpp"

#include "domain/clock.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <vector>

namespace ttm::journal {

namespace {

using domain::change;
using writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_string(writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void write_opt(writer& w, const char* key, const std::optional<std::string>& v) {
  if (!v)
    return;
  w.Key(key);
  write_string(w, *v);
}

void write_map(writer& w, const char* key, const domain::string_map& m) {
  w.Key(key);
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    write_string(w, v);
  }
  w.EndObject();
}

void write_list(writer& w, const char* key, const std::vector<std::string>& l) {
  w.Key(key);
  w.StartArray();
  for (const auto& x : l)
    write_string(w, x);
  w.EndArray();
}

std::string payload_of(const change& c, protocol::era era,
                       const std::string& principal, const origin& by) {
  rapidjson::StringBuffer buf;
  writer w{buf};
  w.StartObject();
  if (!by.tool.empty()) {
    w.Key("by");
    w.StartObject();
    w.Key("principal");
    write_string(w, principal);
    w.Key("client");
    write_string(w, by.client);
    w.Key("tool");
    write_string(w, by.tool);
    w.EndObject();
  }
  switch (c.kind) {
    case change::session_started:
      w.Key("era");
      write_string(w, std::string{protocol::to_string(era)});
      w.Key("milestone_id");
      write_string(w, c.session.milestone_id);
      write_opt(w, "milestone_name", c.session.milestone_name);
      write_list(w, "task_ids", c.session.task_ids);
      write_map(w, "metadata", c.session.metadata);
      write_list(w, "tags", c.session.tags);
      // Since issue 20; absent in older journals and when not given.
      write_opt(w, "idempotency_key", c.session.idempotency_key);
      // Since issue 17; absent when none was given.
      if (!c.session.estimates.empty()) {
        w.Key("estimates_ms");
        w.StartObject();
        for (const auto& [task, ms] : c.session.estimates) {
          w.Key(task.data(), static_cast<rapidjson::SizeType>(task.size()));
          w.Int64(ms.count());
        }
        w.EndObject();
      }
      w.Key("timezone");
      write_string(w, c.zone_name);
      break;
    case change::task_started:
      write_opt(w, "task_name", c.task.task_name);
      write_opt(w, "external_task_id", c.task.external_task_id);
      write_opt(w, "work_item_id", c.task.work_item_id);
      write_map(w, "metadata", c.task.metadata);
      break;
    case change::task_ended:
      w.Key("status");
      w.String(to_string(c.status));
      write_map(w, "metadata", c.metadata);
      break;
    case change::session_ended:
      break;
    case change::session_expired:
      w.Key("reason");
      write_string(w, c.reason);
      break;
    case change::tasks_edited:
      // Only the operations that changed something, in order, as
      // time_tasks_edit took them; replay applies them again at `at`.
      w.Key("ops");
      w.StartArray();
      for (const auto& op : c.ops) {
        w.StartObject();
        w.Key("op");
        w.String(to_string(op.kind));
        w.Key("task_id");
        write_string(w, op.task.task_id);
        if (op.kind == domain::task_op::start) {
          write_opt(w, "task_name", op.task.task_name);
          write_opt(w, "external_task_id", op.task.external_task_id);
          write_opt(w, "work_item_id", op.task.work_item_id);
          write_map(w, "metadata", op.task.metadata);
        } else if (op.kind == domain::task_op::end) {
          w.Key("status");
          w.String(to_string(op.status));
          write_map(w, "metadata", op.metadata);
        } else if (op.kind == domain::task_op::note) {
          w.Key("text");
          write_string(w, op.text);
        } else if (op.kind == domain::task_op::add) {
          write_opt(w, "task_name", op.task.task_name);
          if (op.estimate) {
            w.Key("estimate_ms");
            w.Int64(op.estimate->count());
          }
        } else if (op.kind == domain::task_op::correct) {
          w.Key("run");
          w.Uint64(op.run);
          if (op.start_time) {
            w.Key("start_ns");
            w.Int64(domain::to_ns(*op.start_time));
          }
          if (op.end_time) {
            w.Key("end_ns");
            w.Int64(domain::to_ns(*op.end_time));
          }
          if (op.new_status) {
            w.Key("status");
            w.String(to_string(*op.new_status));
          }
          w.Key("reason");
          write_string(w, op.text);
        }
        w.EndObject();
      }
      w.EndArray();
      break;
    case change::change_undone:
      // What was reverted; the journal marks that event undone itself.
      w.Key("undid");
      w.StartObject();
      w.Key("kind");
      w.String(to_string(c.undone_kind));
      w.Key("wall_ns");
      w.Int64(domain::to_ns(c.undone_at.wall));
      if (!c.task_id.empty()) {
        w.Key("task_id");
        write_string(w, c.task_id);
      }
      if (c.undone_kind == change::tasks_edited) {
        w.Key("ops");
        w.Uint64(c.undone_ops);
      }
      w.EndObject();
      break;
  }
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

// -- reading payloads back

std::string get_string(const rapidjson::Value& o, const char* key) {
  auto i = o.FindMember(key);
  if (i == o.MemberEnd() || !i->value.IsString())
    throw bad_event{std::string{"payload lacks the string '"} + key + "'"};
  return {i->value.GetString(), i->value.GetStringLength()};
}

std::optional<std::string> get_opt(const rapidjson::Value& o, const char* key) {
  if (!o.HasMember(key))
    return std::nullopt;
  return get_string(o, key);
}

domain::string_map get_map(const rapidjson::Value& o, const char* key) {
  domain::string_map out;
  auto i = o.FindMember(key);
  if (i == o.MemberEnd())
    return out;
  if (!i->value.IsObject())
    throw bad_event{std::string{"'"} + key + "' is not an object"};
  for (const auto& m : i->value.GetObject()) {
    if (!m.value.IsString())
      throw bad_event{std::string{"'"} + key + "' holds a non-string"};
    out.emplace_back(std::string{m.name.GetString(), m.name.GetStringLength()},
                     std::string{m.value.GetString(),
                                 m.value.GetStringLength()});
  }
  return out;
}

std::vector<std::string> get_list(const rapidjson::Value& o, const char* key) {
  std::vector<std::string> out;
  auto i = o.FindMember(key);
  if (i == o.MemberEnd())
    return out;
  if (!i->value.IsArray())
    throw bad_event{std::string{"'"} + key + "' is not an array"};
  for (const auto& v : i->value.GetArray()) {
    if (!v.IsString())
      throw bad_event{std::string{"'"} + key + "' holds a non-string"};
    out.emplace_back(v.GetString(), v.GetStringLength());
  }
  return out;
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
  e.payload = payload_of(c, era, principal, by);
  return e;
}

protocol::era era_of(const storage::stored_session& s) {
  if (s.events.empty())
    return protocol::era::legacy;
  rapidjson::Document d;
  d.Parse(s.events.front().payload.c_str());
  if (d.IsObject())
    if (auto i = d.FindMember("era");
        i != d.MemberEnd() && i->value.IsString())
      if (auto e = protocol::parse_era(i->value.GetString()))
        return *e;
  return protocol::era::legacy;
}

payload::payload(const std::string& json) {
  doc_.Parse(json.data(), json.size());
  if (doc_.HasParseError() || !doc_.IsObject())
    throw bad_event{"payload is not a JSON object"};
}

domain::session_request payload::session_request() const {
  domain::session_request req;
  req.milestone_id = get_string(doc_, "milestone_id");
  req.milestone_name = get_opt(doc_, "milestone_name");
  req.task_ids = get_list(doc_, "task_ids");
  req.metadata = get_map(doc_, "metadata");
  req.tags = get_list(doc_, "tags");
  req.idempotency_key = get_opt(doc_, "idempotency_key");
  if (auto e = doc_.FindMember("estimates_ms"); e != doc_.MemberEnd()) {
    if (!e->value.IsObject())
      throw bad_event{"'estimates_ms' is not an object"};
    for (const auto& m : e->value.GetObject()) {
      if (!m.value.IsInt64())
        throw bad_event{"'estimates_ms' holds a non-integer"};
      req.estimates.emplace_back(
        std::string{m.name.GetString(), m.name.GetStringLength()},
        std::chrono::milliseconds{m.value.GetInt64()});
    }
  }
  return req;
}

std::string payload::zone_name() const {
  return get_string(doc_, "timezone");
}

domain::task_start_request
payload::task_request(const std::string& task_id) const {
  domain::task_start_request req;
  req.task_id = task_id;
  req.task_name = get_opt(doc_, "task_name");
  req.external_task_id = get_opt(doc_, "external_task_id");
  req.work_item_id = get_opt(doc_, "work_item_id");
  req.metadata = get_map(doc_, "metadata");
  return req;
}

namespace {

domain::run_status status_of(const rapidjson::Value& o) {
  // Stored names: "completed" and "skipped" since the first journal,
  // "failed" since issue 20. An unknown name is a bad event (the session is
  // skipped) rather than a guess.
  auto name = get_string(o, "status");
  if (name == "completed")
    return domain::run_status::completed;
  if (name == "skipped")
    return domain::run_status::skipped;
  if (name == "failed")
    return domain::run_status::failed;
  throw bad_event{"unknown task status '" + name + "'"};
}

} // namespace

domain::run_status payload::status() const {
  return status_of(doc_);
}

std::vector<domain::task_op> payload::ops() const {
  auto i = doc_.FindMember("ops");
  if (i == doc_.MemberEnd() || !i->value.IsArray())
    throw bad_event{"payload lacks the array 'ops'"};
  std::vector<domain::task_op> out;
  out.reserve(i->value.Size());
  for (const auto& v : i->value.GetArray()) {
    if (!v.IsObject())
      throw bad_event{"'ops' holds a non-object"};
    domain::task_op op;
    auto name = get_string(v, "op");
    auto kind = domain::task_op_kind_from(name);
    if (!kind)
      throw bad_event{"unknown operation '" + name + "'"};
    op.kind = *kind;
    op.task.task_id = get_string(v, "task_id");
    if (op.kind == domain::task_op::start) {
      op.task.task_name = get_opt(v, "task_name");
      op.task.external_task_id = get_opt(v, "external_task_id");
      op.task.work_item_id = get_opt(v, "work_item_id");
      op.task.metadata = get_map(v, "metadata");
    } else if (op.kind == domain::task_op::end) {
      op.status = status_of(v);
      op.metadata = get_map(v, "metadata");
    } else if (op.kind == domain::task_op::note) {
      op.text = get_string(v, "text");
    } else if (op.kind == domain::task_op::add) {
      op.task.task_name = get_opt(v, "task_name");
      if (auto e = v.FindMember("estimate_ms"); e != v.MemberEnd()) {
        if (!e->value.IsInt64())
          throw bad_event{"'estimate_ms' is not an integer"};
        op.estimate = std::chrono::milliseconds{e->value.GetInt64()};
      }
    } else if (op.kind == domain::task_op::correct) {
      op.text = get_string(v, "reason");
      auto run = v.FindMember("run");
      if (run == v.MemberEnd() || !run->value.IsUint64())
        throw bad_event{"a correction lacks its run"};
      op.run = run->value.GetUint64();
      auto wall = [&](const char* key) -> std::optional<domain::wall_time> {
        auto m = v.FindMember(key);
        if (m == v.MemberEnd())
          return std::nullopt;
        if (!m->value.IsInt64())
          throw bad_event{std::string{"'"} + key + "' is not an integer"};
        return domain::wall_time{
          std::chrono::duration_cast<domain::wall_time::duration>(
            std::chrono::nanoseconds{m->value.GetInt64()})};
      };
      op.start_time = wall("start_ns");
      op.end_time = wall("end_ns");
      if (v.HasMember("status"))
        op.new_status = status_of(v);
    }
    out.push_back(std::move(op));
  }
  return out;
}

domain::change_origin payload::by() const {
  domain::change_origin out;
  auto i = doc_.FindMember("by");
  if (i == doc_.MemberEnd() || !i->value.IsObject())
    return out;
  out.tool = get_opt(i->value, "tool").value_or("");
  out.client = get_opt(i->value, "client").value_or("");
  return out;
}

domain::change::kind_t payload::undid() const {
  auto i = doc_.FindMember("undid");
  if (i == doc_.MemberEnd() || !i->value.IsObject())
    throw bad_event{"payload lacks the object 'undid'"};
  auto kind = get_string(i->value, "kind");
  for (auto k : {change::task_started, change::task_ended,
                 change::tasks_edited, change::session_ended})
    if (kind == domain::to_string(k))
      return k;
  throw bad_event{"'undid' names the kind '" + kind
                  + "', which cannot be undone"};
}

std::size_t payload::op_count() const {
  auto i = doc_.FindMember("ops");
  return i != doc_.MemberEnd() && i->value.IsArray() ? i->value.Size() : 0;
}

domain::string_map payload::metadata() const {
  return get_map(doc_, "metadata");
}

} // namespace ttm::journal
