#include "domain/history.hpp"

#include "domain/ascii.hpp"

#include <algorithm>
#include <tuple>

namespace ttm::domain {

const char* to_string(history_status s) {
  switch (s) {
    case history_status::active: return "active";
    case history_status::ended: return "ended";
    case history_status::expired: return "expired";
  }
  return "active";
}

std::optional<history_status> history_status_from(const std::string& s) {
  for (auto v : {history_status::active, history_status::ended,
                 history_status::expired})
    if (s == to_string(v))
      return v;
  return std::nullopt;
}

namespace {

bool mentions(const tracking_session& s, const std::string& text) {
  auto has = [&](const std::string& v) {
    return ascii_lower(v).find(text) != std::string::npos;
  };
  if (has(s.milestone_id) || (s.milestone_name && has(*s.milestone_name)))
    return true;
  for (const auto& t : s.tasks) {
    if (has(t.id))
      return true;
    for (const auto& r : t.runs)
      if (r.task_name && has(*r.task_name))
        return true;
  }
  return false;
}

} // namespace

bool history_matches(const tracking_session& s, const history_filter& f) {
  auto status = s.ended() ? history_status::ended : history_status::active;
  if (f.status && *f.status != status)
    return false;
  if (f.milestone_id && *f.milestone_id != s.milestone_id)
    return false;
  for (const auto& tag : f.tags)
    if (std::find(s.tags.begin(), s.tags.end(), tag) == s.tags.end())
      return false;
  if (f.text && !mentions(s, *f.text))
    return false;
  if (f.started_after && s.start.wall < *f.started_after)
    return false;
  if (f.started_before && !(s.start.wall < *f.started_before))
    return false;
  return true;
}

namespace {

bool before_cursor(const tracking_session& s, const history_filter& f) {
  return !f.before
         || std::make_tuple(to_ns(s.start.wall), std::cref(s.id))
              < std::make_tuple(f.before->first, std::cref(f.before->second));
}

} // namespace

history_page list_held(const tracker& t, const history_filter& filter) {
  std::vector<const tracking_session*> hits;
  for (const auto* s : t.sessions())
    if (history_matches(*s, filter) && before_cursor(*s, filter))
      hits.push_back(s);
  std::sort(hits.begin(), hits.end(), [](const auto* a, const auto* b) {
    return std::make_tuple(to_ns(a->start.wall), std::cref(a->id))
           > std::make_tuple(to_ns(b->start.wall), std::cref(b->id));
  });
  history_page out;
  out.more = hits.size() > filter.limit;
  hits.resize(std::min(hits.size(), filter.limit));
  for (const auto* s : hits) {
    history_row r;
    r.session_id = s->id;
    r.milestone_id = s->milestone_id;
    r.milestone_name = s->milestone_name;
    r.status = s->ended() ? history_status::ended : history_status::active;
    r.start = s->start.wall;
    if (s->end)
      r.end = s->end->wall;
    r.tags = s->tags;
    r.tasks_total = static_cast<std::int64_t>(s->tasks.size());
    r.tasks_done = static_cast<std::int64_t>(s->counts().completed);
    out.rows.push_back(std::move(r));
  }
  return out;
}

} // namespace ttm::domain
