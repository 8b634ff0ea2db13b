#include "storage/runs.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <stdexcept>
#include <utility>

namespace ttm::storage {

namespace {

run_end run_end_of(const std::string& status) {
  if (status == "skipped")
    return run_end::skipped;
  if (status == "failed")
    return run_end::failed;
  return run_end::completed;
}

// 1: every run ended (a closed session), read still, no longer written.
// 2: an open session's, whose runs in progress carry their active time so
// far (pauses): a reader that knows only 1 pairs the events instead.
// 4: every run ended, each run's start its distance from the run before's
// end and its active time its distance from its span: ~12 bytes a run where
// 1 took ~22 (tasks run back to back, mostly unpaused), so half the bytes
// a month's statistics read and send.
constexpr char packing_version = 1;
constexpr char packing_version_open = 2;
constexpr char packing_version_closed = 4;
// 3: a digest (runs_digest), in its own column: never a packing.
constexpr char digest_version = 3;
static_assert(closed_packing_versions[0] == packing_version
              && closed_packing_versions[1] == packing_version_closed);

/// Sums and differences of nanoseconds that wrap: a damaged packing reads
/// as wrong numbers (refused where they cannot be), never as undefined
/// behaviour, and any runs pack and read back exactly.
inline std::int64_t plus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a)
                                   + static_cast<std::uint64_t>(b));
}

inline std::int64_t minus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a)
                                   - static_cast<std::uint64_t>(b));
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

/// Signed values as zigzag varints: small magnitudes stay short.
void put_signed(std::string& out, std::int64_t v) {
  put_varint(out, (static_cast<std::uint64_t>(v) << 1)
                    ^ static_cast<std::uint64_t>(v >> 63));
}

struct reader {
  std::string_view in;
  bool ok = true;

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in.empty())
        break;
      auto byte = static_cast<unsigned char>(in.front());
      in.remove_prefix(1);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return v;
    }
    ok = false;
    return 0;
  }
  std::int64_t signed_varint() {
    auto v = varint();
    return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  unsigned byte() {
    if (in.empty()) {
      ok = false;
      return 0;
    }
    auto b = static_cast<unsigned char>(in.front());
    in.remove_prefix(1);
    return b;
  }
  std::string_view bytes(std::size_t n) {
    if (n > in.size()) {
      ok = false;
      return {};
    }
    auto out = in.substr(0, n);
    in.remove_prefix(n);
    return out;
  }
};

} // namespace

std::vector<stored_run> pair_runs(const std::vector<run_event>& events) {
  std::vector<stored_run> out;
  // The open run of each task (a task runs once at a time).
  std::map<std::string, std::pair<stamp, std::size_t>, std::less<>> open;
  auto close = [&](decltype(open)::iterator it, const stamp& end,
                   run_end status) {
    const auto& [begin, index] = it->second;
    auto& run = out[index];
    run.end_wall_ns = end.wall_ns;
    run.status = status;
    auto ns = begin.boot_id == end.boot_id ? end.mono_ns - begin.mono_ns
                                           : end.wall_ns - begin.wall_ns;
    run.duration_ns = std::max<std::int64_t>(ns, 0);
    open.erase(it);
  };
  for (const auto& ev : events) {
    switch (ev.kind) {
      case event_kind::task_started: {
        stored_run run;
        run.task_id = ev.task_id;
        run.start_wall_ns = ev.at.wall_ns;
        run.as_of_wall_ns = ev.at.wall_ns;
        out.push_back(std::move(run));
        open.insert_or_assign(ev.task_id,
                              std::make_pair(ev.at, out.size() - 1));
        break;
      }
      case event_kind::task_ended:
        if (auto it = open.find(ev.task_id); it != open.end())
          close(it, ev.at, run_end_of(ev.status));
        break;
      case event_kind::session_ended:
      case event_kind::session_expired:
        while (!open.empty())
          close(open.begin(), ev.at, run_end::interrupted);
        break;
      case event_kind::session_started:
      case event_kind::change_undone:
      case event_kind::tasks_edited: // read as its starts and ends
        break;
    }
  }
  return out;
}

