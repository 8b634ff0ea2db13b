#include "domain/stats.hpp"

#include <date/date.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
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
using run_ptrs = std::vector<const run_span*>;

/// The union of the runs' wall-clock spans. `start_of(i)`/`end_of(i)` for
/// i < n, in start order.
template <class Start, class End>
ms union_of(std::size_t n, Start start_of, End end_of) {
  ms total{0};
  std::optional<std::pair<wall_time, wall_time>> cur;
  for (std::size_t i = 0; i < n; ++i) {
    auto start = start_of(i);
    if (cur && start <= cur->second) {
      cur->second = std::max(cur->second, end_of(i));
      continue;
    }
    if (cur)
      total += std::chrono::duration_cast<ms>(cur->second - cur->first);
    cur = std::make_pair(start, end_of(i));
  }
  if (cur)
    total += std::chrono::duration_cast<ms>(cur->second - cur->first);
  return total;
}

ms busy_of(run_ptrs runs) {
  std::sort(runs.begin(), runs.end(),
            [](const auto* a, const auto* b) { return a->start < b->start; });
  return union_of(
    runs.size(), [&](std::size_t i) { return runs[i]->start; },
    [&](std::size_t i) { return runs[i]->end; });
}

/// A whole session's busy time: its runs come in start order from the
/// journal (sorted here otherwise).
ms busy_of(const session_runs& s) {
  const auto& r = s.runs;
  bool in_order = std::is_sorted(r.begin(), r.end(),
                                 [](const auto& a, const auto& b) {
                                   return a.start < b.start;
                                 });
  if (!in_order) {
    run_ptrs ptrs;
    for (const auto& run : r)
      ptrs.push_back(&run);
    return busy_of(std::move(ptrs));
  }
  return union_of(
    r.size(), [&](std::size_t i) { return r[i].start; },
    [&](std::size_t i) { return r[i].end; });
}

/// How many distinct tasks ran in `s`: a small open-addressing set of the
/// ids (a sort of the ids costs ten times more over a month of sessions).
std::int64_t distinct_tasks(const session_runs& s) {
  std::size_t size = 16;
  while (size < s.runs.size() * 2)
    size *= 2;
  std::vector<const std::string*> slots(size, nullptr);
  std::int64_t n = 0;
  std::hash<std::string_view> hash;
  for (const auto& r : s.runs) {
    auto i = hash(r.task_id) & (size - 1);
    while (slots[i] != nullptr && *slots[i] != r.task_id)
      i = (i + 1) & (size - 1);
    if (slots[i] == nullptr) {
      slots[i] = &r.task_id;
      ++n;
    }
  }
  return n;
}

/// What one group holds of one session: all its runs, or one task's (its
/// one run, or `more`: 1 + its index in the task runs of several runs).
/// Trivially copyable: a month of sessions by task is 250,000 parts.
struct part {
  const session_runs* s = nullptr;
  const run_span* one = nullptr;
  std::uint32_t more = 0;
  ms busy{0};
  std::int64_t tasks = 0;
};

/// The runs of a task that ran more than once in a session.
using several = std::vector<run_ptrs>;

/// A session as a whole-session group holds it, worked out once.
struct session_view {
  const session_runs* s = nullptr;
  ms busy{0};
  std::int64_t tasks = 0;
};

part whole(const session_view& v) {
  return {v.s, nullptr, 0, v.busy, v.tasks};
}

using bucket = std::vector<part>;

/// Nearest rank: the index in sorted order of the smallest value with at
/// least p% of the n values at or below it.
std::size_t rank_index(std::size_t n, int p) {
  auto i = (n * static_cast<std::size_t>(p) + 99) / 100;
  return std::max<std::size_t>(i, 1) - 1;
}

