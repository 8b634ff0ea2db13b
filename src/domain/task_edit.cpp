// The bulk edit of a session's tasks (time_tasks_edit): pause, resume,
// notes, tasks added or removed mid-session, and start/end as the single
// tools do them, applied all or none.

#include "domain/tracking.hpp"

#include <algorithm>

namespace ttm::domain {

namespace {

constexpr const char* op_names[] = {"start", "end", "pause",  "resume",
                                    "note",  "add", "remove", "correct"};

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

tracking_error not_started(const std::string& task_id) {
  return {"TASK_NOT_STARTED",
          "Task " + quoted(task_id)
            + " was never started; start it first (operation 'start')."};
}

tracking_error not_running(const tracked_task& t) {
  return {"TASK_NOT_RUNNING",
          "Task " + quoted(t.id) + " is not running: its run "
            + std::to_string(t.runs.back().number) + " ended as "
            + to_string(t.runs.back().status)
            + "; start it again (operation 'start') for a new run."};
}

/// The index of task `id` among the session's tasks, once it has a run
/// (what note, pause, resume and correct act on).
tracking_outcome<std::size_t> started_task(const tracking_session& s,
                                           const std::string& id) {
  auto i = s.task_index.find(id);
  if (i == s.task_index.end())
    return detail::not_in_session(s, id);
  if (s.tasks[i->second].runs.empty())
    return not_started(id);
  return i->second;
}

void reindex(tracking_session& s) {
  s.task_index.clear();
  for (std::size_t k = 0; k < s.tasks.size(); ++k)
    s.task_index.emplace(s.tasks[k].id, k);
}

} // namespace

const char* to_string(task_op::kind_t k) {
  return op_names[static_cast<int>(k)];
}

std::optional<task_op::kind_t> task_op_kind_from(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(op_names)); ++i)
    if (name == op_names[i])
      return static_cast<task_op::kind_t>(i);
  return std::nullopt;
}

edit_outcome tracker::edit_tasks(tracking_session& s,
                                 const std::vector<task_op>& ops,
                                 instant now) {
  // Every step records how to undo it, so a failing operation can take
  // back the ones before it; together they are the edit's one change (one
  // journal event, one transaction, one time_undo).
  auto undo_mark = undo_.size();
  editing_ = true;
  std::vector<op_done> done;
  done.reserve(ops.size());
  std::vector<task_op> effective; // what the journal replays
  std::optional<edit_failure> failed;
  if (s.ended())
    failed = edit_failure{0, detail::session_ended(s)};
  for (std::size_t k = 0; !failed && k < ops.size(); ++k) {
    auto r = apply(s, ops[k], now);
    if (auto* err = std::get_if<tracking_error>(&r))
      failed = edit_failure{k, std::move(*err)};
    else {
      done.push_back(std::move(std::get<op_done>(r)));
      if (!done.back().unchanged)
        effective.push_back(ops[k]);
    }
  }
  editing_ = false;
  if (failed) {
    while (undo_.size() > undo_mark) {
      undo_.back()(*this);
      undo_.pop_back();
    }
    return std::move(*failed);
  }
  if (effective.empty()) {
    undo_.resize(undo_mark); // nothing changed
    return done;
  }
  change c;
  c.kind = change::tasks_edited;
  c.session_id = s.id;
  c.at = now;
  c.ops = std::move(effective);
  record(s, std::move(c), undo_mark);
  return done;
}

tracking_outcome<op_done> tracker::apply(tracking_session& s,
                                         const task_op& op, instant now) {
  const auto& id = op.task.task_id;
  op_done out{op.kind, id};
  switch (op.kind) {
    case task_op::start: {
      auto r = start_task(s, op.task, now);
      if (auto* err = std::get_if<tracking_error>(&r))
        return std::move(*err);
      const auto& st = std::get<task_started>(r);
      out.run = st.run->number;
      out.unchanged = st.already_running;
      return out;
    }
    case task_op::end: {
      auto r = end_task(s, id, op.status, op.metadata, now);
      if (auto* err = std::get_if<tracking_error>(&r))
        return std::move(*err);
      const auto& e = std::get<task_ended>(r);
      out.run = e.run->number;
      out.unchanged = e.already_ended;
      return out;
    }
    case task_op::pause:
    case task_op::resume:
      return pause_or_resume(s, op, now);
    case task_op::note: {
      auto found = started_task(s, id);
      if (auto* err = std::get_if<tracking_error>(&found))
        return std::move(*err);
      auto index = std::get<std::size_t>(found);
      auto& task = s.tasks[index];
      auto n = op.text.size() + tracking_limits::entry_bytes;
      if (auto err = detail::over_budget(limits_, s.bytes + n))
        return *err;
      task.runs.back().notes.push_back({now, op.text});
      s.bytes += n;
      undo_.emplace_back([sid = s.id, index, n](tracker& t) {
        auto j = t.sessions_.find(sid);
        if (j == t.sessions_.end())
          return;
        j->second.tasks[index].runs.back().notes.pop_back();
        j->second.bytes -= n;
      });
      out.run = task.runs.back().number;
      return out;
    }
    case task_op::add:
      return add_task(s, op);
    case task_op::remove:
      return remove_task(s, op);
    case task_op::correct:
      return correct_run(s, op, now);
  }
  return out;
}

