#pragma once

// Statistics (issue 16): a caller's sessions in a date range, their task
// runs, grouped by milestone, tag, day, week or task. Independent of where
// the sessions come from (the journal, or the sessions a client holds).

#include "domain/clock.hpp"
#include "domain/history.hpp"
#include "domain/tracking.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::domain {

enum class stats_group { milestone, tag, day, week, task };
std::optional<stats_group> stats_group_from(const std::string& s);

/// The numbers of one group (or of all: the totals).
struct stats_numbers {
  std::int64_t sessions = 0;
  std::int64_t tasks = 0; ///< distinct (session, task) that ran
  std::int64_t runs = 0;
  std::chrono::milliseconds total{0};     ///< the sessions' start to end
  std::chrono::milliseconds busy{0};      ///< union of their runs, per session
  std::chrono::milliseconds task_time{0}; ///< sum of the runs
  /// Over runs that ended (any status), nearest rank; none: no such run.
  std::optional<std::chrono::milliseconds> median;
  std::optional<std::chrono::milliseconds> p90;
  std::int64_t completed = 0;
  std::int64_t skipped = 0;
  std::int64_t failed = 0;
  std::int64_t interrupted = 0;
  std::int64_t in_progress = 0;
  /// Focus sessions (mark_session_start) started in the group, and their
  /// length (to now while open). Not sessions above: those are tracking.
  std::int64_t focus_sessions = 0;
  std::chrono::milliseconds focus_time{0};
};

struct stats_group_row {
  std::string key;
  stats_numbers numbers;
};

struct stats_result {
  std::vector<stats_group_row> groups;
  stats_numbers totals;
};

/// Groups `sessions`: by milestone id, by tag (a session counts in each of
/// its tags; untagged ones under ""), by the day or week of its start in
/// `z` (keys YYYY-MM-DD; a week is named by its first day, which is
/// `week_start`, 0 = Sunday .. 6 = Saturday), or by task id (each group
/// holds the runs of that task, and the sessions that ran it). Groups by
/// day and week come in time order; the others by task time, largest
/// first, then key.
/// `task_ids`: the ids the runs' `task` index, each once.
stats_result compute_stats(const std::vector<session_runs>& sessions,
                           const std::vector<std::string>& task_ids,
                           stats_group by, const zone& z,
                           unsigned week_start);

/// The index of `id` in `ids`, added at the end if it is not there (a
/// linear search: for tests and the few sessions a client holds).
std::uint32_t task_index(std::vector<std::string>& ids, std::string_view id);

/// Counts `focus` into `stats`: the totals, and with `by` day or week the
/// group of each one's start (added, in time order, where it has none).
/// Milestone, tag and task groups have no focus sessions.
void add_focus(stats_result& stats, const std::vector<focus_row>& focus,
               stats_group by, const zone& z, unsigned week_start,
               wall_time now);

/// The sessions `t` holds that match `filter` (cursor and limit ignored),
/// as of `now` (--ephemeral), into page.runs and page.task_ids.
void runs_held(const tracker& t, const history_filter& filter, instant now,
               history_page& page);

} // namespace ttm::domain
