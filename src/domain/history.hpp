#pragma once

// History (issue 16): what a caller asks of its sessions, live and past,
// and the compact rows it gets, independent of where they come from (the
// journal, or with --ephemeral the sessions a client holds in memory).

#include "domain/clock.hpp"
#include "domain/tracking.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ttm::domain {

/// A session's state as the tracking tools name it: "active" (open),
/// "ended", "expired" (past its age or idle limit, or closed with its MCP
/// session).
enum class history_status { active, ended, expired };
const char* to_string(history_status s);
std::optional<history_status> history_status_from(const std::string& s);

/// Which sessions, which page. Every condition must hold.
struct history_filter {
  std::optional<history_status> status;
  std::optional<std::string> milestone_id;
  std::vector<std::string> tags; ///< each of them
  /// Lower-case (ASCII) substring of the milestone id or name or a task
  /// id or name.
  std::optional<std::string> text;
  std::optional<wall_time> started_after;  ///< at or after
  std::optional<wall_time> started_before; ///< strictly before
  /// Keyset: only rows older than (started wall ns, session id).
  std::optional<std::pair<std::int64_t, std::string>> before;
  std::size_t limit = 20;
  /// Statistics: the page's sessions with their task runs too (`limit`
  /// then bounds the sessions read).
  bool runs = false;
};

struct history_row {
  std::string session_id;
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  history_status status = history_status::active;
  wall_time start;
  std::optional<wall_time> end; ///< ended or expired
  std::vector<std::string> tags;
  std::int64_t tasks_done = 0; ///< tasks whose latest run completed
  std::int64_t tasks_total = 0;
};

/// One run of a task: its wall-clock span (for the busy union) and its
/// duration (monotonic within one boot, else wall clock).
struct run_span {
  std::string task_id;
  wall_time start;
  wall_time end; ///< now for a run still in progress
  std::chrono::milliseconds duration{0};
  run_status status = run_status::in_progress;
};

/// A session as statistics need it.
struct session_runs {
  std::string session_id;
  std::string milestone_id;
  std::vector<std::string> tags;
  wall_time start;
  wall_time end; ///< ended or expired; now while active
  std::vector<run_span> runs;
};

/// Newest first (start, then id, both descending); `more`: older rows
/// match too (with `runs`: more sessions matched than were read).
struct history_page {
  std::vector<history_row> rows;
  bool more = false;
  /// history_filter::runs: each row's session with its task runs.
  std::vector<session_runs> runs;
};

/// The page of `filter` among the sessions `t` holds (--ephemeral: all
/// there is; expired sessions are gone from memory, so never listed).
history_page list_held(const tracker& t, const history_filter& filter);

/// Whether `s` passes `filter`'s conditions (not its cursor or limit).
bool history_matches(const tracking_session& s, const history_filter& filter);

} // namespace ttm::domain
