// The JSON report, version 1 (docs/tools.md "time_session_report"): the
// session, its summary, the runs and the tasks never started. Pretty
// printed: it is read by people as often as by programs. Its names and
// shapes are time_session_summary's (docs/tools.md "Vocabulary"): the same
// estimates, pauses and corrections, so a reader parses one of each.

#include "reports/report.hpp"
#include "reports/report_text.hpp"

#include "domain/time_format.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace ttm::reports {

namespace {

using writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void str(writer& w, const char* key, const std::string& v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void opt(writer& w, const char* key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v)
    w.String(v->data(), static_cast<rapidjson::SizeType>(v->size()));
  else
    w.Null();
}

void num(writer& w, const char* key, long long v) {
  w.Key(key);
  w.Int64(v);
}

void map(writer& w, const char* key, const domain::string_map& m) {
  w.Key(key);
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
}

} // namespace

std::string render_json(const report_model& m) {
  rapidjson::StringBuffer buf;
  writer w{buf};
  w.SetIndent(' ', 2);
  w.StartObject();
  num(w, "version", json_report_version);
  w.Key("session");
  w.StartObject();
  str(w, "session_id", m.session_id);
  str(w, "milestone_id", m.milestone_id);
  opt(w, "milestone_name", m.milestone_name);
  str(w, "status", m.ended ? "ended" : "active");
  str(w, "timezone", m.tz.name());
  str(w, "start_time", domain::format_iso8601(m.start, m.tz));
  opt(w, "end_time",
      m.ended ? std::optional<std::string>{domain::format_iso8601(m.end, m.tz)}
              : std::nullopt);
  str(w, "as_of", domain::format_iso8601(m.end, m.tz));
  map(w, "metadata", m.metadata);
  w.Key("tags");
  w.StartArray();
  for (const auto& t : m.tags)
    w.String(t.data(), static_cast<rapidjson::SizeType>(t.size()));
  w.EndArray();
  w.EndObject();
  const auto& c = m.counts;
  w.Key("summary");
  w.StartObject();
  num(w, "task_count", static_cast<long long>(m.task_count));
  num(w, "tasks_completed", static_cast<long long>(c.completed));
  num(w, "tasks_skipped", static_cast<long long>(c.skipped));
  num(w, "tasks_failed", static_cast<long long>(c.failed));
  num(w, "tasks_interrupted", static_cast<long long>(c.interrupted));
  num(w, "tasks_in_progress", static_cast<long long>(c.in_progress));
  num(w, "tasks_not_started", static_cast<long long>(c.not_started));
  num(w, "run_count", static_cast<long long>(m.runs.size()));
  num(w, "total_duration_ms", m.total.count());
  str(w, "total_duration", domain::format_duration(m.total));
  str(w, "total_duration_iso", domain::format_duration_iso(m.total));
  num(w, "busy_duration_ms", m.busy.count());
  num(w, "task_time_ms", m.task_time.count());
  if (!m.estimates.empty()) {
    // Issue 17, additive: only for a session with estimates.
    num(w, "estimate_total_ms", m.estimate_total.count());
    num(w, "estimate_actual_ms", m.estimate_actual.count());
    num(w, "estimate_difference_ms",
        (m.estimate_actual - m.estimate_total).count());
  }
  w.EndObject();
  w.Key("runs");
  w.StartArray();
  for (const auto& r : m.runs) {
    w.StartObject();
    str(w, "task_id", r.task_id);
    opt(w, "task_name", r.task_name);
    num(w, "run", static_cast<long long>(r.run));
    str(w, "status", text::status_word(r));
    str(w, "start_time", domain::format_iso8601(r.start, m.tz));
    opt(w, "end_time", r.running ? std::nullopt
                                 : std::optional<std::string>{
                                     domain::format_iso8601(r.end, m.tz)});
    num(w, "duration_ms", r.duration.count());
    num(w, "offset_ms", r.offset_start.count());
    opt(w, "external_task_id", r.external_task_id);
    opt(w, "work_item_id", r.work_item_id);
    map(w, "metadata", r.metadata);
    map(w, "completion_metadata", r.completion_metadata);
    // Issue 17, additive: only on runs that have them.
    if (!r.pause_list.empty()) {
      num(w, "active_ms", r.duration.count());
      w.Key("pauses");
      w.StartArray();
      for (const auto& p : r.pause_list) {
        w.StartObject();
        str(w, "start_time", domain::format_iso8601(p.start, m.tz));
        opt(w, "end_time",
            p.end ? std::optional<std::string>{domain::format_iso8601(
                      *p.end, m.tz)}
                  : std::nullopt);
        num(w, "duration_ms", p.duration.count());
        w.EndObject();
      }
      w.EndArray();
    }
    if (!r.notes.empty()) {
      w.Key("notes");
      w.StartArray();
      for (const auto& n : r.notes) {
        w.StartObject();
        str(w, "time", domain::format_iso8601(n.at, m.tz));
        str(w, "text", n.text);
        w.EndObject();
      }
      w.EndArray();
    }
    if (!r.corrections.empty()) {
      w.Key("corrections");
      w.StartArray();
      for (const auto& c : r.corrections) {
        w.StartObject();
        str(w, "time", domain::format_iso8601(c.at, m.tz));
        str(w, "reason", c.reason);
        str(w, "start_time_before", domain::format_iso8601(c.start_before, m.tz));
        opt(w, "end_time_before",
            c.end_before ? std::optional<std::string>{domain::format_iso8601(
                             *c.end_before, m.tz)}
                         : std::nullopt);
        str(w, "status_before", domain::to_string(c.status_before));
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  if (!m.estimates.empty()) {
    // Issue 17, additive: only for a session with estimates (the totals
    // are in "summary", as in time_session_summary).
    w.Key("estimates");
    w.StartArray();
    for (const auto& e : m.estimates) {
      w.StartObject();
      str(w, "task_id", e.task_id);
      num(w, "estimate_ms", e.estimate.count());
      num(w, "actual_ms", e.actual.count());
      num(w, "difference_ms", e.difference().count());
      str(w, "status", e.status);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!m.changes.empty()) {
    // Issue 17, additive: the audit trail of a session with bulk edits or
    // undos.
    w.Key("changes");
    w.StartArray();
    for (const auto& c : m.changes) {
      w.StartObject();
      str(w, "time", domain::format_iso8601(c.at, m.tz));
      str(w, "change", c.change);
      if (!c.task_id.empty())
        str(w, "task_id", c.task_id);
      if (c.change == "tasks_edited")
        num(w, "operation_count", static_cast<std::int64_t>(c.operations));
      if (!c.undid.empty())
        str(w, "undid", c.undid);
      if (!c.tool.empty())
        str(w, "tool", c.tool);
      if (!c.client.empty())
        str(w, "client", c.client);
      // "reverted", not "undone": time_undo's `undone` is the change.
      w.Key("reverted");
      w.Bool(c.undone);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("tasks_not_started");
  w.StartArray();
  for (const auto& id : m.not_started)
    w.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
  w.EndArray();
  w.EndObject();
  return std::string{buf.GetString(), buf.GetSize()} + "\n";
}

} // namespace ttm::reports
