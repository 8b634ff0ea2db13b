#include "journal/history.hpp"

namespace ttm::journal {

storage::list_query to_list_query(const domain::history_filter& filter,
                                  const std::string& principal,
                                  const std::string& scope) {
  storage::list_query q;
  q.principal = principal;
  q.scope = scope;
  if (filter.status)
    switch (*filter.status) {
      case domain::history_status::active:
        q.state = storage::session_state::open;
        break;
      case domain::history_status::ended:
        q.state = storage::session_state::ended;
        break;
      case domain::history_status::expired:
        q.state = storage::session_state::expired;
        break;
    }
  q.milestone_id = filter.milestone_id;
  q.tags = filter.tags;
  q.text = filter.text;
  if (filter.started_after)
    q.since_wall_ns = domain::to_ns(*filter.started_after);
  if (filter.started_before)
    q.until_wall_ns = domain::to_ns(*filter.started_before);
  q.before = filter.before;
  q.limit = filter.limit;
  return q;
}

domain::history_page to_history_page(const storage::list_page& page) {
  auto at = [](std::int64_t ns) {
    return domain::wall_time{std::chrono::duration_cast<
      domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
  };
  domain::history_page out;
  out.more = page.more;
  out.rows.reserve(page.rows.size());
  for (const auto& r : page.rows) {
    domain::history_row row;
    row.session_id = r.session_id;
    row.milestone_id = r.milestone_id;
    row.milestone_name = r.milestone_name;
    row.status = r.state == storage::session_state::open
                   ? domain::history_status::active
                 : r.state == storage::session_state::ended
                   ? domain::history_status::ended
                   : domain::history_status::expired;
    row.start = at(r.started_wall_ns);
    if (r.closed_wall_ns)
      row.end = at(*r.closed_wall_ns);
    row.tags = r.tags;
    row.tasks_done = r.tasks_done;
    row.tasks_total = r.tasks_total;
    out.rows.push_back(std::move(row));
  }
  return out;
}

} // namespace ttm::journal
