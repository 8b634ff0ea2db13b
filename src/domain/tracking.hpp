#pragma once

// The tracking model: milestone sessions, their tasks and the runs of each
// task. Plain C++ owned by one client actor, so nothing here is shared or
// locked. Every event reads both clocks once (`instant`): the wall clock for
// the record, the monotonic clock for every duration.

#include "domain/clock.hpp"
#include "domain/lazy_deque.hpp"
#include "domain/zones.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace ttm::domain {

/// A JSON object of string values, in the order the client sent them.
using string_map = std::vector<std::pair<std::string, std::string>>;

/// Both clocks, read together for one event.
struct instant {
  wall_time wall;
  mono_time mono;
  /// 0: this boot. Recovered events of an earlier boot get 1, 2, ... and a
  /// monotonic time rebased onto this boot's clock through the wall clock,
  /// so a duration spanning two boots is a wall-clock one.
  std::uint32_t boot = 0;
};

inline instant now_of(const clock_source& c) {
  return {c.wall_now(), c.mono_now(), 0};
}

/// How a duration was measured: "monotonic", or "wall_clock" when its ends
/// lie in different boots (recovered across a reboot).
const char* duration_source(const instant& from, const instant& to);

struct tracking_limits {
  /// Tracking sessions held at once, over all clients (the supervisor
  /// enforces it; client actors only quote it in LIMIT_REACHED).
  std::size_t max_sessions = 100;
  std::size_t max_tasks_per_session = 500;
  /// Runs of one task (a task started again after it ended is a new run).
  std::size_t max_runs_per_task = 100;
  /// Since the session started, ended or not.
  std::chrono::seconds max_age = std::chrono::hours{24};
  /// Since the last call that named the session.
  std::chrono::seconds max_idle = std::chrono::hours{4};
  /// Bytes of ids, names, tags, metadata, notes and pauses one session may
  /// hold (its summary is built from them; this bounds what one call can
  /// cost, and what a session holds in memory).
  std::size_t max_session_bytes = 4 * 1024 * 1024;
  /// What a note or a pause counts besides its text: its timestamps and
  /// bookkeeping. Without it a loop of pause/resume edits grew a session
  /// (and the server's memory and its summaries) without limit.
  static constexpr std::size_t entry_bytes = 64;
  /// Expired ids a client remembers (to answer SESSION_EXPIRED instead of
  /// SESSION_NOT_FOUND); the oldest is forgotten first.
  std::size_t remembered_expired = 1000;
};

enum class run_status { in_progress, completed, skipped, failed, interrupted };

/// "in_progress", "completed", "skipped", "failed", "interrupted".
const char* to_string(run_status s);

/// A pause of a run (time_tasks_edit): no time accrues from `start` to
/// `end`; an open pause lasts until the run's end (or now).
struct run_pause {
  instant start;
  std::optional<instant> end;
};

/// A timestamped note on a run (time_tasks_edit).
struct run_note {
  instant at;
  std::string text;
};

/// A correction of a run (time_tasks_edit `correct`): what it was before,
/// kept for the audit trail.
struct run_correction {
  instant at;
  std::string reason;
  wall_time start_before;
  std::optional<wall_time> end_before;
  run_status status_before = run_status::in_progress;
};

struct task_run {
  /// 1 for the first run of a task, 2 for the second, ...
  std::size_t number = 1;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  string_map metadata;            ///< given at start
  string_map completion_metadata; ///< given at end
  instant start;
  std::optional<instant> end;
  run_status status = run_status::in_progress;
  std::vector<run_pause> pauses; ///< oldest first
  std::vector<run_note> notes;   ///< oldest first
  /// Oldest first; a corrected run's durations come from its (corrected)
  /// wall-clock instants.
  std::vector<run_correction> corrections;

  bool paused() const noexcept {
    return !end && !pauses.empty() && !pauses.back().end;
  }

  /// Active (running, not paused) time, monotonic: until `end`, or until
  /// `now` while running.
  std::chrono::milliseconds duration(mono_time now) const;

  /// The intervals the run was active, oldest first; together exactly
  /// `duration(now)` long (so a union of them never exceeds the sum).
  std::vector<std::pair<mono_time, mono_time>>
  active_spans(mono_time now) const;
};

struct tracked_task {
  std::string id;
  std::vector<task_run> runs; ///< oldest first; the last one is current
  /// Given at time_session_start (`estimates`) or with an `add`.
  std::optional<std::chrono::milliseconds> estimate = std::nullopt;
  /// Given with an `add`: the name its runs take when started without one.
  std::optional<std::string> name = std::nullopt;

