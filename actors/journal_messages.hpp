#pragma once

// What the journal actor takes: events to append, claims, history and
// principal queries — storage records (storage/records.hpp,
// storage/principal.hpp), which is why no edge includes this header.

#include "actors/atoms.hpp"
#include "actors/transport_messages.hpp" // open: the transport to tell
#include "domain/history.hpp"
#include "storage/mcp_session.hpp"
#include "storage/principal.hpp"
#include "storage/records.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::actors {

/// The journal's answer to a claim: `error` not empty when the journal
/// could not be read (then `result` means nothing).
struct claim_reply {
  storage::claim_result result;
  std::string error;
};

/// The journal's answer to a history query: `error` not empty when the
/// journal could not be read (then the rest means nothing).
struct list_reply {
  /// The page, converted on the journal's thread while a store that hands
  /// its rows on as it reads them (PostgreSQL) read the rest;
  domain::history_page page;
  /// or the page of a store that hands it on whole (SQLite), for the
  /// client to convert off the journal's thread.
  std::optional<storage::list_page> whole;
  std::string error;
};

/// The journal's answer to a principal operation (preferences, focus
/// sessions): `error` not empty when it could not run (nothing changed).
struct principal_reply {
  storage::principal_state state;
  std::string error;
};

/// The journal's answer about a stored MCP session: no `record` when it is
/// not stored (never, deleted, expired); `error` not empty when the
/// journal could not be read (then `record` means nothing).
struct mcp_session_reply {
  std::optional<storage::mcp_session_record> record;
  std::string error;
};

/// (session id, epoch) of sessions a client actor lets go of.
using held_sessions = std::vector<std::pair<std::string, std::int64_t>>;

/// Owns the storage (see storage/store.hpp), on its own thread. `append`
/// answers once the events are stored, or why they are not (nothing of
/// them is; `fenced`: a session was claimed meanwhile; `timed_out`: its
/// deadline passed before its transaction began, or while that waited for
/// another server's). Appends that
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
/// sends itself `open` again, with backoff. `audit` with a refusal queues
/// it for the audit trail (at most `audit_queue` wait; beyond, they are
/// counted and the count rides on the next one written); `audit` alone
/// (to itself, `audit_delay` after the first) writes the queue in one
/// transaction.
using journal_actor = caf::typed_actor<
  caf::replies_to<append_atom, std::vector<storage::event>>::with<
    storage::append_answer>,
  // The same with the request's deadline (the clock's monotonic ns; 0:
  // none): past it before the transaction begins, `timed_out`.
  caf::replies_to<append_atom, std::vector<storage::event>,
                  std::int64_t>::with<storage::append_answer>,
  caf::replies_to<claim_atom, storage::claim_request>::with<claim_reply>,
  caf::replies_to<verify_atom, held_sessions>::with<std::vector<std::string>>,
  caf::replies_to<history_atom, storage::list_query>::with<list_reply>,
  caf::replies_to<principal_atom, storage::principal_op>::with<principal_reply>,
  caf::reacts_to<release_atom, held_sessions>,
  caf::reacts_to<flush_atom>,
  // From the syncer (deferred sync): commits up to the ticket are on disk
  // (error empty) or their sync failed.
  caf::reacts_to<flush_atom, std::uint64_t, std::string>,
  caf::reacts_to<audit_atom, audited_refusal>,
  caf::reacts_to<audit_atom>,
  caf::reacts_to<sweep_atom>,
  caf::reacts_to<purge_atom>,
  caf::reacts_to<lease_atom>,
  caf::reacts_to<open_atom, transport_actor>,
  // MCP sessions of the 2025 eras (storage/mcp_session.hpp), for the
  // transport: `mcp_put` stores one (true: stored), `mcp_get` reads one
  // (recording its use, at most once a minute), `mcp_end` removes one
  // (DELETE; true: it was stored). Written without a sync of their own.
  caf::replies_to<mcp_put_atom, storage::mcp_session_record>::with<bool>,
  caf::replies_to<mcp_get_atom, std::string>::with<mcp_session_reply>,
  caf::replies_to<mcp_end_atom, std::string>::with<bool>>;

} // namespace ttm::actors

// -- inspection (required by CAF for every message type) ----------------------

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
  return f(caf::meta::type_name("append_answer"), x.kind, x.error, x.limit_option,
           x.limit_value);
}

} // namespace ttm::storage

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
// An MCP session's record (it names its principal), between the transport
// and the journal of one process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::storage::mcp_session_record)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(ttm::actors::mcp_session_reply)