std::string pack_runs(const std::vector<stored_run>& runs,
                      std::optional<std::int64_t> epoch) {
  bool open = epoch || std::any_of(runs.begin(), runs.end(), [](const auto& r) {
    return r.status == run_end::in_progress;
  });
  std::string out;
  out.reserve(12 + runs.size() * (open ? 24 : 14));
  out.push_back(open ? packing_version_open : packing_version_closed);
  if (open)
    put_varint(out, static_cast<std::uint64_t>(epoch.value_or(0)));
  put_varint(out, runs.size());
  std::int64_t previous = 0;
  for (const auto& r : runs) {
    put_varint(out, r.task_id.size());
    out += r.task_id;
    if (!open) {
      // Closed: the start from the run before's end (back to back: 0),
      // the span, the active time's distance from it (unpaused: a few ns).
      auto end = r.end_wall_ns.value_or(r.start_wall_ns);
      out.push_back(static_cast<char>(r.status));
      put_signed(out, minus(r.start_wall_ns, previous));
      put_signed(out, minus(end, r.start_wall_ns));
      put_signed(out, minus(minus(end, r.start_wall_ns), r.duration_ns));
      previous = end;
      continue;
    }
    // Runs come in start order: the distance from the previous start is
    // short.
    put_signed(out, minus(r.start_wall_ns, previous));
    previous = r.start_wall_ns;
    out.push_back(static_cast<char>(r.status));
    if (r.status != run_end::in_progress) {
      put_signed(out, minus(r.end_wall_ns.value_or(r.start_wall_ns),
                            r.start_wall_ns));
      put_varint(out, static_cast<std::uint64_t>(r.duration_ns));
    } else {
      put_signed(out, minus(r.as_of_wall_ns, r.start_wall_ns));
      put_varint(out, static_cast<std::uint64_t>(r.duration_ns));
      out.push_back(r.running ? 1 : 0);
    }
  }
  return out;
}

runs_reader::runs_reader(std::string_view packed) : in_{packed} {
  reader in{in_};
  auto version = in.byte();
  if (!in.ok
      || (version != static_cast<unsigned>(packing_version)
          && version != static_cast<unsigned>(packing_version_open)
          && version != static_cast<unsigned>(packing_version_closed))) {
    ok_ = false;
    return;
  }
  open_ = version == static_cast<unsigned>(packing_version_open);
  compact_ = version == static_cast<unsigned>(packing_version_closed);
  if (open_)
    in.varint(); // the epoch: packed_epoch
  n_ = in.varint();
  // Each run takes at least 4 bytes: a count beyond that is damage.
  ok_ = in.ok && n_ <= packed.size() / 4;
  in_ = in.in;
  if (ok_ && n_ == 0)
    ok_ = in_.empty();
}

namespace {

/// A varint from [p, end): false if it runs past the end or beyond 64
/// bits (as `reader::varint`, on raw bytes: the statistics' hot loop).
inline bool varint_at(const unsigned char*& p, const unsigned char* end,
                      std::uint64_t& v) {
  if (p != end && *p < 0x80) { // most values here are one byte
    v = *p++;
    return true;
  }
  v = 0;
  for (int shift = 0; shift < 64 && p != end; shift += 7) {
    auto byte = *p++;
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return true;
  }
  return false;
}

inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

} // namespace

bool runs_reader::next(run_view& r) {
  if (!ok_ || read_ == n_)
    return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in_.data());
  const auto* end = p + in_.size();
  std::uint64_t v = 0;
  bool ok = varint_at(p, end, v) && v <= static_cast<std::uint64_t>(end - p);
  if (ok) {
    r.task_id = std::string_view{reinterpret_cast<const char*>(p),
                                 static_cast<std::size_t>(v)};
    p += v;
    if (compact_)
      return next_closed(r, p, end);
    ok = varint_at(p, end, v);
  }
  r.start_wall_ns = plus(previous_, unzigzag(v));
  r.as_of_wall_ns = r.start_wall_ns;
  r.running = true;
  r.duration_ns = 0;
  r.end_wall_ns = 0;
  previous_ = r.start_wall_ns;
  unsigned status = 0;
  if (ok && p != end)
    status = *p++;
  else
    ok = false;
  if (!ok || status > static_cast<unsigned>(run_end::interrupted)) {
    ok_ = false;
    return false;
  }
  r.status = static_cast<run_end>(status);
  if (r.status != run_end::in_progress) {
    ok = varint_at(p, end, v);
    r.end_wall_ns = plus(r.start_wall_ns, unzigzag(v));
    ok = ok && varint_at(p, end, v);
    r.duration_ns = static_cast<std::int64_t>(v);
    ok = ok && r.duration_ns >= 0; // beyond int64: damage
  } else if (open_) {
    ok = varint_at(p, end, v);
    r.as_of_wall_ns = plus(r.start_wall_ns, unzigzag(v));
    ok = ok && varint_at(p, end, v);
    r.duration_ns = static_cast<std::int64_t>(v);
    ok = ok && r.duration_ns >= 0;
    if (ok && p != end)
      r.running = *p++ != 0;
    else
      ok = false;
  }
  return advance(p, ok);
}

