#include "domain/stats.hpp"

#include <date/date.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>
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

/// The union of wall-clock spans given in start order, a span at a time:
/// the sum of each merged span's length; `sorted` false once a span came
/// before the one before it (then the sum means nothing).
class span_union {
public:
  void add(wall_time start, wall_time end) {
    if (any_ && start < last_start_)
      sorted_ = false;
    last_start_ = start;
    if (any_ && start <= cur_end_) {
      cur_end_ = std::max(cur_end_, end);
      return;
    }
    if (any_)
      total_ += std::chrono::duration_cast<ms>(cur_end_ - cur_start_);
    cur_start_ = start;
    cur_end_ = end;
    any_ = true;
  }
  bool sorted() const {
    return sorted_;
  }
  ms total() const {
    return any_ ? total_ + std::chrono::duration_cast<ms>(cur_end_
                                                          - cur_start_)
                : total_;
  }

private:
  bool any_ = false;
  bool sorted_ = true;
  wall_time last_start_{};
  wall_time cur_start_{};
  wall_time cur_end_{};
  ms total_{0};
};

/// The union of the runs' wall-clock spans. `start_of(i)`/`end_of(i)` for
/// i < n, in start order.
template <class Start, class End>
ms union_of(std::size_t n, Start start_of, End end_of) {
  span_union u;
  for (std::size_t i = 0; i < n; ++i)
    u.add(start_of(i), end_of(i));
  return u.total();
}

bool by_start(const run_span* a, const run_span* b) {
  return a->start < b->start;
}

/// The busy time of runs (pointers, sorted here by start unless they are).
ms busy_of(const run_span** begin, const run_span** end) {
  if (!std::is_sorted(begin, end, by_start))
    std::sort(begin, end, by_start);
  return union_of(
    static_cast<std::size_t>(end - begin),
    [&](std::size_t i) { return begin[i]->start; },
    [&](std::size_t i) { return begin[i]->end; });
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
    std::vector<const run_span*> ptrs;
    ptrs.reserve(r.size());
    for (const auto& run : r)
      ptrs.push_back(&run);
    return busy_of(ptrs.data(), ptrs.data() + ptrs.size());
  }
  return union_of(
    r.size(), [&](std::size_t i) { return r[i].start; },
    [&](std::size_t i) { return r[i].end; });
}

/// What one group holds of one session: all its runs, its busy time and
/// its distinct tasks (trivially copyable).
struct part {
  const session_runs* s = nullptr;
  ms busy{0};
  std::int64_t tasks = 0;
};

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

/// The median and p90 of `ended` (the durations count_run gathered) into
/// `n`.
void finish_numbers(stats_numbers& n, std::vector<ms>& ended) {
  if (!ended.empty())
    std::tie(n.median, n.p90) = median_and_p90(ended);
}

/// A session's part in a group's session counts.
void add_session(stats_numbers& n, const part& p) {
  ++n.sessions;
  auto span = std::chrono::duration_cast<ms>(p.s->end - p.s->start);
  n.total += std::max(span, ms{0});
  n.busy += p.busy;
  n.tasks += p.tasks;
}

/// A group's numbers. `ended`: scratch, reused from group to group.
stats_numbers numbers_of(const bucket& b, std::vector<ms>& ended) {
  stats_numbers n;
  ended.clear();
  for (const auto& p : b) {
    add_session(n, p);
    if (const auto& d = p.s->digest) {
      n.runs += d->runs;
      n.task_time += d->task_time;
      n.completed += d->completed;
      n.skipped += d->skipped;
      n.failed += d->failed;
      n.interrupted += d->interrupted;
      ended.insert(ended.end(), d->ended.begin(), d->ended.end());
    } else
      for (const auto& r : p.s->runs)
        count_run(n, ended, r);
  }
  finish_numbers(n, ended);
  return n;
}

