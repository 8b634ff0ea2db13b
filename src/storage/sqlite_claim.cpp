// The claims of the SQLite store (see store.hpp, `claim`): reading the
// latest state of a session for the client that names it, taking it over
// when its holder is gone, giving held sessions back, and finding the stale
// ones. Split from sqlite_store.cpp, which writes the journal.

#include "storage/sqlite_store_impl.hpp"

#include "storage/sys_util.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <utility>

namespace ttm::storage::detail {

namespace {

/// How stale a held session's recorded activity may get before a read
/// records it: reads stay reads, mostly.
constexpr std::int64_t touch_after_ns = 60'000'000'000;

} // namespace

// -- claims -------------------------------------------------------------------

result<std::optional<sqlite_store::row>>
sqlite_store::read_claim_row(const claim_request& req) {
  static const std::string what = "cannot claim a session in";
  const auto& s = req.session_id.empty() ? claim_by_key_ : claim_select_;
  stmt_use use{s};
  if (req.session_id.empty())
    use.bind(1, req.principal)
      .bind(2, req.scope)
      .bind(3, req.idempotency_key)
      .bind(4, req.since_wall_ns);
  else
    use.bind(1, req.session_id);
  auto rc = use.step();
  if (rc == SQLITE_DONE)
    return std::optional<row>{};
  if (rc != SQLITE_ROW)
    return fail(rc, what);
  row r;
  r.sid = use.int64(0);
  r.scope = use.text(1);
  std::string bad;
  if (!read_session(use, 2, r.s, bad))
    return error{error_kind::io, "journal " + path_ + ": session "
                                   + r.s.session_id.substr(0, 8)
                                   + "... has unknown state '" + bad + "'"};
  return std::optional<row>{std::move(r)};
}

result<claim_result> sqlite_store::claim(const claim_request& req) {
  static const std::string what = "cannot load a session from";
  return guarded(what, path_, [&]() -> result<claim_result> {
    claim_result out;
    auto entitled = [&](const row& r) {
      return r.s.principal == req.principal && r.scope == req.scope;
    };
    // A call is activity: recorded now and then (at most once a minute),
    // so that neither another server nor the directory's expiry counts a
    // session idle while it is only read here. Past the read: a write of
    // its own, which a concurrent write may beat (then nothing to do).
    auto touch = [&](std::int64_t sid, const stored_session& s)
      -> std::optional<error> {
      if (s.state != session_state::open
          || req.now_wall_ns - s.last_wall_ns <= touch_after_ns)
        return std::nullopt;
      // Best effort, never for long: a read must not wait for a writer
      // (a stopped server holding the write lock); the next call records
      // the activity then.
      if (writer_stuck_ || writes_refused())
        return std::nullopt;
      busy_->limit_us = stuck_wait_us;
      stmt_use use{touch_held_};
      use.bind(1, sid).bind(2, req.now_wall_ns).bind(3, s.epoch);
      auto rc = use.step();
      busy_->limit_us = busy_timeout_us;
      if (rc == SQLITE_DONE)
        return std::nullopt;
      auto err = fail(rc, what);
      if (err.kind != error_kind::busy)
        return err;
      return std::nullopt;
    };
    // The common case: the caller's copy is still at the latest epoch. One
    // read of one row is a consistent snapshot.
    if (req.known_epoch > 0) {
      auto first = read_claim_row(req);
      if (auto* err = std::get_if<error>(&first))
        return std::move(*err);
      auto& r = std::get<std::optional<row>>(first);
      if (!r || !entitled(*r))
        return out; // not_found
      // Ended ones too: time_undo may reopen one, moving its epoch on.
      if (r->s.state != session_state::expired
          && r->s.epoch == req.known_epoch) {
        if (auto err = touch(r->sid, r->s))
          return std::move(*err);
        out.outcome = claim_result::current;
        out.session = std::move(r->s);
        return out;
      }
    }
    std::int64_t sid = 0;
    {
      // The row and its events from one snapshot.
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_read_, what))
        return std::move(*err);
      auto found = read_claim_row(req);
      if (auto* err = std::get_if<error>(&found))
        return std::move(*err);
      auto& r = std::get<std::optional<row>>(found);
      if (!r || !entitled(*r))
        return out; // not_found; the guard ends the read
      sid = r->sid;
      out.outcome = claim_result::loaded;
      out.session = std::move(r->s);
      auto& s = out.session;
      if (s.state == session_state::open && s.holder != instance_) {
        out.previous_holder = s.holder;
        out.previous_alive = lock_.alive(s.holder);
      }
      // An expired one's too: it is read as history.
      if (auto err = read_events_of(s, what, sid))
        return std::move(*err);
      if (auto err = run(commit_, what))
        return std::move(*err);
    }
    if (auto err = touch(sid, out.session))
      return std::move(*err);
    return out;
  });
}

result<ok> sqlite_store::release(
  const std::vector<std::pair<std::string, std::int64_t>>& held) {
  static const std::string what = "cannot release sessions in";
  if (held.empty())
    return ok{};
  return guarded(what, path_, [&]() -> result<ok> {
    return writing<ok>([&]() -> result<ok> {
      rollback_guard guard{db_.get()};
      if (auto err = run(begin_, what))
        return std::move(*err);
      for (const auto& [id, epoch] : held) {
        stmt_use use{release_};
        if (auto rc = use.bind(1, id).bind(2, epoch).bind(3, instance_).step();
            rc != SQLITE_DONE)
          return fail(rc, what);
      }
      if (auto err = commit_write(what))
        return std::move(*err);
      return ok{};
    });
  });
}

result<std::vector<std::string>> sqlite_store::stale(
  const std::vector<std::pair<std::string, std::int64_t>>& held) {
  static const std::string what = "cannot check sessions in";
  using res = result<std::vector<std::string>>;
  return guarded(what, path_, [&]() -> res {
    rollback_guard guard{db_.get()};
    if (auto err = run(begin_read_, what))
      return std::move(*err);
    std::vector<std::string> out;
    for (const auto& [id, epoch] : held) {
      stmt_use use{session_owner_};
      use.bind(1, id);
      auto rc = use.step();
      if (rc == SQLITE_ROW) {
        if (use.text(0) != "open" || use.int64(1) != epoch)
          out.push_back(id);
      } else if (rc == SQLITE_DONE) {
        out.push_back(id);
      } else {
        return fail(rc, what);
      }
    }
    if (auto err = run(commit_, what))
      return std::move(*err);
    return out;
  });
}

} // namespace ttm::storage::detail
