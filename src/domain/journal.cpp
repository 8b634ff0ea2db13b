#include "domain/journal.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ttm::domain {

namespace {

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

void write_map(writer& w, const char* key, const string_map& m) {
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

std::string payload_of(const change& c, protocol::era era) {
  rapidjson::StringBuffer buf;
  writer w{buf};
  w.StartObject();
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
    case change::session_expired:
      break;
  }
  return storage::event_kind::session_expired;
}

// -- reading payloads back (a malformed one throws; replay skips the session)

struct bad_event : std::runtime_error {
  using std::runtime_error::runtime_error;
};

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (d.HasParseError() || !d.IsObject())
    throw bad_event{"payload is not a JSON object"};
  return d;
}

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

string_map get_map(const rapidjson::Value& o, const char* key) {
  string_map out;
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

/// Places each event's clocks on this process's timeline.
class timeline {
public:
  timeline(const storage::stored_session& s, const clock_source& clock)
    : boot_(clock.boot_id()),
      now_wall_(to_ns(clock.wall_now())),
      now_mono_(to_ns(clock.mono_now())) {
    // The last event of each earlier boot anchors it: the time from then to
    // now is taken from the wall clock.
    for (const auto& e : s.events) {
      if (e.at.boot_id == boot_)
        continue;
      auto& b = boots_[e.at.boot_id];
      if (b.index == 0)
        b.index = static_cast<std::uint32_t>(boots_.size());
      b.last_wall = e.at.wall_ns;
      b.last_mono = e.at.mono_ns;
    }
  }

  instant at(const storage::stamp& st) const {
    instant out;
    out.wall = wall_time{std::chrono::duration_cast<wall_time::duration>(
      std::chrono::nanoseconds{st.wall_ns})};
    std::int64_t mono = st.mono_ns;
    if (st.boot_id != boot_) {
      const auto& b = boots_.at(st.boot_id);
      auto gap = now_wall_ - b.last_wall; // since that boot's last event
      mono = now_mono_ - std::max<std::int64_t>(gap, 0)
             - (b.last_mono - st.mono_ns);
      out.boot = b.index;
    }
    out.mono = mono_time{std::chrono::duration_cast<mono_time::duration>(
      std::chrono::nanoseconds{mono})};
    return out;
  }

private:
  struct boot {
    std::uint32_t index = 0;
    std::int64_t last_wall = 0;
    std::int64_t last_mono = 0;
  };
  std::string boot_;
  std::int64_t now_wall_;
  std::int64_t now_mono_;
  std::map<std::string, boot> boots_;
};

void replay_one(tracker& tr, const storage::stored_session& s,
                const clock_source& clock, const std::string& local_zone) {
  if (s.events.empty()
      || s.events.front().kind != storage::event_kind::session_started)
    throw bad_event{"its first event is not session_started"};
  timeline tl{s, clock};
  tracking_session* live = nullptr;
  instant last;
  for (const auto& e : s.events) {
    auto at = tl.at(e.at);
    auto p = parse(e.payload);
    switch (e.kind) {
      case storage::event_kind::session_started: {
        if (live)
          throw bad_event{"session_started twice"};
        session_request req;
        req.milestone_id = get_string(p, "milestone_id");
        req.milestone_name = get_opt(p, "milestone_name");
        req.task_ids = get_list(p, "task_ids");
        req.metadata = get_map(p, "metadata");
        req.tags = get_list(p, "tags");
        auto zone_name = get_string(p, "timezone");
        auto z = resolve_zone(zone_name, local_zone);
        if (!z.found)
          throw bad_event{"unknown time zone '" + zone_name + "'"};
        tr.add(s.session_id, std::move(req), *z.found, at);
        live = tr.find(s.session_id);
        break;
      }
      case storage::event_kind::task_started: {
        task_start_request req;
        req.task_id = e.task_id;
        req.task_name = get_opt(p, "task_name");
        req.external_task_id = get_opt(p, "external_task_id");
        req.work_item_id = get_opt(p, "work_item_id");
        req.metadata = get_map(p, "metadata");
        auto r = tr.start_task(*live, std::move(req), at);
        if (auto* err = std::get_if<tracking_error>(&r))
          throw bad_event{"task_started: " + err->message};
        break;
      }
      case storage::event_kind::task_ended: {
        auto status_text = get_string(p, "status");
        auto status = status_text == "skipped" ? run_status::skipped
                                               : run_status::completed;
        auto r = tr.end_task(*live, e.task_id, status, get_map(p, "metadata"),
                             at);
        if (auto* err = std::get_if<tracking_error>(&r))
          throw bad_event{"task_ended: " + err->message};
        break;
      }
      case storage::event_kind::session_ended:
        tr.end_session(*live, at);
        break;
      case storage::event_kind::session_expired:
        throw bad_event{"an open session has an expiry event"};
    }
    last = at;
  }
  // Idle time counts from the last recorded event.
  live->last_activity = last.mono;
}

} // namespace

