#pragma once

// The journal's records as plain values: events and stored sessions. No
// SQLite and no store interface, so the actors' message types (and the edges
// that include them) can name these without the storage backend.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::storage {

enum class event_kind {
  session_started, ///< payload: the session request (ids, names, tags, zone)
  task_started,    ///< payload: the task start request
  task_ended,      ///< payload: status and completion metadata
  session_ended,   ///< payload: {}
  session_expired, ///< payload: {"reason": "age" | "idle" | "evicted"}
  tasks_edited,    ///< payload: {"ops": [...]} (time_tasks_edit; schema 5)
  /// payload: {"undid": {kind, wall_ns, task_id?, ops?}} (time_undo; schema
  /// 7): the session's latest standing undoable event is marked undone.
  change_undone,
};

/// Whether time_undo can revert an event of this kind.
bool undoable(event_kind k);

/// "session_started", ...: the text stored in the `kind` column.
const char* to_string(event_kind k);
std::optional<event_kind> event_kind_from(const std::string& s);

/// Both clocks at one event, and the boot they belong to: monotonic times
/// compare only within one boot (boot_id from the kernel).
struct stamp {
  std::int64_t wall_ns = 0; ///< since the Unix epoch
  std::int64_t mono_ns = 0; ///< CLOCK_MONOTONIC
  std::string boot_id;
};

/// How a run ended; `in_progress`: it has not (its session is open).
enum class run_end : std::uint8_t {
  in_progress = 0,
  completed = 1,
  skipped = 2,
  failed = 3,
  interrupted = 4, ///< still running when its session closed
};

/// A run of a task (statistics), paired from its events (storage/runs.hpp).
struct stored_run {
  std::string task_id;
  std::int64_t start_wall_ns = 0;
  std::optional<std::int64_t> end_wall_ns; ///< none while in progress
  /// Monotonic distance when both ends are of one boot, else the wall
  /// clock's (as replay measures a span across a reboot), less its pauses.
  /// In progress: the active time until `as_of_wall_ns`.
  std::int64_t duration_ns = 0;
  run_end status = run_end::in_progress;
  /// In progress: when `duration_ns` was taken, and whether it still runs
  /// (not paused) since. Paired from events: its start, running.
  std::int64_t as_of_wall_ns = 0;
  bool running = true;
};

struct event {
  event_kind kind = event_kind::session_started;
  std::string session_id;
  /// The creating principal (bearer-token name, or "local"); read only from
  /// session_started, where it becomes the session row's owner.
  std::string principal;
  std::string task_id; ///< task events only
  /// The session's epoch this write was computed from (see store::append);
  /// ignored for session_started, which begins at 1.
  std::int64_t epoch = 0;
  /// session_expired for an age or idle limit: written only if the journal
  /// agrees the session is due (no call through another server since).
  bool if_due = false;
  stamp at;
  std::string payload = "{}"; ///< JSON text
  /// Read back only: a later change_undone reverted it (schema 7).
  bool undone = false;
  /// The session's task runs after this event as its summary counts them
  /// (pauses, corrections), from the layer that holds the tracking model;
  /// stored packed in its row for statistics. None: storage pairs them
  /// from the events when the session closes.
  std::optional<std::vector<stored_run>> runs;
};

enum class session_state { open, ended, expired };
const char* to_string(session_state s);
std::optional<session_state> session_state_from(const std::string& s);

/// A session row and, when asked for, its events (oldest first).
struct stored_session {
  std::string session_id;
  std::string principal;
  std::string milestone_id;
  session_state state = session_state::open;
  /// Its version: 1 when started, one more with every event since. With
  /// `holder`, the instance that wrote last (0: let go of).
  std::int64_t epoch = 0;
  std::int64_t holder = 0;
  std::int64_t started_wall_ns = 0;
  /// The last call that named it, on any server (reads included, to the
  /// minute): what its idle limit counts from.
  std::int64_t last_wall_ns = 0;
  std::optional<std::int64_t> closed_wall_ns; ///< ended or expired
  std::vector<event> events;
};