bool runs_reader::advance(const unsigned char* p, bool ok) {
  in_.remove_prefix(static_cast<std::size_t>(
    p - reinterpret_cast<const unsigned char*>(in_.data())));
  // The last run leaves nothing over.
  ok_ = ok && (++read_ < n_ || in_.empty());
  return ok_;
}

bool runs_reader::next_closed(run_view& r, const unsigned char* p,
                              const unsigned char* end) {
  // Version 4 after the task id: status, start from the run before's end,
  // span, span less active time.
  std::uint64_t start = 0, span = 0, paused = 0;
  unsigned status = p != end ? *p++ : 0; // 0 (in progress): damage
  bool ok = status >= static_cast<unsigned>(run_end::completed)
            && status <= static_cast<unsigned>(run_end::interrupted)
            && varint_at(p, end, start) && varint_at(p, end, span)
            && varint_at(p, end, paused);
  r.status = static_cast<run_end>(status);
  r.start_wall_ns = plus(previous_, unzigzag(start));
  r.end_wall_ns = plus(r.start_wall_ns, unzigzag(span));
  r.duration_ns = minus(unzigzag(span), unzigzag(paused));
  ok = ok && r.duration_ns >= 0; // a negative active time: damage
  r.as_of_wall_ns = r.start_wall_ns;
  r.running = true;
  previous_ = r.end_wall_ns;
  return advance(p, ok);
}

std::optional<std::vector<stored_run>> unpack_runs(std::string_view packed) {
  runs_reader in{packed};
  // Each run written once as it is read (a vector of n default runs
  // first was half of this function's time: zeroing a month's 22 MB).
  std::vector<stored_run> out;
  if (in.ok())
    out.reserve(static_cast<std::size_t>(in.size()));
  run_view v;
  while (in.next(v)) {
    auto& r = out.emplace_back();
    r.task_id = v.task_id;
    r.start_wall_ns = v.start_wall_ns;
    r.status = v.status;
    if (v.status != run_end::in_progress)
      r.end_wall_ns = v.end_wall_ns;
    r.duration_ns = v.duration_ns;
    r.as_of_wall_ns = v.as_of_wall_ns;
    r.running = v.running;
  }
  if (!in.ok())
    return std::nullopt;
  return out;
}

bool runs_unpack(std::string_view packed) {
  runs_reader in{packed};
  run_view v;
  while (in.next(v)) {
  }
  return in.ok();
}

std::vector<stored_run> packed_runs_list::operator[](std::size_t i) const {
  return unpack_runs(packed(i)).value_or(std::vector<stored_run>{});
}

std::vector<stored_run> packed_runs_list::at(std::size_t i) const {
  if (i >= size())
    throw std::out_of_range("packed_runs_list::at");
  return (*this)[i];
}

std::optional<std::int64_t> packed_epoch(std::string_view packed) {
  reader in{packed};
  if (in.byte() != static_cast<unsigned>(packing_version_open))
    return std::nullopt;
  auto epoch = in.varint();
  if (!in.ok)
    return std::nullopt;
  return static_cast<std::int64_t>(epoch);
}

void close_runs(std::vector<stored_run>& runs, std::int64_t at_wall_ns) {
  for (auto& r : runs) {
    if (r.status != run_end::in_progress)
      continue;
    if (r.running)
      r.duration_ns += std::max<std::int64_t>(at_wall_ns - r.as_of_wall_ns, 0);
    r.end_wall_ns = std::max(at_wall_ns, r.start_wall_ns);
    r.status = run_end::interrupted;
  }
}

