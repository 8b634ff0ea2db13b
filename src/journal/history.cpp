#include "journal/history.hpp"

#include "journal/principal.hpp"

#include <algorithm>


namespace ttm::journal {

storage::list_query to_list_query(const domain::history_filter& filter,
                                  const std::string& principal,
                                  const std::string& scope) {
  storage::list_query q;
  q.principal = principal;
  q.scope = scope;
  if (filter.status)
    switch (*filter.status) {
      case domain::history_status::active:
        q.state = storage::session_state::open;
        break;
      case domain::history_status::ended:
        q.state = storage::session_state::ended;
        break;
      case domain::history_status::expired:
        q.state = storage::session_state::expired;
        break;
    }
  q.milestone_id = filter.milestone_id;
  q.tags = filter.tags;
  q.text = filter.text;
  if (filter.started_after)
    q.since_wall_ns = domain::to_ns(*filter.started_after);
  if (filter.started_before)
    q.until_wall_ns = domain::to_ns(*filter.started_before);
  q.before = filter.before;
  q.limit = filter.limit;
  q.with_runs = filter.runs;
  q.tracking = filter.kind != domain::history_kind::focus;
  q.focus = filter.kind != domain::history_kind::tracking;
  q.focus_id = filter.focus_id;
  return q;
}

namespace {

domain::wall_time at(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

domain::run_status run_status_of(storage::run_end e) {
  switch (e) {
    case storage::run_end::completed: return domain::run_status::completed;
    case storage::run_end::skipped: return domain::run_status::skipped;
    case storage::run_end::failed: return domain::run_status::failed;
    case storage::run_end::interrupted:
      return domain::run_status::interrupted;
    case storage::run_end::in_progress: break;
  }
  return domain::run_status::in_progress;
}

/// A run still in progress lasts until `now`.
std::vector<domain::run_span>
spans_of(std::vector<storage::stored_run>& runs, domain::wall_time now) {
  using ms = std::chrono::milliseconds;
  std::vector<domain::run_span> out;
  out.reserve(runs.size());
  for (auto& r : runs) {
    domain::run_span span;
    span.task_id = std::move(r.task_id);
    span.start = at(r.start_wall_ns);
    span.status = run_status_of(r.status);
    if (r.end_wall_ns) {
      span.end = at(*r.end_wall_ns);
      span.duration = std::chrono::duration_cast<ms>(
        std::chrono::nanoseconds{r.duration_ns});
    } else {
      // Its active time when stored, and since then unless paused.
      span.end = now;
      auto ran = std::chrono::nanoseconds{r.duration_ns};
      if (r.running)
        ran += std::max(now - at(r.as_of_wall_ns),
                        domain::wall_time::duration{0});
      span.duration = std::chrono::duration_cast<ms>(ran);
    }
    out.push_back(std::move(span));
  }
  // Freed now, so the next session's spans reuse the block: a month of
  // sessions is 250,000 runs, held twice otherwise.
  std::vector<storage::stored_run>{}.swap(runs);
  return out;
}

} // namespace

std::vector<domain::focus_row>
to_focus_rows(const std::vector<storage::focus_record>& records);

domain::history_page to_history_page(storage::list_page page,
                                     domain::wall_time now) {
  domain::history_page out;
  out.more = page.more;
  out.rows.reserve(page.rows.size());
  for (const auto& r : page.rows) {
    domain::history_row row;
    row.session_id = r.session_id;
    row.milestone_id = r.milestone_id;
    row.milestone_name = r.milestone_name;
    row.status = r.state == storage::session_state::open
                   ? domain::history_status::active
                 : r.state == storage::session_state::ended
                   ? domain::history_status::ended
                   : domain::history_status::expired;
    row.start = at(r.started_wall_ns);
    if (r.closed_wall_ns)
      row.end = at(*r.closed_wall_ns);
    row.tags = r.tags;
    row.tasks_done = r.tasks_done;
    row.tasks_total = r.tasks_total;
    if (!page.runs.empty()) {
      domain::session_runs sr;
      sr.session_id = r.session_id;
      sr.milestone_id = r.milestone_id;
      sr.tags = r.tags;
      sr.start = row.start;
      sr.end = row.end.value_or(now);
      sr.runs = spans_of(page.runs[out.rows.size()], now);
      out.runs.push_back(std::move(sr));
    }
    out.rows.push_back(std::move(row));
  }
  out.focus = to_focus_rows(page.focus);
  out.focus_more = page.focus_more;
  return out;
}

std::vector<domain::focus_row>
to_focus_rows(const std::vector<storage::focus_record>& records) {
  std::vector<domain::focus_row> out;
  out.reserve(records.size());
  for (const auto& f : records)
    out.push_back(from_store(f));
  return out;
}

} // namespace ttm::journal