storage::event to_event(const change& c, const std::string& principal,
                        const std::string& boot_id, protocol::era era) {
  storage::event e;
  e.kind = kind_of(c.kind);
  e.session_id = c.session_id;
  e.principal = principal;
  if (c.kind == change::task_started)
    e.task_id = c.task.task_id;
  else if (c.kind == change::task_ended)
    e.task_id = c.task_id;
  e.at.wall_ns = to_ns(c.at.wall);
  e.at.mono_ns = to_ns(c.at.mono);
  e.at.boot_id = boot_id;
  e.payload = payload_of(c, era);
  return e;
}

std::vector<storage::event>
expire_recovered(std::vector<storage::stored_session>& sessions,
                 const tracking_limits& limits, const clock_source& clock) {
  std::vector<storage::event> out;
  auto now = now_of(clock);
  auto now_ns = to_ns(now.wall);
  auto boot = clock.boot_id();
  auto ns = [](std::chrono::seconds s) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(s).count();
  };
  for (auto& s : sessions) {
    if (s.state == storage::session_state::expired)
      continue;
    auto last = s.events.empty() ? s.started_wall_ns
                                 : s.events.back().at.wall_ns;
    const char* reason = nullptr;
    if (now_ns - s.started_wall_ns > ns(limits.max_age))
      reason = "age";
    else if (now_ns - last > ns(limits.max_idle))
      reason = "idle";
    if (!reason)
      continue;
    // Closed in the journal already (ended): nothing to record.
    if (s.state == storage::session_state::open) {
      change c;
      c.kind = change::session_expired;
      c.session_id = s.session_id;
      c.at = now;
      c.reason = reason;
      out.push_back(to_event(c, s.principal, boot));
    }
    s.state = storage::session_state::expired;
    s.events.clear();
  }
  return out;
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

recovery recover(storage::store& store, const tracking_limits& limits,
                 const clock_source& clock) {
  recovery out;
  auto loaded = store.load_open();
  if (auto* err = std::get_if<storage::error>(&loaded)) {
    out.error = "cannot read the session journal: " + err->message;
    return out;
  }
  out.sessions = std::move(
    std::get<std::vector<storage::stored_session>>(loaded));
  // Ended sessions stay readable (summary, a repeated end) until their age
  // limit, as in memory: the most recent ones, at most a slot each.
  storage::history_query recent;
  recent.since_wall_ns = to_ns(clock.wall_now() - limits.max_age);
  recent.limit = limits.max_sessions;
  recent.with_events = true;
  auto history = store.history(recent);
  if (auto* list = std::get_if<std::vector<storage::stored_session>>(&history))
    for (auto& s : *list)
      if (s.state == storage::session_state::ended)
        out.sessions.push_back(std::move(s));
  auto expired = expire_recovered(out.sessions, limits, clock);
  out.expired = expired.size();
  if (!expired.empty()) {
    auto r = store.append(expired);
    if (auto* err = std::get_if<storage::error>(&r))
      out.error = "cannot record the expiry of recovered sessions: "
                  + err->message;
  }
  return out;
}

std::vector<std::string> replay(tracker& tr,
                                const std::vector<storage::stored_session>& in,
                                const clock_source& clock,
                                const std::string& local_zone,
                                std::vector<std::string>& problems) {
  std::vector<std::string> ids;
  bool was_recording = tr.recording();
  tr.record_changes(false);
  for (const auto& s : in) {
    if (s.state == storage::session_state::expired) {
      tr.remember_expired(s.session_id);
      continue;
    }
    try {
      replay_one(tr, s, clock, local_zone);
      ids.push_back(s.session_id);
    } catch (const std::exception& e) {
      problems.push_back("session " + s.session_id + ": " + e.what());
      tr.evict(s.session_id);
    }
  }
  tr.record_changes(was_recording);
  return ids;
}

} // namespace ttm::domain
