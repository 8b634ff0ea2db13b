#include "actors/transport.hpp"

#include "actors/client.hpp"
#include "domain/ids.hpp"
#include "log.hpp"
#include "protocol/request_ids.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <memory>

namespace ttm::actors {

namespace {

using self_ptr = transport_actor::stateful_pointer<transport_state>;

/// The id of a frame holding exactly one request, else empty.
protocol::request_id single_request_id(const protocol::frame& f) {
  if (f.batch || f.error_code != 0 || f.messages.size() != 1
      || f.messages.front().kind != protocol::message::request)
    return {};
  return f.messages.front().id;
}

/// Whether a cancellation may suppress this frame's response: single
/// requests only (a batch is answered as a whole), and never `initialize`,
/// which MCP forbids cancelling (dropping its response would leave the
/// session initialized behind the client's back).
bool cancellable(const protocol::frame& f) {
  return !single_request_id(f).json.empty()
         && f.messages.front().method != "initialize";
}

/// A route key for the log: HTTP session ids grant access to a session, so
/// only a prefix is written.
std::string loggable(const std::string& key) {
  return key.size() <= 12 ? key : key.substr(0, 8) + "...";
}

using route_iter = std::unordered_map<std::string, route_state>::iterator;

/// Forgets a route and ends its client actor (a no-op if it ended already).
void erase_route(self_ptr self, route_iter i) {
  auto& r = i->second;
  for (const auto& id : r.owned)
    self->state.directory.erase(id);
  if (r.client) {
    self->state.keys.erase(r.client.address());
    self->send_exit(r.client, caf::exit_reason::user_shutdown);
  }
  self->state.routes.erase(i);
}

/// Ends a route and its client actor. However it ends (a DELETE too), the
/// tracking sessions it held stay open for their principal.
void close_route(self_ptr self, const std::string& key) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return;
  auto& r = i->second;
  auto sink = r.eof_sink;
  // Frames still waiting for admission never reach a client actor.
  auto backlog = std::move(r.backlog);
  erase_route(self, i);
  TTM_LOG(debug, "transport", "route '" + loggable(key) + "' closed");
  for (auto& entry : backlog)
    entry.second->refused(route_refusal::unknown_route);
  if (sink)
    sink->close();
}

/// Closes a route whose input ended once everything it sent is answered.
void maybe_finish(self_ptr self, const std::string& key) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return;
  auto& r = i->second;
  if (r.eof && r.in_flight == 0 && r.backlog.empty()
      && (r.admitted || !r.client))
    close_route(self, key);
}

/// Whether route `r`'s MCP session goes into the journal: an HTTP session
/// of the 2025 eras (`open`), with a journal.
bool storable(self_ptr self, const route_state& r) {
  return r.opened && !r.principal && self->state.cfg.journal;
}

/// Stores route `key`'s new MCP session state (initialize, setLevel) in the
/// journal, then runs `then` (which delivers the reply: by then another
/// server finds the session). Not stored (the journal failed, or keeps no
/// MCP sessions): the route is served from memory only, as before.
template <class F>
void store_state(self_ptr self, const std::string& key, route_state& r,
                 std::string state, F then) {
  r.state = std::move(state);
  r.stored = true;
  storage::mcp_session_record rec;
  rec.id = key;
  rec.principal = r.principal_name;
  rec.state = r.state;
  auto fn = std::make_shared<F>(std::move(then)); // called once, mutable
  self
    ->request(self->state.cfg.journal, caf::infinite, mcp_put_atom::value,
              std::move(rec))
    .then(
      [=](bool stored) {
        if (!stored)
          if (auto i = self->state.routes.find(key);
              i != self->state.routes.end())
            i->second.stored = false;
        (*fn)();
      },
      [=](caf::error&) {
        if (auto i = self->state.routes.find(key);
            i != self->state.routes.end())
          i->second.stored = false;
        (*fn)();
      });
}

