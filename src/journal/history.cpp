#include "journal/history.hpp"

#include <algorithm>
#include <map>

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
  return q;
}

namespace {

domain::wall_time at(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

domain::run_status run_status_of(const std::string& s) {
  if (s == "skipped")
    return domain::run_status::skipped;
  if (s == "failed")
    return domain::run_status::failed;
  return domain::run_status::completed;
}

/// Pairs a session's task events into runs. A duration is the monotonic
/// distance when both ends are of one boot, else the wall clock's (as
/// replay measures a span across a reboot).
std::vector<domain::run_span>
pair_runs(const std::vector<storage::run_event>& events,
          domain::wall_time now) {
  using ms = std::chrono::milliseconds;
  std::vector<domain::run_span> out;
  std::map<std::string, std::pair<storage::stamp, std::size_t>> open;
  auto close = [&](const std::string& task, const storage::stamp& end,
                   domain::run_status status) {
    auto it = open.find(task);
    if (it == open.end())
      return;
    const auto& [begin, index] = it->second;
    auto& run = out[index];
    run.end = at(end.wall_ns);
    run.status = status;
    auto ns = begin.boot_id == end.boot_id ? end.mono_ns - begin.mono_ns
                                           : end.wall_ns - begin.wall_ns;
    run.duration = std::chrono::duration_cast<ms>(
      std::chrono::nanoseconds{std::max<std::int64_t>(ns, 0)});
    open.erase(it);
  };
  for (const auto& ev : events) {
    switch (ev.kind) {
      case storage::event_kind::task_started: {
        domain::run_span run;
        run.task_id = ev.task_id;
        run.start = at(ev.at.wall_ns);
        out.push_back(std::move(run));
        open[ev.task_id] = {ev.at, out.size() - 1};
        break;
      }
      case storage::event_kind::task_ended:
        close(ev.task_id, ev.at, run_status_of(ev.status));
        break;
      case storage::event_kind::session_ended:
      case storage::event_kind::session_expired: {
        std::vector<std::string> running;
        for (const auto& [task, _] : open)
          running.push_back(task);
        for (const auto& task : running)
          close(task, ev.at, domain::run_status::interrupted);
        break;
      }
      case storage::event_kind::session_started:
      case storage::event_kind::tasks_edited:
        break;
    }
  }
  for (const auto& [task, begun] : open) {
    auto& run = out[begun.second];
    run.end = now;
    run.duration = std::chrono::duration_cast<ms>(now - run.start);
  }
  return out;
}

} // namespace

domain::history_page to_history_page(const storage::list_page& page,
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
      sr.runs = pair_runs(page.runs[out.rows.size()], now);
      out.runs.push_back(std::move(sr));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

} // namespace ttm::journal
