#pragma once

// History (issue 16): what a caller asks of its sessions, live and past,
// and the compact rows it gets, independent of where they come from (the
// journal, or with --ephemeral the sessions a client holds in memory).

#include "domain/clock.hpp"
#include "domain/principal_ops.hpp"
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

/// Which sessions a query reads: tracking sessions (the default, as before
/// focus sessions were listed), the chronometric tools' focus sessions
/// (their principal's, of any era), or both.
enum class history_kind { tracking, focus, all };
const char* to_string(history_kind k);
std::optional<history_kind> history_kind_from(const std::string& s);

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
  /// With runs: a closed session's digest instead of its runs where the
  /// journal has one (statistics not by task).
  bool digests = false;
  history_kind kind = history_kind::tracking;
  /// Focus sessions only: just this one (time_session_report by id).
  std::optional<std::string> focus_id;
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
/// duration (monotonic within one boot, else wall clock). Trivially
/// copyable: a month's statistics hold 250,000 of them, their task ids
/// once per page (task_ids).
struct run_span {
  std::uint32_t task = 0; ///< index of its task id in the page's task_ids
  run_status status = run_status::in_progress;
  wall_time start;
  wall_time end; ///< now for a run still in progress
  std::chrono::milliseconds duration{0};
};

/// A closed session's runs summed up (the journal's digest): what the
/// groupings by day, week, milestone and tag count of them.
struct run_digest {
  std::int64_t runs = 0;
  std::int64_t tasks = 0; ///< distinct tasks that ran
  std::chrono::milliseconds task_time{0};
  std::chrono::milliseconds busy{0}; ///< union of the runs
  std::int64_t completed = 0;
  std::int64_t skipped = 0;
  std::int64_t failed = 0;
  std::int64_t interrupted = 0;
  std::vector<std::chrono::milliseconds> ended; ///< every run's duration
};

/// A session as statistics need it.
struct session_runs {
  std::string session_id;
  std::string milestone_id;
  std::vector<std::string> tags;
  wall_time start;
  wall_time end; ///< ended or expired; now while active
  std::vector<run_span> runs;
  /// Instead of `runs` (then empty): history_filter::digests.
  std::optional<run_digest> digest;
};

/// Newest first (start, then id, both descending); `more`: older rows
/// match too (with `runs`: more sessions matched than were read).
struct history_page {
  std::vector<history_row> rows;
  bool more = false;
  /// history_filter::runs: each row's session with its task runs, whose
  /// run_span::task index `task_ids` (each id once).
  std::vector<session_runs> runs;
  std::vector<std::string> task_ids;
  /// Focus sessions (kind focus or all), newest first, at most `limit`;
  /// `focus_more`: older ones match too.
  std::vector<focus_row> focus;
  bool focus_more = false;
};

/// A row of a list of both kinds: a tracking row or a focus session.
struct any_row {
  const history_row* tracking = nullptr;
  const focus_row* focus = nullptr;
  wall_time start() const {
    return tracking ? tracking->start : focus->start;
  }
  const std::string& id() const {
    return tracking ? tracking->session_id : focus->session_id;
  }
};

/// `page`'s tracking and focus rows merged newest first (start, then id,
/// both descending), at most `limit`; `more`: older rows of either kind
/// match too (the last row is then the next page's cursor).
std::vector<any_row> merged_rows(const history_page& page, std::size_t limit,
                                 bool& more);

/// Whether a focus session passes `filter` (conditions and cursor, not its
/// limit or kind): `active` while open, else `ended`; a milestone or tag
/// filter excludes it; `text` searches its intent and summary.
bool focus_matches(const focus_row& f, const history_filter& filter);

/// The page of `filter` among `all` (--ephemeral: the focus sessions held
/// in memory): the matching ones, newest first, at most filter.limit.
void list_focus_held(std::vector<focus_row> all, const history_filter& filter,
                     history_page& page);

/// The page of `filter` among the sessions `t` holds (--ephemeral: all
/// there is; expired sessions are gone from memory, so never listed).
history_page list_held(const tracker& t, const history_filter& filter);

/// Whether `s` passes `filter`'s conditions (not its cursor or limit).
bool history_matches(const tracking_session& s, const history_filter& filter);

} // namespace ttm::domain
