#include "actors/client.hpp"

#include "log.hpp"

#include <caf/all.hpp>

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

/// Sends the paused call's changes to the journal, then resumes it with the
/// outcome. Like `ask_for_slot`, never `await`: frames that arrive meanwhile
/// queue behind it (`queued`), the actor stays responsive to the supervisor.
void write_journal(self_ptr self, std::vector<storage::event> events) {
  auto& st = self->state;
  using storage::append_answer;
  if (!st.journal) {
    advance(self, st.mcp->resume_journal(
                    {append_answer::failed, "the journal is not running"}));
    return;
  }
  self->request(st.journal, caf::infinite, append_atom::value,
                std::move(events))
    .then(
      [=](const append_answer& answer) {
        advance(self, self->state.mcp->resume_journal(answer));
      },
      [=](caf::error& err) {
        advance(self, self->state.mcp->resume_journal(
                        {append_answer::failed,
                         "the journal actor failed: "
                           + self->system().render(err)}));
      });
}

/// Asks the journal whether the paused call's session is current here (or
/// takes it over and loads it), then runs the call. Never `await`, as above.
void ask_journal(self_ptr self, storage::claim_request req) {
  auto& st = self->state;
  if (!st.journal) {
    advance(self, st.mcp->resume_claim({}, "the journal is not running"));
    return;
  }
  self->request(st.journal, caf::infinite, claim_atom::value, std::move(req))
    .then(
      [=](const claim_reply& r) {
        advance(self, self->state.mcp->resume_claim(r.result, r.error));
      },
      [=](caf::error& err) {
        advance(self, self->state.mcp->resume_claim(
                        {}, "the journal actor failed: "
                              + self->system().render(err)));
      });
}

/// Runs the paused call's history query in the journal, then resumes it.
/// Never `await`, as above.
void ask_history(self_ptr self, storage::list_query q) {
  auto& st = self->state;
  if (!st.journal) {
    advance(self, st.mcp->resume_history({}, "the journal is not running"));
    return;
  }
  self->request(st.journal, caf::infinite, history_atom::value, std::move(q))
    .then(
      [=](list_reply& r) { // the page's strings move on, not copied
        advance(self, self->state.mcp->resume_history(std::move(r.page),
                                                      r.error));
      },
      [=](caf::error& err) {
        advance(self, self->state.mcp->resume_history(
                        {}, "the journal actor failed: "
                              + self->system().render(err)));
      });
}

/// Runs the paused call's principal operation in the journal, then
/// resumes it. Never `await`, as above.
void ask_principal(self_ptr self, storage::principal_op op) {
  auto& st = self->state;
  if (!st.journal) {
    advance(self, st.mcp->resume_principal({}, "the journal is not running"));
    return;
  }
  self->request(st.journal, caf::infinite, principal_atom::value,
                std::move(op))
    .then(
      [=](const principal_reply& r) {
        advance(self, self->state.mcp->resume_principal(r.state, r.error));
      },
      [=](caf::error& err) {
        advance(self, self->state.mcp->resume_principal(
                        {}, "the journal actor failed: "
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

/// Takes the paused frame one step further; when it is done, answers it
/// and runs the queued frames until one pauses again.
void advance(self_ptr self, mcp::rpc_step step) {
  auto& st = self->state;
  for (;;) {
    report(self, step);
    if (!step.journal.empty()) {
      write_journal(self, std::move(step.journal));
      return;
    }
    if (step.claim) {
      ask_journal(self, std::move(*step.claim));
      return;
    }
    if (step.history) {
      ask_history(self, std::move(*step.history));
      return;
    }
    if (step.principal) {
      ask_principal(self, std::move(*step.principal));
      return;
    }
    if (step.waiting()) {
      ask_for_slot(self, step.slot_for);
      return;
    }
    st.paused->deliver(std::move(step.output));
    st.paused.reset();
    if (st.queued.empty())
      return;
    auto [frame, promise] = std::move(st.queued.front());
    st.queued.pop_front();
    st.paused = std::move(promise);
    step = st.mcp->handle(frame);
  }
}

} // namespace

client_actor::behavior_type
client_behavior(client_actor::stateful_pointer<client_actor_state> self,
                client_config cfg, supervisor_actor supervisor,
                journal_actor journal) {
  self->set_default_handler(caf::drop);
  self->state.mcp.emplace(std::move(cfg));
  self->state.supervisor = std::move(supervisor);
  self->state.journal = std::move(journal);
  // `normal` from the transport: the client ended its MCP session (HTTP
  // DELETE), so its tracking sessions end too, in the journal as well.
  // Anything else (shutdown, end of stdio input) keeps them there, let go
  // of (see ~client_actor_state).
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    auto& st = self->state;
    // One append per session: one that another client took over is
    // fenced alone, the others are recorded.
    if (msg.reason == caf::exit_reason::normal && st.journal)
      for (auto& ev : st.mcp->close_all())
        caf::anon_send(st.journal, append_atom::value,
                       std::vector<storage::event>{std::move(ev)});
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
        return promise;
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
    [=](fault_atom, std::string& reason) {
      self->state.mcp->set_storage_fault(std::move(reason));
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
          || (!st.journal && st.mcp->tracker().size() > 0))
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
