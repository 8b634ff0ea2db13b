#pragma once

// A session's runs in SQLite (schema 4): read from its events, and packed
// into its row when it closes, by every write that closes it and by the
// migration that added the column. Internal to src/storage.

#include "storage/records.hpp"
#include "storage/sqlite_util.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage::detail {

/// A session's (?1: its sid) task starts and ends as the CTE `ev` (ord,
/// kind, task_id, wall_ns, mono_ns, boot_id, status): its task events, and
/// the start and end operations of its bulk edits (tasks_edited) in the
/// order they were applied. A statement continues it with a SELECT.
extern const std::string task_events_cte;

/// Selects a session's (?1: its sid) task starts and ends and closing
/// events, in order, with a task end's status: what pair_runs reads.
extern const std::string run_events_sql;

/// Packs the session's (?1: sid) runs into its row (?2: the packing, ?3:
/// its digest or NULL, storage/runs.hpp).
extern const std::string store_runs_sql;

/// A session's (?1: sid) packed runs (NULL if none) and its epoch.
extern const std::string read_runs_sql;

/// Runs `events` (a prepared run_events_sql) for `sid`; SQLITE_DONE, an
/// SQLite error, or SQLITE_CORRUPT with `bad_kind` for an event kind this
/// version does not know.
int read_run_events(const stmt_ptr& events, std::int64_t sid,
                    std::vector<run_event>& out, std::string& bad_kind);

/// Pairs the session's events and writes the packing into its row
/// (SQLITE_DONE on success).
int store_runs(const stmt_ptr& events, const stmt_ptr& update,
               std::int64_t sid, std::string& bad_kind);

/// Packs `runs` into the session's row (SQLITE_DONE on success); with
/// `epoch`, an open session's at that epoch (packing version 2).
int write_runs(const stmt_ptr& update, std::int64_t sid,
               const std::vector<stored_run>& runs,
               std::optional<std::int64_t> epoch = std::nullopt);

/// The runs of a session closing at `closed_wall_ns` whose closing event
/// brought none: those the row keeps (an open session's, packed with its
/// pauses and corrections) end there, else the events are paired.
int store_closing_runs(const stmt_ptr& read, const stmt_ptr& events,
                       const stmt_ptr& update, std::int64_t sid,
                       std::int64_t closed_wall_ns, std::string& bad_kind);

/// Schema step 4: packs the runs of every closed session (inside the
/// step's transaction).
int pack_closed_sessions(sqlite3* db, std::string& bad_kind);

/// Schema step 11: the digest of every closed session packed before it
/// (inside the step's transaction), from its packing; a packing that does
/// not read as a closed one keeps no digest (statistics read its runs).
int digest_closed_sessions(sqlite3* db);

} // namespace ttm::storage::detail
