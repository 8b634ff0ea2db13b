#pragma once

// A session's task runs as the journal stores them for statistics: paired
// from its task and closing events, and, once the session is closed,
// packed into its row (schema 4) so that a range of sessions reads one
// small value per session instead of every event.

#include "storage/records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttm::storage {

/// Pairs a session's task and closing events (oldest first) into runs, in
/// the order they started. A task_ended's `status` names how it ended.
std::vector<stored_run> pair_runs(const std::vector<run_event>& events);

/// The packed form: a version byte, then per run its task id, its status
/// and, as varints, its start, end and active time. A closed session's
/// (version 4, every run ended): the start from the run before's end, the
/// end from the start, the active time from the span: ~12 bytes a run of
/// tasks run back to back (version 1, still read, took ~22). An open
/// session's runs
/// (kept for its pauses and corrections) are version 2: after the version
/// the session's `epoch` once they are written (so a packing that events
/// written since left behind is known as such), and a run in progress
/// with its active time so far and whether it runs. Without `epoch`:
/// version 1 when every run ended, else version 2 at epoch 0.
std::string pack_runs(const std::vector<stored_run>& runs,
                      std::optional<std::int64_t> epoch = std::nullopt);

/// Whether `packed` is a closed session's packing by its version byte
/// (every run ended: its runs need no events), damaged or not.
bool is_closed_packing(std::string_view packed);

/// The version bytes is_closed_packing takes, as a store's statement tests
/// them without reading the packing (`get_byte(runs, 0) IN (…)`).
inline constexpr unsigned char closed_packing_versions[] = {1, 4};

/// A version-2 packing's epoch; none for any other packing.
std::optional<std::int64_t> packed_epoch(std::string_view packed);

/// None: not a packing this version wrote (the caller pairs the events).
std::optional<std::vector<stored_run>> unpack_runs(std::string_view packed);

/// Whether `packed` unpacks (unpack_runs would give runs), read without
/// keeping them: what a page's reader checks before it hands the bytes on.
bool runs_unpack(std::string_view packed);

/// One run as packed, its task id a view into the packing.
struct run_view {
  std::string_view task_id;
  std::int64_t start_wall_ns = 0;
  std::int64_t end_wall_ns = 0; ///< status not in_progress
  std::int64_t duration_ns = 0;
  run_end status = run_end::in_progress;
  std::int64_t as_of_wall_ns = 0; ///< in progress (stored_run's)
  bool running = true;
};

/// A packing's runs read one at a time, nothing copied (statistics decode
/// a month's 250,000 runs straight into their own form).
class runs_reader {
public:
  /// Reads the header: ok() false if it is not a packing this version
  /// wrote.
  explicit runs_reader(std::string_view packed);
  /// The runs it holds.
  std::uint64_t size() const { return n_; }
  /// The next run: false when none is left, or the packing is damaged
  /// (then ok() is false).
  bool next(run_view& r);
  /// Undamaged so far; after the last run, also nothing left over.
  bool ok() const { return ok_; }

private:
  /// A closed session's run (version 4) after its task id, at `p`.
  bool next_closed(run_view& r, const unsigned char* p,
                   const unsigned char* end);
  /// Past a run read up to `p`: whether it and the packing so far are
  /// undamaged.
  bool advance(const unsigned char* p, bool ok);

  std::string_view in_;
  std::uint64_t n_ = 0;
  std::uint64_t read_ = 0;
  std::int64_t previous_ = 0; ///< the run before's start (version 4: end)
  bool open_ = false;
  bool compact_ = false; ///< version 4
  bool ok_ = true;
};

/// A closed session's runs summed up for statistics (schema 11), written
/// beside its packing by the statement that writes the packing (so the two
/// cannot disagree): what the groupings by day, week, milestone and tag
/// count, without decoding ~50 runs per session. Milliseconds are the
/// domain's (each run's duration and each busy span truncated, as
/// compute_stats does).
struct runs_digest {
  std::uint64_t runs = 0;
  std::uint64_t tasks = 0; ///< distinct task ids that ran
  std::int64_t task_time_ms = 0;
  std::int64_t busy_ms = 0; ///< union of the runs' spans
  std::uint64_t completed = 0;
  std::uint64_t skipped = 0;
  std::uint64_t failed = 0;
  std::uint64_t interrupted = 0;
  std::vector<std::int64_t> ended_ms; ///< every run's duration, ascending
};

/// The digest of a closed session's packing (version 1, every run ended,
/// undamaged); none for any other.
std::optional<std::string> digest_of_packed(std::string_view packed);

/// Whether `bytes` are a digest (its version byte; a packing's differs).
bool is_digest(std::string_view bytes);

/// A digest read one duration at a time, nothing kept (statistics read a
/// month's 250,000 straight into their own form; a page's reader only
/// checks them).
class digest_reader {
public:
  /// Reads the counts: ok() false if `bytes` is not a digest or they
  /// disagree.
  explicit digest_reader(std::string_view bytes);
  /// The counts (`ended_ms` empty: next() gives the durations).
  const runs_digest& counts() const { return counts_; }
  /// The next run's duration, ascending: false when none is left, or the
  /// digest is damaged (then ok() is false).
  bool next(std::int64_t& ended_ms);
  /// Undamaged so far; after the last duration, also nothing left over.
  bool ok() const { return ok_; }

private:
  runs_digest counts_;
  const unsigned char* p_ = nullptr;
  const unsigned char* end_ = nullptr;
  std::uint64_t read_ = 0;
  std::int64_t previous_ = 0;
  bool ok_ = true;
};

/// Whether `bytes` are a digest that reads whole (digest_reader to its
/// end), nothing kept: what a page's reader checks before it hands them on.
bool digest_reads(std::string_view bytes);

/// Reads a digest into `out`: false if it is not one or is damaged.
bool read_digest(std::string_view bytes, runs_digest& out);

/// The runs still in progress end at `at_wall_ns`, interrupted (their
/// session closed without the layer above packing its runs: an orphan's
/// expiry). A running one accrues the time since its `as_of_wall_ns`.
void close_runs(std::vector<stored_run>& runs, std::int64_t at_wall_ns);

} // namespace ttm::storage
