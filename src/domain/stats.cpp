#include "domain/stats.hpp"

#include <date/date.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace ttm::domain {

std::optional<stats_group> stats_group_from(const std::string& s) {
  if (s == "milestone")
    return stats_group::milestone;
  if (s == "tag")
    return stats_group::tag;
  if (s == "day")
    return stats_group::day;
  if (s == "week")
    return stats_group::week;
  if (s == "task")
    return stats_group::task;
  return std::nullopt;
}

namespace {

using ms = std::chrono::milliseconds;

/// What one group gathered: per session, the runs that belong to it.
struct bucket {
  std::vector<std::pair<const session_runs*, std::vector<const run_span*>>>
    parts;
};

/// The union of the runs' wall-clock spans.
ms busy_of(std::vector<const run_span*> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const auto* a, const auto* b) { return a->start < b->start; });
  ms total{0};
  std::optional<std::pair<wall_time, wall_time>> cur;
  for (const auto* r : runs) {
    if (cur && r->start <= cur->second) {
      cur->second = std::max(cur->second, r->end);
      continue;
    }
    if (cur)
      total += std::chrono::duration_cast<ms>(cur->second - cur->first);
    cur = std::make_pair(r->start, r->end);
  }
  if (cur)
    total += std::chrono::duration_cast<ms>(cur->second - cur->first);
  return total;
}

/// Nearest rank: the smallest value with at least p% of them at or below.
ms rank(const std::vector<ms>& sorted, int p) {
  auto n = sorted.size();
  auto i = (n * static_cast<std::size_t>(p) + 99) / 100;
  return sorted[std::max<std::size_t>(i, 1) - 1];
}

stats_numbers numbers_of(const bucket& b) {
  stats_numbers n;
  std::vector<ms> ended;
  for (const auto& [s, runs] : b.parts) {
    ++n.sessions;
    auto span = std::chrono::duration_cast<ms>(s->end - s->start);
    n.total += std::max(span, ms{0});
    n.busy += busy_of(runs);
    std::set<std::string> tasks;
    for (const auto* r : runs) {
      tasks.insert(r->task_id);
      ++n.runs;
      n.task_time += r->duration;
      switch (r->status) {
        case run_status::completed: ++n.completed; break;
        case run_status::skipped: ++n.skipped; break;
        case run_status::failed: ++n.failed; break;
        case run_status::interrupted: ++n.interrupted; break;
        case run_status::in_progress: ++n.in_progress; break;
      }
      if (r->status != run_status::in_progress)
        ended.push_back(r->duration);
    }
    n.tasks += static_cast<std::int64_t>(tasks.size());
  }
  if (!ended.empty()) {
    std::sort(ended.begin(), ended.end());
    n.median = rank(ended, 50);
    n.p90 = rank(ended, 90);
  }
  return n;
}

std::string day_key(date::local_days d) {
  return date::format("%F", d);
}

} // namespace

stats_result compute_stats(const std::vector<session_runs>& sessions,
                           stats_group by, const zone& z,
                           unsigned week_start) {
  std::map<std::string, bucket> groups;
  bucket all;
  for (const auto& s : sessions) {
    std::vector<const run_span*> runs;
    for (const auto& r : s.runs)
      runs.push_back(&r);
    all.parts.emplace_back(&s, runs);
    switch (by) {
      case stats_group::milestone:
        groups[s.milestone_id].parts.emplace_back(&s, runs);
        break;
      case stats_group::tag:
        if (s.tags.empty())
          groups[""].parts.emplace_back(&s, runs);
        for (const auto& tag : std::set<std::string>(s.tags.begin(),
                                                     s.tags.end()))
          groups[tag].parts.emplace_back(&s, runs);
        break;
      case stats_group::day:
      case stats_group::week: {
        auto day = date::floor<date::days>(
          date::local_time<std::chrono::milliseconds>{
            z.local_at(s.start).since_epoch});
        if (by == stats_group::week) {
          auto wd = date::weekday{day}.c_encoding();
          day -= date::days{static_cast<int>((wd + 7 - week_start) % 7)};
        }
        groups[day_key(day)].parts.emplace_back(&s, runs);
        break;
      }
      case stats_group::task: {
        std::map<std::string, std::vector<const run_span*>> per_task;
        for (const auto* r : runs)
          per_task[r->task_id].push_back(r);
        for (auto& [task, rs] : per_task)
          groups[task].parts.emplace_back(&s, std::move(rs));
        break;
      }
    }
  }
  stats_result out;
  out.totals = numbers_of(all);
  for (const auto& [key, b] : groups)
    out.groups.push_back({key, numbers_of(b)});
  // Time groups read in time order (the map's); the others largest first.
  if (by != stats_group::day && by != stats_group::week)
    std::stable_sort(out.groups.begin(), out.groups.end(),
                     [](const auto& a, const auto& b) {
                       return a.numbers.task_time > b.numbers.task_time;
                     });
  return out;
}

std::vector<session_runs> runs_held(const tracker& t,
                                    const history_filter& filter,
                                    instant now) {
  std::vector<session_runs> out;
  for (const auto* s : t.sessions()) {
    if (!history_matches(*s, filter))
      continue;
    session_runs r;
    r.session_id = s->id;
    r.milestone_id = s->milestone_id;
    r.tags = s->tags;
    r.start = s->start.wall;
    r.end = s->end ? s->end->wall : now.wall;
    for (const auto& task : s->tasks)
      for (const auto& run : task.runs) {
        run_span span;
        span.task_id = task.id;
        span.start = run.start.wall;
        span.end = run.end ? run.end->wall : now.wall;
        span.duration = run.duration(now.mono); // as the summary's
        span.status = run.status;
        r.runs.push_back(std::move(span));
      }
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace ttm::domain
