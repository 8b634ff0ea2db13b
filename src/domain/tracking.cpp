#include "domain/tracking.hpp"

#include "domain/time_format.hpp"

#include <algorithm>

namespace ttm::domain {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

milliseconds since(mono_time from, mono_time to) {
  return to > from ? duration_cast<milliseconds>(to - from) : milliseconds{0};
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

/// The session's task ids for an error message, when short enough to help.
std::vector<std::string> listed_ids(const tracking_session& s) {
  std::vector<std::string> out;
  if (s.tasks.size() > 20)
    return out;
  for (const auto& t : s.tasks)
    out.push_back(t.id);
  return out;
}

std::size_t size_of(const std::string& x) {
  return x.size();
}

std::size_t size_of(const std::optional<std::string>& x) {
  return x ? x->size() : 0;
}

std::size_t size_of(const string_map& m) {
  std::size_t n = 0;
  for (const auto& [k, v] : m)
    n += k.size() + v.size();
  return n;
}

std::size_t size_of(const std::vector<std::string>& xs) {
  std::size_t n = 0;
  for (const auto& x : xs)
    n += x.size();
  return n;
}

/// A key given twice would be stored twice and written back as an object
/// with duplicate names, which clients read differently.
std::optional<tracking_error> duplicate_key(const string_map& m,
                                            const char* what) {
  std::unordered_set<std::string> seen;
  for (const auto& kv : m)
    if (!seen.insert(kv.first).second)
      return tracking_error{"VALIDATION_ERROR",
                            std::string{"Key "} + quoted(kv.first)
                              + " appears more than once in '" + what
                              + "'."};
  return std::nullopt;
}

} // namespace

namespace detail {

tracking_error not_in_session(const tracking_session& s,
                              const std::string& task_id) {
  auto ids = listed_ids(s);
  std::string msg = "Task " + quoted(task_id) + " is not in session "
                    + quoted(s.id) + " (milestone " + quoted(s.milestone_id)
                    + ")";
  if (!ids.empty()) {
    msg += "; its tasks are: ";
    for (std::size_t i = 0; i < ids.size(); ++i)
      msg += (i == 0 ? "" : ", ") + ids[i];
  } else if (s.tasks.empty()) {
    msg += "; it has no tasks";
  } else {
    msg += "; it has " + std::to_string(s.tasks.size())
           + " tasks (see time_session_summary)";
  }
  return {"TASK_NOT_IN_SESSION", msg + ".", std::move(ids)};
}

std::optional<tracking_error> over_budget(const tracking_limits& lim,
                                          std::size_t bytes) {
  if (bytes <= lim.max_session_bytes)
    return std::nullopt;
  return tracking_error{
    "LIMIT_REACHED",
    "The session would hold " + std::to_string(bytes)
      + " bytes of ids, names, tags, metadata, notes and pauses; the limit is "
      + std::to_string(lim.max_session_bytes)
      + " bytes per session (max_session_bytes). Keep metadata short or "
        "split the milestone."};
}

tracking_error session_ended(const tracking_session& s) {
  return {"SESSION_ENDED", "Session " + quoted(s.id)
                             + " has ended; start a new session with "
                               "time_session_start to track more work. "
                               "time_session_summary still reports it."};
}

/// SESSION_EXPIRED for `id`, naming `why` it expired when known (see
/// tracking_session::expired; "reclaimed": dropped after it ended, to make
/// room). `readable`: the journal keeps it, summary and report read it.
tracking_error expired_error(const std::string& id, const std::string& why,
                             const tracking_limits& limits, bool readable) {
  std::string cause;
  if (why == "age")
    cause = "it passed the age limit ("
            + format_duration(limits.max_age)
            + " on this server) after its start";
  else if (why == "idle")
    cause = "it was idle past the idle limit ("
            + format_duration(limits.max_idle)
            + " on this server: no call named it)";
  else if (why == "closed")
    cause = "it was closed when the MCP session that held it was deleted "
            "(HTTP DELETE), as older versions of this server did";
  else if (why == "reclaimed")
    cause = "it had ended, and was dropped to make room for a new session";
  else
    cause = "sessions are removed " + format_duration(limits.max_idle)
            + " after their last call, " + format_duration(limits.max_age)
            + " after they started, or, once ended, when room is needed for "
              "a new session";
  return tracking_error{
    "SESSION_EXPIRED",
    "Session " + quoted(id) + " has expired: " + cause + "."
      + (readable ? " It cannot change any more; time_session_summary and "
                    "time_session_report still read it."
                  : "")
      + " Start a new session with time_session_start."};
}

} // namespace detail

using detail::not_in_session;
using detail::over_budget;
using detail::session_ended;

const char* to_string(run_status s) {
  switch (s) {
    case run_status::in_progress:
      return "in_progress";
    case run_status::completed:
      return "completed";
    case run_status::skipped:
      return "skipped";
    case run_status::failed:
      return "failed";
    case run_status::interrupted:
      return "interrupted";
  }
  return "in_progress";
}

const char* duration_source(const instant& from, const instant& to) {
  return from.boot == to.boot ? "monotonic" : "wall_clock";
}

task_counts tracking_session::counts() const {
  task_counts c;
  for (const auto& t : tasks) {
    const auto* run = t.current();
    if (run == nullptr) {
      ++c.not_started;
      continue;
    }
    switch (run->status) {
      case run_status::in_progress:
        ++c.in_progress;
        break;
      case run_status::completed:
        ++c.completed;
        break;
      case run_status::skipped:
        ++c.skipped;
        break;
      case run_status::failed:
        ++c.failed;
        break;
      case run_status::interrupted:
        ++c.interrupted;
        break;
    }
  }
  return c;
}

tracker::tracker(tracking_limits limits) : limits_(limits) {
}

std::optional<tracking_error>
tracker::check(const session_request& req) const {
  if (req.task_ids.size() > limits_.max_tasks_per_session)
    return tracking_error{
      "LIMIT_REACHED",
      "Too many tasks: " + std::to_string(req.task_ids.size())
        + " given, the limit is "
        + std::to_string(limits_.max_tasks_per_session)
        + " tasks per session (max_tasks_per_session). Split the milestone "
          "into several sessions."};
  std::unordered_set<std::string> seen;
  for (const auto& id : req.task_ids)
    if (!seen.insert(id).second)
      return tracking_error{"VALIDATION_ERROR",
                            "Task id " + quoted(id)
                              + " appears more than once in 'task_ids'; each "
                                "task must be listed once."};
  if (auto err = duplicate_key(req.metadata, "metadata"))
    return err;
  for (const auto& [task, _] : req.estimates)
    if (seen.count(task) == 0)
      return tracking_error{"VALIDATION_ERROR",
                            "'estimates' names task " + quoted(task)
                              + ", which is not in 'task_ids'."};
  return over_budget(limits_, bytes_of(req));
}

std::size_t tracker::bytes_of(const session_request& req) {
  return size_of(req.milestone_id) + size_of(req.milestone_name)
         + size_of(req.task_ids) + size_of(req.metadata) + size_of(req.tags)
         + size_of(req.idempotency_key);
}

const tracking_session& tracker::add(std::string id, session_request req,
                                     zone tz, instant now) {
  auto bytes = bytes_of(req); // before its strings move into the session
  tracking_session s{id,
                     std::move(req.milestone_id),
                     std::move(req.milestone_name),
                     std::move(tz),
                     std::move(req.metadata),
                     std::move(req.tags),
                     {},
                     {},
                     now,
                     std::nullopt,
                     now.mono};
  s.bytes = bytes;
  s.idempotency_key = std::move(req.idempotency_key);
  s.tasks.reserve(req.task_ids.size());
  for (auto& task_id : req.task_ids) {
    s.task_index.emplace(task_id, s.tasks.size());
    s.tasks.push_back({std::move(task_id), {}});
  }
  for (const auto& [task, estimate] : req.estimates)
    if (auto k = s.task_index.find(task); k != s.task_index.end())
      s.tasks[k->second].estimate = estimate;
  if (s.idempotency_key) {
    for (const auto& t : s.tasks) {
      s.started_task_ids.push_back(t.id);
      if (t.estimate)
        s.started_estimates.emplace_back(t.id, *t.estimate);
    }
  }
  if (recording_) {
    change c;
    c.kind = change::session_started;
    c.session_id = id;
    c.at = now;
    c.session.milestone_id = s.milestone_id;
    c.session.milestone_name = s.milestone_name;
    c.session.metadata = s.metadata;
    c.session.tags = s.tags;
    c.session.task_ids.reserve(s.tasks.size());
    for (const auto& t : s.tasks)
      c.session.task_ids.push_back(t.id);
    c.session.idempotency_key = s.idempotency_key;
    for (const auto& t : s.tasks)
      if (t.estimate)
        c.session.estimates.emplace_back(t.id, *t.estimate);
    c.zone_name = s.tz.name();
    changes_.push_back(std::move(c));
    undo_.emplace_back([id](tracker& t) { t.erase(id); });
  }
  {
    audit_record start;
    start.at = now;
    start.kind = change::session_started;
    start.by = origin_;
    s.audit.push_back(std::move(start));
  }
  if (s.idempotency_key)
    keys_[*s.idempotency_key] = id; // the newest session holds a reused key
  auto [it, _] = sessions_.insert_or_assign(std::move(id), std::move(s));
  return it->second;
}

bool tracker::kept_elsewhere(const tracking_session& s) const {
  return recording_ && s.ended();
}

bool tracker::due(const tracking_session& s, mono_time now) const {
  return since(s.start.mono, now) > limits_.max_age
         || since(s.last_activity, now) > limits_.max_idle;
}

void tracker::touch(const std::string& id, mono_time at) {
  if (auto i = sessions_.find(id); i != sessions_.end())
    i->second.last_activity = std::max(i->second.last_activity, at);
}

std::vector<const tracking_session*> tracker::sessions() const {
  std::vector<const tracking_session*> out;
  out.reserve(sessions_.size());
  for (const auto& [id, s] : sessions_)
    out.push_back(&s);
  return out;
}

std::vector<std::string> tracker::open_ids() const {
  std::vector<std::string> out;
  for (const auto& [id, s] : sessions_)
    if (!s.ended())
      out.push_back(id);
  return out;
}

tracking_session* tracker::find_by_key(const std::string& key) {
  auto k = keys_.find(key);
  return k == keys_.end() ? nullptr : find(k->second);
}

void tracker::forget(std::string id, std::string reason) {
  erase(id);
  if (limits_.remembered_expired == 0
      || !expired_.emplace(id, std::move(reason)).second)
    return;
  expired_order_.push_back(id);
  while (expired_order_.size() > limits_.remembered_expired) {
    expired_.erase(expired_order_.front());
    expired_order_.pop_front();
  }
}

tracking_outcome<tracking_session*> tracker::use(const std::string& id,
                                                 instant now) {
  auto i = sessions_.find(id);
  if (i == sessions_.end())
    return not_held(id);
  // A journaled session that ended is the journal's record, read-only:
  // history outlives the age and idle limits (the sweep only trims it
  // from memory, and a call loads it again).
  if (due(i->second, now.mono) && !kept_elsewhere(i->second)) {
    // `id` may be this session's own string, which forget() frees.
    std::string gone = id;
    forget(gone, note_expired(i->second, now));
    newly_expired_.push_back(gone);
    return not_held(gone);
  }
  i->second.last_activity = now.mono;
  return &i->second;
}

tracking_error tracker::not_held(const std::string& id) const {
  if (auto e = expired_.find(id); e != expired_.end())
    // Journaled, it stays readable as history (a call loads it).
    return detail::expired_error(id, e->second, limits_,
                                 recording_ && e->second != "reclaimed");
  if (!storage_fault_.empty())
    return tracking_error{
      "STORAGE_UNAVAILABLE",
      "Session " + quoted(id) + " cannot be looked up: " + storage_fault_
        + ". Nothing was changed; the server keeps trying to open the "
          "journal, so try again later."};
  // Sessions belong to the user (the principal), not to the connection:
  // this says the same of another user's session as of an unknown id.
  return tracking_error{"SESSION_NOT_FOUND",
                        "You have no tracking session " + quoted(id)
                          + "; use the session_id that time_session_start "
                            "returned."};
}

const tracking_session* tracker::find(const std::string& id) const {
  auto i = sessions_.find(id);
  return i == sessions_.end() ? nullptr : &i->second;
}

tracking_session* tracker::find(const std::string& id) {
  auto i = sessions_.find(id);
  return i == sessions_.end() ? nullptr : &i->second;
}

tracking_outcome<task_started>
tracker::start_task(tracking_session& s, task_start_request req,
                    instant now) {
  if (s.ended())
    return session_ended(s);
  auto i = s.task_index.find(req.task_id);
  if (i == s.task_index.end())
    return not_in_session(s, req.task_id);
  auto& task = s.tasks[i->second];
  if (!task.runs.empty() && !task.runs.back().end)
    return task_started{&task, &task.runs.back(), true};
  if (auto err = duplicate_key(req.metadata, "metadata"))
    return *err;
  auto run_bytes = size_of(req.task_name) + size_of(req.external_task_id)
                   + size_of(req.work_item_id) + size_of(req.metadata);
  if (auto err = over_budget(limits_, s.bytes + run_bytes))
    return *err;
  if (task.runs.size() >= limits_.max_runs_per_task)
    return tracking_error{
      "LIMIT_REACHED", "Task " + quoted(task.id) + " was started "
                         + std::to_string(task.runs.size())
                         + " times; the limit is "
                         + std::to_string(limits_.max_runs_per_task)
                         + " runs per task (max_runs_per_task)."};
  task_run run;
  run.number = task.runs.size() + 1;
  run.task_name = req.task_name ? std::move(req.task_name) : task.name;
  run.external_task_id = std::move(req.external_task_id);
  run.work_item_id = std::move(req.work_item_id);
  run.metadata = std::move(req.metadata);
  run.start = now;
  auto mark = undo_.size();
  undo_.emplace_back([sid = s.id, index = i->second, run_bytes](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end())
      return;
    j->second.tasks[index].runs.pop_back();
    j->second.bytes -= run_bytes;
  });
  task.runs.push_back(std::move(run));
  s.bytes += run_bytes;
  if (!editing_) {
    const auto& r = task.runs.back();
    change c;
    c.kind = change::task_started;
    c.session_id = s.id;
    c.at = now;
    c.task.task_id = task.id;
    c.task.task_name = r.task_name;
    c.task.external_task_id = r.external_task_id;
    c.task.work_item_id = r.work_item_id;
    c.task.metadata = r.metadata;
    record(s, std::move(c), mark);
  }
  return task_started{&task, &task.runs.back(), false};
}