/// The median and the p90 (nearest rank) of `values` (not empty; their
/// order is spent). A month's groups hold 250,000 run durations: rather
/// than nth_element over them (twice per group: a tenth of the call), one
/// pass counts them into buckets by their high bits, and only the bucket
/// holding each rank is then searched.
std::pair<ms, ms> median_and_p90(std::vector<ms>& values) {
  const auto n = values.size();
  const auto i50 = rank_index(n, 50);
  const auto i90 = rank_index(n, 90);
  if (n < 4096) { // small: selection is cheap
    auto at = [&](std::size_t i, std::size_t end) {
      auto nth = values.begin() + static_cast<std::ptrdiff_t>(i);
      std::nth_element(values.begin(), nth,
                       values.begin() + static_cast<std::ptrdiff_t>(end));
      return *nth;
    };
    auto p90 = at(i90, n);
    return {at(i50, i90 + 1), p90}; // the median is among those up to it
  }
  auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const auto lo = lo_it->count();
  const auto range = static_cast<std::uint64_t>(hi_it->count())
                     - static_cast<std::uint64_t>(lo);
  unsigned width = 0; // bits of the range
  while (width < 64 && (range >> width) != 0)
    ++width;
  unsigned buckets_log = 8;
  while (buckets_log < 16 && (std::size_t{1} << buckets_log) < n)
    ++buckets_log;
  const unsigned shift = width > buckets_log ? width - buckets_log : 0;
  auto bucket_of = [&](ms v) {
    return static_cast<std::size_t>(
      (static_cast<std::uint64_t>(v.count()) - static_cast<std::uint64_t>(lo))
      >> shift);
  };
  std::vector<std::uint32_t> count((range >> shift) + 1, 0);
  for (auto v : values)
    ++count[bucket_of(v)];
  // Each rank's bucket, and how many values lie in the buckets before it.
  struct target {
    std::size_t index, bucket = 0, before = 0;
  };
  target t50{i50}, t90{i90};
  std::size_t seen = 0;
  for (std::size_t b = 0; b < count.size(); ++b) {
    for (auto* t : {&t50, &t90})
      if (t->index >= seen && t->index < seen + count[b]) {
        t->bucket = b;
        t->before = seen;
      }
    seen += count[b];
  }
  auto value_of = [&](const target& t) {
    if (shift == 0) // a bucket is one value
      return ms{static_cast<std::int64_t>(static_cast<std::uint64_t>(lo)
                                          + t.bucket)};
    std::vector<ms> in;
    in.reserve(count[t.bucket]);
    for (auto v : values)
      if (bucket_of(v) == t.bucket)
        in.push_back(v);
    auto nth = in.begin() + static_cast<std::ptrdiff_t>(t.index - t.before);
    std::nth_element(in.begin(), nth, in.end());
    return *nth;
  };
  return {value_of(t50), value_of(t90)};
}

void count_run(stats_numbers& n, std::vector<ms>& ended, const run_span& r) {
  ++n.runs;
  n.task_time += r.duration;
  switch (r.status) {
    case run_status::completed: ++n.completed; break;
    case run_status::skipped: ++n.skipped; break;
    case run_status::failed: ++n.failed; break;
    case run_status::interrupted: ++n.interrupted; break;
    case run_status::in_progress: ++n.in_progress; break;
  }
  if (r.status != run_status::in_progress)
    ended.push_back(r.duration);
}

stats_numbers numbers_of(const bucket& b, const several& extra) {
  stats_numbers n;
  std::vector<ms> ended;
  std::size_t runs = 0;
  for (const auto& p : b)
    runs += p.one != nullptr ? 1
            : p.more == 0    ? p.s->runs.size()
                             : extra[p.more - 1].size();
  ended.reserve(runs);
  for (const auto& p : b) {
    ++n.sessions;
    auto span = std::chrono::duration_cast<ms>(p.s->end - p.s->start);
    n.total += std::max(span, ms{0});
    n.busy += p.busy;
    n.tasks += p.tasks;
    if (p.one != nullptr)
      count_run(n, ended, *p.one);
    else if (p.more == 0)
      for (const auto& r : p.s->runs)
        count_run(n, ended, r);
    else
      for (const auto* r : extra[p.more - 1])
        count_run(n, ended, *r);
  }
  if (!ended.empty())
    std::tie(n.median, n.p90) = median_and_p90(ended);
  return n;
}

std::string day_key(date::local_days d) {
  return date::format("%F", d);
}

} // namespace

namespace {

/// The day (or the week's first day) of `start` in `z`.
date::local_days time_day(wall_time start, stats_group by, const zone& z,
                          unsigned week_start) {
  auto day = date::floor<date::days>(
    date::local_time<std::chrono::milliseconds>{z.local_at(start).since_epoch});
  if (by == stats_group::week) {
    auto wd = date::weekday{day}.c_encoding();
    day -= date::days{static_cast<int>((wd + 7 - week_start) % 7)};
  }
  return day;
}

/// The same as YYYY-MM-DD.
std::string time_key(wall_time start, stats_group by, const zone& z,
                     unsigned week_start) {
  return day_key(time_day(start, by, z, week_start));
}

} // namespace