tracking_outcome<op_done> tracker::pause_or_resume(tracking_session& s,
                                                   const task_op& op,
                                                   instant now) {
  const auto& id = op.task.task_id;
  auto found = started_task(s, id);
  if (auto* err = std::get_if<tracking_error>(&found))
    return std::move(*err);
  auto index = std::get<std::size_t>(found);
  auto& task = s.tasks[index];
  auto& run = task.runs.back();
  if (run.end)
    return not_running(task);
  op_done out{op.kind, id, run.number, false};
  bool pausing = op.kind == task_op::pause;
  if (run.paused() == pausing) {
    out.unchanged = true; // pausing a paused run, resuming a running one
    return out;
  }
  if (pausing) {
    constexpr auto n = tracking_limits::entry_bytes;
    if (auto err = detail::over_budget(limits_, s.bytes + n))
      return *err;
    run.pauses.push_back({now, std::nullopt});
    s.bytes += n;
    undo_.emplace_back([sid = s.id, index](tracker& t) {
      auto j = t.sessions_.find(sid);
      if (j == t.sessions_.end())
        return;
      j->second.tasks[index].runs.back().pauses.pop_back();
      j->second.bytes -= n;
    });
  } else {
    run.pauses.back().end = now;
    undo_.emplace_back([sid = s.id, index](tracker& t) {
      auto j = t.sessions_.find(sid);
      if (j != t.sessions_.end())
        j->second.tasks[index].runs.back().pauses.back().end.reset();
    });
  }
  return out;
}

tracking_outcome<op_done> tracker::add_task(tracking_session& s,
                                            const task_op& op) {
  const auto& id = op.task.task_id;
  if (s.task_index.count(id) > 0)
    return tracking_error{"TASK_EXISTS", "Task " + quoted(id)
                                           + " is already in session "
                                           + quoted(s.id) + "."};
  if (s.tasks.size() >= limits_.max_tasks_per_session)
    return tracking_error{
      "LIMIT_REACHED",
      "Session " + quoted(s.id) + " has "
        + std::to_string(s.tasks.size()) + " tasks; the limit is "
        + std::to_string(limits_.max_tasks_per_session)
        + " tasks per session (max_tasks_per_session)."};
  auto added = id.size() + (op.task.task_name ? op.task.task_name->size() : 0);
  if (auto err = detail::over_budget(limits_, s.bytes + added))
    return *err;
  s.task_index.emplace(id, s.tasks.size());
  s.tasks.push_back({id, {}, op.estimate, op.task.task_name});
  s.bytes += added;
  undo_.emplace_back([sid = s.id, added](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end())
      return;
    j->second.task_index.erase(j->second.tasks.back().id);
    j->second.tasks.pop_back();
    j->second.bytes -= added;
  });
  return op_done{op.kind, id, 0, false};
}

tracking_outcome<op_done> tracker::remove_task(tracking_session& s,
                                               const task_op& op) {
  const auto& id = op.task.task_id;
  auto i = s.task_index.find(id);
  if (i == s.task_index.end())
    return detail::not_in_session(s, id);
  auto index = i->second;
  if (!s.tasks[index].runs.empty())
    return tracking_error{
      "TASK_ALREADY_STARTED",
      "Task " + quoted(id)
        + " has been started, so it stays in the session; end it with "
          "status 'skipped' instead."};
  auto removed = id.size();
  auto task = std::move(s.tasks[index]);
  s.tasks.erase(s.tasks.begin() + static_cast<std::ptrdiff_t>(index));
  reindex(s);
  s.bytes -= std::min(s.bytes, removed);
  undo_.emplace_back([sid = s.id, index, removed,
                      t = std::move(task)](tracker& tr) mutable {
    auto j = tr.sessions_.find(sid);
    if (j == tr.sessions_.end())
      return;
    auto& ss = j->second;
    ss.tasks.insert(ss.tasks.begin() + static_cast<std::ptrdiff_t>(index),
                    std::move(t));
    reindex(ss);
    ss.bytes += removed;
  });
  return op_done{op.kind, id, 0, false};
}

} // namespace ttm::domain