tracking_outcome<task_ended>
tracker::end_task(tracking_session& s, const std::string& task_id,
                  run_status status, string_map metadata, instant now) {
  if (s.ended())
    return session_ended(s);
  auto i = s.task_index.find(task_id);
  if (i == s.task_index.end())
    return not_in_session(s, task_id);
  auto& task = s.tasks[i->second];
  if (task.runs.empty())
    return tracking_error{"TASK_NOT_STARTED",
                          "Task " + quoted(task_id)
                            + " was never started; call time_task_start "
                              "first (to record a skipped task, start it "
                              "and end it with status 'skipped')."};
  auto& run = task.runs.back();
  if (run.end)
    return task_ended{&task, &run, true};
  if (auto err = duplicate_key(metadata, "metadata"))
    return *err;
  if (auto err = over_budget(limits_, s.bytes + size_of(metadata)))
    return *err;
  auto added = size_of(metadata);
  auto mark = undo_.size();
  undo_.emplace_back([sid = s.id, index = i->second, added](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end())
      return;
    auto& r = j->second.tasks[index].runs.back();
    r.end.reset();
    r.status = run_status::in_progress;
    r.completion_metadata.clear();
    j->second.bytes -= added;
  });
  s.bytes += added;
  run.end = now;
  run.status = status;
  run.completion_metadata = metadata;
  if (!editing_) {
    change c;
    c.kind = change::task_ended;
    c.session_id = s.id;
    c.at = now;
    c.task_id = task.id;
    c.status = status;
    c.metadata = std::move(metadata);
    record(s, std::move(c), mark);
  }
  return task_ended{&task, &run, false};
}

