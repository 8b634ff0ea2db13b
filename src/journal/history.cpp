#include "journal/history.hpp"

#include "journal/principal.hpp"
#include "storage/runs.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <variant>


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
  q.with_runs = filter.runs;
  q.digests = filter.digests;
  q.tracking = filter.kind != domain::history_kind::focus;
  q.focus = filter.kind != domain::history_kind::tracking;
  q.focus_id = filter.focus_id;
  return q;
}

namespace {

domain::wall_time at(std::int64_t ns) {
  return domain::wall_time{std::chrono::duration_cast<
    domain::wall_time::duration>(std::chrono::nanoseconds{ns})};
}

domain::run_status run_status_of(storage::run_end e) {
  switch (e) {
    case storage::run_end::completed: return domain::run_status::completed;
    case storage::run_end::skipped: return domain::run_status::skipped;
    case storage::run_end::failed: return domain::run_status::failed;
    case storage::run_end::interrupted:
      return domain::run_status::interrupted;
    case storage::run_end::in_progress: break;
  }
  return domain::run_status::in_progress;
}

/// The page's task ids, each once: a run's id is looked up first at the
/// same place in the session before (sessions of one plan run their tasks
/// in the same order), then in a hash of the ids (its own copies: a page
/// read as it arrives hands on runs whose bytes do not outlive the call).
class task_interner {
public:
  explicit task_interner(std::vector<std::string>& ids) : ids_{ids} {}
  std::uint32_t index(std::size_t place, std::string_view id) {
    if (place < hint_.size() && same(ids_[hint_[place]], id))
      return hint_[place];
    auto [it, added] = known_.try_emplace(
      std::string{id}, static_cast<std::uint32_t>(ids_.size()));
    if (added)
      ids_.emplace_back(id);
    if (place >= hint_.size())
      hint_.resize(place + 1);
    hint_[place] = it->second;
    return it->second;
  }

private:
  /// Equality inline: ids are short, and a call to memcmp per run was a
  /// twentieth of a month's statistics.
  static bool same(const std::string& a, std::string_view b) {
    if (a.size() != b.size())
      return false;
    for (std::size_t i = 0; i < b.size(); ++i)
      if (a[i] != b[i])
        return false;
    return true;
  }
  std::vector<std::string>& ids_;
  std::unordered_map<std::string, std::uint32_t> known_;
  std::vector<std::uint32_t> hint_;
};

/// A session's packed runs as the domain's; a run still in progress lasts
/// until `now`. False if the packing is damaged (a store hands closed
/// sessions' on unchecked).
bool spans_of(std::string_view packed, domain::wall_time now,
              task_interner& tasks, std::vector<domain::run_span>& out) {
  using ms = std::chrono::milliseconds;
  storage::runs_reader in{packed};
  if (in.ok())
    out.reserve(static_cast<std::size_t>(in.size()));
  storage::run_view r;
  std::size_t place = 0;
  while (in.next(r)) {
    domain::run_span span;
    span.task = tasks.index(place++, r.task_id);
    span.start = at(r.start_wall_ns);
    span.status = run_status_of(r.status);
    if (r.status != storage::run_end::in_progress) {
      span.end = at(r.end_wall_ns);
      span.duration = std::chrono::duration_cast<ms>(
        std::chrono::nanoseconds{r.duration_ns});
    } else {
      // Its active time when stored, and since then unless paused.
      span.end = now;
      auto ran = std::chrono::nanoseconds{r.duration_ns};
      if (r.running)
        ran += std::max(now - at(r.as_of_wall_ns),
                        domain::wall_time::duration{0});
      span.duration = std::chrono::duration_cast<ms>(ran);
    }
    out.push_back(span);
  }
  return in.ok();
}

/// A digest as the domain's, in one walk: false if it is damaged (a store
/// hands them on unchecked with the closed sessions' packings).
bool digest_of(std::string_view bytes, domain::session_runs& out) {
  using ms = std::chrono::milliseconds;
  storage::digest_reader in{bytes};
  if (!in.ok())
    return false;
  const auto& d = in.counts();
  auto& o = out.digest.emplace();
  o.runs = static_cast<std::int64_t>(d.runs);
  o.tasks = static_cast<std::int64_t>(d.tasks);
  o.task_time = ms{d.task_time_ms};
  o.busy = ms{d.busy_ms};
  o.completed = static_cast<std::int64_t>(d.completed);
  o.skipped = static_cast<std::int64_t>(d.skipped);
  o.failed = static_cast<std::int64_t>(d.failed);
  o.interrupted = static_cast<std::int64_t>(d.interrupted);
  o.ended.reserve(static_cast<std::size_t>(d.runs));
  std::int64_t v = 0;
  while (in.next(v))
    o.ended.push_back(ms{v});
  return in.ok();
}

} // namespace