/// What a forwarded frame's reply needs, shared by its two handlers: one
/// allocation, instead of a copy of every string per handler (and per copy
/// CAF makes of them) on every request (issue 33).
struct frame_in_flight {
  std::string key;
  sink_ptr sink;
  protocol::request_id rid; ///< empty unless a single request
  std::string id;           ///< rid.json when cancellable, else empty
  std::string req_id;       ///< the frame's request id, for log lines
};

/// The client actor's answer to a frame of route `pp->key`.
void on_output(self_ptr self, const std::shared_ptr<frame_in_flight>& pp,
               rpc_output& out) {
  const auto& p = *pp;
  auto i = self->state.routes.find(p.key);
  if (i == self->state.routes.end()) {
    p.sink->frame_done();
    return;
  }
  auto& r = i->second;
  --r.in_flight;
  for (auto& id : out.gone)
    if (r.owned.erase(id) > 0)
      self->state.directory.erase(id);
  for (auto& id : out.created) {
    r.owned.insert(id);
    self->state.directory[std::move(id)] = p.key;
  }
  bool drop = false;
  if (!p.id.empty()) {
    if (auto q = r.pending_ids.find(p.id); q != r.pending_ids.end())
      r.pending_ids.erase(q);
    drop = r.cancelled.erase(p.id) > 0;
  }
  auto deliver = [self, drop, pp](std::vector<std::string>& notes,
                                  std::string& response) {
    const auto& p = *pp;
    for (auto& note : notes)
      p.sink->deliver_notification(std::move(note));
    if (drop)
      TTM_LOG(debug, "transport", "dropped the response to cancelled "
                                  "request " + p.id);
    else if (!response.empty())
      p.sink->deliver(std::move(response));
    p.sink->frame_done();
    maybe_finish(self, p.key);
  };
  if (out.mcp_state.empty() || !storable(self, r)) {
    deliver(out.notifications, out.response);
    return;
  }
  // Stored first (initialize, setLevel): the reply waits for the journal.
  store_state(self, p.key, r, std::move(out.mcp_state),
              [deliver = std::move(deliver),
               notes = std::move(out.notifications),
               response = std::move(out.response)]() mutable {
                deliver(notes, response);
              });
}

void forward(self_ptr self, const std::string& key, protocol::frame f,
             sink_ptr sink) {
  auto& r = self->state.routes[key];
  // A cancellation of a call still in flight: remember it so that its
  // response is dropped (MCP: no response to a cancelled request).
  if (!f.batch && f.messages.size() == 1) {
    auto id = protocol::cancelled_request_id(f.messages.front());
    if (!id.empty() && r.pending_ids.count(id) > 0)
      r.cancelled.insert(id);
  }
  auto p = std::make_shared<frame_in_flight>();
  p->key = key;
  p->sink = std::move(sink);
  p->rid = single_request_id(f);
  if (cancellable(f))
    p->id = p->rid.json;
  if (!p->id.empty())
    r.pending_ids.insert(p->id);
  ++r.in_flight;
  p->req_id = f.trace.request_id; // for the lines and errors below
  self->request(r.client, caf::infinite, rpc_atom::value, std::move(f))
    .then([self, p](rpc_output& out) { on_output(self, p, out); },
          [self, p](caf::error& err) {
            const auto& key = p->key;
            bool ended = self->state.routes.count(key) == 0;
            log::fields about;
            about.request_id = p->req_id;
            if (ended)
              TTM_LOG_F(debug, "transport", "a request on route '"
                                              + loggable(key)
                                              + "' ended with its route",
                        about);
            else
              TTM_LOG_F(error, "transport", "client actor on route '"
                                              + loggable(key) + "' failed: "
                                              + self->system().render(err),
                        about);
            if (!p->rid.json.empty()) {
              auto reply = protocol::encode_error(
                p->rid, protocol::internal_error,
                ended ? "Internal error: the session ended before the reply"
                      : "Internal error: the session actor failed");
              protocol::stamp_error(reply, p->req_id);
              p->sink->deliver(std::move(reply));
            }
            p->sink->frame_done();
            auto i = self->state.routes.find(key);
            if (i != self->state.routes.end()) {
              --i->second.in_flight;
              maybe_finish(self, key);
            }
          });
}