bool tracker::end_session(tracking_session& s, instant now) {
  if (s.ended())
    return false;
  std::vector<std::size_t> interrupted;
  for (std::size_t k = 0; k < s.tasks.size(); ++k) {
    auto& t = s.tasks[k];
    if (!t.runs.empty() && !t.runs.back().end) {
      t.runs.back().end = now;
      t.runs.back().status = run_status::interrupted;
      interrupted.push_back(k);
    }
  }
  s.end = now;
  newly_ended_.push_back(s.id);
  auto mark = undo_.size();
  undo_.emplace_back([sid = s.id, ks = std::move(interrupted)](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end())
      return;
    for (auto k : ks) {
      auto& r = j->second.tasks[k].runs.back();
      r.end.reset();
      r.status = run_status::in_progress;
    }
    j->second.end.reset();
    // Not reported yet (a rollback): never was. Reported: open again.
    auto e = std::find(t.newly_ended_.begin(), t.newly_ended_.end(), sid);
    if (e != t.newly_ended_.end())
      t.newly_ended_.erase(e);
    else
      t.newly_reopened_.push_back(sid);
  });
  change c;
  c.kind = change::session_ended;
  c.session_id = s.id;
  c.at = now;
  record(s, std::move(c), mark);
  return true;
}

std::vector<std::string> tracker::expire_due(instant now) {
  std::vector<std::string> out;
  for (const auto& [id, s] : sessions_)
    if (due(s, now.mono))
      out.push_back(id);
  for (const auto& id : out) {
    const auto& s = sessions_.at(id);
    if (kept_elsewhere(s)) {
      erase(id); // not expired: the journal keeps it, a call reloads it
      continue;
    }
    forget(id, note_expired(s, now));
  }
  return out;
}

