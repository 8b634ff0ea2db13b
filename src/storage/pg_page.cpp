// A PostgreSQL tracking page read from its statements' results (pg_list.cpp
// makes them): a list's one result, or statistics' one per time window,
// newest first, each read as it arrives while the server works on the
// next. Columns as pg_list.cpp's runs_statement and list_statement give
// them.

#include "storage/pg_store_impl.hpp"

#include "storage/runs.hpp"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>

namespace ttm::storage::detail {

namespace {

/// A session's tags (a JSON array of strings) read by events, not into a
/// document: a document per row cost a 64 KB pool per row of a month's
/// 5,000. Its strings at the top level, in order; none if it is not an
/// array or does not parse.
class tags_reader
    : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, tags_reader> {
public:
  explicit tags_reader(std::vector<std::string>& out) : out_{out} {
  }
  bool Default() {
    return depth_ > 0; // a value other than the array: not tags
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (depth_ == 0)
      return false;
    if (depth_ == 1)
      out_.emplace_back(s, n);
    return true;
  }
  bool StartObject() {
    return nest();
  }
  bool EndObject(rapidjson::SizeType) {
    --depth_;
    return true;
  }
  bool StartArray() {
    ++depth_;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return true;
  }

private:
  bool nest() {
    if (depth_ == 0)
      return false;
    ++depth_;
    return true;
  }
  std::vector<std::string>& out_;
  int depth_ = 0;
};

std::vector<std::string> tags_of(std::string_view json) {
  std::vector<std::string> out;
  tags_reader handler{out};
  rapidjson::Reader reader;
  rapidjson::MemoryStream in{json.data(), json.size()};
  if (!reader.Parse(in, handler))
    out.clear();
  return out;
}

stored_event_row event_of(const pg_row& row, int first) {
  stored_event_row e;
  e.seq = row.int64(first);
  e.kind = row.text(first + 1);
  e.task_id = row.null(first + 2) ? "" : row.text(first + 2);
  e.at = {row.int64(first + 3), row.int64(first + 4), row.text(first + 5)};
  e.payload = row.text(first + 6);
  e.undone = row.boolean(first + 7);
  return e;
}

} // namespace

pg_page_reader::pg_page_reader(const list_query& q, std::int64_t limit,
                               std::string where, const list_sink& sink,
                               list_page& out)
    : q_{q}, limit_{limit}, where_{std::move(where)}, sink_{sink}, out_{out} {
}

std::optional<error> pg_page_reader::add(pg_res res) {
  const PGresult* r = res.get();
  results_.push_back(std::shared_ptr<const PGresult>{std::move(res)});
  // Part 0: the rows, in page order (a list's by rn; statistics' as they
  // come: newest first within a window, windows newest first). Part 1:
  // events, by session.
  std::vector<std::pair<std::int64_t, int>> rows;
  for (int i = 0; i < PQntuples(r); ++i) {
    pg_row row{r, i};
    if (row.int64(0) != 0)
      events_[row.int64(2)].push_back({row.int64(15), r, i});
    else
      rows.emplace_back(q_.with_runs ? 0 : row.int64(1), i);
  }
  if (!q_.with_runs)
    std::sort(rows.begin(), rows.end());
  for (const auto& [rn, i] : rows) {
    if (static_cast<std::int64_t>(out_.rows.size()) == limit_) {
      out_.more = true;
      break;
    }
    pg_row row{r, i};
    session_row s;
    s.session_id = row.text(3);
    s.milestone_id = row.text(4);
    if (!row.null(5))
      s.milestone_name = row.text(5);
    auto st = session_state_from(row.text(6));
    if (!st)
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + s.session_id.substr(0, 8)
                                     + "... has unknown state '"
                                     + row.text(6) + "'"};
    s.state = *st;
    s.started_wall_ns = row.int64(7);
    if (!row.null(8))
      s.closed_wall_ns = row.int64(8);
    s.tags = tags_of(row.view(9));
    s.tasks_total = row.int64(10);
    s.principal = row.text(13);
    auto sid = row.int64(2);
    sids_.push_back(sid);
    std::optional<kept_runs> runs;
    if (q_.with_runs) {
      if (!row.null(11)) {
        // Binary format (runs_statement): the bytes in the result, which
        // the page holds with them.
        const bool binary = PQfformat(r, 11) == 1;
        std::string_view packed = binary
                                    ? row.view(11)
                                    : unescaped_.emplace_back(row.bytes(11));
        const kept_runs as_read{
          packed, binary ? static_cast<int>(results_.size()) - 1 : -1};
        // A closed session's packing or digest (both need no events).
        const bool closed = is_closed_packing(packed) || is_digest(packed);
        auto at = packed_epoch(packed);
        // A closed one goes to a sink unchecked: it reads each in one walk
        // as it converts it (a walk here too was a twelfth of a month's
        // statistics), and reads the page again without a sink if one is
        // damaged.
        if (sink_ && closed)
          runs = as_read;
        else if (is_digest(packed) ? digest_reads(packed)
                                   : (!at || *at == row.int64(12))
                                       && runs_unpack(packed))
          runs = as_read;
        // Packed closed yet damaged: its events were not read with it.
        if (!runs && closed)
          damaged_[sid];
      }
    } else {
      s.tasks_done = row.int64(14);
    }
    kept_.push_back(runs);
    out_.rows.push_back(std::move(s));
  }
  return hand_on();
}

