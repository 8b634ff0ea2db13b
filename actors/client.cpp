#include "actors/client.hpp"

#include "actors/inline_unit.hpp"
#include "log.hpp"
#include "mcp/cost.hpp"

#include <caf/all.hpp>

#include <functional>
#include <memory>
#include <variant>

namespace ttm::actors {

reply_sink::~reply_sink() = default;

client_actor_state::~client_actor_state() {
  // However this actor ends, the open tracking sessions it holds stay in
  // the journal: let go of, so that the next client of their owner that
  // names one takes it over, and the journal expires it if none does.
  if (journal && mcp)
    if (auto held = mcp->held(); !held.empty())
      caf::anon_send(journal, release_atom::value, std::move(held));
  auto gone = caf::make_error(caf::sec::request_receiver_down);
  if (paused && paused->pending())
    paused->deliver(gone);
  for (auto& entry : queued)
    if (entry.second.pending())
      entry.second.deliver(gone);
}

namespace {

using self_ptr = client_actor::stateful_pointer<client_actor_state>;

/// Tells the supervisor what a step changed about global slots. Sent before
/// any later `acquire` from this actor, so the supervisor sees them in order.
void report(self_ptr self, mcp::rpc_step& step) {
  auto& sup = self->state.supervisor;
  if (!step.adopted.empty())
    self->send(sup, adopt_atom::value, std::move(step.adopted),
               caf::actor_cast<client_actor>(self));
  if (!step.expired.empty())
    self->send(sup, release_atom::value, std::move(step.expired));
  if (!step.ended.empty())
    self->send(sup, ended_atom::value, std::move(step.ended));
  if (!step.reopened.empty())
    self->send(sup, reopened_atom::value, std::move(step.reopened));
}

void advance(self_ptr self, mcp::rpc_step step);

/// The responsive unit (an HTTP I/O thread, inline_unit.hpp) this turn
/// runs on when the paused frame is heavy; nullptr: go on here.
inline_unit* hold_unit(self_ptr self) {
  return self->state.heavy ? as_responsive(self->context()) : nullptr;
}

/// Holds the paused frame's next step for a worker: `resume`, sent after
/// this turn through the scheduler, runs it there.
void hold(self_ptr self, inline_unit& unit,
          std::function<mcp::rpc_step()> next) {
  self->state.held = std::move(next);
  unit.send_after_turn(self->ctrl(), caf::make_message(resume_atom::value));
}

/// Starts frame `f` (its promise is `paused`): notes whether it is heavy
/// and holds it for a worker when this turn runs on an I/O thread. True:
/// held.
bool start_or_hold(self_ptr self, protocol::frame& f) {
  auto& st = self->state;
  const auto& registry = st.mcp->config().registry;
  st.heavy = registry && mcp::heavy_frame(f, *registry);
  auto* unit = hold_unit(self);
  if (unit == nullptr)
    return false;
  hold(self, *unit, [self, f = std::move(f)]() mutable {
    return self->state.mcp->handle(f);
  });
  return true;
}

/// The deadline of a frame arriving now (0: no --request-timeout).
std::int64_t deadline_from_now(const client_actor_state& st) {
  const auto& cfg = st.mcp->config();
  if (cfg.request_timeout.count() == 0)
    return 0;
  return domain::to_ns(cfg.clock->mono_now())
         + std::chrono::nanoseconds{cfg.request_timeout}.count();
}

bool past_deadline(const client_actor_state& st) {
  return st.deadline_ns != 0
         && domain::to_ns(st.mcp->config().clock->mono_now())
              >= st.deadline_ns;
}

/// The one request path to the journal: sends `payload` (as `atom`) for the
/// paused frame, then resumes it with `resume(session, &reply, "")`, or
/// `resume(session, nullptr, why)` when there is no journal or its actor
/// failed. Like `ask_for_slot`, never `await`: frames that arrive meanwhile
/// queue behind it (`queued`), the actor stays responsive to the supervisor.
template <class Reply, class Atom, class Payload, class Resume,
          class... Extra>
void ask(self_ptr self, Atom atom, Payload payload, Resume resume,
         Extra... extra) {
  auto& st = self->state;
  if (!st.journal) {
    advance(self, resume(*st.mcp, nullptr, "the journal is not running"));
    return;
  }
  self->request(st.journal, caf::infinite, atom, std::move(payload), extra...)
    .then(
      [=](Reply& r) { // a history page's strings move on, not copied
        if (auto* unit = hold_unit(self)) {
          // A heavy frame's data, answered to an I/O thread: its work
          // (e.g. rendering a long history) goes on on a worker.
          auto kept = std::make_shared<Reply>(std::move(r));
          hold(self, *unit, [self, resume, kept] {
            return resume(*self->state.mcp, kept.get(), std::string{});
          });
          return;
        }
        advance(self, resume(*self->state.mcp, &r, std::string{}));
      },
      [=](caf::error& err) {
        advance(self, resume(*self->state.mcp, nullptr,
                             "the journal actor failed: "
                               + self->system().render(err)));
      });
}

/// Asks the supervisor for a slot for `session_id`, then resumes the paused
/// frame. Never `await`: the supervisor may need this actor's answer to an
/// `expire` request before it can decide.
void ask_for_slot(self_ptr self, const std::string& session_id) {
  self
    ->request(self->state.supervisor, caf::infinite, acquire_atom::value,
              session_id, caf::actor_cast<client_actor>(self))
    .then(
      [=](const domain::slot_answer& answer) {
        advance(self, self->state.mcp->resume(answer));
      },
          [=](caf::error& err) {
            TTM_LOG(error, "client", "no answer from the supervisor: "
                                       + self->system().render(err));
            advance(self, self->state.mcp->resume(false));
          });
}

/// Asks the journal whether the paused call's session is current here (or
/// for its latest state); then the call runs.
void claim(self_ptr self, storage::claim_request req) {
  ask<claim_reply>(self, claim_atom::value, std::move(req),
                   [](mcp::session& s, claim_reply* r,
                      const std::string& why) {
                     return r != nullptr ? s.resume_claim(r->result, r->error)
                                         : s.resume_claim({}, why);
                   });
}

/// Asks what the paused frame waits for; false: it waits for nothing.
struct ask_for_pause {
  self_ptr self;