/// Forwards route `key`'s waiting frames, in order, once it is admitted.
void drain_backlog(self_ptr self, const std::string& key) {
  auto& r = self->state.routes[key];
  if (!r.admitted || r.checking)
    return;
  while (!r.backlog.empty()) {
    auto [f, sink] = std::move(r.backlog.front());
    r.backlog.pop_front();
    forward(self, key, std::move(f), std::move(sink));
  }
}

void admit(self_ptr self, const std::string& key) {
  auto& st = self->state;
  auto& r = st.routes[key];
  // One copy of the configuration for all client actors (issue 33).
  if (!st.shared_client)
    st.shared_client = std::make_shared<const client_config>(st.cfg.client);
  mcp::session_identity own{r.principal_name, domain::log_id(key),
                            st.cfg.client.storage_fault,
                            r.state}; // empty unless from the journal
  r.client = self->spawn(client_behavior, st.shared_client, std::move(own),
                         self->state.cfg.supervisor,
                         self->state.cfg.journal);
  // A client actor may end on its own (idle timeout, crash): then its route
  // must go too, or it would answer -32603 forever.
  self->monitor(r.client);
  self->state.keys.emplace(r.client.address(), key);
  // Only HTTP sessions end when idle: stdio's one client lives as long as
  // its connection.
  self->request(self->state.cfg.supervisor, caf::infinite, admit_atom::value,
                r.client, r.opened, !r.principal, r.principal_name)
    .then(
      [=](bool ok) {
        auto i = self->state.routes.find(key);
        if (i == self->state.routes.end())
          return;
        auto& r = i->second;
        if (!ok && r.opened) {
          // The edge answers (HTTP: 503 + Retry-After); nothing else to do.
          auto backlog = std::move(r.backlog);
          erase_route(self, i);
          for (auto& entry : backlog)
            entry.second->refused(route_refusal::busy);
          return;
        }
        if (!ok) {
          // Refused at the global cap: answer what waits, close its sinks and
          // forget the route (a later frame on it asks again).
          std::vector<sink_ptr> sinks;
          for (auto& [f, sink] : r.backlog) {
            auto rid = single_request_id(f);
            if (!rid.json.empty()) {
              auto reply = protocol::encode_error(
                rid, protocol::internal_error,
                "Server busy: the limit of concurrent MCP sessions is "
                "reached; retry later");
              protocol::stamp_error(reply, f.trace.request_id);
              sink->deliver(std::move(reply));
            }
            sink->frame_done();
            if (std::find(sinks.begin(), sinks.end(), sink) == sinks.end())
              sinks.push_back(sink);
          }
          if (r.eof_sink
              && std::find(sinks.begin(), sinks.end(), r.eof_sink)
                   == sinks.end())
            sinks.push_back(r.eof_sink);
          erase_route(self, i);
          for (auto& sink : sinks)
            sink->close();
          return;
        }
        r.admitted = true;
        drain_backlog(self, key);
        maybe_finish(self, key);
      },
      [=](caf::error& err) {
        TTM_LOG(error, "transport", "admission failed: "
                                      + self->system().render(err));
        auto i = self->state.routes.find(key);
        if (i != self->state.routes.end()) {
          for (auto& entry : i->second.backlog) {
            if (i->second.opened)
              entry.second->refused(route_refusal::busy);
            else
              entry.second->frame_done();
          }
          i->second.backlog.clear();
          close_route(self, key);
        }
      });
}

/// Whether route `key` exists and belongs to `principal`. An MCP session is
/// bound to the principal that created it: a request from anyone else gets
/// the answer of an unknown session, so a session id alone grants nothing
/// and its existence is not revealed. The attempt is logged (principal names
/// and an id prefix only: the full id grants access to the session).
bool routable(self_ptr self, const std::string& key,
              const std::string& principal, const char* what) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return false;
  if (i->second.principal_name == principal)
    return true;
  TTM_LOG(warning, "transport",
          "refused " + std::string{what} + " of principal '" + principal
            + "' on MCP session " + key.substr(0, 8)
            + "... of principal '" + i->second.principal_name
            + "' (answered as an unknown session)");
  return false;
}