  const task_run* current() const noexcept {
    return runs.empty() ? nullptr : &runs.back();
  }
};

/// What a task's current run says about it, counted over a session.
struct task_counts {
  std::size_t completed = 0;
  std::size_t skipped = 0;
  std::size_t failed = 0;
  std::size_t in_progress = 0;
  std::size_t interrupted = 0;
  std::size_t not_started = 0;

  /// Tasks neither finished nor running: the spec's "not yet started
  /// (excluding current)". Always equals `not_started`.
  std::size_t remaining() const noexcept {
    return not_started;
  }
};

struct undo_entry;

/// Who made a change: the tool called and the MCP session (as the log
/// names it). Opaque here: the MCP layer sets it (tracker::set_origin),
/// replay restores it from the journal. Empty: unknown (a test, an older
/// journal).
struct change_origin {
  std::string tool;
  std::string client;
};

/// One line of a session's audit trail: a change, when, by whom.
struct audit_record {
  instant at;
  /// A change::kind_t: session_started, task_started, ..., change_undone.
  int kind = 0;
  std::string task_id;   ///< a task start or end
  std::size_t ops = 0;   ///< a bulk edit's operations
  change_origin by;
  /// A later undo reverted it.
  bool undone = false;
  /// change_undone: the kind of the change it reverted.
  int undid = 0;
};

struct tracking_session {
  std::string id;
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  zone tz;
  string_map metadata;
  std::vector<std::string> tags;
  std::vector<tracked_task> tasks; ///< in the order of `task_ids`
  std::unordered_map<std::string, std::size_t> task_index;
  instant start;
  std::optional<instant> end;
  mono_time last_activity;
  /// The client's idempotency key of time_session_start, if it gave one: a
  /// retried start with the same key finds this session instead of adding
  /// another (tracker::find_by_key).
  std::optional<std::string> idempotency_key{};
  /// With a key: the task ids and estimates it was started with, which a
  /// retried start compares with (bulk edits add and remove tasks since).
  std::vector<std::string> started_task_ids{};
  std::vector<std::pair<std::string, std::chrono::milliseconds>>
    started_estimates{};
  /// What the session's ids, names, tags and metadata take (see
  /// tracking_limits::max_session_bytes).
  std::size_t bytes = 0;
  /// The changes time_undo can revert, oldest first: at most
  /// tracker::undo_depth + 1 (see tracker::undo).
  std::vector<undo_entry> undoable{};
  /// Changes made to it that time_undo could revert (task starts and ends,
  /// bulk edits, its end), undone ones included: an entry's `ordinal`
  /// counts from 0 in this sequence.
  std::uint64_t changes_made = 0;
  /// Every change, oldest first, undos and undone ones included (reports
  /// show it; the journal keeps the same with every event).
  std::vector<audit_record> audit{};
  /// Read back from a journal after it expired: why ("age", "idle";
  /// "closed": its MCP session's DELETE, in older versions). History, read
  /// only: `end` is the expiry instant, where its running runs ended as
  /// interrupted; a write answers SESSION_EXPIRED (tracker::expired_error).
  std::optional<std::string> expired{};

  bool ended() const noexcept {
    return end.has_value();
  }

  task_counts counts() const;

  /// Monotonic, from start to end (or to `now` while open).
  std::chrono::milliseconds elapsed(mono_time now) const;

  /// Overlap-aware totals over every run: `busy` is the length of the union
  /// of their intervals (wall-time the session had any task running),
  /// `task_time` their sum (parallel work counted once per task).
  struct totals {
    std::chrono::milliseconds busy{0};
    std::chrono::milliseconds task_time{0};
  };
  totals task_totals(mono_time now) const;
};

/// A failed tracking operation: a stable code and a sentence for the agent.
struct tracking_error {
  std::string code; ///< SESSION_NOT_FOUND, TASK_NOT_STARTED, ...
  std::string message;
  std::vector<std::string> suggestions = {};
};

template <class T>
using tracking_outcome = std::variant<T, tracking_error>;

/// What time_session_start asks for.
struct session_request {
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  std::vector<std::string> task_ids;
  string_map metadata;
  std::vector<std::string> tags;
  std::optional<std::string> idempotency_key{};
  /// Task id -> estimated duration (issue 17); each id among task_ids.
  std::vector<std::pair<std::string, std::chrono::milliseconds>> estimates{};
};

struct task_start_request {
  std::string task_id;
  std::optional<std::string> task_name;
  std::optional<std::string> external_task_id;
  std::optional<std::string> work_item_id;
  string_map metadata;
};

