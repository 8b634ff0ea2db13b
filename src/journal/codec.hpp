#pragma once

// Between the tracking model and storage, both ways: a tracker's change
// becomes a journal event (its payload JSON), and a stored event's payload
// is read back into the requests that made it (see replay.hpp). Storage
// only carries the payload text; the domain never sees it.

#include "domain/tracking.hpp"
#include "journal/bad_event.hpp"
#include "protocol/era.hpp"
#include "storage/store.hpp"

#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace ttm::journal {

/// Who made a change, for the audit trail: the MCP session (as the log
/// names it, never the whole id) and the tool it called. Empty: the server
/// itself (expiry) or a test.
struct origin {
  std::string client;
  std::string tool;
};

/// The event for `c`, stamped with both clocks and `boot_id`. A
/// session_started event records `era` too: after a restart only a client
/// of the same protocol era may take it over. With a `by` tool, the payload
/// records `"by": {principal, client, tool}` (the audit trail).
storage::event to_event(const domain::change& c, const std::string& principal,
                        const std::string& boot_id,
                        protocol::era era = protocol::era::legacy,
                        const origin& by = {});

/// The era a stored session was started in (see to_event).
protocol::era era_of(const storage::stored_session& s);

/// One event's payload, parsed; each getter throws bad_event when a field it
/// needs is missing or of the wrong type.
class payload {
public:
  /// Throws bad_event unless `json` is a JSON object.
  explicit payload(const std::string& json);

  /// session_started: the request, then the zone it was made in.
  domain::session_request session_request() const;
  std::string zone_name() const;

  /// task_started, for the event's task.
  domain::task_start_request task_request(const std::string& task_id) const;

  /// task_ended: how the run ended and its completion metadata.
  domain::run_status status() const;
  domain::string_map metadata() const;

  /// session_expired: why ("age", "idle", "closed").
  std::string expiry_reason() const;

  /// tasks_edited: the operations, in order.
  std::vector<domain::task_op> ops() const;

  /// Who made the change (`by`); empty fields when the event has none.
  domain::change_origin by() const;

  /// change_undone: the kind of change it reverted (task_started, ...).
  domain::change::kind_t undid() const;

  /// tasks_edited: how many operations, without reading them.
  std::size_t op_count() const;

private:
  rapidjson::Document doc_;
};

} // namespace ttm::journal
