#include "journal/runs.hpp"

#include "domain/clock.hpp"

#include <algorithm>
#include <chrono>

namespace ttm::journal {

namespace {

storage::run_end run_end_of(domain::run_status s) {
  switch (s) {
    case domain::run_status::completed: return storage::run_end::completed;
    case domain::run_status::skipped: return storage::run_end::skipped;
    case domain::run_status::failed: return storage::run_end::failed;
    case domain::run_status::interrupted:
      return storage::run_end::interrupted;
    case domain::run_status::in_progress: break;
  }
  return storage::run_end::in_progress;
}

bool edited(const domain::tracking_session& s) {
  for (const auto& t : s.tasks)
    for (const auto& r : t.runs)
      if (!r.pauses.empty() || !r.corrections.empty())
        return true;
  return false;
}

} // namespace

std::vector<storage::stored_run> runs_of(const domain::tracking_session& s,
                                         domain::instant now) {
  std::vector<storage::stored_run> out;
  for (const auto& t : s.tasks)
    for (const auto& r : t.runs) {
      storage::stored_run run;
      run.task_id = t.id;
      run.start_wall_ns = domain::to_ns(r.start.wall);
      // The summary's whole milliseconds.
      run.duration_ns
        = std::chrono::nanoseconds{r.duration(now.mono)}.count();
      run.status = run_end_of(r.status);
      if (r.end) {
        run.end_wall_ns = domain::to_ns(r.end->wall);
      } else {
        run.as_of_wall_ns = domain::to_ns(now.wall);
        run.running = !r.paused();
      }
      out.push_back(std::move(run));
    }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.start_wall_ns < b.start_wall_ns;
  });
  return out;
}

std::optional<std::vector<storage::stored_run>>
runs_to_store(const domain::tracking_session& s, const domain::change& c) {
  bool closes = c.kind == domain::change::session_ended
                || c.kind == domain::change::session_expired;
  if (!closes && !edited(s))
    return std::nullopt;
  return runs_of(s, c.at);
}

} // namespace ttm::journal
