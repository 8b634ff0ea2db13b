#include "actors/journal.hpp"

#include "journal/audit.hpp"
#include "journal/expiry.hpp"
#include "journal/history.hpp"
#include "log.hpp"
#include "metrics.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <utility>

namespace ttm::actors {

journal_state::~journal_state() {
  if (syncer)
    caf::anon_send_exit(syncer, caf::exit_reason::user_shutdown);
  if (checkpointer)
    caf::anon_send_exit(checkpointer, caf::exit_reason::user_shutdown);
  if (syncs > 0)
    TTM_LOG(info, "journal", std::to_string(syncs)
                               + " WAL syncs after the commit (deferred sync)"
                                 " for "
                               + std::to_string(commits) + " transactions");
  if (renewals > 0)
    TTM_LOG(info, "journal", std::to_string(renewals)
                               + " lease renewals, "
                               + std::to_string(renew_us / renewals)
                               + " us each on average");
  if (commits == 0 && claims == 0)
    return;
  // Contention with other servers on the directory: how often a statement
  // waited for their transactions, and how long in all.
  auto waits = cfg.store ? cfg.store->lock_waits() : storage::store::waits{};
  TTM_LOG(info, "journal", std::to_string(events) + " events in "
                             + std::to_string(commits) + " transactions; "
                             + std::to_string(claims) + " claims, "
                             + std::to_string(loads) + " loads; "
                             + std::to_string(waits.count)
                             + " waits for other servers' transactions ("
                             + std::to_string(waits.total_us / 1000)
                             + " ms); the write lock held "
                             + std::to_string(waits.held_us / 1000)
                             + " ms in " + std::to_string(waits.writes)
                             + " writes");
}

namespace detail {

/// For the log: everything, the path included.
std::string describe(const storage::error& e) {
  return std::string{"storage "} + storage::to_string(e.kind) + ": "
         + e.message;
}

/// For the client: what kind of fault, never a path of the server's.
std::string public_reason(const storage::error& e) {
  // A pid is no secret of the server's, and names what to resume or end.
  if (e.kind == storage::error_kind::busy && e.holder_pid > 0)
    return "the session journal failed (storage busy: process "
           + std::to_string(e.holder_pid)
           + " holds its write lock, stopped or frozen?; reads still work, "
             "writes wait until it resumes or exits)";
  if (e.kind == storage::error_kind::sync_failed)
    return "the session journal refuses every change since a sync of it to "
           "disk failed; reads still work; restart the server (see its log)";
  return std::string{"the session journal failed (storage "}
         + storage::to_string(e.kind) + ")";
}

/// The metrics' count of open focus sessions, from the whole directory
/// (other servers open and close them too): at open, after a focus change
/// here, and at each sweep.
void count_focus(self_ptr self) {
  auto& st = self->state;
  if (!st.cfg.store)
    return;
  auto r = st.cfg.store->open_focus_sessions();
  if (auto* n = std::get_if<std::size_t>(&r))
    metrics::set_focus_sessions(*n);
}

/// Expires the open sessions no live server holds, if past their limits;
/// returns how many.
std::size_t sweep_orphans(self_ptr self) {
  auto& st = self->state;
  if (!st.cfg.store)
    return 0;
  count_focus(self);
  auto r = journal::expire_orphans(*st.cfg.store, st.cfg.limits,
                                   *st.cfg.clock);
  if (!r.error.empty())
    TTM_LOG(warning, "journal", r.error);
  if (r.expired > 0)
    TTM_LOG(info, "journal",
            std::to_string(r.expired)
              + " sessions no server held expired (past their age or idle "
                "limit)");
  return r.expired;
}

/// Why a request finds no store: the journal's fault, or not opened yet.
std::string unavailable(const journal_state& st) {
  return st.cfg.unavailable.empty()
           ? std::string{"the session journal is not open yet"}
           : st.cfg.unavailable;
}

} // namespace detail

namespace {

using namespace detail;

/// Seconds, for the log.
std::string seconds(caf::timespan t) {
  return std::to_string(
           std::chrono::duration_cast<std::chrono::seconds>(t).count())
         + " s";
}

/// One try of `cfg.open`. On failure the transport learns why (its clients
/// answer STORAGE_UNAVAILABLE for sessions they do not hold, instead of
/// SESSION_NOT_FOUND) and the next try is scheduled, with backoff.
bool try_open(self_ptr self) {
  auto& st = self->state;
  auto opened = st.cfg.open();
  if (auto* store = std::get_if<storage::store_ptr>(&opened)) {
    st.cfg.store = std::move(*store);
    st.cfg.open = nullptr;
    if (st.failed_opens > 0)
      TTM_LOG(info, "journal", "the journal opened after "
                                 + std::to_string(st.failed_opens)
                                 + " failed attempts; tracking tools work "
                                   "again");
    return true;
  }
  const auto& err = std::get<storage::error>(opened);
  auto reason = std::string{"the session journal is unavailable ("}
                + storage::to_string(err.kind) + ")";
  st.retry_delay = st.failed_opens++ == 0
                     ? st.cfg.retry_first
                     : std::min(st.retry_delay * 2, st.cfg.retry_max);
  auto detail = reason + ": " + err.message;
  if (st.failed_opens == 1)
    TTM_LOG(error, "journal", detail
                                + "; calls that use a tracking session "
                                  "answer STORAGE_UNAVAILABLE until it "
                                  "opens (time_get_current works); trying "
                                  "again in "
                                + seconds(st.retry_delay)
                                + ", then with backoff up to "
                                + seconds(st.cfg.retry_max));
  else if (detail != st.last_open_error)
    TTM_LOG(warning, "journal", "still " + detail);
  else
    TTM_LOG(debug, "journal", "still " + detail);
  st.last_open_error = std::move(detail);
  st.next_try = self->clock().now() + st.retry_delay;
  if (reason != st.cfg.unavailable) {
    st.cfg.unavailable = reason;
    self->send(st.transport, fault_atom::value, std::move(reason));
  }
  self->delayed_send(self, st.retry_delay, open_atom::value, st.transport);
  return false;
}

/// Opens the store if asked to; tells the transport it works, expires what
/// no server held while none ran, and starts the sweep and the purge.
void open_store(self_ptr self) {
  auto& st = self->state;
  if (st.opened || !st.transport
      || (st.failed_opens > 0 && self->clock().now() < st.next_try))
    return;
  if (st.cfg.open && !try_open(self))
    return;
  st.opened = true;
  if (!st.cfg.store) {
    // Nothing to open: unavailable for good (tests).
    self->send(st.transport, fault_atom::value, st.cfg.unavailable);
    return;
  }
  if (st.cfg.opened_flag)
    *st.cfg.opened_flag = true;
  // The syncer and checkpointer threads start at the first flush
  // (start_syncer): a server that only reads never needs them.
  // What expired while no server held it (all servers were down, or its
  // client let go of it) expires now, before anyone can claim it.
  auto expired = sweep_orphans(self);
  auto open = st.cfg.store->open_sessions();
  auto* n = std::get_if<std::size_t>(&open);
  TTM_LOG(info, "journal", "journal " + st.cfg.store->describe()
                             + " (instance "
                             + std::to_string(st.cfg.store->instance()) + "; "
                             + (n ? std::to_string(*n) : std::string{"?"})
                             + " open sessions in the directory, "
                             + std::to_string(expired)
                             + " expired that no server held)");
  self->send(st.transport, recovered_atom::value);
  self->delayed_send(self, st.cfg.sweep_interval, sweep_atom::value);
  if (st.cfg.first_purge_delay.count() > 0)
    self->delayed_send(self, st.cfg.first_purge_delay, purge_atom::value);
  else
    self->send(self, purge_atom::value);
  // A lease (PostgreSQL): renewed at a third of its length, so two
  // renewals may fail before other servers take this one's sessions.
  if (auto every = st.cfg.store->lease_renewal())
    self->delayed_send(self, *every, lease_atom::value);
}

storage::claim_result claim(self_ptr self, const storage::claim_request& req,
                            std::string& error) {
  auto& st = self->state;
  open_store(self);
  if (!st.cfg.store) {
    error = unavailable(st);
    return {};
  }
  auto r = st.cfg.store->claim(req);
  if (auto* err = std::get_if<storage::error>(&r)) {
    TTM_LOG(error, "journal", "cannot claim: " + describe(*err));
    error = public_reason(*err);
    return {};
  }
  ++st.claims;
  auto& out = std::get<storage::claim_result>(r);
  if (out.outcome == storage::claim_result::loaded)
    ++st.loads;
  return std::move(out);
}

void purge(self_ptr self) {
  auto& st = self->state;
  if (!st.cfg.store || st.cfg.retention.count() == 0)
    return;
  auto now = st.cfg.clock->wall_now();
  auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    st.cfg.purge_interval)
                    .count();
  // Once per interval for the whole directory: 1 s short of it, so that
  // this server's own next purge is never skipped for being early.
  auto r = st.cfg.store->purge_closed_before(
    domain::to_ns(now - st.cfg.retention), domain::to_ns(now),
    interval > 1'000'000'000 ? interval - 1'000'000'000 : interval);
  if (auto* err = std::get_if<storage::error>(&r))
    TTM_LOG(warning, "journal", "history purge failed: " + describe(*err));
  else if (auto n = std::get<std::optional<std::size_t>>(r); !n)
    TTM_LOG(debug, "journal", "history purge skipped: another server on "
                              "the directory purged recently");
  else if (*n > 0)
    TTM_LOG(info, "journal", "purged " + std::to_string(*n)
                               + " sessions closed more than "
                               + std::to_string(st.cfg.retention.count())
                               + " s ago");
}

/// Writes the queued refusals in one transaction; without a store (not
/// open yet, or failing) they are dropped with a warning: the audit trail
/// must not hold memory or retry for ever while the journal is down.
void write_audit(journal_actor::stateful_pointer<journal_state> self) {
  auto& st = self->state;
  auto queued = std::exchange(st.audit, {});
  if (queued.empty())
    return;
  std::vector<storage::audit_entry> entries;
  entries.reserve(queued.size());
  for (const auto& q : queued) {
    domain::refusal r;
    r.at = domain::wall_time{std::chrono::duration_cast<
      domain::wall_time::duration>(std::chrono::nanoseconds{q.wall_ns})};
    r.status = static_cast<std::size_t>(q.status);
    r.reason = q.reason;
    r.client_address = q.client_address;
    r.principal = q.principal;
    r.suppressed = static_cast<std::size_t>(q.suppressed);
    entries.push_back(journal::to_audit_entry(r));
  }
  if (!st.cfg.store) {
    TTM_LOG(warning, "journal", std::to_string(entries.size())
                                  + " refusals not audited: the journal is"
                                    " not open");
    return;
  }
  if (auto r = st.cfg.store->record_audit(entries);
      auto* err = std::get_if<storage::error>(&r))
    TTM_LOG(warning, "journal", std::to_string(entries.size())
                                  + " refusals not audited: "
                                  + describe(*err));
}

} // namespace

