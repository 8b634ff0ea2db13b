// The transport's routing: frames to a route's client actor, in order, and
// the client's replies back to each frame's sink (cancellations dropped, new
// MCP session state stored first).

#include "actors/transport.hpp"
#include "actors/transport_parts.hpp"

#include "log.hpp"
#include "protocol/request_ids.hpp"

#include <caf/all.hpp>

#include <memory>

namespace ttm::actors::transport_detail {

/// The id of a frame holding exactly one request, else empty.
protocol::request_id single_request_id(const protocol::frame& f) {
  if (f.batch || f.error_code != 0 || f.messages.size() != 1
      || f.messages.front().kind != protocol::message::request)
    return {};
  return f.messages.front().id;
}

/// A route key for the log: HTTP session ids grant access to a session, so
/// only a prefix is written.
std::string loggable(const std::string& key) {
  return key.size() <= 12 ? key : key.substr(0, 8) + "...";
}

namespace {

/// Whether a cancellation may suppress this frame's response: single
/// requests only (a batch is answered as a whole), and never `initialize`,
/// which MCP forbids cancelling (dropping its response would leave the
/// session initialized behind the client's back).
bool cancellable(const protocol::frame& f) {
  return !single_request_id(f).json.empty()
         && f.messages.front().method != "initialize";
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

} // namespace

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

} // namespace ttm::actors::transport_detail