/// Tells every client actor, and those yet to come, why the journal cannot
/// be opened (empty: it is open again). Sent before any later frame, so a
/// frame meets the news it came after.
void set_storage_fault(self_ptr self, std::string reason) {
  auto& st = self->state;
  for (auto& [key, r] : st.routes)
    if (r.client)
      self->send(r.client, fault_atom::value, reason);
  st.cfg.client.storage_fault = std::move(reason);
}

/// Hands a frame to route `key`, which exists: waits in the backlog while
/// the supervisor decides on admission.
void route_frame(self_ptr self, const std::string& key, protocol::frame f,
                 sink_ptr sink) {
  self->state.routes[key].backlog.emplace_back(std::move(f), std::move(sink));
  drain_backlog(self, key);
}

/// A moment of a record's read: the clock's monotonic time and the change
/// signal's count of the route's slot just before the read.
struct read_mark {
  std::int64_t at_ns = route_state::never;
  std::uint64_t changes = 0;
};

read_mark mark_now(self_ptr self, const std::string& key) {
  const auto& cfg = self->state.cfg;
  read_mark m;
  if (!cfg.mcp_changes || !cfg.client.clock)
    return m; // never current: every frame asks
  m.changes = cfg.mcp_changes->load(storage::change_signal::slot_of(key));
  m.at_ns = domain::to_ns(cfg.client.clock->mono_now());
  return m;
}

/// Whether a frame on stored route `r` may go on without asking the journal
/// (issue 32, per-request read): its record was read here less than
/// `mcp_recheck` ago, and no server on the directory has committed a change
/// to a record of its slot since. A DELETE, expiry or setLevel through any
/// server bumps the slot after its commit and before it is answered, so a
/// frame that arrives after the client heard of it asks the journal, as
/// before. The re-check interval also bounds how long a change whose
/// server died between its commit and the bump goes unseen, and keeps the
/// session's use recorded (mcp_get records it).
bool still_current(self_ptr self, const std::string& key,
                   const route_state& r) {
  if (r.checking || r.checked_ns == route_state::never)
    return false;
  auto now = mark_now(self, key);
  return now.at_ns != route_state::never && now.changes == r.seen_changes
         && now.at_ns - r.checked_ns
              < std::chrono::nanoseconds{self->state.cfg.mcp_recheck}.count();
}

void on_record(self_ptr self, const std::string& key,
               const mcp_session_reply* rep, read_mark mark);

/// Asks the journal for route `key`'s MCP session before the frames in
/// its backlog go on (one question for all that arrive meanwhile).
void check_route(self_ptr self, const std::string& key) {
  auto& r = self->state.routes[key];
  if (r.checking)
    return;
  r.checking = true;
  auto mark = mark_now(self, key); // before the read: a later bump shows
  self
    ->request(self->state.cfg.journal, caf::infinite, mcp_get_atom::value,
              key)
    .then(
      [=](const mcp_session_reply& rep) { on_record(self, key, &rep, mark); },
      [=](caf::error&) { on_record(self, key, nullptr, mark); });
}

/// The journal's record of route `key` (nullptr: its actor failed), read
/// at `mark`.
void on_record(self_ptr self, const std::string& key,
               const mcp_session_reply* rep, read_mark mark) {
  auto i = self->state.routes.find(key);
  if (i == self->state.routes.end())
    return;
  auto& r = i->second;
  r.checking = false;
  r.checked_ns = route_state::never;
  bool restoring = !r.client;
  bool answered = rep != nullptr && rep->error.empty();
  if (!answered && rep != nullptr)
    TTM_LOG(debug, "transport", "MCP session '" + loggable(key)
                                  + "' not checked in the journal: "
                                  + rep->error);
  if (answered && rep->record && rep->record->principal != r.principal_name) {
    TTM_LOG(warning, "transport",
            "refused a request of principal '" + r.principal_name
              + "' on MCP session " + key.substr(0, 8)
              + "... of principal '" + rep->record->principal
              + "' (answered as an unknown session)");
    close_route(self, key);
    return;
  }
  if (restoring) {
    // Issued by another server (or by this one before it forgot it).
    if (!answered || !rep->record) {
      close_route(self, key);
      return;
    }
    TTM_LOG(debug, "transport", "MCP session '" + loggable(key)
                                  + "' restored from the journal");
    r.stored = true;
    r.state = rep->record->state;
    r.checked_ns = mark.at_ns;
    r.seen_changes = mark.changes;
    admit(self, key); // forwards the backlog once admitted
    return;
  }
  if (answered && !rep->record && r.stored) {
    // Deleted, or expired, through another server.
    TTM_LOG(debug, "transport", "MCP session '" + loggable(key)
                                  + "' is no longer in the journal");
    close_route(self, key);
    return;
  }
  if (answered && rep->record && rep->record->state != r.state) {
    // Changed through another server (logging/setLevel): before the next
    // frame, which the actor reads after this.
    r.state = rep->record->state;
    self->send(r.client, restore_atom::value, r.state);
  }
  if (answered && rep->record) {
    r.checked_ns = mark.at_ns;
    r.seen_changes = mark.changes;
  }
  drain_backlog(self, key);
  maybe_finish(self, key);
}

