#pragma once

// The actors' vocabulary: message types and typed actor interfaces, grouped
// by receiver (atoms in atoms.hpp). Messages are copyable value types:
// nothing here holds a RapidJSON value or a reference into another actor's
// state. The edges include this header, so it names no tools, no storage
// backend and no schema layer: only plain records.

#include "actors/atoms.hpp"
#include "domain/slots.hpp"
#include "mcp/output.hpp"
#include "protocol/json_rpc.hpp"
#include "storage/principal.hpp"
#include "storage/records.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/timespan.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttm::actors {

/// Why the transport did not route a frame. Only frames sent with `open` or
/// `forward` (HTTP) can be refused; the HTTP edge maps these to statuses.
enum class route_refusal : std::uint8_t {
  /// No such route: never opened, ended by the client, expired when idle,
  /// or its client actor ended (404).
  unknown_route,
  /// The supervisor's cap on concurrent MCP sessions is reached (503).
  busy,
};

/// Where the transport delivers what the server says on a route: a stdio
/// writer, an HTTP response. Implemented by the edge; called from the
/// transport actor only.
class reply_sink {
public:
  virtual ~reply_sink();
  /// One complete JSON-RPC message (or batch reply): a frame's response.
  virtual void deliver(std::string json) = 0;
  /// A notification sent while handling a frame, always before the frame's
  /// response. HTTP needs the distinction (it decides between a JSON body and
  /// an SSE stream); a line-based edge does not.
  virtual void deliver_notification(std::string json) {
    deliver(std::move(json));
  }
  /// The transport is done with one frame given with this sink: its replies
  /// (if any) were delivered or dropped. Lets an edge bound what it has in
  /// flight instead of queueing without limit behind a slow client.
  virtual void frame_done() {
  }
  /// The frame was not routed: nothing was delivered and `frame_done` will
  /// not follow. Called instead of `frame_done` (or `close` for `end`).
  virtual void refused(route_refusal why) {
    (void) why;
    frame_done();
  }
  /// The route is finished: every reply was delivered.
  virtual void close() = 0;
};

using sink_ptr = std::shared_ptr<reply_sink>;

/// A client actor's reply to one frame (built by its MCP session).
using rpc_output = mcp::rpc_output;

// -- typed interfaces ---------------------------------------------------------

/// One per MCP client session: runs its requests, owns its tracking
/// sessions. `expire` removes those past their limits and returns their ids;
/// `evict` drops an ended one the supervisor reclaimed; `idle` (the
/// supervisor's MCP-session idle timeout) ends the actor when it saw no
/// frame for that long and has none in progress. `drop` (from the
/// supervisor): another client actor of this server took that tracking
/// session over from the journal. `fault` says why
/// the journal cannot be opened (empty: it is open again), so that a
/// session this actor does not hold answers STORAGE_UNAVAILABLE meanwhile.
using client_actor = caf::typed_actor<
  caf::replies_to<rpc_atom, protocol::frame>::with<rpc_output>,
  caf::replies_to<expire_atom>::with<std::vector<std::string>>,
  caf::reacts_to<evict_atom, std::string>,
  caf::reacts_to<idle_atom, caf::timespan>,
  caf::reacts_to<drop_atom, std::string>,
  caf::reacts_to<fault_atom, std::string>>;

/// Global limits. Admits client actors (`admit` client + whether it ends
/// when idle (HTTP sessions and principals do, the stdio one does not) +
/// whether it is an MCP session, counted against the MCP-session cap and
/// held to the per-MCP-session share (principals are not: there is one per
/// bearer token at most) + its principal);
/// hands out the tracking-session slots (`acquire` session id + owner →
/// granted, or the limit that refused: the owner's MCP-session share, its
/// principal's share, the global cap), takes them back (`release` expired
/// ids; an owner's end frees all of its slots), learns which sessions ended
/// (`ended`: no longer counted in shares, reclaimable when room is needed;
/// `reopened`: time_undo took an end back, counted again). Its periodic
/// `sweep` (sent to itself)
/// expires tracking sessions and sends `idle` to the clients that end when
/// idle. `count` / `slots` report client actors / tracking sessions.
using supervisor_actor = caf::typed_actor<
  caf::replies_to<admit_atom, client_actor, bool, bool,
                  std::string>::with<bool>,
  caf::replies_to<count_atom>::with<std::uint64_t>,
  caf::replies_to<acquire_atom, std::string,
                  client_actor>::with<domain::slot_answer>,
  caf::reacts_to<release_atom, std::vector<std::string>>,
  caf::reacts_to<ended_atom, std::vector<std::string>>,
  caf::reacts_to<reopened_atom, std::vector<std::string>>,
  caf::reacts_to<sweep_atom>,
  caf::replies_to<slots_atom>::with<std::uint64_t>,
  caf::reacts_to<adopt_atom, std::vector<std::string>, client_actor>>;