void add_focus(stats_result& stats, const std::vector<focus_row>& focus,
               stats_group by, const zone& z, unsigned week_start,
               wall_time now) {
  bool by_time = by == stats_group::day || by == stats_group::week;
  for (const auto& f : focus) {
    auto end = std::max(f.end.value_or(now), f.start);
    auto length = std::chrono::duration_cast<ms>(end - f.start);
    stats.totals.focus_sessions += 1;
    stats.totals.focus_time += length;
    if (!by_time)
      continue; // no milestone, tag or task: counted in the totals only
    auto key = time_key(f.start, by, z, week_start);
    // Groups by time are in key order: find the day, or add it in place.
    auto at = std::lower_bound(
      stats.groups.begin(), stats.groups.end(), key,
      [](const stats_group_row& g, const std::string& k) { return g.key < k; });
    if (at == stats.groups.end() || at->key != key)
      at = stats.groups.insert(at, stats_group_row{key, {}});
    at->numbers.focus_sessions += 1;
    at->numbers.focus_time += length;
  }
}

stats_result compute_stats(const std::vector<session_runs>& sessions,
                           stats_group by, const zone& z,
                           unsigned week_start) {
  std::vector<session_view> views;
  views.reserve(sessions.size());
  for (const auto& s : sessions)
    views.push_back({&s, busy_of(s), distinct_tasks(s)});
  std::map<std::string, bucket, std::less<>> groups;
  // Group by task: a run's group by its id, without a tree walk per run.
  std::unordered_map<std::string_view, bucket*> task_groups;
  std::vector<std::pair<std::string_view, bucket*>> hint;
  std::vector<bucket*> touched;
  several extra;
  bucket* day_group = nullptr; // the group of `group_day` (by day, week)
  date::local_days group_day{};
  bucket all;
  all.reserve(views.size());
  for (const auto& v : views) {
    const auto& s = *v.s;
    all.push_back(whole(v));
    switch (by) {
      case stats_group::milestone:
        groups[s.milestone_id].push_back(whole(v));
        break;
      case stats_group::tag:
        if (s.tags.empty())
          groups[""].push_back(whole(v));
        for (const auto& tag : std::set<std::string>(s.tags.begin(),
                                                     s.tags.end()))
          groups[tag].push_back(whole(v));
        break;
      case stats_group::day:
      case stats_group::week: {
        // Sessions come by start: most fall on the day before's. The key
        // and the tree walk once per day, not per session (a month by day
        // formatted 5,000 keys through a stream for 31 groups).
        auto day = time_day(s.start, by, z, week_start);
        if (day_group == nullptr || day != group_day) {
          day_group = &groups[day_key(day)];
          group_day = day;
        }
        day_group->push_back(whole(v));
        break;
      }
      case stats_group::task: {
        // This session's part of each task's group: the group's last part
        // once the task ran before in this session. Sessions of one plan
        // run their tasks in the same order: the group of the run at the
        // same place in the session before is tried first.
        touched.clear();
        for (std::size_t i = 0; i < s.runs.size(); ++i) {
          const auto& r = s.runs[i];
          bucket* g = nullptr;
          if (i < hint.size() && hint[i].first == r.task_id) {
            g = hint[i].second;
          } else {
            auto& found = task_groups[r.task_id];
            if (found == nullptr)
              found = &groups[r.task_id];
            g = found;
            if (i >= hint.size())
              hint.resize(i + 1);
            hint[i] = {r.task_id, g};
          }
          if (!g->empty() && g->back().s == &s) {
            auto& mine = g->back();
            if (mine.more == 0) {
              extra.push_back({mine.one});
              mine.more = static_cast<std::uint32_t>(extra.size());
              mine.one = nullptr;
            }
            extra[mine.more - 1].push_back(&r);
            continue;
          }
          g->push_back({&s, &r, 0, ms{0}, 1});
          touched.push_back(g);
        }
        for (auto* g : touched) {
          auto& mine = g->back();
          mine.busy = mine.one != nullptr
                        ? std::chrono::duration_cast<ms>(mine.one->end
                                                         - mine.one->start)
                        : busy_of(extra[mine.more - 1]);
        }
        break;
      }
    }
  }
  stats_result out;
  out.totals = numbers_of(all, extra);
  for (const auto& [key, b] : groups)
    out.groups.push_back({key, numbers_of(b, extra)});
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
  if (filter.kind == history_kind::focus)
    return out;
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