/// A frame for Mcp-Session-Id `key` this server has no route for: another
/// server may have issued it (the journal says), else 404.
void restore_route(self_ptr self, const std::string& key,
                   const std::string& principal, protocol::frame f,
                   sink_ptr sink) {
  auto& r = self->state.routes[key];
  r.opened = true;
  r.principal_name = principal;
  r.backlog.emplace_back(std::move(f), std::move(sink));
  check_route(self, key);
}

/// DELETE of an MCP session this server has no route for: removed from the
/// journal if it is there, for this principal.
void end_elsewhere(self_ptr self, const std::string& key,
                   const std::string& principal, sink_ptr sink) {
  auto journal = self->state.cfg.journal;
  self->request(journal, caf::infinite, mcp_get_atom::value, key)
    .then(
      [=](const mcp_session_reply& rep) {
        if (!rep.record || rep.record->principal != principal) {
          if (rep.record)
            TTM_LOG(warning, "transport",
                    "refused an end (DELETE) of principal '" + principal
                      + "' on MCP session " + key.substr(0, 8)
                      + "... of principal '" + rep.record->principal
                      + "' (answered as an unknown session)");
          sink->refused(route_refusal::unknown_route);
          return;
        }
        self->request(journal, caf::infinite, mcp_end_atom::value, key)
          .then([=](bool) { sink->close(); },
                [=](caf::error&) { sink->close(); });
      },
      [=](caf::error&) { sink->refused(route_refusal::unknown_route); });
}

} // namespace

void set_mcp_recheck(transport_config& tc, storage::change_signal_ptr signal,
                     std::chrono::seconds idle_timeout) {
  using namespace std::chrono;
  nanoseconds touch = minutes{1};
  if (idle_timeout.count() > 0)
    touch = std::min<nanoseconds>(touch, idle_timeout / 2);
  tc.mcp_changes = std::move(signal);
  tc.mcp_recheck = touch / 2;
}

std::string principal_key(const std::string& principal) {
  // A space never occurs in an Mcp-Session-Id (visible ASCII only).
  return "principal " + principal;
}

