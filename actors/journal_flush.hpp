#pragma once

// The journal actor's group commit (actors/journal_flush.cpp) and the
// helpers it shares with the rest of the actor (actors/journal.cpp).
// Internal to actors/.

#include "actors/journal.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttm::actors::detail {

using self_ptr = journal_actor::stateful_pointer<journal_state>;

/// For the log: everything, the path included.
std::string describe(const storage::error& e);
/// For the client: what kind of fault, never a path of the server's.
std::string public_reason(const storage::error& e);
/// Why a request finds no store: the journal's fault, or not opened yet.
std::string unavailable(const journal_state& st);
/// Expires the open sessions no live server holds, if past their limits;
/// returns how many.
std::size_t sweep_orphans(self_ptr self);

/// Queues an append for the next flush (one transaction for all queued).
caf::result<storage::append_answer>
enqueue_append(self_ptr self, std::vector<storage::event> events,
               std::int64_t deadline_ns);
/// Writes everything queued in one transaction and answers each append:
/// at once, or (deferred sync) once the WAL sync after it returned.
void flush(self_ptr self);
/// Starts the syncer when the store defers its sync (at open).
void start_syncer(self_ptr self);
/// The syncer's answer: every commit up to `ticket` is durable (`error`
/// empty) or its sync failed.
void on_synced(self_ptr self, std::uint64_t ticket, const std::string& error);

} // namespace ttm::actors::detail