/// Who asks for a session and what it knows of it (see `store::claim`).
struct claim_request {
  /// The session; empty: the newest session of (principal, scope) whose
  /// idempotency key is `idempotency_key`, started at or after
  /// `since_wall_ns`, that has not expired.
  std::string session_id;
  std::string idempotency_key;
  /// Only the session's owner may claim it: the principal that started it,
  /// in the scope (protocol era) it was started in.
  std::string principal;
  std::string scope;
  std::int64_t since_wall_ns = 0;
  /// The epoch at which the caller holds the session, 0 if it does not.
  std::int64_t known_epoch = 0;
  /// The wall clock of the call: the session's last activity from now on
  /// (recorded at most once a minute while the caller holds it).
  std::int64_t now_wall_ns = 0;
};

struct claim_result {
  enum outcome_t {
    /// Still at `known_epoch` (open or ended): the caller's copy is current.
    current,
    /// `session` (events included) is the latest state, at `session.epoch`.
    loaded,
    /// No such session for this owner (never existed, another owner's,
    /// purged): exactly what a stranger would get.
    not_found,
  };
  outcome_t outcome = not_found;
  stored_session session;
  /// loaded an open session: the instance that wrote it last, 0 if none,
  /// and whether that instance is alive (for the log).
  std::int64_t previous_holder = 0;
  bool previous_alive = false;
};

/// An open session no live instance holds (its process ended or let it go),
/// as the directory-wide expiry sees it.
struct orphan {
  std::string session_id;
  std::string principal;
  std::int64_t epoch = 0;
  std::int64_t started_wall_ns = 0;
  std::int64_t last_wall_ns = 0; ///< its latest event
};

/// The journal's verdict on an append, as its writer needs it.
struct append_answer {
  enum kind_t : std::uint8_t {
    stored,
    failed, ///< the journal cannot write (`error` says why, for clients)
    fenced, ///< a session was claimed since: reload it and try again
    limit,  ///< the directory holds its maximum of open sessions
    /// Past the request's --request-timeout before its transaction began
    /// (or while it waited for another instance's): nothing written.
    timed_out,
    /// Committed (readers see it), but the sync to disk after it failed:
    /// whether it survives is unknown until the server restarts, and the
    /// journal writes nothing more (see `error`).
    unknown,
  };
  kind_t kind = stored;
  std::string error;
  /// limit: the option reached and its value (see storage::error).
  std::string limit_option{};
  std::uint64_t limit_value = 0;
};

/// A focus session (the chronometric tools' mark_session_start / _end; see
/// principal.hpp). `intent` is the caller's private text: never logged.
struct focus_record {
  std::string session_id;
  std::string intent;
  std::int64_t started_wall_ns = 0;
  std::optional<std::int64_t> ended_wall_ns;
  std::string summary;
};

/// One page of a principal's sessions, newest first (see store::list).
/// Keyset pagination: `before` is the (started_wall_ns, session_id) of the
/// last row of the previous page, so sessions started meanwhile (newer)
/// never shift the pages after the first.
struct list_query {
  /// Both empty: any owner, any scope (only the admin CLI reads so).
  std::string principal;
  std::string scope; ///< the era: a listed id is one its owner can name
  std::optional<session_state> state;
  std::optional<std::string> milestone_id;
  std::vector<std::string> tags; ///< every one of them
  /// Lower-case substring of the milestone's id or name or a task's id or
  /// name (ASCII case folding).
  std::optional<std::string> text;
  std::optional<std::int64_t> since_wall_ns; ///< started at or after
  std::optional<std::int64_t> until_wall_ns; ///< started before
  std::optional<std::pair<std::int64_t, std::string>> before;
  std::size_t limit = 20;
  /// Statistics: each row with its task and closing events (`runs`).
  bool with_runs = false;
  /// with_runs: a closed session's digest (runs.hpp) in place of its
  /// runs where it has one (statistics that do not group by task).
  bool digests = false;
  /// Which kinds: tracking sessions (the rows, in `scope`) and the
  /// owner's focus sessions (list_page::focus, of every scope: a focus
  /// session belongs to its principal). A focus session has no milestone
  /// or tags (either filter excludes it), is never expired, and `text`
  /// searches its intent and summary.
  bool tracking = true;
  bool focus = false;
  std::optional<std::string> focus_id; ///< only this focus session
};

