#pragma once

// The PostgreSQL store's class, shared by its files: pg_open.cpp (schema,
// instances and leases), pg_append.cpp (writes, audit records),
// pg_read.cpp (claims, history, expiry, counts), pg_list.cpp (list,
// preferences, focus), pg_page.cpp (a list's page from its results),
// pg_probe.cpp (what a schema holds).
// Internal to src/storage.

#include "storage/pg_conn.hpp"
#include "storage/pg_derive.hpp"
#include "storage/pg_store.hpp"
#include "storage/sqlite_admin.hpp" // dump_visitor

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::storage::detail {

/// The schema's advisory lock keys ("TTMJ" and a number): migrations, and
/// the count of open sessions a limited start checks.
constexpr std::int64_t pg_migrate_lock = 0x54544d4a0001;
constexpr std::int64_t pg_open_count_lock = 0x54544d4a0002;

/// The channel appends notify on: "<session id> <epoch>".
constexpr const char* pg_channel = "ttm_journal";

class pg_store final : public store {
public:
  explicit pg_store(const pg_options& opts);

  /// Connects, migrates, registers (pg_open.cpp).
  std::optional<error> open();

  std::string describe() const override {
    return where_;
  }
  std::int64_t instance() const override {
    return instance_;
  }
  result<ok> append(const std::vector<event>& batch) override;
  result<claim_result> claim(const claim_request& req) override;
  result<ok>
  release(const std::vector<std::pair<std::string, std::int64_t>>& held)
    override;
  result<std::vector<std::string>>
  stale(const std::vector<std::pair<std::string, std::int64_t>>& held)
    override;
  result<std::size_t> open_sessions() override;
  result<std::vector<orphan>> orphans_due(std::int64_t age_cutoff_wall_ns,
                                          std::int64_t idle_cutoff_wall_ns,
                                          std::size_t limit) override;
  result<std::vector<stored_session>>
  history(const history_query& q) override;
  using store::list;
  result<list_page> list(const list_query& q, const list_sink& sink) override;
  result<std::optional<std::size_t>>
  purge_closed_before(std::int64_t cutoff_wall_ns, std::int64_t now_wall_ns,
                      std::int64_t interval_ns) override;
  result<principal_state> principal(const principal_op& op) override;
  result<ok> record_audit(const std::vector<audit_entry>& entries) override;
  result<std::size_t> open_focus_sessions() override;
  std::optional<std::chrono::nanoseconds> lease_renewal() const override {
    return std::chrono::nanoseconds{lease_ns_ / 3};
  }
  result<ok> renew_lease() override;

  // pg_mcp_sessions.cpp: the 2025 eras' MCP sessions, committed without
  // waiting for the WAL flush (synchronous_commit off).
  result<ok> put_mcp_session(const mcp_session_record& r) override;
  result<std::optional<mcp_session_record>>
  get_mcp_session(const std::string& id) override;
  result<ok> touch_mcp_sessions(const std::vector<std::string>& ids,
                                std::int64_t now_wall_ns) override;
  result<bool>
  remove_mcp_session(const std::string& id,
                     std::optional<std::int64_t> idle_before_wall_ns) override;
  result<std::vector<std::string>>
  mcp_sessions_due(std::int64_t idle_before_wall_ns,
                   std::size_t limit) override;

  ~pg_store() override;

  // pg_admin.cpp: the admin CLI's import (an empty journal only, one
  // transaction) and export (one snapshot, journal order).
  result<std::size_t> import_all(const journal_dump& dump);
  std::optional<error> dump(const dump_visitor& v);

private:
  std::int64_t now_ns() const;
  /// Reconnects after a loss: LISTEN again, and the lease renewed (pg_open.cpp).
  std::optional<error> connect();
  /// Schema step 11 (inside its transaction): the digest of each session
  /// closed before it, from its packed runs (pg_open.cpp).
  std::optional<error> digest_closed_sessions(const std::string& what);
  /// Runs `f` in a transaction (BEGIN ... COMMIT), rolled back on error.
  template <class T, class F>
  result<T> in_transaction(const std::string& what, F&& f, bool read_only);
  /// Reads notifications that arrived (other instances' writes).
  void drain_notifications();

  // pg_append.cpp
  std::optional<error> append_one(const event& ev, const std::string& what);
  std::optional<error> room_for_open(const std::string& principal,
                                     const std::string& what);
  std::optional<error> undo_latest(const event& ev, std::int64_t sid,
                                   std::int64_t event_seq,
                                   const std::string& what);
  std::optional<error> store_closing_runs(const event& ev, std::int64_t sid,
                                          const std::string& what);
  result<std::vector<stored_event_row>> event_rows(std::int64_t sid,
                                                   const std::string& what);
  error rejected(const std::string& why) const {
    return {error_kind::rejected,
            "journal " + where_ + ": " + why + "; the batch was not written"};
  }

  // pg_read.cpp
  std::optional<error> read_events_of(std::vector<stored_session>& sessions,
                                      const std::string& what);

  bool alive(std::int64_t holder, const std::string& what);

  pg_options opts_;
  std::string where_;
  pg_conn conn_;
  std::int64_t instance_ = 0;
  std::int64_t lease_ns_;
  std::int64_t renewed_at_ns_ = 0;
  std::size_t max_open_;
  std::size_t max_per_principal_;
  std::int64_t max_age_ns_;
  std::int64_t max_idle_ns_;
  /// The connection our LISTEN is on (connects() when it was issued).
  std::uint64_t listening_on_ = 0;
  /// Other instances' writes heard of since the last `stale`: id -> epoch.
  std::map<std::string, std::int64_t> heard_;
  std::uint64_t notifications_ = 0;
  /// Batches written in one round trip (pipeline mode).
  std::uint64_t pipelined_ = 0;
};

/// A tracking page read from its statements' results (pg_page.cpp): a
/// list's one, or statistics' one per time window, newest first, each
/// read as it arrives (the server works on the next meanwhile) and its
/// rows handed to the list's sink as soon as their runs are known.
class pg_page_reader {
public:
  pg_page_reader(const list_query& q, std::int64_t limit, std::string where,
                 const list_sink& sink, list_page& out);
  /// One result's rows, after those before (kept: the page reads their
  /// bytes until it is done).
  std::optional<error> add(pg_res res);
  /// The page's rows so far, and whether `limit` of them are read.
  std::int64_t rows() const {
    return static_cast<std::int64_t>(out_.rows.size());
  }
  bool full() const {
    return out_.more;
  }
  /// The rows left: a damaged packing's runs paired from its events (read
  /// with `conn`).
  std::optional<error> finish(pg_conn& conn);

private:
  /// Rows whose runs are known, in order, into the page and to the sink.
  std::optional<error> hand_on();

  struct event_ref {
    std::int64_t seq;
    const PGresult* result;
    int row;
  };
  const list_query& q_;
  std::int64_t limit_;
  std::string where_;
  const list_sink& sink_;
  list_page& out_;
  /// Shared with the page, which holds the packings where they are.
  std::vector<std::shared_ptr<const void>> results_;
  std::map<std::int64_t, std::vector<event_ref>> events_; ///< by sid
  std::vector<std::int64_t> sids_;                        ///< per row
  /// A row's packing handed on as read (the journal layer decodes it):
  /// its bytes, and the index in results_ of the result they are in (-1:
  /// in unescaped_, copied into the page).
  struct kept_runs {
    std::string_view packed;
    int result = -1;
  };
  /// Per row, its packing when it unpacks (or goes to the sink
  /// unchecked), else its events are paired.
  std::vector<std::optional<kept_runs>> kept_;
  /// Sids whose packing is damaged, with their events once read.
  std::map<std::int64_t, std::vector<stored_event_row>> damaged_;
  bool damage_read_ = false;
  std::size_t ready_ = 0;  ///< rows whose runs are in the page
  std::size_t handed_ = 0; ///< rows handed to the sink
  std::deque<std::string> unescaped_; ///< text-format packings (stable)
};

/// The columns every session read selects, in `read_session`'s order.
extern const char* const pg_session_columns;
/// Reads pg_session_columns from column `at`; false: unknown state.
bool pg_read_session(const pg_row& row, int at, stored_session& s);

} // namespace ttm::storage::detail

namespace ttm::storage::detail {

template <class T, class F>
result<T> pg_store::in_transaction(const std::string& what, F&& f,
                                   bool read_only) {
  if (auto err = connect())
    return std::move(*err);
  // Read committed, as SQLite's writers see the latest commit: rows that
  // decide a write are locked (FOR UPDATE) before they are read.
  if (auto err = conn_.run(read_only ? "BEGIN ISOLATION LEVEL REPEATABLE READ"
                                       " READ ONLY"
                                     : "BEGIN",
                           what))
    return std::move(*err);
  auto r = f();
  if (std::holds_alternative<error>(r)) {
    conn_.rollback_if_open();
    return r;
  }
  if (auto err = conn_.run("COMMIT", what)) {
    conn_.rollback_if_open();
    return std::move(*err);
  }
  return r;
}

} // namespace ttm::storage::detail
