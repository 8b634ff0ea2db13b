// HTTP MCP sessions kept in the journal (issue 32): a frame on a stored
// route checks the record first (unless read recently and unchanged since),
// an unknown Mcp-Session-Id is restored from it, and a DELETE reaches one
// this server never held.

#include "actors/transport.hpp"
#include "actors/transport_parts.hpp"

#include "log.hpp"

#include <caf/all.hpp>

#include <chrono>

namespace ttm::actors::transport_detail {

namespace {

/// A moment of a record's read: the clock's monotonic time and the change
/// signal's count of the route's slot just before the read.
struct read_mark {
  std::int64_t at_ns = route_state::never;
  std::uint64_t changes = 0;
};

read_mark mark_now(self_ptr self, const std::string& key) {
  const auto& cfg = self->state.cfg;
  read_mark m;
  // Not listening (PostgreSQL's listener lost its connection): a change
  // may go unheard, so no copy read now is trusted.
  if (!cfg.mcp_changes || !cfg.client.clock || !cfg.mcp_changes->listening())
    return m; // never current: every frame asks
  m.changes = cfg.mcp_changes->load(storage::change_signal::slot_of(key));
  m.at_ns = domain::to_ns(cfg.client.clock->mono_now());
  return m;
}

void on_record(self_ptr self, const std::string& key,
               const mcp_session_reply* rep, read_mark mark);

} // namespace

/// Whether a frame on stored route `r` may go on without asking the journal
/// (issue 32, per-request read): its record was read here less than
/// `mcp_recheck` ago, and no server on the directory has committed a change
/// to a record of its slot since (on PostgreSQL: none was notified, and the
/// listener has been listening throughout). A DELETE, expiry or setLevel through any
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

namespace {

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

} // namespace

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

} // namespace ttm::actors::transport_detail