/// `from`'s run counts added to `into`'s.
void add_run_counts(stats_numbers& into, const stats_numbers& from) {
  into.runs += from.runs;
  into.task_time += from.task_time;
  into.completed += from.completed;
  into.skipped += from.skipped;
  into.failed += from.failed;
  into.interrupted += from.interrupted;
  into.in_progress += from.in_progress;
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

std::uint32_t task_index(std::vector<std::string>& ids, std::string_view id) {
  auto it = std::find(ids.begin(), ids.end(), id);
  if (it == ids.end())
    it = ids.insert(ids.end(), std::string{id});
  return static_cast<std::uint32_t>(it - ids.begin());
}

namespace {

/// By task: each task's numbers added as each session is read. Its runs'
/// counts and ended durations as each run is read; per session that ran
/// it, the session's span and the task's busy time there. (A part per
/// session and task, 250,000 a month, cost a fifth of the call; copies of
/// every run sliced by task, 8 MB written and read again, most of the
/// rest.)
class task_tally {
public:
  explicit task_tally(std::size_t n_tasks)
      : numbers_(n_tasks), ended_(n_tasks), first_(n_tasks) {
  }
  /// A run of the session being read; `first`: its task's first there.
  void add_run(const run_span& r, bool first) {
    if (first)
      first_[r.task] = &r;
    count_run(numbers_[r.task], ended_[r.task], r);
  }
  /// The session read: its tasks in `order`, each run count[t] times.
  void end_session(const session_runs& s,
                   const std::vector<std::uint32_t>& order,
                   const std::vector<std::uint32_t>& count) {
    const auto span = std::max(
      std::chrono::duration_cast<ms>(s.end - s.start), ms{0});
    bool repeats = false;
    for (auto t : order) {
      auto& n = numbers_[t];
      ++n.sessions;
      n.total += span;
      if (count[t] == 1)
        n.busy += std::chrono::duration_cast<ms>(first_[t]->end
                                                 - first_[t]->start);
      else
        repeats = true;
    }
    if (!repeats)
      return;
    // The runs of tasks run more than once here, by task (in run order
    // within one), for the union of each task's spans.
    many_.clear();
    for (const auto& r : s.runs)
      if (count[r.task] > 1)
        many_.push_back(&r);
    std::stable_sort(many_.begin(), many_.end(),
                     [](const run_span* a, const run_span* b) {
                       return a->task < b->task;
                     });
    for (auto* at = many_.data(), *end = at + many_.size(); at != end;) {
      auto* next = at + count[(*at)->task];
      numbers_[(*at)->task].busy += busy_of(at, next);
      at = next;
    }
  }
  /// Each task that ran as a group (keyed by its id), the run counts into
  /// `out`'s totals (their durations the tasks' together).
  void finish(stats_result& out, const std::vector<std::string>& task_ids) {
    std::size_t all_runs = 0;
    for (const auto& e : ended_)
      all_runs += e.size();
    std::vector<ms> all_ended;
    all_ended.reserve(all_runs);
    for (std::size_t t = 0; t < numbers_.size(); ++t) {
      auto& n = numbers_[t];
      if (n.sessions == 0)
        continue;
      n.tasks = n.sessions; // one task of each session that ran it
      add_run_counts(out.totals, n);
      all_ended.insert(all_ended.end(), ended_[t].begin(), ended_[t].end());
      finish_numbers(n, ended_[t]);
      out.groups.push_back({task_ids[t], std::move(n)});
    }
    finish_numbers(out.totals, all_ended);
  }

private:
  std::vector<stats_numbers> numbers_;
  std::vector<std::vector<ms>> ended_;
  std::vector<const run_span*> first_; ///< this session's, per task
  std::vector<const run_span*> many_;  ///< scratch
};

} // namespace

stats_result compute_stats(const std::vector<session_runs>& sessions,
                           const std::vector<std::string>& task_ids,
                           stats_group by, const zone& z,
                           unsigned week_start) {
  const bool by_task = by == stats_group::task;
  // Per task (by index): the session that ran it last (which session's
  // tasks are being counted) and how often it ran there. Plain arrays: no
  // hashing or tree walk per run.
  const auto n_tasks = task_ids.size();
  std::vector<std::uint32_t> seen_in(n_tasks, UINT32_MAX);
  std::vector<std::uint32_t> count(n_tasks, 0);
  std::vector<std::uint32_t> order; // a session's tasks as they first ran
  std::size_t all_runs = 0;
  for (const auto& s : sessions) {
    all_runs += s.digest ? static_cast<std::size_t>(s.digest->runs)
                         : s.runs.size();
    if (s.digest && by_task)
      throw std::invalid_argument("compute_stats: by task needs the "
                                  "sessions' runs, not their digests");
  }
  std::optional<task_tally> tally;
  if (by_task)
    tally.emplace(n_tasks);
  std::map<std::string, bucket, std::less<>> groups;
  bucket* day_group = nullptr; // the group of `group_day` (by day, week)
  date::local_days group_day{};
  bucket all;
  all.reserve(sessions.size());
  for (std::size_t k = 0; k < sessions.size(); ++k) {
    const auto& s = sessions[k];
    const auto mark = static_cast<std::uint32_t>(k);
    order.clear();
    // One walk of the session's runs (a month's are 8 MB: each walk is
    // memory traffic): its tasks, their counts, by task each run into its
    // task's numbers, and its busy time.
    span_union session_busy;
    for (const auto& r : s.runs) {
      if (r.task >= n_tasks)
        throw std::out_of_range("compute_stats: a run's task is not in "
                                "task_ids");
      const bool first = seen_in[r.task] != mark;
      if (first) {
        seen_in[r.task] = mark;
        count[r.task] = 0;
        order.push_back(r.task);
      }
      ++count[r.task];
      if (by_task)
        tally->add_run(r, first);
      session_busy.add(r.start, r.end);
    }
    // A digest holds the busy time and the tasks (its runs are not here).
    const part whole{&s,
                     s.digest                 ? s.digest->busy
                     : session_busy.sorted() ? session_busy.total()
                                              : busy_of(s),
                     s.digest ? s.digest->tasks
                              : static_cast<std::int64_t>(order.size())};
    all.push_back(whole);
    switch (by) {
      case stats_group::milestone:
        groups[s.milestone_id].push_back(whole);
        break;
      case stats_group::tag:
        if (s.tags.empty())
          groups[""].push_back(whole);
        for (const auto& tag : std::set<std::string>(s.tags.begin(),
                                                     s.tags.end()))
          groups[tag].push_back(whole);
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
        day_group->push_back(whole);
        break;
      }
      case stats_group::task: {
        tally->end_session(s, order, count);
        break;
      }
    }
  }
  stats_result out;
  std::vector<ms> ended;
  if (!by_task) {
    ended.reserve(all_runs);
    out.totals = numbers_of(all, ended);
  }
  out.groups.reserve(by_task ? n_tasks : groups.size());
  for (const auto& [key, b] : groups)
    out.groups.push_back({key, numbers_of(b, ended)});
  if (by_task) {
    // The totals' run counts are the tasks' summed, their durations the
    // tasks' together: no second walk of every run.
    for (const auto& p : all)
      add_session(out.totals, p);
    tally->finish(out, task_ids);
    // By key first, as the other groupings' tree holds them.
    std::sort(out.groups.begin(), out.groups.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
  }
  // Time groups read in time order (the map's); the others largest first.
  if (by != stats_group::day && by != stats_group::week)
    std::stable_sort(out.groups.begin(), out.groups.end(),
                     [](const auto& a, const auto& b) {
                       return a.numbers.task_time > b.numbers.task_time;
                     });
  return out;
}

void runs_held(const tracker& t, const history_filter& filter, instant now,
               history_page& page) {
  page.runs.clear();
  page.task_ids.clear();
  if (filter.kind == history_kind::focus)
    return;
  for (const auto* s : t.sessions()) {
    if (!history_matches(*s, filter))
      continue;
    session_runs r;
    r.session_id = s->id;
    r.milestone_id = s->milestone_id;
    r.tags = s->tags;
    r.start = s->start.wall;
    r.end = s->end ? s->end->wall : now.wall;
    for (const auto& task : s->tasks) {
      auto index = task_index(page.task_ids, task.id);
      for (const auto& run : task.runs) {
        run_span span;
        span.task = index;
        span.start = run.start.wall;
        span.end = run.end ? run.end->wall : now.wall;
        span.duration = run.duration(now.mono); // as the summary's
        span.status = run.status;
        r.runs.push_back(span);
      }
    }
    page.runs.push_back(std::move(r));
  }
}

} // namespace ttm::domain