  bool operator()(std::monostate&) const {
    return false;
  }
  bool operator()(mcp::slot_pause& p) const {
    ask_for_slot(self, p.session_id);
    return true;
  }
  /// The paused call's changes; the journal's answer resumes it. Past the
  /// frame's deadline before the journal begins its transaction, the
  /// answer is `timed_out` and nothing is written.
  bool operator()(mcp::journal_pause& p) const {
    using storage::append_answer;
    ask<append_answer>(self, append_atom::value, std::move(p.events),
                       [](mcp::session& s, append_answer* a,
                          const std::string& why) {
                         return s.resume_journal(
                           a != nullptr ? *a
                                        : append_answer{append_answer::failed,
                                                        why});
                       },
                       self->state.deadline_ns);
    return true;
  }
  /// Whether the paused call's session is current here (or take it over
  /// and load it); then the call runs. A session another client actor of
  /// this server holds is handed over first (through the supervisor, which
  /// knows the holder): the claim then only checks that copy is current,
  /// instead of loading the session from the journal.
  bool operator()(mcp::claim_pause& p) const {
    auto& st = self->state;
    if (p.request.known_epoch != 0 || p.request.session_id.empty()
        || !st.journal) {
      claim(self, std::move(p.request));
      return true;
    }
    auto req = std::move(p.request);
    self
      ->request(st.supervisor, caf::infinite, hand_over_atom::value,
                req.session_id, req.principal, req.scope)
      .then(
        [self = self, req](mcp::handed_session& h) mutable {
          req.known_epoch = self->state.mcp->take_handed(std::move(h));
          claim(self, std::move(req));
        },
        [self = self, req](caf::error&) mutable {
          claim(self, std::move(req));
        });
    return true;
  }
  /// The paused call's history query.
  bool operator()(mcp::history_pause& p) const {
    ask<list_reply>(self, history_atom::value, std::move(p.query),
                    [](mcp::session& s, list_reply* r,
                       const std::string& why) {
                      if (r == nullptr)
                        return s.resume_history(domain::history_page{}, why);
                      return r->whole
                               ? s.resume_history(std::move(*r->whole),
                                                  r->error)
                               : s.resume_history(std::move(r->page),
                                                  r->error);
                    });
    return true;
  }
  /// The paused call's principal operation.
  bool operator()(mcp::principal_pause& p) const {
    ask<principal_reply>(self, principal_atom::value, std::move(p.op),
                         [](mcp::session& s, principal_reply* r,
                            const std::string& why) {
                           return r != nullptr
                                    ? s.resume_principal(r->state, r->error)
                                    : s.resume_principal({}, why);
                         });
    return true;
  }
};

/// Takes the paused frame one step further; when it is done, answers it
/// and runs the queued frames until one pauses again.
void advance(self_ptr self, mcp::rpc_step step) {
  auto& st = self->state;
  for (;;) {
    report(self, step);
    if (std::visit(ask_for_pause{self}, step.pause))
      return;
    st.paused->deliver(std::move(step.output));
    st.paused.reset();
    // The next queued frame, unless it waited past its deadline: that one
    // is answered without running (nothing of it has begun).
    for (;;) {
      if (st.queued.empty())
        return;
      auto [frame, promise] = std::move(st.queued.front());
      st.queued.pop_front();
      st.deadline_ns = st.queued_deadlines.front();
      st.queued_deadlines.pop_front();
      if (past_deadline(st)) {
        if (auto out = mcp::timed_out_frame(
              frame, "it waited behind this client's earlier requests")) {
          promise.deliver(std::move(*out));
          continue;
        }
      }
      st.paused = std::move(promise);
      if (start_or_hold(self, frame))
        return;
      step = st.mcp->handle(frame);
      break;
    }
  }
}

} // namespace

client_actor::behavior_type
client_behavior(client_actor::stateful_pointer<client_actor_state> self,
                std::shared_ptr<const client_config> server,
                mcp::session_identity own, supervisor_actor supervisor,
                journal_actor journal) {
  self->set_default_handler(caf::drop);
  self->state.mcp.emplace(std::move(server), std::move(own));
  self->state.supervisor = std::move(supervisor);
  self->state.journal = std::move(journal);
  // However the MCP session ends (HTTP DELETE, end of stdio input,
  // shutdown), its tracking sessions belong to the principal: they stay
  // open in the journal, let go of (see ~client_actor_state), for the
  // next client of their owner. Only time_session_end or expiry ends one.
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    self->quit(msg.reason == caf::exit_reason::normal
                 ? caf::error{caf::exit_reason::user_shutdown}
                 : msg.reason);
  });
  return {
    [=](rpc_atom, protocol::frame& in) -> caf::result<rpc_output> {
      auto& st = self->state;
      if (st.paused) {
        auto promise = self->make_response_promise<rpc_output>();
        st.queued.emplace_back(std::move(in), promise);
        st.queued_deadlines.push_back(deadline_from_now(st));
        return promise;
      }
      st.deadline_ns = deadline_from_now(st);
      if (start_or_hold(self, in)) {
        st.paused = self->make_response_promise<rpc_output>();
        return *st.paused;
      }
      auto step = st.mcp->handle(in);
      if (!step.waiting()) {
        report(self, step);
        return std::move(step.output);
      }
      st.paused = self->make_response_promise<rpc_output>();
      auto promise = *st.paused;
      advance(self, std::move(step));
      return promise;
    },
    [=](resume_atom) {
      auto& st = self->state;
      if (!st.held)
        return;
      // Woken by another I/O thread meanwhile? Held again, for later.
      if (auto* unit = hold_unit(self)) {
        unit->send_after_turn(self->ctrl(),
                              caf::make_message(resume_atom::value));
        return;
      }
      auto next = std::move(st.held);
      st.held = nullptr;
      advance(self, next());
    },
    [=](expire_atom) -> caf::result<std::vector<std::string>> {
      auto& st = self->state;
      auto ids = st.mcp->expire_due();
      // Expiry is recorded without waiting (the journal expires what no
      // server holds anyway if this write is lost), one append per session:
      // a fenced one was taken over by another server, where it lives on,
      // so it is not remembered as expired here.
      if (!st.journal)
        return ids;
      for (auto& ev : st.mcp->take_journal()) {
        auto id = ev.session_id;
        self
          ->request(st.journal, caf::infinite, append_atom::value,
                    std::vector<storage::event>{std::move(ev)})
          .then(
            [=](const storage::append_answer& a) {
              if (a.kind == storage::append_answer::fenced)
                self->state.mcp->forget_expired(id);
            },
            [](caf::error&) {
              // The journal is going away: nothing to correct.
            });
      }
      auto held = st.mcp->held();
      if (held.empty())
        return ids;
      // Copies changed through another server since (or closed there) are
      // let go of: the journal has them, the next call that names one
      // loads it. So this server neither keeps them in memory nor counts
      // them against its limits.
      auto promise = self->make_response_promise<std::vector<std::string>>();
      self->request(st.journal, caf::infinite, verify_atom::value, held)
        .then(
          [=](const std::vector<std::string>& stale) mutable {
            auto all = ids;
            auto dropped = self->state.mcp->drop_stale(held, stale);
            all.insert(all.end(), dropped.begin(), dropped.end());
            promise.deliver(std::move(all));
          },
          [=](caf::error&) mutable { promise.deliver(ids); });
      return promise;
    },
    [=](drop_atom, const std::string& session_id) {
      self->state.mcp->drop(session_id);
    },
    [=](hand_over_atom, const std::string& session_id,
        const std::string& principal,
        const std::string& scope) -> mcp::handed_session {
      return self->state.mcp->hand_over(session_id, principal, scope);
    },
    [=](fault_atom, std::string& reason) {
      self->state.mcp->set_storage_fault(std::move(reason));
    },
    [=](restore_atom, const std::string& state) {
      if (!self->state.mcp->restore(state))
        TTM_LOG(warning, "client", "an MCP session's stored state was not "
                                   "understood; kept the one here");
    },
    [=](evict_atom, const std::string& session_id) {
      self->state.mcp->evict(session_id);
    },
    [=](idle_atom, caf::timespan timeout) {
      auto& st = self->state;
      // A frame in progress is activity, however long it waits. With a
      // journal, tracking sessions do not keep an idle MCP session: they
      // stay there (let go of at exit), claimable by the next client of
      // their owner. Without one (--ephemeral) they live only here, and
      // expire on their own limits (hours), which an MCP idle timeout
      // (minutes) must not cut.
      if (st.paused || !st.queued.empty() || st.mcp->idle_time() < timeout
          || (!st.journal && st.mcp->tracked_count() > 0))
        return;
      TTM_LOG(info, "client",
              "MCP session ended: no request for "
                + std::to_string(
                  std::chrono::duration_cast<std::chrono::seconds>(timeout)
                    .count())
                + " s");
      // The supervisor and the transport monitor this actor: they forget it.
      self->quit(caf::exit_reason::user_shutdown);
    },
  };
}

} // namespace ttm::actors
