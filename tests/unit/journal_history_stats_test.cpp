// journal::to_history_page's decode of a page's packed runs (issue 32):
// each run straight into the domain's run_span, task ids interned once per
// page (the same id at the same index in every session, whatever their
// order), runs in progress as of now (running ones accrue, paused ones do
// not), and the statistics of the decoded page.

#include "domain/stats.hpp"
#include "journal/history.hpp"
#include "storage/runs.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>

using namespace ttm;
using ms = std::chrono::milliseconds;

namespace {

constexpr std::int64_t t0 = 1'734'185'132'123'000'000; // 2024-12-14
constexpr std::int64_t sec = 1'000'000'000;

domain::wall_time at(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

storage::stored_run ended(const std::string& task, std::int64_t start,
                          std::int64_t end, std::int64_t duration,
                          storage::run_end status) {
  storage::stored_run r;
  r.task_id = task;
  r.start_wall_ns = start;
  r.as_of_wall_ns = start;
  r.end_wall_ns = end;
  r.duration_ns = duration;
  r.status = status;
  return r;
}

storage::session_row row(const std::string& id, std::int64_t start,
                         std::optional<std::int64_t> closed,
                         std::vector<std::string> tags) {
  storage::session_row r;
  r.session_id = id;
  r.milestone_id = "M";
  r.state = closed ? storage::session_state::ended
                   : storage::session_state::open;
  r.started_wall_ns = start;
  r.closed_wall_ns = closed;
  r.tags = std::move(tags);
  return r;
}

/// Random integers in [lo, hi], the same sequence for a seed.
struct picker {
  std::mt19937_64 rng;
  explicit picker(std::uint64_t seed) : rng{seed} {}
  std::int64_t operator()(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>{lo, hi}(rng);
  }
};

} // namespace

TEST_CASE("journal: a page's packed runs decode into the domain's, task ids "
          "once per page, runs in progress as of now",
          "[journal][stats]") {
  using storage::run_end;
  storage::list_page page;
  // S1 (closed): a, b, a again (a re-run), c interrupted by the close.
  page.rows.push_back(row("S1", t0, t0 + 100 * sec, {"x"}));
  page.runs.add(storage::pack_runs({
    ended("a", t0, t0 + 10 * sec, 9 * sec, run_end::completed),
    ended("b", t0 + 5 * sec, t0 + 20 * sec, 15 * sec, run_end::skipped),
    ended("a", t0 + 30 * sec, t0 + 40 * sec, 10 * sec, run_end::failed),
    ended("c", t0 + 50 * sec, t0 + 100 * sec, 50 * sec, run_end::interrupted),
  }));
  // S2 (open, its runs kept with their pauses): c then a (another order),
  // c paused with 3 s active, a running with 2 s active when stored.
  page.rows.push_back(row("S2", t0 + 200 * sec, std::nullopt, {}));
  storage::stored_run paused;
  paused.task_id = "c";
  paused.start_wall_ns = t0 + 200 * sec;
  paused.as_of_wall_ns = t0 + 210 * sec;
  paused.duration_ns = 3 * sec;
  paused.running = false;
  storage::stored_run running = paused;
  running.task_id = "a";
  running.start_wall_ns = t0 + 201 * sec;
  running.duration_ns = 2 * sec;
  running.running = true;
  page.runs.add(storage::pack_runs({paused, running}, 4));
  // S3: no runs.
  page.rows.push_back(row("S3", t0 + 300 * sec, t0 + 301 * sec, {}));
  page.runs.add(storage::pack_runs({}));

  auto now = at(t0 + 250 * sec);
  auto got = journal::to_history_page(std::move(page), now);
  REQUIRE(got.runs.size() == 3);
  REQUIRE(got.task_ids.size() == 3); // a, b, c: each once
  auto id = [&](const domain::run_span& r) { return got.task_ids.at(r.task); };

  const auto& s1 = got.runs[0].runs;
  REQUIRE(s1.size() == 4);
  CHECK(id(s1[0]) == "a");
  CHECK(id(s1[1]) == "b");
  CHECK(s1[2].task == s1[0].task); // the re-run: one id
  CHECK(id(s1[3]) == "c");
  CHECK(s1[1].start == at(t0 + 5 * sec));
  CHECK(s1[1].end == at(t0 + 20 * sec));
  CHECK(s1[1].duration == ms{15'000});
  CHECK(s1[1].status == domain::run_status::skipped);
  CHECK(s1[2].status == domain::run_status::failed);
  CHECK(s1[3].status == domain::run_status::interrupted);
  CHECK(got.runs[0].end == at(t0 + 100 * sec));
  CHECK(got.runs[0].tags == std::vector<std::string>{"x"});

  const auto& s2 = got.runs[1].runs;
  REQUIRE(s2.size() == 2);
  CHECK(s2[0].task == s1[3].task); // c, at another place
  CHECK(s2[1].task == s1[0].task); // a
  for (const auto& r : s2) {
    CHECK(r.status == domain::run_status::in_progress);
    CHECK(r.end == now);
  }
  CHECK(s2[0].duration == ms{3'000});  // paused: what it had
  CHECK(s2[1].duration == ms{42'000}); // 2 s, then 40 s since as_of
  CHECK(got.runs[1].end == now);       // open: to now
  CHECK(got.runs[2].runs.empty());

  // The decoded page's statistics by task: a ran in 2 sessions, 3 runs.
  auto utc = domain::resolve_zone("UTC", "UTC").found;
  REQUIRE(utc);
  auto stats = domain::compute_stats(got.runs, got.task_ids,
                                     domain::stats_group::task, *utc, 1);
  REQUIRE(stats.groups.size() == 3);
  // Largest task time first: a (9 + 10 + 42 s), c (50 + 3 s), b (15 s).
  CHECK(stats.groups[0].key == "a");
  CHECK(stats.groups[0].numbers.sessions == 2);
  CHECK(stats.groups[0].numbers.runs == 3);
  CHECK(stats.groups[0].numbers.tasks == 2);
  CHECK(stats.groups[0].numbers.task_time == ms{61'000});
  CHECK(stats.groups[0].numbers.in_progress == 1);
  // a's busy: S1's two runs (10 s + 10 s apart), S2's run to now (49 s).
  CHECK(stats.groups[0].numbers.busy == ms{69'000});
  CHECK(stats.groups[1].key == "c");
  CHECK(stats.groups[1].numbers.task_time == ms{53'000});
  CHECK(stats.groups[2].key == "b");
  CHECK(stats.totals.sessions == 3);
  CHECK(stats.totals.tasks == 5); // S1: a, b, c; S2: c, a
  CHECK(stats.totals.runs == 6);
  CHECK(stats.totals.completed == 1);
  CHECK(stats.totals.skipped == 1);
  CHECK(stats.totals.failed == 1);
  CHECK(stats.totals.interrupted == 1);
  CHECK(stats.totals.in_progress == 2);
  // Ended runs' durations 9, 10, 15, 50 s: nearest ranks.
  CHECK(stats.totals.median == ms{10'000});
  CHECK(stats.totals.p90 == ms{50'000});
}

TEST_CASE("journal: a page of digests gives the statistics its runs give, "
          "by day, week, milestone and tag (random sessions)",
          "[journal][stats][issue32]") {
  using storage::run_end;
  picker pick{32};
  storage::list_page runs_page;
  storage::list_page digest_page;
  for (int k = 0; k < 300; ++k) {
    // Overlapping runs, re-runs, sub-millisecond parts, all four ends.
    std::vector<storage::stored_run> runs;
    auto start = t0 + k * 3'600 * sec + pick(0, 3'000 * sec);
    auto at_ns = start;
    for (int i = 0, n = static_cast<int>(pick(0, 12)); i < n; ++i) {
      at_ns += pick(0, 90 * sec);
      auto end = at_ns + pick(0, 200 * sec);
      runs.push_back(ended("t" + std::to_string(pick(0, 7)), at_ns, end,
                           pick(0, end - at_ns + 1'999'999),
                           static_cast<run_end>(pick(1, 4))));
    }
    auto closed = at_ns + 500 * sec;
    auto r = row("S" + std::to_string(k), start, closed,
                 {"tag" + std::to_string(pick(0, 2))});
    r.milestone_id = "M" + std::to_string(pick(0, 3));
    auto packed = storage::pack_runs(runs);
    auto digest = storage::digest_of_packed(packed);
    REQUIRE(digest);
    runs_page.rows.push_back(r);
    runs_page.runs.add(packed);
    digest_page.rows.push_back(r);
    digest_page.runs.add(*digest);
  }
  auto now = at(t0 + 400 * 3'600 * sec);
  auto from_runs = journal::to_history_page(std::move(runs_page), now);
  auto from_digests = journal::to_history_page(std::move(digest_page), now);
  REQUIRE(from_digests.runs.size() == 300);
  CHECK(from_digests.runs[0].digest.has_value());
  auto z = domain::resolve_zone("America/New_York", "UTC").found;
  REQUIRE(z);
  auto same = [](const domain::stats_numbers& a,
                 const domain::stats_numbers& b) {
    return a.sessions == b.sessions && a.tasks == b.tasks
           && a.runs == b.runs && a.total == b.total && a.busy == b.busy
           && a.task_time == b.task_time && a.median == b.median
           && a.p90 == b.p90 && a.completed == b.completed
           && a.skipped == b.skipped && a.failed == b.failed
           && a.interrupted == b.interrupted
           && a.in_progress == b.in_progress;
  };
  for (auto by : {domain::stats_group::day, domain::stats_group::week,
                  domain::stats_group::milestone, domain::stats_group::tag}) {
    auto a = domain::compute_stats(from_runs.runs, from_runs.task_ids, by,
                                   *z, 1);
    auto b = domain::compute_stats(from_digests.runs, from_digests.task_ids,
                                   by, *z, 1);
    CHECK(same(a.totals, b.totals));
    REQUIRE(a.groups.size() == b.groups.size());
    for (std::size_t i = 0; i < a.groups.size(); ++i) {
      INFO(a.groups[i].key);
      CHECK(a.groups[i].key == b.groups[i].key);
      CHECK(same(a.groups[i].numbers, b.groups[i].numbers));
    }
  }
  // By task needs the runs: a digest there is refused, not miscounted.
  CHECK_THROWS_AS(domain::compute_stats(from_digests.runs,
                                        from_digests.task_ids,
                                        domain::stats_group::task, *z, 1),
                  std::invalid_argument);
}

TEST_CASE("journal: a page converted as it grows (history_builder, as the "
          "store hands rows on) equals the page converted whole",
          "[journal][stats][issue32]") {
  using storage::run_end;
  picker pick{17};
  std::vector<std::pair<storage::session_row, std::string>> sessions;
  for (int k = 0; k < 200; ++k) {
    std::vector<storage::stored_run> runs;
    auto start = t0 + k * 3'600 * sec;
    auto at_ns = start;
    for (int i = 0, n = static_cast<int>(pick(0, 9)); i < n; ++i) {
      at_ns += pick(0, 60 * sec);
      auto end = at_ns + pick(0, 100 * sec);
      // Task ids long enough to live outside a string's own buffer.
      runs.push_back(ended("a-task-named-at-length-" + std::to_string(pick(0, 30)),
                           at_ns, end, pick(0, end - at_ns),
                           static_cast<run_end>(pick(1, 4))));
    }
    sessions.emplace_back(row("S" + std::to_string(k), start,
                              at_ns + 10 * sec, {"t" + std::to_string(k % 3)}),
                          storage::pack_runs(runs));
  }
  auto now = at(t0 + 300 * 3'600 * sec);
  storage::list_page whole;
  for (const auto& [r, packed] : sessions) {
    whole.rows.push_back(r);
    whole.runs.add(packed);
  }
  whole.more = true;
  auto want = journal::to_history_page(std::move(whole), now);

  // Rows arrive in windows of 1 to 40; after each, the rows so far are
  // taken (their bytes may move when the next window's are added).
  storage::list_page growing;
  journal::history_builder builder{now, true};
  std::size_t next = 0;
  while (next < sessions.size()) {
    auto n = std::min<std::size_t>(static_cast<std::size_t>(pick(1, 40)),
                                   sessions.size() - next);
    for (std::size_t i = 0; i < n; ++i, ++next) {
      growing.rows.push_back(sessions[next].first);
      growing.runs.add(sessions[next].second);
    }
    builder.take(growing, next);
    builder.take(growing, next / 2); // rows taken before: nothing again
  }
  growing.more = true;
  auto got = builder.finish(growing);

  CHECK(got.more);
  REQUIRE(got.rows.size() == want.rows.size());
  REQUIRE(got.runs.size() == want.runs.size());
  for (std::size_t i = 0; i < want.rows.size(); ++i) {
    INFO(want.rows[i].session_id);
    CHECK(got.rows[i].session_id == want.rows[i].session_id);
    CHECK(got.rows[i].tags == want.rows[i].tags);
    CHECK(got.runs[i].session_id == want.runs[i].session_id);
    CHECK(got.runs[i].end == want.runs[i].end);
    REQUIRE(got.runs[i].runs.size() == want.runs[i].runs.size());
    for (std::size_t j = 0; j < want.runs[i].runs.size(); ++j) {
      const auto& a = got.runs[i].runs[j];
      const auto& b = want.runs[i].runs[j];
      CHECK(got.task_ids.at(a.task) == want.task_ids.at(b.task));
      CHECK(a.start == b.start);
      CHECK(a.end == b.end);
      CHECK(a.duration == b.duration);
      CHECK(a.status == b.status);
    }
  }
}