std::optional<std::string> digest_of_packed(std::string_view packed) {
  runs_reader in{packed};
  if (!is_closed_packing(packed) || !in.ok())
    return std::nullopt;
  runs_digest d;
  std::vector<std::string_view> tasks;
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  run_view r;
  while (in.next(r)) {
    ++d.runs;
    const auto ms = r.duration_ns / 1'000'000; // truncated, as duration_cast
    d.task_time_ms = plus(d.task_time_ms, ms);
    d.ended_ms.push_back(ms);
    switch (r.status) {
      case run_end::completed: ++d.completed; break;
      case run_end::skipped: ++d.skipped; break;
      case run_end::failed: ++d.failed; break;
      case run_end::interrupted: ++d.interrupted; break;
      case run_end::in_progress: return std::nullopt; // not closed
    }
    tasks.push_back(r.task_id);
    spans.emplace_back(r.start_wall_ns, r.end_wall_ns);
  }
  if (!in.ok())
    return std::nullopt;
  std::sort(tasks.begin(), tasks.end());
  d.tasks = static_cast<std::uint64_t>(
    std::unique(tasks.begin(), tasks.end()) - tasks.begin());
  // Busy time: the union of the spans, each merged span truncated to
  // milliseconds (compute_stats' union_of).
  std::stable_sort(spans.begin(), spans.end(), [](const auto& a,
                                                  const auto& b) {
    return a.first < b.first;
  });
  std::optional<std::pair<std::int64_t, std::int64_t>> cur;
  for (const auto& [start, end] : spans) {
    if (cur && start <= cur->second) {
      cur->second = std::max(cur->second, end);
      continue;
    }
    if (cur)
      d.busy_ms = plus(d.busy_ms, minus(cur->second, cur->first) / 1'000'000);
    cur = std::make_pair(start, end);
  }
  if (cur)
    d.busy_ms = plus(d.busy_ms, minus(cur->second, cur->first) / 1'000'000);
  std::sort(d.ended_ms.begin(), d.ended_ms.end());
  std::string out;
  out.reserve(16 + d.ended_ms.size() * 3);
  out.push_back(digest_version);
  for (auto v : {d.runs, d.tasks})
    put_varint(out, v);
  put_signed(out, d.task_time_ms);
  put_signed(out, d.busy_ms);
  for (auto v : {d.completed, d.skipped, d.failed, d.interrupted})
    put_varint(out, v);
  // Ascending: the first value, then each one's distance from the one
  // before (mostly a byte).
  std::int64_t previous = 0;
  for (std::size_t i = 0; i < d.ended_ms.size(); ++i) {
    if (i == 0)
      put_signed(out, d.ended_ms[i]);
    else
      put_varint(out,
                 static_cast<std::uint64_t>(minus(d.ended_ms[i], previous)));
    previous = d.ended_ms[i];
  }
  return out;
}

bool is_closed_packing(std::string_view packed) {
  return !packed.empty()
         && std::find(std::begin(closed_packing_versions),
                      std::end(closed_packing_versions),
                      static_cast<unsigned char>(packed[0]))
              != std::end(closed_packing_versions);
}

bool is_digest(std::string_view bytes) {
  return !bytes.empty() && bytes[0] == digest_version;
}

digest_reader::digest_reader(std::string_view bytes) {
  if (!is_digest(bytes)) {
    ok_ = false;
    return;
  }
  p_ = reinterpret_cast<const unsigned char*>(bytes.data()) + 1;
  end_ = reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size();
  std::uint64_t v[8];
  for (auto& x : v)
    if (!varint_at(p_, end_, x)) {
      ok_ = false;
      return;
    }
  auto& c = counts_;
  c.runs = v[0];
  c.tasks = v[1];
  c.task_time_ms = unzigzag(v[2]);
  c.busy_ms = unzigzag(v[3]);
  c.completed = v[4];
  c.skipped = v[5];
  c.failed = v[6];
  c.interrupted = v[7];
  // Every run ended, and each duration takes at least a byte.
  ok_ = c.completed + c.skipped + c.failed + c.interrupted == c.runs
        && c.runs <= static_cast<std::uint64_t>(end_ - p_);
  if (ok_ && c.runs == 0)
    ok_ = p_ == end_;
}

bool digest_reader::next(std::int64_t& ended_ms) {
  if (!ok_ || read_ == counts_.runs)
    return false;
  std::uint64_t x = 0;
  if (!varint_at(p_, end_, x)) {
    ok_ = false;
    return false;
  }
  // The first value, then each one's distance from the one before.
  previous_ = read_ == 0 ? unzigzag(x)
                         : plus(previous_, static_cast<std::int64_t>(x));
  ended_ms = previous_;
  if (++read_ == counts_.runs && p_ != end_)
    ok_ = false; // bytes left over
  return ok_;
}

bool digest_reads(std::string_view bytes) {
  digest_reader in{bytes};
  std::int64_t ms = 0;
  while (in.next(ms)) {
  }
  return in.ok();
}

bool read_digest(std::string_view bytes, runs_digest& out) {
  digest_reader in{bytes};
  if (!in.ok())
    return false;
  out = in.counts();
  out.ended_ms.reserve(static_cast<std::size_t>(out.runs));
  std::int64_t ms = 0;
  while (in.next(ms))
    out.ended_ms.push_back(ms);
  return in.ok();
}

} // namespace ttm::storage
