// time_undo in the tracking model: each undoable change files the steps
// that take it back (record), and undo runs the newest ones backwards.
// The audit trail's lines are made here too.

#include "domain/time_format.hpp"
#include "domain/tracking.hpp"

#include <algorithm>
#include <iterator>

namespace ttm::domain {

namespace {

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

} // namespace

const char* to_string(change::kind_t k) {
  switch (k) {
    case change::session_started:
      return "session_started";
    case change::task_started:
      return "task_started";
    case change::task_ended:
      return "task_ended";
    case change::session_ended:
      return "session_ended";
    case change::session_expired:
      return "session_expired";
    case change::tasks_edited:
      return "tasks_edited";
    case change::change_undone:
      return "change_undone";
  }
  return "unknown";
}

void tracker::record(tracking_session& s, change c, std::size_t mark) {
  if (editing_)
    return;
  undo_entry e;
  e.steps.assign(std::make_move_iterator(undo_.begin() + mark),
                 std::make_move_iterator(undo_.end()));
  undo_.resize(mark);
  e.ordinal = s.changes_made++;
  e.audit_index = s.audit.size();
  s.audit.push_back(audit_of(c));
  if (recording_)
    changes_.push_back(c);
  e.what = std::move(c);
  s.undoable.push_back(std::move(e));
  // One past the depth: a rollback of this change makes the oldest one
  // undoable again.
  if (s.undoable.size() > undo_depth + 1)
    s.undoable.erase(s.undoable.begin());
  if (!recording_)
    return;
  undo_.emplace_back([sid = s.id](tracker& t) {
    auto j = t.sessions_.find(sid);
    if (j == t.sessions_.end() || j->second.undoable.empty())
      return;
    auto steps = std::move(j->second.undoable.back().steps);
    j->second.undoable.pop_back();
    --j->second.changes_made;
    j->second.audit.pop_back();
    for (auto k = steps.rbegin(); k != steps.rend(); ++k)
      (*k)(t);
  });
}

audit_record tracker::audit_of(const change& c) const {
  audit_record r;
  r.at = c.at;
  r.kind = c.kind;
  r.task_id = c.kind == change::task_started ? c.task.task_id : c.task_id;
  r.ops = c.ops.size();
  r.by = origin_;
  r.undid = c.undone_kind;
  return r;
}

std::size_t tracker::undoable_left(const tracking_session& s) {
  std::size_t n = 0;
  for (auto k = s.undoable.rbegin(); k != s.undoable.rend(); ++k) {
    if (s.changes_made - 1 - k->ordinal >= undo_depth)
      break;
    ++n;
  }
  return n;
}

bool tracker::undo_reopens(const tracking_session& s) {
  return undoable_left(s) > 0
         && s.undoable.back().what.kind == change::session_ended;
}

tracking_outcome<undone> tracker::undo(tracking_session& s, instant now) {
  if (undoable_left(s) == 0) {
    std::string why = s.changes_made == 0
                        ? " has no change to undo"
                        : s.undoable.empty()
                            ? " has no change left to undo: every change "
                              "since its start was undone"
                            : " has no change left to undo: time_undo goes "
                              "back through the session's last "
                                + std::to_string(undo_depth)
                                + " changes (undone ones count), and older "
                                  "ones are final";
    return tracking_error{
      "NOTHING_TO_UNDO",
      "Session " + quoted(s.id) + why
        + ". time_undo reverts task starts and ends, bulk edits and the "
          "session's end, never its start."};
  }
  auto& top = s.undoable.back();
  bool reopening = top.what.kind == change::session_ended;
  if (reopening && now.mono - s.start.mono > limits_.max_age)
    return tracking_error{
      "LIMIT_REACHED",
      "Session " + quoted(s.id) + " started more than "
        + format_duration(limits_.max_age)
        + " ago (max_age): reopened, it would expire at once, so its end "
          "stands. Start a new session with time_session_start."};
  // Journaled: a refused write puts the session back as it was.
  if (recording_)
    undo_.emplace_back([sid = s.id, before = s](tracker& t) {
      t.sessions_.insert_or_assign(sid, before);
      auto& reopened = t.newly_reopened_;
      auto r = std::find(reopened.begin(), reopened.end(), sid);
      if (r != reopened.end())
        reopened.erase(r);
    });
  auto entry = std::move(s.undoable.back());
  s.undoable.pop_back();
  for (auto k = entry.steps.rbegin(); k != entry.steps.rend(); ++k)
    (*k)(*this);
  change c;
  c.kind = change::change_undone;
  c.session_id = s.id;
  c.at = now;
  c.undone_kind = entry.what.kind;
  c.undone_at = entry.what.at;
  c.undone_ops = entry.what.ops.size();
  c.task_id = entry.what.kind == change::task_started
                ? entry.what.task.task_id
                : entry.what.task_id;
  if (entry.audit_index < s.audit.size())
    s.audit[entry.audit_index].undone = true;
  s.audit.push_back(audit_of(c));
  if (recording_)
    changes_.push_back(std::move(c));
  undone out{std::move(entry.what), reopening, 0};
  out.left = undoable_left(s);
  return out;
}

std::vector<std::string> tracker::take_reopened() {
  return std::exchange(newly_reopened_, {});
}

} // namespace ttm::domain
