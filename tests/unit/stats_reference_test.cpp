// domain::compute_stats against a plain reference (issue 16): random
// sessions with repeated, overlapping and out-of-order runs of random
// outcomes, grouped every way; the fast path (shared per-session work,
// task groups by hash, selection instead of sorting) must give the numbers
// the obvious algorithm gives.

#include "domain/stats.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

using namespace ttm;
using namespace ttm::domain;
using ms = std::chrono::milliseconds;

namespace {

wall_time at_ms(std::int64_t v) {
  return wall_time{std::chrono::duration_cast<wall_time::duration>(ms{v})};
}

ms reference_busy(std::vector<const run_span*> runs) {
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

using parts = std::vector<std::pair<const session_runs*,
                                    std::vector<const run_span*>>>;

stats_numbers reference_numbers(const parts& b) {
  stats_numbers n;
  std::vector<ms> ended;
  for (const auto& [s, runs] : b) {
    ++n.sessions;
    n.total += std::max(std::chrono::duration_cast<ms>(s->end - s->start),
                        ms{0});
    n.busy += reference_busy(runs);
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
    auto rank = [&](std::size_t p) {
      auto i = (ended.size() * p + 99) / 100;
      return ended[std::max<std::size_t>(i, 1) - 1];
    };
    n.median = rank(50);
    n.p90 = rank(90);
  }
  return n;
}

void check_same(const stats_numbers& got, const stats_numbers& want) {
  CHECK(got.sessions == want.sessions);
  CHECK(got.tasks == want.tasks);
  CHECK(got.runs == want.runs);
  CHECK(got.total == want.total);
  CHECK(got.busy == want.busy);
  CHECK(got.task_time == want.task_time);
  CHECK(got.median == want.median);
  CHECK(got.p90 == want.p90);
  CHECK(got.completed == want.completed);
  CHECK(got.skipped == want.skipped);
  CHECK(got.failed == want.failed);
  CHECK(got.interrupted == want.interrupted);
  CHECK(got.in_progress == want.in_progress);
}

} // namespace

TEST_CASE("stats: compute_stats gives the reference's numbers for random "
          "sessions, grouped by milestone, tag and task",
          "[stats]") {
  std::mt19937_64 rng{1616};
  auto pick = [&](std::uint64_t n) { return rng() % n; };
  auto utc = resolve_zone("UTC", "UTC").found;
  REQUIRE(utc);
  for (int round = 0; round < 150; ++round) {
    std::vector<session_runs> sessions(pick(12));
    std::int64_t t = 1'700'000'000'000;
    for (std::size_t k = 0; k < sessions.size(); ++k) {
      auto& s = sessions[k];
      s.session_id = "s" + std::to_string(k);
      s.milestone_id = "M" + std::to_string(pick(3));
      for (auto n = pick(3); n > 0; --n)
        s.tags.push_back("tag" + std::to_string(pick(3))); // repeats too
      t += static_cast<std::int64_t>(pick(100'000));
      s.start = at_ms(t);
      auto runs = pick(9);
      for (std::uint64_t i = 0; i < runs; ++i) {
        run_span r;
        r.task_id = "t" + std::to_string(pick(4)); // repeats: several runs
        auto start = t + static_cast<std::int64_t>(pick(50'000));
        r.start = at_ms(start);
        r.end = at_ms(start + static_cast<std::int64_t>(pick(20'000)));
        r.duration = ms{static_cast<std::int64_t>(pick(20'000))};
        r.status = static_cast<run_status>(pick(5));
        s.runs.push_back(std::move(r));
      }
      if (pick(2) == 0) // the journal's start order, or any order
        std::sort(s.runs.begin(), s.runs.end(),
                  [](const auto& a, const auto& b) { return a.start < b.start; });
      s.end = at_ms(t + 80'000);
    }
    parts all;
    std::map<std::string, parts> by_milestone, by_tag, by_task;
    for (const auto& s : sessions) {
      std::vector<const run_span*> runs;
      for (const auto& r : s.runs)
        runs.push_back(&r);
      all.emplace_back(&s, runs);
      by_milestone[s.milestone_id].emplace_back(&s, runs);
      if (s.tags.empty())
        by_tag[""].emplace_back(&s, runs);
      for (const auto& tag : std::set<std::string>(s.tags.begin(), s.tags.end()))
        by_tag[tag].emplace_back(&s, runs);
      std::map<std::string, std::vector<const run_span*>> per_task;
      for (const auto* r : runs)
        per_task[r->task_id].push_back(r);
      for (auto& [task, rs] : per_task)
        by_task[task].emplace_back(&s, rs);
    }
    for (auto [by, want] :
         {std::pair{stats_group::milestone, &by_milestone},
          std::pair{stats_group::tag, &by_tag},
          std::pair{stats_group::task, &by_task}}) {
      auto got = compute_stats(sessions, by, *utc, 1);
      check_same(got.totals, reference_numbers(all));
      REQUIRE(got.groups.size() == want->size());
      for (const auto& g : got.groups) {
        INFO("group " << g.key);
        REQUIRE(want->count(g.key) == 1);
        check_same(g.numbers, reference_numbers(want->at(g.key)));
      }
    }
  }
}
