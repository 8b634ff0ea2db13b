#include "storage/store.hpp"

#include <iterator>

namespace ttm::storage {

namespace {

// The texts are stored in the database: never rename one without a migration.
constexpr const char* event_kind_names[] = {
  "session_started", "task_started",    "task_ended",
  "session_ended",   "session_expired", "tasks_edited",
  "change_undone",
};

constexpr const char* session_state_names[] = {"open", "ended", "expired"};

} // namespace

const char* to_string(event_kind k) {
  return event_kind_names[static_cast<int>(k)];
}

std::optional<event_kind> event_kind_from(const std::string& s) {
  for (int i = 0; i < static_cast<int>(std::size(event_kind_names)); ++i)
    if (s == event_kind_names[i])
      return static_cast<event_kind>(i);
  return std::nullopt;
}

bool undoable(event_kind k) {
  return k == event_kind::task_started || k == event_kind::task_ended
         || k == event_kind::tasks_edited || k == event_kind::session_ended;
}

const char* to_string(session_state s) {
  return session_state_names[static_cast<int>(s)];
}

std::optional<session_state> session_state_from(const std::string& s) {
  for (int i = 0; i < static_cast<int>(std::size(session_state_names)); ++i)
    if (s == session_state_names[i])
      return static_cast<session_state>(i);
  return std::nullopt;
}

const char* to_string(error_kind k) {
  switch (k) {
    case error_kind::locked:
      return "locked";
    case error_kind::newer_schema:
      return "newer_schema";
    case error_kind::corrupt:
      return "corrupt";
    case error_kind::read_only:
      return "read_only";
    case error_kind::full:
      return "full";
    case error_kind::busy:
      return "busy";
    case error_kind::limit:
      return "limit";
    case error_kind::fenced:
      return "fenced";
    case error_kind::rejected:
      return "rejected";
    case error_kind::sync_failed:
      return "sync_failed";
    case error_kind::io:
      return "io";
  }
  return "io";
}

store::~store() = default;
store::commit_sync::~commit_sync() = default;

} // namespace ttm::storage

namespace ttm::storage {

result<principal_state> store::principal(const principal_op&) {
  return error{error_kind::io, describe()
                                 + " keeps no preferences or focus sessions"};
}

result<ok> store::record_audit(const std::vector<audit_entry>&) {
  return error{error_kind::io, describe() + " keeps no audit records"};
}

result<std::size_t> store::open_focus_sessions() {
  return std::size_t{0};
}

namespace {

error no_mcp_sessions(const store& s) {
  return {error_kind::io, s.describe() + " keeps no MCP sessions"};
}

} // namespace

result<ok> store::put_mcp_session(const mcp_session_record&) {
  return no_mcp_sessions(*this);
}

result<std::optional<mcp_session_record>>
store::get_mcp_session(const std::string&) {
  return no_mcp_sessions(*this);
}

result<ok> store::touch_mcp_sessions(const std::vector<std::string>&,
                                     std::int64_t) {
  return no_mcp_sessions(*this);
}

result<bool> store::remove_mcp_session(const std::string&,
                                       std::optional<std::int64_t>) {
  return no_mcp_sessions(*this);
}

result<std::vector<std::string>> store::mcp_sessions_due(std::int64_t,
                                                         std::size_t) {
  return no_mcp_sessions(*this);
}

} // namespace ttm::storage