std::optional<error> pg_page_reader::hand_on() {
  // Rows in page order, each once its runs are known: as packed, else
  // paired from its events (a damaged packing's wait for finish).
  if (!q_.with_runs)
    ready_ = out_.rows.size();
  for (; ready_ < out_.rows.size(); ++ready_) {
    const auto i = ready_;
    if (const auto& k = kept_[i]) {
      if (k->result >= 0) // not copied: the page holds the result
        out_.runs.add_held(k->packed,
                           results_[static_cast<std::size_t>(k->result)]);
      else
        out_.runs.add(k->packed);
      continue;
    }
    std::vector<stored_event_row> read;
    if (auto d = damaged_.find(sids_[i]); d != damaged_.end()) {
      if (!damage_read_)
        break;
      read = std::move(d->second);
    } else if (auto e = events_.find(sids_[i]); e != events_.end()) {
      auto& refs = e->second;
      std::sort(refs.begin(), refs.end(), [](const auto& a, const auto& b) {
        return a.seq < b.seq;
      });
      for (const auto& ref : refs)
        read.push_back(event_of(pg_row{ref.result, ref.row}, 15));
    }
    std::vector<run_event> evs;
    std::string bad_kind;
    if (!run_events_of(read, evs, bad_kind))
      return error{error_kind::io, "journal " + where_ + ": session "
                                     + out_.rows[i].session_id.substr(0, 8)
                                     + "... has an event of unknown"
                                       " kind '"
                                     + bad_kind + "'"};
    out_.runs.add(pack_runs(pair_runs(evs)));
  }
  if (sink_ && ready_ > handed_) {
    handed_ = ready_;
    sink_(out_, handed_);
  }
  return std::nullopt;
}

std::optional<error> pg_page_reader::finish(pg_conn& conn) {
  static const std::string what = "cannot list the sessions in";
  if (!damaged_.empty()) {
    // Damage only (a closed session's runs that do not unpack): their
    // events in a read of their own.
    std::vector<std::int64_t> sids;
    for (const auto& [sid, none] : damaged_)
      sids.push_back(sid);
    auto ev = conn.exec(
      "SELECT sid, seq, kind, task_id, wall_ns, mono_ns, boot_id,"
      " payload, undone_by IS NOT NULL FROM events"
      " WHERE sid = ANY($1::bigint[]) AND kind NOT IN"
      " ('session_started', 'change_undone') ORDER BY sid, seq",
      pg_params{}.add_int_array(sids), what);
    if (auto* err = std::get_if<error>(&ev))
      return std::move(*err);
    const auto& er = std::get<pg_res>(ev);
    for (int i = 0; i < rows_of(er); ++i) {
      pg_row row{er.get(), i};
      damaged_[row.int64(0)].push_back(event_of(row, 1));
    }
  }
  damage_read_ = true;
  return hand_on();
}

} // namespace ttm::storage::detail
