// The journal actor's group commit: appends that arrive together share one
// transaction; with a deferred sync (storage::store::deferred_sync), the
// WAL is synced on the syncer's thread after the COMMIT, so the next
// batch commits while this one syncs, and the answers wait for the sync.

#include "actors/journal.hpp"

#include "log.hpp"
#include "metrics.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <utility>

namespace ttm::actors::detail {

namespace {

/// The verdict for the client: never a path of the server's.
storage::append_answer answer_of(const storage::result<storage::ok>& r) {
  using storage::append_answer;
  auto* err = std::get_if<storage::error>(&r);
  if (!err)
    return {};
  switch (err->kind) {
    case storage::error_kind::fenced:
      return {append_answer::fenced, public_reason(*err)};
    case storage::error_kind::limit:
      return {append_answer::limit, public_reason(*err), err->limit_option,
              err->limit_value};
    default:
      return {append_answer::failed, public_reason(*err)};
  }
}

/// What a request past its --request-timeout is told: nothing was written.
storage::append_answer timed_out() {
  return {storage::append_answer::timed_out,
          "it waited for the session journal past its --request-timeout "
          "(another request or server held the journal)"};
}

/// The earliest deadline of a flush's appends, and the same instant on the
/// real clock the store waits by.
struct wait_bound {
  std::int64_t deadline_ns = 0; ///< 0: none
  std::chrono::steady_clock::time_point until{};
};

/// Answers the appends past their deadline before the transaction begins
/// (nothing of them is written), and bounds the others' wait for other
/// servers' transactions by the earliest deadline left (reset it after
/// the flush when one was set).
wait_bound expire_due(journal_state& st,
                      std::vector<journal_state::pending>& batch) {
  bool any = false;
  for (const auto& p : batch)
    any = any || p.deadline_ns != 0;
  if (!any)
    return {};
  auto now_ns = domain::to_ns(st.cfg.clock->mono_now());
  wait_bound bound;
  auto kept = std::remove_if(batch.begin(), batch.end(), [&](auto& p) {
    if (p.deadline_ns == 0)
      return false;
    if (now_ns >= p.deadline_ns) {
      p.promise.deliver(timed_out());
      return true;
    }
    if (bound.deadline_ns == 0 || p.deadline_ns < bound.deadline_ns)
      bound.deadline_ns = p.deadline_ns;
    return false;
  });
  batch.erase(kept, batch.end());
  if (bound.deadline_ns == 0 || !st.cfg.store)
    return {};
  // The store waits in real time: the time left, from now.
  bound.until = std::chrono::steady_clock::now()
                + std::chrono::nanoseconds{bound.deadline_ns - now_ns};
  st.cfg.store->bound_busy_wait(bound.until);
  return bound;
}

/// A failed append that waited for another server (busy) past its
/// deadline: its transaction was rolled back, so it is a timeout, not a
/// fault. Past: by the clock, or (the one the wait was bounded by) by the
/// real time the store gave up at.
storage::append_answer settle(const journal_state& st, const wait_bound& b,
                              const journal_state::pending& p,
                              storage::append_answer a, bool busy) {
  if (!busy || a.kind != storage::append_answer::failed || p.deadline_ns == 0)
    return a;
  if (domain::to_ns(st.cfg.clock->mono_now()) >= p.deadline_ns
      || (p.deadline_ns == b.deadline_ns
          && std::chrono::steady_clock::now() >= b.until))
    return timed_out();
  return a;
}

/// What an append whose change committed but whose sync failed is told:
/// not "nothing changed" (readers see the change), not stored (it may not
/// survive a crash).
storage::append_answer sync_failed() {
  return {storage::append_answer::unknown,
          "the change was written to the session journal but could not be "
          "made durable (its sync to disk failed), so its outcome is unknown "
          "until the server restarts"};
}

/// Asks the syncer for a sync covering every commit so far, unless one is
/// in flight (its answer asks again for what committed meanwhile).
void request_sync(self_ptr self) {
  auto& st = self->state;
  if (st.sync_in_flight || st.waiting_sync.empty())
    return;
  st.sync_in_flight = true;
  caf::anon_send(st.syncer, flush_atom::value, st.tickets);
}

void flush_batch(self_ptr self, std::vector<journal_state::pending>& batch,
                 const wait_bound& bound) {
  auto& st = self->state;
  if (batch.empty())
    return;
  start_syncer(self); // a store given to the actor, not opened by it
  // This flush's commits: acknowledged by the first sync asked after them.
  auto ticket = ++st.tickets;
  bool deferred = static_cast<bool>(st.syncer);
  if (!st.cfg.store) {
    auto why = unavailable(st);
    for (auto& p : batch)
      p.promise.deliver(
        storage::append_answer{storage::append_answer::failed, why});
    return;
  }
  // Fenced and limit are answers, not faults of the journal.
  bool busy = false; // the last noted failure waited for another server
  auto note = [&](const storage::result<storage::ok>& r) {
    auto* e = std::get_if<storage::error>(&r);
    busy = e && e->kind == storage::error_kind::busy;
    auto answer = answer_of(r);
    if (answer.kind == storage::append_answer::failed) {
      if (!st.failing)
        TTM_LOG(error, "journal",
                "cannot write: " + describe(std::get<storage::error>(r)));
      st.failing = true;
      return answer;
    }
    if (answer.kind == storage::append_answer::fenced)
      metrics::journal_fence();
    if (answer.kind == storage::append_answer::stored && st.failing) {
      TTM_LOG(info, "journal", "writing again");
      st.failing = false;
    }
    return answer;
  };
  // One transaction, timed for the metrics (`took`: the last one's).
  double took = 0;
  auto timed = [&](const std::vector<storage::event>& events) {
    auto start = st.cfg.clock->mono_now();
    auto r = deferred ? st.cfg.store->append_unsynced(events)
                      : st.cfg.store->append(events);
    took = std::chrono::duration<double>(st.cfg.clock->mono_now() - start)
             .count();
    return r;
  };
  // At the directory's limit, sessions no server holds any more may be
  // due: expire them and try once more.
  auto append = [&](const std::vector<storage::event>& events) {
    auto r = timed(events);
    if (auto* err = std::get_if<storage::error>(&r);
        err && err->kind == storage::error_kind::limit) {
      sweep_orphans(self);
      r = timed(events);
    }
    return r;
  };
  // A stored change is acknowledged once on disk: now, or (deferred) when
  // the sync after this flush returns; the metrics count its commit then.
  auto flush_start = st.cfg.clock->mono_now();
  auto deliver = [&](journal_state::pending& p, storage::append_answer a) {
    a = settle(st, bound, p, std::move(a), busy);
    if (!deferred || a.kind != storage::append_answer::stored) {
      p.promise.deliver(std::move(a));
      return;
    }
    st.waiting_sync.push_back(
      {ticket, [promise = p.promise, a](const std::string& error) mutable {
         promise.deliver(error.empty() ? a : sync_failed());
       }});
  };
  auto count_commit = [&](std::size_t n) {
    ++st.commits;
    st.events += n;
    if (!deferred) {
      metrics::journal_commit(n, took);
      return;
    }
    st.waiting_sync.push_back(
      {ticket, [n, start = flush_start, clock = st.cfg.clock](
                 const std::string& error) {
         if (error.empty())
           metrics::journal_commit(
             n, std::chrono::duration<double>(clock->mono_now() - start)
                  .count());
       }});
  };
  storage::append_answer answer;
  if (batch.size() == 1) {
    answer = note(append(batch.front().events));
  } else {
    std::vector<storage::event> all;
    std::size_t n = 0;
    for (const auto& p : batch)
      n += p.events.size();
    all.reserve(n);
    for (const auto& p : batch)
      all.insert(all.end(), p.events.begin(), p.events.end());
    auto r = timed(all);
    // Busy for 2 s already: retrying each alone would hold every other
    // claim and append for 2 s more per append. Fail them all.
    if (auto* err = std::get_if<storage::error>(&r);
        err && err->kind == storage::error_kind::busy) {
      auto a = note(r);
      for (auto& p : batch)
        deliver(p, a);
      return;
    }
    if (std::holds_alternative<storage::error>(r)) {
      for (auto& p : batch) {
        auto a = note(append(p.events));
        if (a.kind == storage::append_answer::stored)
          count_commit(p.events.size());
        deliver(p, std::move(a));
      }
      request_sync(self);
      return;
    }
    answer = note(r);
  }
  if (answer.kind == storage::append_answer::stored) {
    std::size_t n = 0;
    for (const auto& p : batch)
      n += p.events.size();
    count_commit(n);
  }
  for (auto& p : batch)
    deliver(p, answer);
  request_sync(self);
}


} // namespace

void flush(self_ptr self) {
  auto& st = self->state;
  st.flush_scheduled = false;
  auto batch = std::move(st.batch);
  st.batch.clear();
  auto bound = expire_due(st, batch);
  flush_batch(self, batch, bound);
  if (bound.deadline_ns != 0)
    st.cfg.store->bound_busy_wait(std::nullopt);
}

void on_synced(self_ptr self, std::uint64_t ticket, const std::string& error) {
  auto& st = self->state;
  st.sync_in_flight = false;
  ++st.syncs;
  auto& w = st.waiting_sync;
  auto done = std::find_if(w.begin(), w.end(),
                           [&](const auto& u) { return u.ticket > ticket; });
  // A failed sync is never retried (the store refuses writes from now
  // on; sqlite_wal_sync::sync): said once, loudly, naming the error.
  if (!error.empty() && !st.sync_failed)
    TTM_LOG(error, "journal",
            "CRITICAL: cannot sync the journal to disk: " + error
              + "; the changes committed since the last sync have an "
                "unknown outcome (their clients are told so); the journal refuses every change from now on "
                "and reads go on: restart the server, which reads what the "
                "file holds (a retried sync proves nothing, see "
                "docs/durability.md)");
  else if (!error.empty() && done != w.begin())
    TTM_LOG(error, "journal",
            "more committed changes have an unknown outcome: the journal's "
            "sync failed before; restart the server");
  st.sync_failed = st.sync_failed || !error.empty();
  // Out of the queue before they are answered: the queue stays whole
  // whatever an answer sets off.
  std::vector<journal_state::unsynced> ready{std::make_move_iterator(w.begin()),
                                             std::make_move_iterator(done)};
  w.erase(w.begin(), done);
  for (auto& u : ready)
    u.deliver(error);
  request_sync(self);
  // The appends that came meanwhile: behind those now in the mailbox.
  if (std::exchange(st.flush_after_sync, false))
    self->send(self, flush_atom::value);
}

namespace {

/// The syncer: one sync per request (the journal asks again only once
/// answered); a weak handle of the journal, whose state owns it.
caf::behavior syncer(caf::event_based_actor*,
                     std::shared_ptr<storage::store::commit_sync> sync,
                     caf::weak_actor_ptr journal, caf::actor checkpointer) {
  return {
    [=](flush_atom, std::uint64_t ticket) {
      auto r = sync->sync();
      std::string error;
      if (auto* e = std::get_if<storage::error>(&r))
        error = describe(*e);
      if (auto to = caf::actor_cast<journal_actor>(journal.lock()))
        caf::anon_send(to, flush_atom::value, ticket, std::move(error));
      // A checkpoint syncs the WAL and the database and copies pages:
      // neither the commits nor their syncs wait for it.
      if (sync->checkpoint_due())
        caf::anon_send(checkpointer, flush_atom::value);
    },
  };
}

/// Runs the checkpoints the syncer found due (one at a time).
caf::behavior checkpointer(caf::event_based_actor*,
                           std::shared_ptr<storage::store::commit_sync> sync) {
  return {
    [=](flush_atom) {
      if (auto r = sync->checkpoint(); std::holds_alternative<storage::error>(r))
        TTM_LOG(warning, "journal",
                "WAL checkpoint failed (the next one tries again): "
                  + describe(std::get<storage::error>(r)));
    },
  };
}

} // namespace

void start_syncer(self_ptr self) {
  auto& st = self->state;
  if (st.syncer || !st.cfg.store || st.sync_checked)
    return;
  st.sync_checked = true;
  if (auto sync = st.cfg.store->deferred_sync()) {
    // Detached: the sync and the checkpoint block their own threads, not
    // the journal's.
    st.checkpointer = self->spawn<caf::detached>(checkpointer, sync);
    st.syncer = self->spawn<caf::detached>(
      syncer, std::move(sync),
      caf::actor_cast<caf::weak_actor_ptr>(self->ctrl()), st.checkpointer);
  }
}

caf::result<storage::append_answer>
enqueue_append(self_ptr self, std::vector<storage::event> events,
               std::int64_t deadline_ns) {
  auto& st = self->state;
  auto promise = self->make_response_promise<storage::append_answer>();
  st.batch.push_back({std::move(events), promise, deadline_ns});
  // The flush queues behind every append already in the mailbox: under
  // load they share one transaction; alone, one waits for nothing. While
  // a sync is in flight (deferred sync), the appends wait for it anyway
  // (their answers need the sync after their commit): they commit
  // together once it returns, one transaction, not one per mailbox turn
  // meanwhile (each rewrites the same B-tree pages into the WAL, takes
  // the write lock and SQLite's WAL-index locks again).
  if (!st.flush_scheduled) {
    st.flush_scheduled = true;
    if (st.sync_in_flight)
      st.flush_after_sync = true;
    else
      self->send(self, flush_atom::value);
  }
  return promise;
}


} // namespace ttm::actors::detail