struct task_started {
  const tracked_task* task;
  const task_run* run;
  bool already_running;
};

struct task_ended {
  const tracked_task* task;
  const task_run* run;
  /// The run had ended before this call: nothing changed.
  bool already_ended;
};

/// One operation of a bulk edit (time_tasks_edit).
struct task_op {
  enum kind_t { start, end, pause, resume, note, add, remove, correct };
  kind_t kind = start;
  /// start (task_id and the run's fields) and add (task_id, task_name).
  task_start_request task;
  /// end: how the run ends and its completion metadata.
  run_status status = run_status::completed;
  string_map metadata;
  /// note: the text; correct: the reason.
  std::string text;
  /// add: the new task's estimate.
  std::optional<std::chrono::milliseconds> estimate;
  /// correct: which run (1, 2, ...; 0: the latest) and its new values.
  std::size_t run = 0;
  std::optional<wall_time> start_time;
  std::optional<wall_time> end_time;
  std::optional<run_status> new_status;
};

/// "start", "end", ...: the names time_tasks_edit and the journal use.
const char* to_string(task_op::kind_t k);
std::optional<task_op::kind_t> task_op_kind_from(const std::string& name);

/// What one operation did.
struct op_done {
  task_op::kind_t kind = task_op::start;
  std::string task_id;
  /// The run it applied to (start, end, pause, resume, note); 0 otherwise.
  std::size_t run = 0;
  /// Nothing changed: the run was already running (start, resume), ended
  /// (end) or paused (pause).
  bool unchanged = false;
};

/// The operation that failed a bulk edit (nothing was changed).
struct edit_failure {
  std::size_t index = 0;
  tracking_error error;
};

using edit_outcome = std::variant<std::vector<op_done>, edit_failure>;

/// A change to a tracking session, as the journal records it: enough to
/// redo it on a fresh tracker (see journal/replay.hpp).
struct change {
  enum kind_t {
    session_started,
    task_started,
    task_ended,
    session_ended,
    session_expired,
    tasks_edited,
    change_undone,
  };
  kind_t kind = session_started;
  std::string session_id;
  instant at;
  /// session_started: the request and the zone's name.
  session_request session;
  std::string zone_name;
  /// task_started: the request (task_id included).
  task_start_request task;
  /// task_ended: the task, its status and completion metadata.
  std::string task_id;
  run_status status = run_status::completed;
  string_map metadata;
  /// session_expired: "age" or "idle".
  std::string reason;
  /// tasks_edited: the operations, in order, all at `at`.
  std::vector<task_op> ops;
  /// change_undone: the change reverted (its kind, time, task and
  /// operation count; what time_undo reports and the audit trail keeps).
  kind_t undone_kind = session_started;
  instant undone_at;
  std::size_t undone_ops = 0;
};

/// "task_started", "tasks_edited", ...: the names the journal and
/// time_undo use.
const char* to_string(change::kind_t k);

class tracker;

/// One step that takes a change back, on the tracker holding its session
/// (passed in, not captured: a session moves between trackers, see
/// tracker::extract, and its undoable steps with it).
using undo_step = std::function<void(tracker&)>;

/// A change time_undo can revert: what it was, and the steps that take it
/// back (newest last; run in reverse).
struct undo_entry {
  change what;
  std::vector<undo_step> steps;
  /// Its place among the session's undoable changes (see changes_made).
  std::uint64_t ordinal = 0;
  /// Its line in the session's audit trail.
  std::size_t audit_index = 0;
};

/// What time_undo reverted.
struct undone {
  change what;
  /// The change was the session's end: it is open again.
  bool reopened = false;
  /// Changes still undoable after this one.
  std::size_t left = 0;
};

namespace detail {
// The errors tracking.cpp and task_edit.cpp both raise.
tracking_error not_in_session(const tracking_session& s,
                              const std::string& task_id);
std::optional<tracking_error> over_budget(const tracking_limits& lim,
                                          std::size_t bytes);
tracking_error session_ended(const tracking_session& s);
} // namespace detail

/// The tracking sessions of one MCP client (one per client actor).
/// Ownership is implicit: a session exists only in its owner's tracker, so
/// another client's tracker cannot tell it from an id that never existed.
class tracker {
public:
  explicit tracker(tracking_limits limits);

  /// How far back time_undo goes: the session's this many most recent
  /// changes (undone ones count), so older changes are final.
  static constexpr std::size_t undo_depth = 50;

  const tracking_limits& limits() const noexcept {
    return limits_;
  }

  std::size_t size() const noexcept {
    return sessions_.size();
  }