transport_actor::behavior_type
transport_behavior(transport_actor::stateful_pointer<transport_state> self,
                   transport_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.cfg = std::move(cfg);
  // On shutdown take every client actor along.
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    for (auto& [key, r] : self->state.routes)
      if (r.client)
        self->send_exit(r.client, msg.reason);
    self->quit(msg.reason);
  });
  // A client actor ended on its own (the supervisor's idle timeout, a
  // crash). Requests it had not answered get CAF's error (-32603 in
  // `forward`) before this message; later frames on the key find no route.
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto k = self->state.keys.find(dm.source);
    if (k == self->state.keys.end())
      return; // its route was closed already
    auto key = k->second;
    if (dm.reason != caf::exit_reason::user_shutdown)
      TTM_LOG(error, "transport", "client actor on route '" + loggable(key)
                                    + "' ended: "
                                    + self->system().render(dm.reason));
    close_route(self, key);
  });
  return {
    [=](inbound_atom, const std::string& key, protocol::frame& f,
        sink_ptr& sink) {
      auto& r = self->state.routes[key];
      if (!r.client)
        admit(self, key);
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](open_atom, const std::string& key, const std::string& principal,
        protocol::frame& f, sink_ptr& sink) {
      if (self->state.routes.count(key) > 0) {
        // Keys are 128 random bits: a clash means a broken edge.
        TTM_LOG(error, "transport", "open: route '" + loggable(key)
                                      + "' exists already");
        sink->refused(route_refusal::busy);
        return;
      }
      auto& r = self->state.routes[key];
      r.opened = true;
      r.principal_name = principal;
      admit(self, key);
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](forward_atom, const std::string& key, const std::string& principal,
        protocol::frame& f, sink_ptr& sink) {
      if (self->state.routes.count(key) == 0 && self->state.cfg.journal) {
        restore_route(self, key, principal, std::move(f), std::move(sink));
        return;
      }
      if (!routable(self, key, principal, "a request")) {
        sink->refused(route_refusal::unknown_route);
        return;
      }
      auto& r = self->state.routes[key];
      if (r.stored && !still_current(self, key, r)) {
        // Deleted or changed through another server? The journal says
        // before the frame goes on.
        r.backlog.emplace_back(std::move(f), std::move(sink));
        check_route(self, key);
        return;
      }
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](end_atom, const std::string& key, const std::string& principal,
        sink_ptr& sink) {
      if (self->state.routes.count(key) == 0 && self->state.cfg.journal) {
        end_elsewhere(self, key, principal, std::move(sink));
        return;
      }
      if (!routable(self, key, principal, "an end (DELETE)")) {
        sink->refused(route_refusal::unknown_route);
        return;
      }
      TTM_LOG(debug, "transport", "route '" + loggable(key)
                                    + "' ended by the client");
      bool stored = self->state.routes[key].stored;
      close_route(self, key);
      if (!stored) {
        sink->close();
        return;
      }
      // Gone for every server before the client hears so.
      self
        ->request(self->state.cfg.journal, caf::infinite,
                  mcp_end_atom::value, key)
        .then([=](bool) { sink->close(); },
              [=](caf::error&) { sink->close(); });
    },
    [=](call_atom, const std::string& principal, protocol::frame& f,
        sink_ptr& sink) {
      // All of a principal's 2026-07-28 tracking sessions live in its one
      // client actor. A call naming a session another route owns (another
      // principal, a 2025 MCP session) goes there too: that actor answers
      // SESSION_NOT_FOUND, exactly as for an id never issued.
      auto key = principal_key(principal);
      if (log::enabled(log::level::debug) && !f.batch
          && f.messages.size() == 1 && !f.messages.front().handle.empty()) {
        auto d = self->state.directory.find(f.messages.front().handle);
        if (d != self->state.directory.end() && d->second != key)
          TTM_LOG(debug, "transport", "principal '" + principal
                                        + "' named a tracking session of "
                                          "another owner");
      }
      auto& r = self->state.routes[key];
      if (!r.client) {
        r.opened = true;
        r.principal = true;
        r.principal_name = principal;
        TTM_LOG(debug, "transport", "principal '" + principal
                                      + "' gets a client actor");
        admit(self, key);
      }
      route_frame(self, key, std::move(f), std::move(sink));
    },
    [=](fault_atom, std::string& reason) {
      set_storage_fault(self, std::move(reason));
    },
    [=](audit_atom, audited_refusal& r) {
      if (self->state.cfg.journal)
        self->send(self->state.cfg.journal, audit_atom::value, std::move(r));
    },
    [=](recovered_atom) {
      if (!self->state.cfg.client.storage_fault.empty())
        set_storage_fault(self, {});
    },
    [=](eof_atom, const std::string& key, sink_ptr& sink) {
      auto i = self->state.routes.find(key);
      if (i == self->state.routes.end()) {
        sink->close();
        return;
      }
      i->second.eof = true;
      i->second.eof_sink = std::move(sink);
      maybe_finish(self, key);
    },
  };
}

} // namespace ttm::actors
