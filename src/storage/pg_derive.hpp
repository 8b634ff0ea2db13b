#pragma once

// What the PostgreSQL store derives from event payloads in C++, where the
// SQLite store uses SQLite's JSON functions (sqlite_store.cpp, sqlite_runs.cpp):
// a list row's summary columns, a task's name, a bulk edit's effect on the
// row, and a session's run events for statistics. The same rules, so both
// backends list, count and search alike. Internal to src/storage.

#include "storage/records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage::detail {

/// Whether `text` is one JSON value.
bool is_json(const std::string& text);

/// SQLite's lower(): ASCII only.
std::string lower_ascii(std::string s);

/// A session_started payload's columns (insert_session_ in sqlite_store.cpp).
struct start_summary {
  std::optional<std::string> milestone_id; ///< none: refused
  std::string scope = "2025";
  std::optional<std::string> idempotency_key;
  std::optional<std::string> milestone_name;
  std::string tags = "[]";
  std::int64_t tasks_total = 0;
  std::string search;
};
start_summary summarize_start(const std::string& payload);

/// A task_started's "task_name", lower-cased, if a string.
std::optional<std::string> task_name_of(const std::string& payload);

/// A tasks_edited payload's effect on its row (note_task_edits_).
struct edit_effect {
  std::optional<std::int64_t> earliest_correction; ///< a 'correct' op's start_ns
  std::int64_t tasks_delta = 0;                    ///< adds less removes
  std::string search_add; ///< "\n" + lower(x) per added id / given name
};
edit_effect edit_of(const std::string& payload);

/// An event as stored, for pairing runs.
struct stored_event_row {
  std::int64_t seq = 0;
  std::string kind;
  std::string task_id; ///< "" for NULL
  stamp at;
  std::string payload;
  bool undone = false;
};

/// A session's task starts and ends and closing events in order, a bulk
/// edit's start and end operations among them (sqlite_runs.cpp's CTE);
/// undone events left out. False: an event of unknown kind (`bad_kind`).
bool run_events_of(const std::vector<stored_event_row>& events,
                   std::vector<run_event>& out, std::string& bad_kind);

/// Tasks whose latest start or end is an end as `completed`.
std::int64_t tasks_done_of(const std::vector<run_event>& events);

} // namespace ttm::storage::detail