  /// Checks a new session against the per-session rules (unique task ids,
  /// the task limit) before a global slot is asked for.
  std::optional<tracking_error> check(const session_request& req) const;

  /// Adds a checked session under `id` (which must be new).
  const tracking_session& add(std::string id, session_request req, zone tz,
                              instant now);

  /// The session `id` for a call at `now`, marking it active. A session
  /// whose age or idle limit passed is expired first (SESSION_EXPIRED).
  tracking_outcome<tracking_session*> use(const std::string& id, instant now);

  /// Read-only lookup without touching activity or expiry (tests, benches).
  const tracking_session* find(const std::string& id) const;
  tracking_session* find(const std::string& id);

  /// The session this tracker started with idempotency key `key`, while it
  /// is held (open or ended, until it expires or is reclaimed); nullptr
  /// otherwise. Expiry is not checked here: `use` the session for that.
  tracking_session* find_by_key(const std::string& key);

  tracking_outcome<task_started>
  start_task(tracking_session& s, task_start_request req, instant now);

  /// Ends the task's running run as `status` (completed, skipped or failed).
  tracking_outcome<task_ended> end_task(tracking_session& s,
                                        const std::string& task_id,
                                        run_status status,
                                        string_map metadata, instant now);

  /// Applies `ops` in order, all at `now`, atomically: on the first
  /// failing one every earlier one is undone and nothing is recorded; else
  /// one tasks_edited change is recorded (src/domain/task_edit.cpp).
  edit_outcome edit_tasks(tracking_session& s, const std::vector<task_op>& ops,
                          instant now);

  /// Ends the session; runs still in progress become `interrupted` at `now`.
  /// Returns false (changing nothing) when it had ended already.
  bool end_session(tracking_session& s, instant now);

  /// Reverts the session's most recent change that stands (a task start or
  /// end, a bulk edit, its end: never its start, never an expiry), as if
  /// it had not been made; recorded as a change_undone change.
  /// NOTHING_TO_UNDO when none is left within undo_depth; LIMIT_REACHED
  /// when reopening an ended session would expire it at once (its age).
  tracking_outcome<undone> undo(tracking_session& s, instant now);

  /// Replay: the session's next undoable change was undone, so it is not
  /// replayed; it still counts toward undo_depth, and `line` (marked
  /// undone) joins the audit trail.
  void skip_undone(tracking_session& s, audit_record line) {
    ++s.changes_made;
    line.undone = true;
    s.audit.push_back(std::move(line));
  }

  /// Replay: a line of the audit trail that changes nothing (an undo,
  /// whose effect replay gets by skipping what it undid).
  static void add_audit(tracking_session& s, audit_record line) {
    s.audit.push_back(std::move(line));
  }

  /// Undoable changes left within undo_depth (time_undo's `left`).
  static std::size_t undoable_left(const tracking_session& s);

  /// Whether `undo` would reopen `s` (its latest undoable change is its
  /// end): then it needs a slot under the shares, as a start does.
  static bool undo_reopens(const tracking_session& s);

  /// Removes every session whose age or idle limit passed by `now` and
  /// returns their ids (remembered as expired, except ended ones a journal
  /// keeps: those only leave memory, and a call loads them again).
  std::vector<std::string> expire_due(instant now);

  /// Removes `id` (remembered as expired): the supervisor made room for a
  /// new session by dropping this ended one.
  void evict(const std::string& id);

  /// Remembers `id` as expired (it expired while the server was down).
  void remember_expired(const std::string& id) {
    forget(id, {});
  }
  /// Closes the replayed `s` as the journal's expiry left it: at `at`, for
  /// `reason` (see tracking_session::expired).
  void close_expired(tracking_session& s, instant at, std::string reason);
  /// SESSION_EXPIRED for a write to `s`, which expired: why, and that it
  /// stays readable.
  tracking_error expired_error(const tracking_session& s) const;
  /// Lets go of `id` without a trace (no change recorded, not remembered as
  /// expired): another holder took it over, or a newer copy replaces it.
  void drop(const std::string& id);
  /// Moves `id` out, as it is, for another tracker of this process (see
  /// insert); nothing if it is not held or a change is in progress.
  std::optional<tracking_session> extract(const std::string& id);
  /// Takes in a session another tracker of this process extracted (its
  /// monotonic instants are this process's); false: one of that id is
  /// held here already.
  bool insert(tracking_session s);
  /// Moves the last activity of `id` (if held) forward to `at`: a call
  /// another client made, known from the journal.
  void touch(const std::string& id, mono_time at);
  /// Whether `id` is remembered as expired here (not held any more).
  bool remembers_expired(const std::string& id) const {
    return expired_.count(id) > 0;
  }
  /// The ids of the open sessions held, in no particular order.
  std::vector<std::string> open_ids() const;
  /// Every session held (open and ended), in no particular order.
  std::vector<const tracking_session*> sessions() const;

