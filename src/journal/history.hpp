#pragma once

// History between the domain and storage: a domain::history_filter as the
// store's list query for one owner, and its page back as domain rows.

#include "domain/history.hpp"
#include "storage/records.hpp"
#include "storage/store.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ttm::journal {

/// The query for `filter` over the sessions `principal` started in
/// `scope` (the era: "2025" or "2026-07-28").
storage::list_query to_list_query(const domain::history_filter& filter,
                                  const std::string& principal,
                                  const std::string& scope);

/// A store's page as the domain's, converted as the store reads it: its
/// list sink hands `take` the rows read so far (`with_runs`, statistics:
/// each session's task runs as the store paired them; one still running
/// lasts until `now`), `finish` the rest with the focus sessions.
class history_builder {
public:
  history_builder(domain::wall_time now, bool with_runs);
  ~history_builder();
  history_builder(const history_builder&) = delete;
  history_builder& operator=(const history_builder&) = delete;
  /// Rows [rows taken, upto) of `page`: moved from (they are ours).
  void take(storage::list_page& page, std::size_t upto);
  /// A packing or digest taken did not read (a store hands closed
  /// sessions' on unchecked: see read_history); the page is then not to be
  /// used.
  bool damaged() const;
  domain::history_page finish(storage::list_page& page);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// A page of `q` read from `store`: converted as the store hands its rows
/// on (PostgreSQL), or handed on whole (`whole`, SQLite: the caller
/// converts it off the journal's thread). A store hands closed sessions'
/// packings and digests on unchecked, read once, as they are converted:
/// when one does not read, the page is read again whole, where the store
/// pairs that session's events instead.
struct history_read {
  domain::history_page page;
  std::optional<storage::list_page> whole;
  std::optional<storage::error> error;
  bool reread = false; ///< a packing did not read: read again whole
};
history_read read_history(storage::store& store,
                          const storage::list_query& q,
                          domain::wall_time now);

/// The whole page at once (with runs when it holds them).
domain::history_page to_history_page(storage::list_page page,
                                     domain::wall_time now);

/// Focus sessions as history rows (also --ephemeral's, held in memory).
std::vector<domain::focus_row>
to_focus_rows(const std::vector<storage::focus_record>& records);

} // namespace ttm::journal
