#include "domain/zone_footer.hpp"

#include "domain/tzdata_files.hpp"

#include <date/tz.h>

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

namespace ttm::domain {

namespace {

using std::chrono::seconds;

struct footer {
  posix_tz rule;
  sys_seconds last_listed; ///< the file's last transition
};

// The TZif footer: the file's last line ("\nEST5EDT,M3.2.0,M11.1.0\n").
std::optional<footer> read_footer(const date::time_zone* tz) {
  std::ifstream in(zoneinfo_dir() + "/" + std::string(tz->name()),
                   std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  if (bytes.size() < 2 || bytes.back() != '\n')
    return std::nullopt;
  auto begin = bytes.rfind('\n', bytes.size() - 2);
  if (begin == std::string::npos)
    return std::nullopt;
  auto rule = parse_posix_tz(
    std::string_view(bytes).substr(begin + 1, bytes.size() - begin - 2));
  if (!rule)
    return std::nullopt;
  // date/tz's last interval starts at the last listed transition and runs
  // to the year 32767.
  auto last = tz->get_info(sys_seconds{date::sys_days{date::year{9999} / 1 / 1}});
  return footer{std::move(*rule), last.begin};
}

// Read once per zone; shared by every thread (a zone file never changes
// while the server runs).
const footer* footer_of(const date::time_zone* tz) {
  static std::mutex m;
  static std::map<const date::time_zone*, std::unique_ptr<footer>> cache;
  std::lock_guard<std::mutex> lock(m);
  auto [it, inserted] = cache.try_emplace(tz);
  if (inserted)
    if (auto f = read_footer(tz))
      it->second = std::make_unique<footer>(std::move(*f));
  return it->second.get();
}

} // namespace

std::optional<footer_state> footer_state_at(const date::time_zone* tz,
                                            sys_seconds t) {
  // Zone files list transitions up to 2037: nothing to do before.
  static const sys_seconds horizon{date::sys_days{date::year{2037} / 1 / 1}};
  if (t < horizon)
    return std::nullopt;
  const auto* f = footer_of(tz);
  if (f == nullptr || t < f->last_listed)
    return std::nullopt;
  const auto& p = posix_part_at(f->rule, t);
  return footer_state{p.utc_offset, &p == &f->rule.daylight, p.abbreviation};
}

std::optional<footer_resolution>
footer_resolve(const date::time_zone* tz, seconds local) {
  static const seconds horizon{
    date::sys_days{date::year{2037} / 1 / 1}.time_since_epoch()};
  if (local < horizon)
    return std::nullopt;
  const auto* f = footer_of(tz);
  if (f == nullptr)
    return std::nullopt;
  const auto& r = f->rule;
  auto a = r.standard.utc_offset;
  auto b = r.daylight.utc_offset;
  sys_seconds at_a{local - a}, at_b{local - b};
  if (std::min(at_a, at_b) < f->last_listed)
    return std::nullopt; // date/tz's listed transitions still decide
  // The local time is real with an offset when that offset is in effect at
  // the instant it names.
  bool a_ok = posix_part_at(r, at_a).utc_offset == a;
  bool b_ok = posix_part_at(r, at_b).utc_offset == b;
  footer_resolution out;
  if (a_ok != b_ok || a == b) {
    out.offset_before = out.offset_after = a_ok ? a : b;
    return out;
  }
  // A gap or an overlap: the change between the two candidate instants.
  auto lo = std::min(at_a, at_b), hi = std::max(at_a, at_b);
  auto year = static_cast<int>(
    date::year_month_day{date::floor<date::days>(lo)}.year());
  sys_seconds change = lo;
  for (int y = year - 1; y <= year + 1; ++y) {
    auto [start, end] = posix_changes(r, y);
    for (auto c : {start, end})
      if (lo < c && c <= hi)
        change = c;
  }
  out.kind = a_ok ? footer_resolution::ambiguous
                  : footer_resolution::nonexistent;
  out.transition = change;
  out.offset_before = posix_part_at(r, change - seconds{1}).utc_offset;
  out.offset_after = posix_part_at(r, change).utc_offset;
  return out;
}

} // namespace ttm::domain