void tracker::evict(const std::string& id) {
  // Only ended sessions are evicted, and the journal closed them at their
  // end: nothing to record.
  if (sessions_.count(id) > 0)
    forget(id, "reclaimed");
}

std::string tracker::note_expired(const tracking_session& s, instant now) {
  std::string why
    = since(s.start.mono, now.mono) > limits_.max_age ? "age" : "idle";
  // An ended session leaving memory changes nothing the journal keeps.
  if (!recording_ || s.ended())
    return why;
  change c;
  c.kind = change::session_expired;
  c.session_id = s.id;
  c.at = now;
  c.reason = why;
  changes_.push_back(std::move(c));
  return why;
}

void tracker::close_expired(tracking_session& s, instant at,
                            std::string reason) {
  for (auto& t : s.tasks)
    if (!t.runs.empty() && !t.runs.back().end) {
      t.runs.back().end = at;
      t.runs.back().status = run_status::interrupted;
    }
  s.end = at;
  s.expired = std::move(reason);
  // History: a retried start with its key must not find it.
  if (s.idempotency_key)
    if (auto k = keys_.find(*s.idempotency_key);
        k != keys_.end() && k->second == s.id)
      keys_.erase(k);
  // Ended for the supervisor: its slot may be reclaimed.
  newly_ended_.push_back(s.id);
}

tracking_error tracker::expired_error(const tracking_session& s) const {
  return detail::expired_error(s.id, s.expired.value_or(""), limits_, true);
}

std::vector<change> tracker::take_changes() {
  return std::exchange(changes_, {});
}

void tracker::commit() {
  undo_.clear();
}

void tracker::rollback() {
  for (auto i = undo_.rbegin(); i != undo_.rend(); ++i)
    (*i)(*this);
  undo_.clear();
  changes_.clear();
}

std::vector<std::string> tracker::take_expired() {
  return std::exchange(newly_expired_, {});
}

std::vector<std::string> tracker::take_ended() {
  return std::exchange(newly_ended_, {});
}

} // namespace ttm::domain