/// A task or closing event of a session, without its payload (statistics):
/// a task_ended carries its status.
struct run_event {
  event_kind kind = event_kind::task_started;
  std::string task_id;
  stamp at;
  std::string status; ///< task_ended only
};

/// A session as a list row: the summary columns kept with each append.
struct session_row {
  std::string session_id;
  std::string principal; ///< its owner
  std::string milestone_id;
  std::optional<std::string> milestone_name;
  session_state state = session_state::open;
  std::int64_t started_wall_ns = 0;
  std::optional<std::int64_t> closed_wall_ns;
  std::vector<std::string> tags;
  std::int64_t tasks_total = 0;
  std::int64_t tasks_done = 0; ///< tasks whose latest run completed
};

/// An audit record that belongs to no session (schema 8): a refusal at the
/// HTTP edge, say. `payload` is the journal codec's JSON for its `kind`.
struct audit_entry {
  std::string kind; ///< "refusal"
  std::int64_t wall_ns = 0;
  std::string principal; ///< empty: not known
  std::string payload = "{}";
};

/// A principal's preference, as the journal keeps it (value: JSON text).
struct preference_row {
  std::string principal;
  std::string key;
  std::string value;
};

/// A focus session and its owner.
struct focus_row {
  std::string principal;
  focus_record focus;
};

/// Everything a journal holds that is not derived from something else, in
/// the journal's order: what export writes and import reads back. Events
/// carry their session's owner as `principal`.
struct journal_dump {
  std::vector<event> events;
  std::vector<preference_row> preferences;
  std::vector<focus_row> focus;
  std::vector<audit_entry> audit;
};

/// The task runs of a page's rows, each row's packed (storage/runs.hpp):
/// copied one after another into one buffer, or held where the store read
/// them (a PostgreSQL result, kept alive here: a month's 3 MB not copied).
/// A month's statistics read 250,000 runs, which the journal layer decodes
/// once, straight into what statistics count (no vector of runs with a
/// string each per session, ~22 MB a call, to copy and convert after).
/// Every packing here unpacks (the readers check it, and pair the events of
/// one that does not), except a closed session's handed to a list_sink
/// (store::list). With list_query::digests, a row's may be its digest
/// instead (is_digest).
class packed_runs_list {
public:
  /// Appends the next row's packing (copied).
  void add(std::string_view packed) {
    entries_.push_back({nullptr, bytes_.size(), packed.size()});
    bytes_.append(packed.data(), packed.size());
  }
  /// Appends the next row's packing, in memory that `keep` holds (kept
  /// alive with the list, not copied).
  void add_held(std::string_view packed,
                const std::shared_ptr<const void>& keep) {
    if (keep_.empty() || keep_.back() != keep)
      keep_.push_back(keep);
    entries_.push_back({packed.data(), 0, packed.size()});
  }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  /// Row i's packing.
  std::string_view packed(std::size_t i) const {
    const auto& e = entries_[i];
    return e.held ? std::string_view{e.held, e.size}
                  : std::string_view{bytes_}.substr(e.begin, e.size);
  }
  /// Row i's runs unpacked (runs.cpp), in the order they started.
  std::vector<stored_run> operator[](std::size_t i) const;
  std::vector<stored_run> at(std::size_t i) const;
  void reserve(std::size_t rows, std::size_t bytes) {
    entries_.reserve(rows);
    bytes_.reserve(bytes);
  }

private:
  struct entry {
    const char* held; ///< else at `begin` in bytes_ (copies stay valid)
    std::size_t begin;
    std::size_t size;
  };
  std::string bytes_;
  std::vector<entry> entries_;
  std::vector<std::shared_ptr<const void>> keep_;
};

struct list_page {
  std::vector<session_row> rows;
  bool more = false; ///< older rows match too
  /// with_runs: each row's task runs, in the order they started.
  packed_runs_list runs;
  /// list_query::focus: the focus sessions, newest first (started, then
  /// id), at most `limit`; `focus_more`: older ones match too.
  std::vector<focus_record> focus;
  bool focus_more = false;
};

/// store::list's rows handed on as they are read (see there).
using list_sink = std::function<void(list_page& page, std::size_t upto)>;


} // namespace ttm::storage