/// Routes frames from the edges to client actors by routing key.
///  - inbound: a frame for KEY; a new KEY gets a route (stdio: the one
///    connection is the session, any first message opens it).
///  - eof: no more input on KEY; the route closes once its replies are out.
///  - open: a frame (HTTP: `initialize`) from PRINCIPAL that creates the
///    route KEY; refused
///    with `busy` at the session cap. Its client actor ends when idle (the
///    supervisor decides).
///  - forward: a frame from PRINCIPAL for an existing route of PRINCIPAL
///    only; else `unknown_route` (another principal's route is refused
///    exactly like one that does not exist, and a warning is logged).
///  - end: ends route KEY of PRINCIPAL now (HTTP DELETE); the sink is
///    closed, or refused with `unknown_route` (as for `forward`).
///  - call: a 2026-07-28 request (HTTP) from PRINCIPAL, for PRINCIPAL's
///    client actor (created on demand, not counted as an MCP session), which
///    owns every tracking session that principal started in that era.
///  - recovered: the journal opened (after a `fault`: it works again).
///  - fault: the journal cannot be opened (why; it keeps trying): client
///    actors, told `fault`, answer STORAGE_UNAVAILABLE for the sessions
///    they do not hold, until `recovered` comes.
/// The transport keeps a directory of tracking sessions (id -> owning
/// route) from what client actors report with their replies.
/// A route whose client actor ends (idle, crash) is forgotten: its eof sink
/// is closed and later frames on it get `unknown_route`.
using transport_actor = caf::typed_actor<
  caf::reacts_to<inbound_atom, std::string, protocol::frame, sink_ptr>,
  caf::reacts_to<eof_atom, std::string, sink_ptr>,
  caf::reacts_to<open_atom, std::string, std::string, protocol::frame,
                 sink_ptr>,
  caf::reacts_to<forward_atom, std::string, std::string, protocol::frame,
                 sink_ptr>,
  caf::reacts_to<end_atom, std::string, std::string, sink_ptr>,
  caf::reacts_to<call_atom, std::string, protocol::frame, sink_ptr>,
  caf::reacts_to<recovered_atom>,
  caf::reacts_to<fault_atom, std::string>>;

/// The journal's answer to a claim: `error` not empty when the journal
/// could not be read (then `result` means nothing).
struct claim_reply {
  storage::claim_result result;
  std::string error;
};

/// The journal's answer to a history query: `error` not empty when the
/// journal could not be read (then `page` means nothing).
struct list_reply {
  storage::list_page page;
  std::string error;
};

/// The journal's answer to a principal operation (preferences, focus
/// sessions): `error` not empty when it could not run (nothing changed).
struct principal_reply {
  storage::principal_state state;
  std::string error;
};

/// (session id, epoch) of sessions a client actor lets go of.
using held_sessions = std::vector<std::pair<std::string, std::int64_t>>;

/// Owns the storage (see storage/store.hpp), on its own thread. `append`
/// answers once the events are stored, or why they are not (nothing of
/// them is; `fenced`: a session was claimed meanwhile). Appends that
/// arrive together share one transaction (`flush`, sent to itself: group
/// commit). `claim` checks a client actor's copy of a session, or loads
/// its latest state; `verify` answers which of a client's copies are stale
/// (changed through another server, closed, gone); `history` reads one
/// page of a caller's sessions (store::list); `release` lets go of
/// sessions a client actor held when it ends. `sweep` (every minute, to itself) expires the open
/// sessions no live server holds; `purge` (daily) drops history past its
/// retention, once per day for the whole directory. `open` (from main,
/// first) opens the store for the given transport, off the start-up path;
/// while it cannot be opened it says so to the transport (`fault`) and
/// sends itself `open` again, with backoff.
using journal_actor = caf::typed_actor<
  caf::replies_to<append_atom, std::vector<storage::event>>::with<
    storage::append_answer>,
  caf::replies_to<claim_atom, storage::claim_request>::with<claim_reply>,
  caf::replies_to<verify_atom, held_sessions>::with<std::vector<std::string>>,
  caf::replies_to<history_atom, storage::list_query>::with<list_reply>,
  caf::replies_to<principal_atom, storage::principal_op>::with<principal_reply>,
  caf::reacts_to<release_atom, held_sessions>,
  caf::reacts_to<flush_atom>,
  caf::reacts_to<sweep_atom>,
  caf::reacts_to<purge_atom>,
  caf::reacts_to<open_atom, transport_actor>>;

} // namespace ttm::actors

// -- inspection (required by CAF for every message type) ----------------------

namespace ttm::protocol {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, request_id& x) {
  return f(caf::meta::type_name("request_id"), x.kind, x.json);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, envelope& x) {
  return f(caf::meta::type_name("envelope"), x.claimed, x.version, x.problem,
           x.log_level);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, message& x) {
  return f(caf::meta::type_name("message"), x.kind, x.id, x.method, x.params,
           x.error_code, x.error_message, x.meta, x.name, x.handle,
           x.lookup);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, frame& x) {
  return f(caf::meta::type_name("frame"), x.batch, x.error_code,
           x.error_message, x.messages);
}

} // namespace ttm::protocol

namespace ttm::domain {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, slot_answer& x) {
  return f(caf::meta::type_name("slot_answer"), x.granted, x.limit, x.value);
}

} // namespace ttm::domain

namespace ttm::storage {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stamp& x) {
  return f(caf::meta::type_name("stamp"), x.wall_ns, x.mono_ns, x.boot_id);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, event& x) {
  return f(caf::meta::type_name("event"), x.kind, x.session_id, x.principal,
           x.task_id, x.epoch, x.if_due, x.at, x.payload);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, claim_request& x) {
  return f(caf::meta::type_name("claim_request"), x.session_id,
           x.idempotency_key, x.principal, x.scope, x.since_wall_ns,
           x.known_epoch, x.now_wall_ns);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, append_answer& x) {
  return f(caf::meta::type_name("append_answer"), x.kind, x.error);
}

} // namespace ttm::storage

namespace ttm::mcp {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, rpc_output& x) {
  return f(caf::meta::type_name("rpc_output"), x.notifications, x.response,
           x.created, x.gone);
}

} // namespace ttm::mcp

// A sink is a local callback handle; it never crosses a process boundary.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::sink_ptr)

// A claimed session's state goes from the journal to one client actor, and
// what it lets go of back, in process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::claim_reply)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::held_sessions)
// A history query and its page, likewise between two actors of one process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::storage::list_query)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::list_reply)
// A principal's preferences and focus sessions (the intent is private: it
// never leaves the process), likewise.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::storage::principal_op)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::principal_reply)
