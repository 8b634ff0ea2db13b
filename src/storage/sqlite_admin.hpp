#pragma once

// The journal as the admin CLI (src/admin) sees it while servers use it: a
// connection of its own that takes no directory lock (servers hold theirs;
// SQLite's WAL locks coordinate us all), read-only where it only reads, and
// reads in read transactions, which never block a writer in WAL mode. Also
// the online backup and the import of a whole journal.

#include "storage/principal.hpp"
#include "storage/records.hpp"
#include "storage/store.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttm::storage {

struct sqlite_options;

/// What `check` reports of the journal file.
struct journal_health {
  std::int64_t schema_version = 0;
  std::string journal_mode; ///< "wal" for a journal a server has opened
  std::string integrity;    ///< "ok", else SQLite's first complaints
  std::int64_t wal_bytes = -1; ///< the -wal file's size; -1: none
  std::int64_t sessions = 0;
  std::int64_t events = 0;
};

/// The audit's time window and principal.
struct audit_query {
  std::optional<std::int64_t> since_wall_ns; ///< at or after
  std::optional<std::int64_t> until_wall_ns; ///< before
  std::optional<std::string> principal;
};

/// Called between steps of a long run with what is done so far; false
/// stops it (nothing more is read).
using progress_fn = std::function<void(std::int64_t done, std::int64_t total)>;

/// Receives a journal's contents in order, in one read transaction (one
/// snapshot). Each callback returns false to stop.
struct dump_visitor {
  std::function<bool(const event&)> on_event;
  std::function<bool(const preference_row&)> on_preference;
  std::function<bool(const focus_row&)> on_focus;
  std::function<bool(const audit_entry&)> on_audit;
};

/// A read-only connection to <dir>/journal.sqlite3. Move-only; not
/// thread-safe.
class journal_reader {
public:
  /// Opens the journal of `dir` read-only, without the directory lock.
  /// Errors: io (no journal there), corrupt (not ours), newer_schema.
  static result<std::unique_ptr<journal_reader>> open(const std::string& dir);

  ~journal_reader();
  journal_reader(const journal_reader&) = delete;
  journal_reader& operator=(const journal_reader&) = delete;

  const std::string& path() const noexcept;
  std::int64_t schema_version() const noexcept;

  /// PRAGMA integrity_check (the whole file, in one read transaction), the
  /// journal mode, the WAL's size, and what the journal holds.
  result<journal_health> health();

  /// A store over this connection for its reads (list, history); writes
  /// fail (read-only). Needs the current schema version.
  result<store*> sessions();

  /// One session with its events; none if the journal has no such id.
  result<std::optional<stored_session>> session(const std::string& id);

  /// Every event, preference, focus session and audit record, in journal
  /// order, from one snapshot; `progress` every 10,000 events.
  std::optional<error> dump(const dump_visitor& v,
                            const progress_fn& progress = {});

  /// Events recording who made them (`by` in their payload) in the window,
  /// oldest first; `principal`: the session's owner.
  result<std::vector<event>> events_by(const audit_query& q);

  /// The audit records of the window (refusals), oldest first.
  result<std::vector<audit_entry>> audit(const audit_query& q);

  /// A consistent copy of the journal into `dest_dir`/journal.sqlite3
  /// (created 0700 if missing; refused if it holds a journal), with
  /// SQLite's online backup in steps of `pages_per_step` pages from one
  /// snapshot: writers go on meanwhile. Returns the pages copied.
  result<std::int64_t> backup(const std::string& dest_dir,
                              int pages_per_step,
                              const progress_fn& progress = {});

  struct impl;

private:
  explicit journal_reader(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

/// Writes `dump` into the journal of `opts.dir` (created if missing,
/// registered as a server would), in one transaction: nothing is written
/// unless all of it is. Refused (rejected) unless the journal holds
/// nothing. Returns the events written.
result<std::size_t> import_journal(const sqlite_options& opts,
                                   const journal_dump& dump);

} // namespace ttm::storage