namespace ttm::domain {

namespace {

/// `wall` on the timeline of `anchor`: the monotonic time moved by as much
/// as the wall clock, so a corrected span measures its wall-clock length.
instant shifted(const instant& anchor, wall_time wall) {
  instant out = anchor;
  out.wall = wall;
  out.mono = anchor.mono + std::chrono::duration_cast<mono_time::duration>(
                             wall - anchor.wall);
  return out;
}

tracking_error bad_correction(const std::string& why) {
  return {"INVALID_CORRECTION", why};
}

} // namespace

tracking_outcome<op_done> tracker::correct_run(tracking_session& s,
                                               const task_op& op,
                                               instant now) {
  const auto& id = op.task.task_id;
  auto found = started_task(s, id);
  if (auto* err = std::get_if<tracking_error>(&found))
    return std::move(*err);
  auto index = std::get<std::size_t>(found);
  auto& task = s.tasks[index];
  auto number = op.run == 0 ? task.runs.size() : op.run;
  if (number > task.runs.size())
    return bad_correction("Task " + quoted(id) + " has "
                          + std::to_string(task.runs.size())
                          + " run(s); there is no run "
                          + std::to_string(number) + ".");
  auto& run = task.runs[number - 1];
  auto start = op.start_time ? shifted(run.start, *op.start_time) : run.start;
  std::optional<instant> end = run.end;
  if (op.end_time)
    end = run.end ? shifted(*run.end, *op.end_time)
                  : shifted(now, *op.end_time);
  // The corrected span is exactly its wall-clock length: both ends on one
  // timeline (two clock readings could differ by a rounding otherwise).
  if (end && (op.start_time || op.end_time))
    end = shifted(start, end->wall);
  auto status = op.new_status ? *op.new_status : run.status;
  if (!run.end && op.end_time && !op.new_status)
    status = run_status::completed; // a forgotten end
  if (!end && op.new_status)
    return bad_correction("Run " + std::to_string(number) + " of task "
                          + quoted(id)
                          + " is still running: give end_time with the "
                            "status, or end it.");
  if (end && end->wall <= start.wall)
    return bad_correction("The end must come after the start.");
  if (start.wall > now.wall || (end && end->wall > now.wall))
    return bad_correction("A corrected time cannot lie in the future.");
  // Backdating, the usual reason to correct: a run that began before its
  // session moves the session's start back with it (replay applies the
  // same operation again, so the journal needs no event of its own).
  std::optional<instant> session_start;
  if (start.wall < s.start.wall)
    session_start = shifted(s.start, start.wall);
  // No overlap with the task's other runs (touching is fine).
  auto stop = end ? end->wall : now.wall;
  for (std::size_t k = 0; k < task.runs.size(); ++k) {
    if (k == number - 1)
      continue;
    const auto& o = task.runs[k];
    auto o_stop = o.end ? o.end->wall : now.wall;
    if (start.wall < o_stop && o.start.wall < stop)
      return bad_correction("Run " + std::to_string(number) + " of task "
                            + quoted(id) + " would overlap its run "
                            + std::to_string(o.number) + ".");
  }
  if (auto err = detail::over_budget(limits_, s.bytes + op.text.size()))
    return *err;
  undo_.emplace_back([sid = s.id, index, number, old = run,
                      old_start = s.start, n = op.text.size()](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end())
      return;
    j->second.tasks[index].runs[number - 1] = old;
    j->second.start = old_start;
    j->second.bytes -= n;
  });
  if (session_start)
    s.start = *session_start;
  run.corrections.push_back(
    {now, op.text, run.start.wall,
     run.end ? std::optional<wall_time>{run.end->wall} : std::nullopt,
     run.status});
  run.start = start;
  run.end = end;
  run.status = status;
  s.bytes += op.text.size();
  return op_done{op.kind, id, number, false};
}

} // namespace ttm::domain
