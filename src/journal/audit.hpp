#pragma once

// The audit trail through the journal codec: a refusal at the HTTP edge as
// an audit record and back, and who made a session's change (the `by` of
// its event).

#include "domain/refusal.hpp"
#include "storage/records.hpp"

#include <string>

namespace ttm::journal {

/// The record of `r` (kind "refusal"; its payload never holds a token).
storage::audit_entry to_audit_entry(const domain::refusal& r);

/// Back from a record of kind "refusal"; throws bad_event.
domain::refusal refusal_of(const storage::audit_entry& e);

/// Who made an event's change: its payload's `by`.
struct by_record {
  std::string principal;
  std::string client;
  std::string tool;
};

/// Empty fields when the event records none; throws bad_event when its
/// payload is not a JSON object.
by_record by_of(const storage::event& ev);

} // namespace ttm::journal
