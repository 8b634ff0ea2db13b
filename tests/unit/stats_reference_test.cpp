// domain::compute_stats against a plain reference (issue 16): random
// sessions with repeated, overlapping and out-of-order runs of random
// outcomes, grouped every way; the fast path (shared per-session work,
// task groups by index, selection instead of sorting) must give the numbers
// the obvious algorithm gives.

#include "domain/stats.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>

#include <algorithm>
#include <cstdio>
#include <functional>
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
    std::set<std::uint32_t> tasks; // the ids are each once in task_ids
    for (const auto* r : runs) {
      tasks.insert(r->task);
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
    // Interned as they come: an index order unlike the ids' order.
    std::vector<std::string> ids;
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
        r.task = task_index(ids, "t" + std::to_string(pick(4))); // repeats
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
        per_task[ids.at(r->task)].push_back(r);
      for (auto& [task, rs] : per_task)
        by_task[task].emplace_back(&s, rs);
    }
    for (auto [by, want] :
         {std::pair{stats_group::milestone, &by_milestone},
          std::pair{stats_group::tag, &by_tag},
          std::pair{stats_group::task, &by_task}}) {
      auto got = compute_stats(sessions, ids, by, *utc, 1);
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

TEST_CASE("stats: day and week groups across a change of daylight saving "
          "time, sessions in any order",
          "[stats]") {
  // compute_stats finds a session's day group once per run of sessions on
  // one day: each must still land on its own local day, on either side of
  // the change, however the sessions come.
  auto iso = [](const char* text) { // YYYY-MM-DDTHH:MM:00Z
    int y = 0;
    unsigned mo = 0, d = 0, h = 0, mi = 0;
    REQUIRE(std::sscanf(text, "%d-%u-%uT%u:%u", &y, &mo, &d, &h, &mi) == 5);
    return wall_time{date::sys_days{date::year{y} / date::month{mo}
                                    / date::day{d}}
                     + std::chrono::hours{h} + std::chrono::minutes{mi}};
  };
  auto groups_of = [](const std::vector<session_runs>& sessions,
                      stats_group by, const zone& z, unsigned week_start) {
    std::map<std::string, std::int64_t> out;
    for (const auto& g : compute_stats(sessions, {}, by, z, week_start).groups)
      out[g.key] = g.numbers.sessions;
    return out;
  };
  auto make = [&](std::vector<const char*> starts) {
    std::vector<session_runs> out;
    for (const auto* s : starts) {
      session_runs r;
      r.session_id = s;
      r.start = iso(s);
      r.end = r.start + std::chrono::minutes{10};
      out.push_back(std::move(r));
    }
    return out;
  };
  SECTION("New York, the end of summer time (2026-11-01 02:00 EDT)") {
    auto ny = resolve_zone("America/New_York", "UTC").found;
    REQUIRE(ny);
    // 23:30 EDT Oct 31; 00:30 EDT and 23:30 EST Nov 1; 00:30 EST Nov 2;
    // newest first (the journal's order), then shuffled.
    for (auto starts : {std::vector<const char*>{"2026-11-02T05:30:00Z",
                                                 "2026-11-02T04:30:00Z",
                                                 "2026-11-01T04:30:00Z",
                                                 "2026-11-01T03:30:00Z"},
                        std::vector<const char*>{"2026-11-01T04:30:00Z",
                                                 "2026-11-02T05:30:00Z",
                                                 "2026-11-01T03:30:00Z",
                                                 "2026-11-02T04:30:00Z"}}) {
      auto sessions = make(starts);
      CHECK(groups_of(sessions, stats_group::day, *ny, 1)
            == std::map<std::string, std::int64_t>{{"2026-10-31", 1},
                                                   {"2026-11-01", 2},
                                                   {"2026-11-02", 1}});
      // Weeks from Sunday: Nov 1 is one.
      CHECK(groups_of(sessions, stats_group::week, *ny, 0)
            == std::map<std::string, std::int64_t>{{"2026-10-25", 1},
                                                   {"2026-11-01", 3}});
    }
  }
  SECTION("Berlin, the start of summer time (2026-03-29 02:00 CET)") {
    auto berlin = resolve_zone("Europe/Berlin", "UTC").found;
    REQUIRE(berlin);
    // 23:30 CET Mar 28; 00:30 CET and 23:30 CEST Mar 29; 00:30 CEST Mar 30.
    auto sessions = make({"2026-03-29T22:30:00Z", "2026-03-29T21:30:00Z",
                          "2026-03-28T23:30:00Z", "2026-03-28T22:30:00Z"});
    CHECK(groups_of(sessions, stats_group::day, *berlin, 1)
          == std::map<std::string, std::int64_t>{{"2026-03-28", 1},
                                                 {"2026-03-29", 2},
                                                 {"2026-03-30", 1}});
    CHECK(groups_of(sessions, stats_group::week, *berlin, 1)
          == std::map<std::string, std::int64_t>{{"2026-03-23", 3},
                                                 {"2026-03-30", 1}});
  }
}

TEST_CASE("stats: median and p90 of many runs (bucketed selection) are the "
          "nearest ranks a sort gives, whatever the spread",
          "[stats]") {
  // Above a few thousand ended runs the ranks are found by counting the
  // durations into buckets first: wide, narrow, skewed and equal values,
  // and counts on either side of that threshold.
  std::mt19937_64 rng{3232};
  auto utc = resolve_zone("UTC", "UTC").found;
  REQUIRE(utc);
  using gen = std::function<std::int64_t()>;
  std::vector<std::pair<const char*, gen>> spreads{
    {"wide", [&] { return static_cast<std::int64_t>(rng() % 1'000'000'000'000); }},
    {"narrow", [&] { return static_cast<std::int64_t>(5'000 + rng() % 90'000); }},
    {"few values", [&] { return static_cast<std::int64_t>(rng() % 7); }},
    {"equal", [&] { return std::int64_t{42'000}; }},
    {"one outlier in many", [&] {
       return rng() % 20'000 == 0 ? std::int64_t{1} << 50
                                  : static_cast<std::int64_t>(rng() % 100);
     }},
  };
  for (auto& [name, next] : spreads)
    for (std::size_t n : {4607u, 4608u, 4610u, 70'001u}) { // 4095, 4096, 4097 ended, ...
      INFO(name << ", " << n << " runs");
      std::vector<session_runs> sessions(3);
      std::vector<std::string> ids;
      std::vector<ms> all;
      for (std::size_t i = 0; i < n; ++i) {
        run_span r;
        r.task = task_index(ids, "t" + std::to_string(i % 50));
        r.start = at_ms(1'700'000'000'000);
        r.end = r.start;
        r.duration = ms{next()};
        // Runs in progress count in neither rank.
        r.status = i % 9 == 0 ? run_status::in_progress
                              : run_status::completed;
        if (r.status != run_status::in_progress)
          all.push_back(r.duration);
        sessions[i % 3].runs.push_back(std::move(r));
      }
      std::sort(all.begin(), all.end());
      auto want = [&](std::size_t p) {
        return all[std::max<std::size_t>((all.size() * p + 99) / 100, 1) - 1];
      };
      auto got = compute_stats(sessions, ids, stats_group::milestone, *utc, 1);
      CHECK(got.totals.median == want(50));
      CHECK(got.totals.p90 == want(90));
    }
}