void set_retention(journal_config& jc, std::chrono::seconds retention) {
  namespace chr = std::chrono;
  jc.retention = retention;
  auto half = chr::duration_cast<chr::seconds>(retention / 2);
  jc.purge_interval = retention.count() == 0
                        ? caf::timespan{chr::hours{24}}
                        : caf::timespan{std::clamp<chr::seconds>(
                          half, chr::seconds{1}, chr::hours{24})};
}

journal_actor::behavior_type
journal_behavior(journal_actor::stateful_pointer<journal_state> self,
                 journal_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.cfg = std::move(cfg);

  return {
    // If an append comes before the delay is over; after a failed open not
    // before the next try is due (it fails fast meanwhile).
    [=](append_atom, std::vector<storage::event>& events)
      -> caf::result<storage::append_answer> {
      open_store(self);
      return enqueue_append(self, std::move(events), 0);
    },
    [=](append_atom, std::vector<storage::event>& events,
        std::int64_t deadline_ns) -> caf::result<storage::append_answer> {
      open_store(self);
      return enqueue_append(self, std::move(events), deadline_ns);
    },
    [=](flush_atom) { flush(self); },
    [=](flush_atom, std::uint64_t ticket, const std::string& error) {
      on_synced(self, ticket, error);
    },
    [=](audit_atom, audited_refusal& r) {
      auto& st = self->state;
      if (st.audit.size() >= st.cfg.audit_queue) {
        ++st.audit_dropped;
        return;
      }
      r.suppressed += std::exchange(st.audit_dropped, 0);
      if (st.audit.empty())
        self->delayed_send(self, st.cfg.audit_delay, audit_atom::value);
      st.audit.push_back(std::move(r));
    },
    [=](audit_atom) { write_audit(self); },
    [=](claim_atom, const storage::claim_request& req) -> claim_reply {
      claim_reply out;
      out.result = claim(self, req, out.error);
      return out;
    },
    [=](principal_atom, const storage::principal_op& op) -> principal_reply {
      auto& st = self->state;
      principal_reply out;
      open_store(self);
      if (!st.cfg.store) {
        out.error = unavailable(st);
        return out;
      }
      auto r = st.cfg.store->principal(op);
      if (auto* err = std::get_if<storage::error>(&r)) {
        // The error names the journal and SQLite's reason, never the
        // operation's values (an intent is private).
        TTM_LOG(error, "journal", "cannot read or write preferences or "
                                  "focus sessions: " + describe(*err));
        out.error = public_reason(*err);
        return out;
      }
      out.state = std::move(std::get<storage::principal_state>(r));
      if (op.kind == storage::principal_op::focus_start
          || op.kind == storage::principal_op::focus_end)
        count_focus(self);
      return out;
    },
    [=](history_atom, const storage::list_query& q) -> list_reply {
      auto& st = self->state;
      list_reply out;
      open_store(self);
      if (!st.cfg.store) {
        out.error = unavailable(st);
        return out;
      }
      // Rows converted as the store hands them on (PostgreSQL: while it
      // reads the next ones); a page handed on whole (SQLite) goes to the
      // client as it is: converting it here would only hold the journal.
      auto r = journal::read_history(*st.cfg.store, q,
                                     st.cfg.clock->wall_now());
      if (r.reread)
        TTM_LOG(warning, "journal", "a session's packed task runs did not "
                                    "read; the page was read again with "
                                    "its events");
      if (r.error) {
        TTM_LOG(error, "journal", "cannot list sessions: "
                                    + describe(*r.error));
        out.error = public_reason(*r.error);
        return out;
      }
      out.page = std::move(r.page);
      out.whole = std::move(r.whole);
      return out;
    },
    [=](verify_atom, const held_sessions& held) -> std::vector<std::string> {
      auto& st = self->state;
      if (!st.cfg.store || held.empty())
        return {};
      auto r = st.cfg.store->stale(held);
      if (auto* err = std::get_if<storage::error>(&r)) {
        TTM_LOG(warning, "journal", "cannot check sessions: "
                                      + describe(*err));
        return {};
      }
      return std::move(std::get<std::vector<std::string>>(r));
    },
    [=](release_atom, const held_sessions& held) {
      auto& st = self->state;
      if (!st.cfg.store)
        return;
      auto r = st.cfg.store->release(held);
      if (auto* err = std::get_if<storage::error>(&r))
        TTM_LOG(warning, "journal",
                "cannot let go of sessions (they expire when due anyway): "
                  + describe(*err));
    },
    [=](sweep_atom) {
      sweep_orphans(self);
      detail::mcp_sweep(self->state);
      self->delayed_send(self, self->state.cfg.sweep_interval,
                         sweep_atom::value);
    },
    [=](open_atom, const transport_actor& transport) {
      auto& st = self->state;
      if (!st.transport) {
        st.transport = transport;
        if (st.cfg.open_delay.count() > 0) {
          self->delayed_send(self, st.cfg.open_delay, open_atom::value,
                             transport);
          return;
        }
      }
      open_store(self);
    },
    [=](lease_atom) {
      auto& st = self->state;
      if (!st.cfg.store)
        return;
      auto t0 = std::chrono::steady_clock::now();
      auto r = st.cfg.store->renew_lease();
      st.renew_us += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - t0)
          .count());
      ++st.renewals;
      if (auto* err = std::get_if<storage::error>(&r))
        TTM_LOG(warning, "journal",
                "cannot renew this server's lease (other servers take its"
                " sessions once it expires): "
                  + describe(*err));
      if (auto every = st.cfg.store->lease_renewal())
        self->delayed_send(self, *every, lease_atom::value);
    },
    [=](purge_atom) {
      purge(self);
      self->delayed_send(self, self->state.cfg.purge_interval,
                         purge_atom::value);
    },
    [=](mcp_put_atom, storage::mcp_session_record& r) {
      open_store(self);
      return detail::mcp_put(self->state, std::move(r));
    },
    [=](mcp_get_atom, const std::string& id) {
      open_store(self);
      return detail::mcp_get(self->state, id);
    },
    [=](mcp_end_atom, const std::string& id) {
      open_store(self);
      return detail::mcp_end(self->state, id);
    },
  };
}

} // namespace ttm::actors