std::vector<domain::focus_row>
to_focus_rows(const std::vector<storage::focus_record>& records);

struct history_builder::impl {
  impl(domain::wall_time at, bool with_runs)
      : now{at}, runs{with_runs}, tasks{out.task_ids} {
  }
  domain::wall_time now;
  bool runs;
  domain::history_page out;
  task_interner tasks;
  std::size_t done = 0; ///< rows taken
  bool damaged = false;
};

history_builder::history_builder(domain::wall_time now, bool with_runs)
    : impl_{std::make_unique<impl>(now, with_runs)} {
}

history_builder::~history_builder() = default;

void history_builder::take(storage::list_page& page, std::size_t upto) {
  auto& b = *impl_;
  auto& out = b.out;
  upto = std::min(upto, page.rows.size());
  if (upto <= b.done)
    return;
  out.rows.reserve(upto);
  if (b.runs)
    out.runs.reserve(upto);
  // The rows handed on are ours: their strings move into the domain's
  // (copied once more only into the statistics' sessions).
  for (auto i = b.done; i < upto; ++i) {
    auto& r = page.rows[i];
    domain::history_row row;
    row.status = r.state == storage::session_state::open
                   ? domain::history_status::active
                 : r.state == storage::session_state::ended
                   ? domain::history_status::ended
                   : domain::history_status::expired;
    row.start = at(r.started_wall_ns);
    if (r.closed_wall_ns)
      row.end = at(*r.closed_wall_ns);
    row.tasks_done = r.tasks_done;
    row.tasks_total = r.tasks_total;
    if (b.runs) {
      domain::session_runs sr;
      sr.session_id = r.session_id;
      sr.milestone_id = r.milestone_id;
      sr.tags = r.tags;
      sr.start = row.start;
      sr.end = row.end.value_or(b.now);
      auto packed = page.runs.packed(i);
      if (!(storage::is_digest(packed) ? digest_of(packed, sr)
                                       : spans_of(packed, b.now, b.tasks,
                                                  sr.runs)))
        b.damaged = true;
      out.runs.push_back(std::move(sr));
    }
    row.session_id = std::move(r.session_id);
    row.milestone_id = std::move(r.milestone_id);
    row.milestone_name = std::move(r.milestone_name);
    row.tags = std::move(r.tags);
    out.rows.push_back(std::move(row));
  }
  b.done = upto;
}

bool history_builder::damaged() const {
  return impl_->damaged;
}

domain::history_page history_builder::finish(storage::list_page& page) {
  take(page, page.rows.size());
  auto& out = impl_->out;
  out.more = page.more;
  out.focus = to_focus_rows(page.focus);
  out.focus_more = page.focus_more;
  return std::move(out);
}

history_read read_history(storage::store& store,
                          const storage::list_query& q,
                          domain::wall_time now) {
  history_read out;
  history_builder page{now, q.with_runs};
  bool streamed = false;
  auto r = store.list(q, [&](storage::list_page& p, std::size_t upto) {
    streamed = true;
    if (!page.damaged())
      page.take(p, upto);
  });
  if (streamed && page.damaged()
      && !std::holds_alternative<storage::error>(r)) {
    // Rare (a damaged journal): the store checks each packing of a page it
    // hands on whole.
    out.reread = true;
    streamed = false;
    r = store.list(q);
  }
  if (auto* err = std::get_if<storage::error>(&r)) {
    out.error = std::move(*err);
    return out;
  }
  auto& got = std::get<storage::list_page>(r);
  if (streamed)
    out.page = page.finish(got);
  else
    out.whole = std::move(got);
  return out;
}

domain::history_page to_history_page(storage::list_page page,
                                     domain::wall_time now) {
  history_builder b{now, !page.runs.empty()};
  return b.finish(page);
}

std::vector<domain::focus_row>
to_focus_rows(const std::vector<storage::focus_record>& records) {
  std::vector<domain::focus_row> out;
  out.reserve(records.size());
  for (const auto& f : records)
    out.push_back(from_store(f));
  return out;
}

} // namespace ttm::journal
