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

const char* to_string(history_kind k) {
  switch (k) {
    case history_kind::tracking: return "tracking";
    case history_kind::focus: return "focus";
    case history_kind::all: return "all";
  }
  return "tracking";
}

std::optional<history_kind> history_kind_from(const std::string& s) {
  for (auto v : {history_kind::tracking, history_kind::focus,
                 history_kind::all})
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
  if (filter.kind != history_kind::focus)
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

std::vector<any_row> merged_rows(const history_page& page, std::size_t limit,
                                 bool& more) {
  std::vector<any_row> out;
  out.reserve(std::min(limit, page.rows.size() + page.focus.size()));
  auto t = page.rows.begin();
  auto f = page.focus.begin();
  auto newer = [](const auto& a, const auto& b) {
    return std::make_tuple(to_ns(a.start), std::cref(a.session_id))
           > std::make_tuple(to_ns(b.start), std::cref(b.session_id));
  };
  while (out.size() < limit
         && (t != page.rows.end() || f != page.focus.end())) {
    if (f == page.focus.end() || (t != page.rows.end() && newer(*t, *f)))
      out.push_back({&*t++, nullptr});
    else
      out.push_back({nullptr, &*f++});
  }
  more = page.more || page.focus_more || t != page.rows.end()
         || f != page.focus.end();
  return out;
}

bool focus_matches(const focus_row& f, const history_filter& filter) {
  auto status = f.end ? history_status::ended : history_status::active;
  if (filter.status && *filter.status != status)
    return false;
  if (filter.milestone_id || !filter.tags.empty())
    return false; // a focus session has neither
  if (filter.focus_id && *filter.focus_id != f.session_id)
    return false;
  if (filter.text
      && ascii_lower(f.intent).find(*filter.text) == std::string::npos
      && ascii_lower(f.summary).find(*filter.text) == std::string::npos)
    return false;
  if (filter.started_after && f.start < *filter.started_after)
    return false;
  if (filter.started_before && !(f.start < *filter.started_before))
    return false;
  return !filter.before
         || std::make_tuple(to_ns(f.start), std::cref(f.session_id))
              < std::make_tuple(filter.before->first,
                                std::cref(filter.before->second));
}

void list_focus_held(std::vector<focus_row> all, const history_filter& filter,
                     history_page& page) {
  page.focus.clear();
  for (auto& f : all)
    if (focus_matches(f, filter))
      page.focus.push_back(std::move(f));
  std::sort(page.focus.begin(), page.focus.end(),
            [](const auto& a, const auto& b) {
              return std::make_tuple(to_ns(a.start), std::cref(a.session_id))
                     > std::make_tuple(to_ns(b.start),
                                       std::cref(b.session_id));
            });
  page.focus_more = page.focus.size() > filter.limit;
  if (page.focus_more)
    page.focus.resize(filter.limit);
}

} // namespace ttm::domain