  /// While `reason` is not empty, an id this tracker does not hold answers
  /// STORAGE_UNAVAILABLE, not SESSION_NOT_FOUND: the journal that would
  /// know it cannot be read, and "never existed" would be a lie.
  void set_storage_fault(std::string reason) {
    storage_fault_ = std::move(reason);
  }

  /// Ids expired by `use` since the last call: the owner tells the
  /// supervisor, which frees their global slots.
  std::vector<std::string> take_expired();

  /// Ids ended since the last call: the owner tells the supervisor, which
  /// may drop them (oldest first) to make room for new sessions.
  std::vector<std::string> take_ended();

  /// Ids reopened (their end undone) since the last call: the owner tells
  /// the supervisor, which counts them as open again.
  std::vector<std::string> take_reopened();

  /// Who makes the changes from now on (the audit trail).
  void set_origin(change_origin by) {
    origin_ = std::move(by);
  }
  const change_origin& origin() const noexcept {
    return origin_;
  }

  /// Journaling: from now on every change is recorded (take_changes) and
  /// every change but expiry can be undone (rollback) until `commit`.
  void record_changes(bool on) {
    recording_ = on;
  }

  bool recording() const noexcept {
    return recording_;
  }

  /// The changes since the last call, oldest first.
  std::vector<change> take_changes();
  bool has_changes() const noexcept {
    return !changes_.empty();
  }

  /// Keeps the changes made so far: they are in the journal.
  void commit();

  /// Undoes the changes since the last `commit` (the journal refused them),
  /// newest first. Expiry stands: it is redone from the limits anyway.
  void rollback();

private:
  static std::size_t bytes_of(const session_request& req);
  bool due(const tracking_session& s, mono_time now) const;
  /// Ended, and recorded in a journal: memory holds a copy.
  bool kept_elsewhere(const tracking_session& s) const;
  /// Records the expiry of `s` (while journaling) and returns its reason.
  std::string note_expired(const tracking_session& s, instant now);
  /// By value: `id` may be the session's own, which erasing it frees.
  void forget(std::string id, std::string reason);
  /// The error for an id this tracker does not hold (any more).
  tracking_error not_held(const std::string& id) const;
  /// Removes `id` and its idempotency key from memory; the session, if it
  /// was held, is in the node returned (empty otherwise).
  std::unordered_map<std::string, tracking_session>::node_type
  erase(const std::string& id);
  /// One operation of edit_tasks (recording undo steps).
  tracking_outcome<op_done> apply(tracking_session& s, const task_op& op,
                                  instant now);
  tracking_outcome<op_done> pause_or_resume(tracking_session& s,
                                            const task_op& op, instant now);
  tracking_outcome<op_done> add_task(tracking_session& s, const task_op& op);
  tracking_outcome<op_done> remove_task(tracking_session& s,
                                        const task_op& op);
  tracking_outcome<op_done> correct_run(tracking_session& s,
                                        const task_op& op, instant now);
  /// A change to `s` is made: the undo steps pushed since `mark` become
  /// its undo_entry, and while journaling it joins the batch (rollback
  /// takes the entry back). Inside a bulk edit: nothing (the edit records
  /// itself once, with every step).
  void record(tracking_session& s, change c, std::size_t mark);
  /// The audit line of `c`, made by origin_.
  audit_record audit_of(const change& c) const;

  tracking_limits limits_;
  std::unordered_map<std::string, tracking_session> sessions_;
  /// idempotency key -> session id, for the sessions that have one.
  std::unordered_map<std::string, std::string> keys_;
  /// lazy_deque: an idle session's tracker has no expired ids to order.
  lazy_deque<std::string> expired_order_;
  /// Expired id -> why ("age", "idle", "reclaimed"; empty: not known).
  std::unordered_map<std::string, std::string> expired_;
  std::vector<std::string> newly_expired_;
  std::vector<std::string> newly_ended_;
  std::vector<std::string> newly_reopened_;
  bool recording_ = false;
  /// Inside edit_tasks: its operations' steps make one change.
  bool editing_ = false;
  change_origin origin_;
  std::vector<change> changes_;
  std::vector<undo_step> undo_;
  std::string storage_fault_;
};

} // namespace ttm::domain
