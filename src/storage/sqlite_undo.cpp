// store::append's part for time_undo (schema 7): a change_undone event
// marks the event it reverts and takes back what the session's row says
// of it.

#include "storage/sqlite_store_impl.hpp"

#include <sqlite3.h>

namespace ttm::storage::detail {

/// Marks the session's latest standing undoable event undone by the
/// change_undone just inserted, and takes back what its row says of it.
std::optional<error> sqlite_store::undo_latest(const event& ev,
                                               std::int64_t sid) {
  static const std::string what = "cannot append to the journal";
  auto undo_seq = sqlite3_last_insert_rowid(db_.get());
  std::int64_t seq = 0;
  std::string kind, payload;
  {
    stmt_use use{undo_target_};
    use.bind(1, sid);
    auto rc = use.step();
    if (rc == SQLITE_DONE)
      return rejected("session " + ev.session_id
                      + " has no change left to undo in the journal");
    if (rc != SQLITE_ROW)
      return fail(rc, what);
    seq = use.int64(0);
    kind = use.text(1);
    payload = use.text(2);
  }
  {
    stmt_use use{mark_undone_};
    if (auto rc = use.bind(1, seq).bind(2, undo_seq).step();
        rc != SQLITE_DONE)
      return fail(rc, what);
  }
  if (kind == "session_ended") {
    if (auto err = room_for_open(ev.principal, what))
      return err;
    stmt_use use{reopen_session_};
    use.bind(1, sid).bind(2, ev.at.wall_ns).bind(3, instance_);
    if (auto rc = use.step(); rc != SQLITE_DONE)
      return fail(rc, what);
    return std::nullopt;
  }
  if (kind == "tasks_edited") {
    stmt_use use{unnote_task_edits_};
    if (auto rc = use.bind(1, sid).bind(2, payload).step(); rc != SQLITE_DONE)
      return fail(rc, what);
  }
  stmt_use use{advance_session_};
  use.bind(1, sid).bind(2, ev.at.wall_ns).bind(3, instance_);
  if (auto rc = use.step(); rc != SQLITE_DONE)
    return fail(rc, what);
  return std::nullopt;
}

} // namespace ttm::storage::detail
