// history_fill: fills a data directory with ended tracking sessions for the
// history bench (bench/history.sh), written through the server's storage
// library as its journal codec writes them (so a server lists, summarizes
// and purges them like its own).
//
//   history_fill --data-dir DIR [--journal postgresql://...] [--seed 42]
//                [--sessions 10000] [--tasks 50]
//                [--days 30] [--principal local] [--end-ns NOW]
//
// Sessions start evenly over the DAYS before END (default: now), each
// about 40 minutes long; its tasks run one after another (a few seconds
// to minutes each; every 10th skipped, every 25th failed, the rest
// completed). Milestones M-0..M-19, tags area:0..area:4 and team:0..team:2,
// task names "Task N of milestone M-k". One transaction per session.

#include "storage/pg_store.hpp"
#include "storage/sqlite_store.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace ttm::storage;

namespace {

[[noreturn]] void usage(const char* why) {
  std::cerr << "history_fill: " << why
            << "\nusage: history_fill --data-dir DIR [--sessions N] [--tasks"
               " N] [--days N] [--principal NAME] [--end-ns NS] [--journal URI] [--seed N]\n";
  std::exit(2);
}

std::string uuid_like(std::mt19937_64& rng) {
  static const char* hex = "0123456789abcdef";
  std::string s = "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx";
  for (auto& c : s)
    if (c == 'x')
      c = hex[rng() % 16];
  return s;
}

} // namespace

int main(int argc, char** argv) {
  std::string dir;
  std::string journal; // empty: SQLite in dir
  std::uint64_t seed = 42; // of the ids and durations: fills side by side differ
  std::string principal = "local";
  long sessions = 10'000;
  long tasks = 50;
  long days = 30;
  std::int64_t end_ns
    = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::system_clock::now().time_since_epoch())
        .count();
  for (int i = 1; i < argc; ++i) {
    auto arg = std::string{argv[i]};
    if (i + 1 >= argc)
      usage(("missing the value of " + arg).c_str());
    std::string v = argv[++i];
    if (arg == "--journal")
      journal = v;
    else if (arg == "--seed")
      seed = std::stoull(v);
    else if (arg == "--data-dir")
      dir = v;
    else if (arg == "--sessions")
      sessions = std::stol(v);
    else if (arg == "--tasks")
      tasks = std::stol(v);
    else if (arg == "--days")
      days = std::stol(v);
    else if (arg == "--principal")
      principal = v;
    else if (arg == "--end-ns")
      end_ns = std::stoll(v);
    else
      usage(("unknown argument " + arg).c_str());
  }
  if (dir.empty() || sessions < 1 || tasks < 1 || days < 1)
    usage("--data-dir is required; counts must be positive");
  // --journal postgresql://...: the same sessions in a PostgreSQL journal.
  pg_options pg;
  pg.conninfo = journal == "postgresql" ? "" : journal;
  pg.instance = "history_fill";
  auto opened = journal.empty()
                  ? open_sqlite({dir, sync_mode::normal, "history_fill"})
                  : open_postgresql(pg);
  if (auto* err = std::get_if<error>(&opened)) {
    std::cerr << "history_fill: " << err->message << "\n";
    return 2;
  }
  auto& st = *std::get<store_ptr>(opened);
  constexpr std::int64_t sec = 1'000'000'000;
  const std::int64_t span = days * 86'400 * sec;
  const std::int64_t step = span / sessions;
  std::mt19937_64 rng{seed};
  auto started_at = std::chrono::steady_clock::now();
  for (long n = 0; n < sessions; ++n) {
    auto id = uuid_like(rng);
    auto t = end_ns - span + n * step;
    auto mono = t - (end_ns - span) + 1'000 * sec;
    auto milestone = "M-" + std::to_string(n % 20);
    std::vector<event> batch;
    auto ev = [&](event_kind k, std::string task, std::string payload,
                  std::int64_t epoch) {
      event e;
      e.kind = k;
      e.session_id = id;
      e.principal = principal;
      e.task_id = std::move(task);
      e.epoch = epoch;
      e.at = {t, mono, "bench-boot"};
      e.payload = std::move(payload);
      batch.push_back(std::move(e));
    };
    std::string task_ids;
    for (long k = 0; k < tasks; ++k)
      task_ids += (k ? ",\"t" : "\"t") + std::to_string(k) + "\"";
    ev(event_kind::session_started, {},
       R"({"era":"2025","milestone_id":")" + milestone
         + R"(","milestone_name":"Milestone )" + milestone
         + R"(","task_ids":[)" + task_ids + R"(],"metadata":{},"tags":["area:)"
         + std::to_string(n % 5) + R"(","team:)" + std::to_string(n % 3)
         + R"("],"timezone":"UTC"})",
       0);
    std::int64_t epoch = 1;
    for (long k = 0; k < tasks; ++k) {
      auto task = "t" + std::to_string(k);
      ev(event_kind::task_started, task,
         R"({"task_name":"Task )" + std::to_string(k) + " of milestone "
           + milestone + R"(","metadata":{}})",
         epoch++);
      auto took = static_cast<std::int64_t>(5 + rng() % 90) * sec;
      t += took;
      mono += took;
      const char* status = k % 25 == 24 ? "failed"
                           : k % 10 == 9 ? "skipped"
                                         : "completed";
      ev(event_kind::task_ended, task,
         std::string{R"({"status":")"} + status + R"(","metadata":{}})",
         epoch++);
    }
    ev(event_kind::session_ended, {}, "{}", epoch);
    // PostgreSQL: the task events apart, in one pipelined round trip (a
    // batch with a start or an end in it is written event by event).
    std::vector<std::vector<event>> parts;
    if (journal.empty())
      parts.push_back(std::move(batch));
    else
      parts = {{batch.front()},
               {batch.begin() + 1, batch.end() - 1},
               {batch.back()}};
    for (const auto& part : parts)
      if (auto r = st.append(part); std::holds_alternative<error>(r)) {
        std::cerr << "history_fill: session " << n << ": "
                  << std::get<error>(r).message << "\n";
        return 1;
      }
  }
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::steady_clock::now() - started_at);
  std::cout << "history_fill: " << sessions << " sessions x " << tasks
            << " tasks for '" << principal << "' in " << dir << " ("
            << took.count() << " ms)\n";
  return 0;
}
