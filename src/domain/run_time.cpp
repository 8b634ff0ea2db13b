// Time accounting of runs and sessions: active time between pauses, and
// the overlap-aware totals of a session.

#include "domain/tracking.hpp"

#include <algorithm>

namespace ttm::domain {

namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

milliseconds since(mono_time from, mono_time to) {
  return to > from ? duration_cast<milliseconds>(to - from) : milliseconds{0};
}

} // namespace

std::vector<std::pair<mono_time, mono_time>>
task_run::active_spans(mono_time now) const {
  // Between the pauses; an open pause (or one past the end) stops at the
  // run's end. The last span is trimmed to whole milliseconds of the sum,
  // so the spans add up to duration() exactly.
  auto stop = end ? end->mono : now;
  std::vector<std::pair<mono_time, mono_time>> out;
  auto from = start.mono;
  mono_time::duration total{0};
  for (const auto& p : pauses) {
    auto to = std::min(std::max(p.start.mono, from), stop);
    if (to > from) {
      out.emplace_back(from, to);
      total += to - from;
    }
    from = std::max(from, std::min(p.end ? p.end->mono : stop, stop));
  }
  if (stop > from) {
    out.emplace_back(from, stop);
    total += stop - from;
  }
  auto extra = total - duration_cast<milliseconds>(total);
  while (extra.count() > 0 && !out.empty()) {
    auto& last = out.back();
    auto cut = std::min(extra, last.second - last.first);
    last.second -= cut;
    extra -= cut;
    if (last.second == last.first)
      out.pop_back();
  }
  return out;
}

milliseconds task_run::duration(mono_time now) const {
  if (pauses.empty())
    return since(start.mono, end ? end->mono : now);
  mono_time::duration total{0};
  for (const auto& [from, to] : active_spans(now))
    total += to - from;
  return duration_cast<milliseconds>(total);
}

milliseconds tracking_session::elapsed(mono_time now) const {
  return since(start.mono, end ? end->mono : now);
}

tracking_session::totals tracking_session::task_totals(mono_time now) const {
  // Each run as reported: its start plus its whole-millisecond duration. So
  // task_time is exactly the sum of the runs' duration_ms, and the union of
  // these spans (floored once) can never exceed it.
  std::vector<std::pair<mono_time, mono_time>> spans;
  totals out;
  for (const auto& t : tasks)
    for (const auto& r : t.runs) {
      auto ms = r.duration(now);
      out.task_time += ms;
      if (r.pauses.empty()) {
        spans.emplace_back(r.start.mono, r.start.mono + ms);
        continue;
      }
      for (const auto& span : r.active_spans(now))
        spans.push_back(span);
    }
  std::sort(spans.begin(), spans.end());
  mono_time::duration busy{0};
  std::optional<std::pair<mono_time, mono_time>> open;
  for (const auto& [from, to] : spans) {
    if (open && from <= open->second) {
      open->second = std::max(open->second, to);
      continue;
    }
    if (open)
      busy += open->second - open->first;
    open.emplace(from, to);
  }
  if (open)
    busy += open->second - open->first;
  out.busy = duration_cast<milliseconds>(busy);
  return out;
}

} // namespace ttm::domain
