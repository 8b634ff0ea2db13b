#include "journal/replay.hpp"

#include "domain/ids.hpp"
#include "journal/codec.hpp"

#include <algorithm>
#include <map>

namespace ttm::journal {

namespace {

using namespace domain;

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

change::kind_t change_kind_of(storage::event_kind k) {
  switch (k) {
    case storage::event_kind::task_started:
      return change::task_started;
    case storage::event_kind::task_ended:
      return change::task_ended;
    case storage::event_kind::tasks_edited:
      return change::tasks_edited;
    case storage::event_kind::session_ended:
      return change::session_ended;
    default:
      throw bad_event{std::string{"an undone event of kind '"}
                      + storage::to_string(k) + "', which cannot be undone"};
  }
}

// A malformed event throws bad_event; replay skips the session.
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
    payload p{e.payload};
    tr.set_origin(p.by());
    // An undone change is not redone; it still counts toward how far back
    // time_undo goes, and stays in the audit trail. The undo's own event
    // only says what it reverted.
    if (e.undone || e.kind == storage::event_kind::change_undone) {
      if (!live)
        throw bad_event{"an undo before the session's start"};
      audit_record line;
      line.at = at;
      line.by = p.by();
      line.task_id = e.task_id;
      if (e.kind == storage::event_kind::change_undone) {
        line.kind = change::change_undone;
        line.undid = p.undid();
        tracker::add_audit(*live, std::move(line));
      } else {
        line.kind = change_kind_of(e.kind);
        line.ops = p.op_count();
        tr.skip_undone(*live, std::move(line));
      }
      last = at;
      continue;
    }
    switch (e.kind) {
      case storage::event_kind::session_started: {
        if (live)
          throw bad_event{"session_started twice"};
        auto req = p.session_request();
        auto zone_name = p.zone_name();
        auto z = resolve_zone(zone_name, local_zone);
        if (!z.found)
          throw bad_event{"unknown time zone '" + zone_name + "'"};
        tr.add(s.session_id, std::move(req), *z.found, at);
        live = tr.find(s.session_id);
        break;
      }
      case storage::event_kind::task_started: {
        auto r = tr.start_task(*live, p.task_request(e.task_id), at);
        if (auto* err = std::get_if<tracking_error>(&r))
          throw bad_event{"task_started: " + err->message};
        break;
      }
      case storage::event_kind::task_ended: {
        auto status = p.status();
        auto r = tr.end_task(*live, e.task_id, status, p.metadata(), at);
        if (auto* err = std::get_if<tracking_error>(&r))
          throw bad_event{"task_ended: " + err->message};
        break;
      }
      case storage::event_kind::session_ended:
        tr.end_session(*live, at);
        break;
      case storage::event_kind::tasks_edited: {
        auto r = tr.edit_tasks(*live, p.ops(), at);
        if (auto* f = std::get_if<edit_failure>(&r))
          throw bad_event{"tasks_edited: operation "
                          + std::to_string(f->index) + ": "
                          + f->error.message};
        break;
      }
      case storage::event_kind::session_expired:
        // Its last event: the session is history from then on.
        if (s.state != storage::session_state::expired || live->ended())
          throw bad_event{"an open or ended session has an expiry event"};
        tr.close_expired(*live, at, p.expiry_reason());
        break;
      case storage::event_kind::change_undone:
        break; // skipped above
    }
    last = at;
  }
  // Idle time counts from the last recorded event.
  live->last_activity = last.mono;
}

} // namespace

std::vector<std::string> replay(tracker& tr,
                                const std::vector<storage::stored_session>& in,
                                const clock_source& clock,
                                const std::string& local_zone,
                                std::vector<std::string>& problems) {
  std::vector<std::string> ids;
  bool was_recording = tr.recording();
  tr.record_changes(false);
  // Each event says who made it; the caller's origin comes back after.
  auto origin = tr.origin();
  for (const auto& s : in) {
    // An expired session comes with its events (read only, as history);
    // without them only its expiry is known.
    if (s.state == storage::session_state::expired && s.events.empty()) {
      tr.remember_expired(s.session_id);
      continue;
    }
    try {
      tr.drop(s.session_id); // no longer only remembered as expired
      replay_one(tr, s, clock, local_zone);
      if (s.state == storage::session_state::expired
          && !tr.find(s.session_id)->expired)
        throw bad_event{"it expired, without an expiry event"};
      ids.push_back(s.session_id);
    } catch (const std::exception& e) {
      problems.push_back("session " + log_id(s.session_id) + ": " + e.what());
      // Held until now, or expired: remembered as expired (why not known).
      if (tr.find(s.session_id) != nullptr
          || s.state == storage::session_state::expired)
        tr.remember_expired(s.session_id);
    }
  }
  tr.record_changes(was_recording);
  tr.set_origin(std::move(origin));
  return ids;
}

} // namespace ttm::journal
