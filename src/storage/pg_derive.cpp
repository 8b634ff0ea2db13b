#include "storage/pg_derive.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>

namespace ttm::storage::detail {

namespace {

using json = rapidjson::Value;

bool parse(const std::string& text, rapidjson::Document& doc) {
  doc.Parse(text.data(), text.size());
  return !doc.HasParseError();
}

/// A member's text as SQLite's json_extract gives it for a string (the
/// string) or a number (its digits); none otherwise.
std::optional<std::string> scalar_text(const json& obj, const char* name) {
  if (!obj.IsObject())
    return std::nullopt;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd())
    return std::nullopt;
  const auto& v = it->value;
  if (v.IsString())
    return std::string{v.GetString(), v.GetStringLength()};
  if (v.IsInt64())
    return std::to_string(v.GetInt64());
  if (v.IsNumber()) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w{buf};
    v.Accept(w);
    return std::string{buf.GetString()};
  }
  return std::nullopt;
}

/// A member that is a string (json_type 'text').
std::optional<std::string> string_of(const json& obj, const char* name) {
  if (!obj.IsObject())
    return std::nullopt;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString())
    return std::nullopt;
  return std::string{it->value.GetString(), it->value.GetStringLength()};
}

const json* array_of(const json& obj, const char* name) {
  if (!obj.IsObject())
    return nullptr;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsArray())
    return nullptr;
  return &it->value;
}

} // namespace

bool is_json(const std::string& text) {
  rapidjson::Document doc;
  return parse(text, doc);
}

std::string lower_ascii(std::string s) {
  for (auto& c : s)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return s;
}

start_summary summarize_start(const std::string& payload) {
  start_summary out;
  rapidjson::Document doc;
  if (!parse(payload, doc))
    return out;
  out.milestone_id = string_of(doc, "milestone_id");
  out.scope = string_of(doc, "era").value_or("2025");
  out.idempotency_key = string_of(doc, "idempotency_key");
  out.milestone_name = string_of(doc, "milestone_name");
  if (const auto* tags = array_of(doc, "tags")) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w{buf};
    tags->Accept(w);
    out.tags = buf.GetString();
  }
  std::string ids;
  if (const auto* task_ids = array_of(doc, "task_ids")) {
    out.tasks_total = static_cast<std::int64_t>(task_ids->Size());
    bool first = true;
    for (const auto& v : task_ids->GetArray()) {
      std::optional<std::string> t;
      if (v.IsString())
        t = std::string{v.GetString(), v.GetStringLength()};
      else if (v.IsInt64())
        t = std::to_string(v.GetInt64());
      if (!t)
        continue; // group_concat skips NULLs
      if (!first)
        ids += '\n';
      ids += *t;
      first = false;
    }
  }
  out.search = lower_ascii(out.milestone_id.value_or("") + '\n'
                           + out.milestone_name.value_or("") + '\n' + ids);
  return out;
}

std::optional<std::string> task_name_of(const std::string& payload) {
  rapidjson::Document doc;
  if (!parse(payload, doc))
    return std::nullopt;
  auto name = string_of(doc, "task_name");
  if (!name)
    return std::nullopt;
  return lower_ascii(*name);
}

edit_effect edit_of(const std::string& payload) {
  edit_effect out;
  rapidjson::Document doc;
  if (!parse(payload, doc))
    return out;
  const auto* ops = array_of(doc, "ops");
  if (!ops)
    return out;
  std::set<std::string> names; // a UNION: distinct, in order
  for (const auto& o : ops->GetArray()) {
    auto op = scalar_text(o, "op");
    if (op == "correct" && o.IsObject()) {
      auto it = o.FindMember("start_ns");
      if (it != o.MemberEnd() && it->value.IsInt64()) {
        auto s = it->value.GetInt64();
        if (!out.earliest_correction || s < *out.earliest_correction)
          out.earliest_correction = s;
      }
    }
    if (op == "add")
      ++out.tasks_delta;
    else if (op == "remove")
      --out.tasks_delta;
    if (op == "add")
      if (auto id = scalar_text(o, "task_id"))
        names.insert(*id);
    if (auto name = string_of(o, "task_name"))
      names.insert(*name);
  }
  for (const auto& n : names)
    out.search_add += '\n' + lower_ascii(n);
  return out;
}

bool run_events_of(const std::vector<stored_event_row>& events,
                   std::vector<run_event>& out, std::string& bad_kind) {
  // (ord, event): a bulk edit's operations right after its place.
  std::vector<std::pair<std::int64_t, run_event>> all;
  for (const auto& e : events) {
    if (e.undone || e.kind == "session_started" || e.kind == "change_undone")
      continue;
    if (e.kind == "tasks_edited") {
      rapidjson::Document doc;
      if (!parse(e.payload, doc))
        continue;
      const auto* ops = array_of(doc, "ops");
      if (!ops)
        continue;
      std::int64_t k = 0;
      for (const auto& o : ops->GetArray()) {
        auto op = scalar_text(o, "op");
        ++k;
        if (op != "start" && op != "end")
          continue;
        run_event r;
        r.kind = op == "start" ? event_kind::task_started
                               : event_kind::task_ended;
        r.task_id = scalar_text(o, "task_id").value_or("");
        r.at = e.at;
        if (op == "end")
          r.status = scalar_text(o, "status").value_or("completed");
        all.emplace_back(e.seq * 1000 + k, std::move(r));
      }
      continue;
    }
    auto kind = event_kind_from(e.kind);
    if (!kind) {
      bad_kind = e.kind;
      return false;
    }
    run_event r;
    r.kind = *kind;
    r.task_id = e.task_id;
    r.at = e.at;
    if (*kind == event_kind::task_ended) {
      rapidjson::Document doc;
      if (parse(e.payload, doc))
        r.status = scalar_text(doc, "status").value_or("");
    }
    all.emplace_back(e.seq * 1000, std::move(r));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  for (auto& [ord, r] : all)
    out.push_back(std::move(r));
  return true;
}

std::int64_t tasks_done_of(const std::vector<run_event>& events) {
  std::map<std::string, const run_event*> latest;
  for (const auto& e : events)
    if (!e.task_id.empty()
        && (e.kind == event_kind::task_started
            || e.kind == event_kind::task_ended))
      latest[e.task_id] = &e;
  std::int64_t n = 0;
  for (const auto& [id, e] : latest)
    if (e->kind == event_kind::task_ended && e->status == "completed")
      ++n;
  return n;
}

} // namespace ttm::storage::detail
