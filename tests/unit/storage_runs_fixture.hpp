#pragma once

// What the tests of a session's stored runs share (storage_runs_test.cpp,
// storage_runs_digest_test.cpp): a statistics page's query, task events,
// a closed one-task session, and comparing runs.

#include "storage_fixture.hpp"

#include "storage/runs.hpp"

inline list_query stats_of(const std::string& principal) {
  list_query q;
  q.principal = principal;
  q.scope = "2025";
  q.with_runs = true;
  return q;
}

inline event task_event(event_kind kind, const std::string& session,
                        const std::string& task_id, std::int64_t wall_ns,
                        const std::string& status = "completed") {
  return make_event(kind, session, wall_ns,
                    kind == event_kind::task_ended
                      ? R"({"status":")" + status + R"(","metadata":{}})"
                      : R"({"metadata":{}})",
                    task_id);
}

/// S1, closed: t1 started 10 ns after t0, the session ended 2 ms after t0
/// (the run interrupted there).
inline std::vector<event> one_task_session() {
  return chained({started("S1", t0),
                  task_event(event_kind::task_started, "S1", "t1", t0 + 10),
                  closing(event_kind::session_ended, "S1", t0 + 2'000'000)});
}

inline run_event ev(event_kind kind, const std::string& task,
                     std::int64_t wall, std::int64_t mono,
                     const std::string& boot, const std::string& status = {}) {
  return {kind, task, {wall, mono, boot}, status};
}

inline bool same(const stored_run& a, const stored_run& b) {
  return a.task_id == b.task_id && a.start_wall_ns == b.start_wall_ns
         && a.end_wall_ns == b.end_wall_ns && a.duration_ns == b.duration_ns
         && a.status == b.status;
}

inline bool same(const std::vector<stored_run>& a,
                 const std::vector<stored_run>& b) {
  return a.size() == b.size()
         && std::equal(a.begin(), a.end(), b.begin(),
                       [](const auto& x, const auto& y) { return same(x, y); });
}
